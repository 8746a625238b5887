"""`cfngen validate` on module fragments: planted bugs named where they are.

Each row plants one construct a module may not contain (the registry's limits, what the user
guide forbids, what cfn-lint finds) into cfngen's example fragment, on a line marked `#>`; the
check must report an error with that pointer, those words, at that line. Good fragments (YAML
short forms, the forbidden words only inside strings or comments, private types) are accepted.
The official `cfn validate` is the oracle where it checks the rule at all: it rejects what
cfngen rejects, except for the documented differences (docs/module.md).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cfngen._cfn_template import decode
from cfngen._kinds.module import EXAMPLE_FRAGMENT
from cfngen._kinds.module import KIND as MODULE
from cfngen._validate import FileReport, validate_paths
from tests._cr_projects import STACK
from tests._cr_projects import TEMPLATE as CUSTOM_RESOURCE_TEMPLATE

BASE = EXAMPLE_FRAGMENT.read_text(encoding="utf-8")
MARK = "#>"


@pytest.fixture(autouse=True)
def _no_report_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Never read or write the user's ~/.cfngen report cache."""
    monkeypatch.setenv("CFNGEN_NO_CACHE", "1")


def plant(after: str, text: str) -> str:
    """The example with `text` (lines marked `#>` where the finding must be) after the line
    that starts with `after`."""
    lines = BASE.splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if line.startswith(after))
    return "".join(lines[: index + 1]) + text + "".join(lines[index + 1 :])


def marked_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if MARK in line)


def check(text: str, *, path: Path | None = None, strict: bool = False) -> FileReport:
    return MODULE.check_text(text, path=path, strict=strict)


def check_without_lint(text: str) -> FileReport:
    from cfngen._kinds.module import _checks

    template = decode(text).template
    assert template is not None
    return FileReport(path="<fragment>", diagnostics=_checks.check(template, text, root=None))


@dataclass(frozen=True)
class Case:
    name: str
    text: str
    pointer: str
    words: str
    #: Run cfn-lint too (the limit rows skip it: linting 500 resources takes seconds).
    lint: bool = True


RESOURCE = "Resources:\n"
CASES = [
    Case(
        "import-value-short",
        plant(
            "Resources:",
            "  Other:\n    Type: AWS::SNS::Topic\n    Properties:\n"
            "      TopicName: !ImportValue SharedName  #>\n",
        ),
        "/Resources/Other/Properties/TopicName/Fn::ImportValue",
        "Fn::ImportValue",
    ),
    Case(
        "import-value-deep",
        plant(
            "Resources:",
            "  Other:\n    Type: AWS::SNS::Topic\n    Properties:\n"
            "      Tags:\n        - Key: a\n          Value: !Join\n            - ''\n"
            "            - - {'Fn::ImportValue': x}  #>\n",
        ),
        "/Resources/Other/Properties/Tags/0/Value/Fn::Join/1/0/Fn::ImportValue",
        "Fn::ImportValue",
    ),
    Case(
        "export-in-outputs",
        plant("    Value: !GetAtt Bucket.Arn", "    Export:  #>\n      Name: shared-arn\n"),
        "/Outputs/BucketArn/Export",
        "cannot be exported",
    ),
    Case(
        "transform-section",
        "Transform: AWS::Serverless-2016-10-31  #>\n" + BASE,
        "/Transform",
        "transforms",
    ),
    Case(
        "fn-transform-nested",
        plant(
            "      BucketName: !Ref BucketName",
            "      Tags:\n        - Key: a\n          Value:\n"
            "            Fn::Transform:  #>\n              Name: AWS::Include\n"
            "              Parameters: {Location: s3://b/k}\n",
        ),
        "/Resources/Bucket/Properties/Tags/0/Value/Fn::Transform",
        "AWS::Include",
    ),
    Case(
        "nested-stack",
        plant(
            "Resources:",
            "  Nested:\n    Type: AWS::CloudFormation::Stack  #>\n"
            "    Properties:\n      TemplateURL: https://example.com/t.yaml\n",
        ),
        "/Resources/Nested/Type",
        "nested stack",
    ),
    Case(
        "stack-set",
        plant(
            "Resources:",
            "  Set:\n    Type: AWS::CloudFormation::StackSet  #>\n"
            "    Properties:\n      StackSetName: s\n      PermissionModel: SELF_MANAGED\n"
            "      TemplateURL: https://example.com/t.yaml\n",
        ),
        "/Resources/Set/Type",
        "stack set",
    ),
    Case(
        "macro",
        plant(
            "Resources:",
            "  Mac:\n    Type: AWS::CloudFormation::Macro  #>\n"
            "    Properties:\n      Name: m\n      FunctionName: f\n",
        ),
        "/Resources/Mac/Type",
        "macro",
    ),
    Case(
        "serverless-type",
        plant("Resources:", "  Fn:\n    Type: AWS::Serverless::Function  #>\n"),
        "/Resources/Fn/Type",
        "AWS::Serverless transform",
    ),
    Case(
        "unknown-aws-type",
        plant("Resources:", "  Q:\n    Type: AWS::SQS::Queu  #>\n"),
        "/Resources/Q/Type",
        "not a resource type",
    ),
    Case(
        "parameter-without-type",
        plant("Parameters:", "  Loose:  #>\n    Description: no type\n"),
        "/Parameters/Loose",
        "has no Type",
    ),
    Case(
        "resource-without-type",
        plant("Resources:", "  Typeless:  #>\n    Properties: {}\n"),
        "/Resources/Typeless",
        "has no Type",
    ),
    Case(
        "resources-null",
        "Description: x\nResources:  #>\n",
        "/Resources",
        "Resources is empty",
    ),
    Case(
        "resources-empty",
        "Description: x\nResources: {}  #>\n",
        "/Resources",
        "Resources is empty",
    ),
    Case(
        "no-resources",
        "Description: x  #>\nParameters:\n  A:\n    Type: String\n",
        "",
        "must have a Resources section",
    ),
    Case(
        "cfn-lint-error",
        BASE.replace("      BucketName: !Ref BucketName", "      BucketName: !Ref Nowhere  #>"),
        "/Resources/Bucket/Properties/BucketName/Ref",
        "cfn-lint E1020",
    ),
    Case(
        "too-many-outputs",
        BASE.replace("Outputs:\n", "Outputs:  #>\n")
        + "".join(f"  Out{i}:\n    Value: !Ref BucketName\n" for i in range(200)),
        "/Outputs",
        "at most 200",
        lint=False,
    ),
    Case(
        "too-many-resources",
        BASE.replace("Resources:\n", "Resources:  #>\n", 1).replace(
            "Outputs:\n",
            "".join(f"  T{i}:\n    Type: AWS::SNS::Topic\n" for i in range(500)) + "Outputs:\n",
        ),
        "/Resources",
        "at most 500",
        lint=False,
    ),
    Case(
        "too-many-mapping-keys",
        "Mappings:\n  Big:  #>\n" + "".join(f"    K{i}:\n      V: x\n" for i in range(201)) + BASE,
        "/Mappings/Big",
        "at most 200",
        lint=False,
    ),
    Case(
        "too-many-mappings",
        "Mappings:  #>\n" + "".join(f"  M{i}:\n    K:\n      V: x\n" for i in range(201)) + BASE,
        "/Mappings",
        "at most 200",
        lint=False,
    ),
    Case(
        "syntax-error",
        BASE.replace("    Type: AWS::S3::Bucket", "    Type: [AWS::S3::Bucket  #>"),
        "",
        "the fragment is not valid YAML",
    ),
    Case(
        "circular-conditions",
        BASE.replace(
            "Resources:\n",
            "Conditions:\n  A: !Not [!Condition B]  #>\n  B: !Not [!Condition A]\nResources:\n",
            1,
        ),
        "/Conditions/A",
        "conditions A -> B -> A refer to each other in a circle",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_planted_bug_is_named_at_its_line(case: Case) -> None:
    report = check(case.text) if case.lint else check_without_lint(case.text)
    errors = [d for d in report.diagnostics if d.severity == "error"]
    wanted = [d for d in errors if d.pointer == case.pointer and case.words in d.message]
    assert wanted, f"no error at {case.pointer!r} naming {case.words!r}: {errors}"
    line = marked_line(case.text)
    # A syntax error is reported where the parser notices it: at or after the planted line.
    assert wanted[0].line is not None
    assert wanted[0].line >= line if case.name == "syntax-error" else wanted[0].line == line
    assert not report.valid


def test_the_example_is_valid_with_nothing_to_say() -> None:
    report = check(BASE)
    assert report.diagnostics == []
    assert report.valid


GOOD = {
    # The forbidden words inside strings are text, not function calls.
    "words-in-strings": BASE.replace(
        "Description: The bucket's name",
        "Description: 'Never Fn::ImportValue it; !ImportValue is refused too'",
    ),
    "words-in-a-comment": "# We avoid Fn::ImportValue on purpose.\n" + BASE,
    "json-with-long-forms": json.dumps(
        {
            "Parameters": {"N": {"Type": "String", "Default": "x"}},
            "Conditions": {"C": {"Fn::Equals": [{"Ref": "N"}, "x"]}},
            "Resources": {
                "T": {
                    "Type": "AWS::SNS::Topic",
                    "Condition": "C",
                    "Properties": {"TopicName": {"Fn::Sub": "${N}-topic"}},
                }
            },
        },
        indent=2,
    ),
    "private-type": plant("Resources:", "  Widget:\n    Type: Acme::Private::Widget\n"),
    # YAML reads these as dates; CloudFormation as strings.
    "unquoted-dates": BASE.replace('"2010-09-09"', "2010-09-09").replace(
        "Default: Enabled", "Default: Enabled\n    ConstraintDescription: 2020-01-01"
    ),
}


@pytest.mark.parametrize("name", sorted(GOOD))
def test_good_fragments_are_accepted(name: str) -> None:
    report = check(GOOD[name])
    assert report.valid, report.diagnostics
    assert report.count("error") == 0


def test_words_in_strings_warn_about_the_official_tool() -> None:
    report = check(GOOD["words-in-strings"])
    assert [d.pointer for d in report.diagnostics] == ["/Parameters/BucketName/Description"]
    assert "official" in (report.diagnostics[0].hint or "")
    assert not check(GOOD["words-in-strings"], strict=True).valid


def test_a_private_type_is_a_warning_and_an_error_with_strict() -> None:
    report = check(GOOD["private-type"])
    assert [d.pointer for d in report.diagnostics] == ["/Resources/Widget/Type"]
    assert not check(GOOD["private-type"], strict=True).valid


# --------------------------------------------------------------------------- projects


def module_project(root: Path, type_name: str, fragment: str, name: str = "module.yaml") -> Path:
    (root / "fragments").mkdir(parents=True)
    (root / ".rpdk-config").write_text(
        json.dumps({"artifact_type": "MODULE", "typeName": type_name, "settings": {}}, indent=4)
    )
    (root / "fragments" / name).write_text(fragment)
    return root


def uses(*types: str) -> str:
    body = "".join(f"  M{i}:\n    Type: {t}\n" for i, t in enumerate(types))
    return "Resources:\n  T:\n    Type: AWS::SNS::Topic\n" + body


def test_two_fragment_files_are_an_error(tmp_path: Path) -> None:
    root = module_project(tmp_path / "m", "Acme::Aa::Bb::MODULE", BASE)
    (root / "fragments" / "second.json").write_text('{"Resources": {}}')
    reports = validate_paths([root])
    assert len(reports) == 2
    assert all("exactly one fragment file" in r.diagnostics[0].message for r in reports)


def test_a_module_that_uses_itself_is_a_cycle(tmp_path: Path) -> None:
    root = module_project(tmp_path / "a", "Acme::Aa::Aa::MODULE", uses("Acme::Aa::Aa::MODULE"))
    [report] = validate_paths([root])
    assert [d.pointer for d in report.diagnostics if d.severity == "error"] == [
        "/Resources/M0/Type"
    ]
    assert "cycle" in report.diagnostics[0].message


def test_cycles_and_depth_among_local_modules(tmp_path: Path) -> None:
    module_project(tmp_path / "a", "Acme::Xx::Aa::MODULE", uses("Acme::Xx::Bb::MODULE"))
    module_project(tmp_path / "b", "Acme::Xx::Bb::MODULE", uses("Acme::Xx::Aa::MODULE"))
    [report] = validate_paths([tmp_path / "a"])
    assert any("cycle" in d.message and d.line == 5 for d in report.diagnostics), report

    module_project(tmp_path / "c", "Acme::Yy::Cc::MODULE", uses("Acme::Yy::Dd::MODULE"))
    module_project(tmp_path / "d", "Acme::Yy::Dd::MODULE", uses("Acme::Yy::Ee::MODULE"))
    module_project(tmp_path / "e", "Acme::Yy::Ee::MODULE", uses("Acme::Yy::Ff::MODULE"))
    module_project(tmp_path / "f", "Acme::Yy::Ff::MODULE", uses())
    [deep] = validate_paths([tmp_path / "c"])
    assert [d.message for d in deep.diagnostics if d.severity == "error"] == [
        "resource M0: modules nest 4 levels deep: Acme::Yy::Cc::MODULE -> Acme::Yy::Dd::MODULE "
        "-> Acme::Yy::Ee::MODULE -> Acme::Yy::Ff::MODULE"
    ]
    # Three levels are allowed.
    [ok] = validate_paths([tmp_path / "d"])
    assert ok.valid and ok.count("warning") == 0, ok.diagnostics


def test_a_fragment_over_the_size_limit(tmp_path: Path) -> None:
    padding = "# " + "x" * 1000 + "\n"
    report = check(BASE + padding * 1500)
    [size] = [d for d in report.diagnostics if "at most 1,500,000 bytes" in d.message]
    assert (size.line, size.column) == (1, 1)
    assert not report.valid


def test_an_official_project_validates_by_folder(tmp_path: Path) -> None:
    import rpdk.core

    sample = Path(rpdk.core.__file__).parent / "data/examples/module/sample.json"
    root = module_project(
        tmp_path / "official", "Acme::S3::Bucket::MODULE", sample.read_text(), "sample.json"
    )
    [report] = validate_paths([root])
    assert report.valid and report.diagnostics == [], report.diagnostics


def test_an_unchanged_fragment_is_not_linted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second validate reads the first one's report: cfn-lint is not even imported."""
    import subprocess
    import sys

    root = module_project(
        tmp_path / "m",
        "Acme::Cache::Bucket::MODULE",
        BASE.replace("Description: The bucket's name", "Description: mentions Fn::ImportValue"),
    )
    script = (
        "import sys, json; from cfngen._validate import validate_paths; "
        "[r] = validate_paths([__import__('pathlib').Path(sys.argv[1])]); "
        "print(json.dumps([[d.severity, d.line, d.message] for d in r.diagnostics])); "
        "print('cfnlint' in sys.modules)"
    )
    env = {**os.environ, "CFNGEN_HOME": str(tmp_path / "home")}
    env.pop("CFNGEN_NO_CACHE", None)
    runs = [
        subprocess.run(
            [sys.executable, "-c", script, str(root)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
        for _ in range(2)
    ]
    assert runs[0][0] == runs[1][0]
    assert json.loads(runs[0][0])[0][:2] == ["warning", 6]
    assert (runs[0][1], runs[1][1]) == ("True", "False")
    # A changed fragment, or another cfn-lint, is another key.
    from cfngen._kinds.module import _cache

    monkeypatch.delenv("CFNGEN_NO_CACHE")
    text = (root / "fragments" / "module.yaml").read_text()
    own = "Acme::Cache::Bucket::MODULE"
    keys = {
        _cache.key(text, root=root, own_type=own),
        _cache.key(text + "\n", root=root, own_type=own),
        _cache.key(text, root=root, own_type=None),
    }
    assert len(keys) == 3


# --------------------------------------------------------------------------- what a file is

#: A stack's template that is no module fragment: a plain CloudFormation one.
NETWORK_STACK = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Vpc:
    Type: AWS::EC2::VPC
    Properties:
      CidrBlock: 10.0.0.0/16
Outputs:
  VpcId:
    Value: !Ref Vpc
    Export:
      Name: network-vpc
"""
SAM_JSON_STACK = json.dumps(
    {
        "Transform": ["AWS::LanguageExtensions", "AWS::Serverless-2016-10-31"],
        "Resources": {
            "Table": {"Type": "AWS::Serverless::SimpleTable"},
        },
    }
)
TRANSFORMED = BASE.replace("Resources:\n", "Transform: AWS::Serverless-2016-10-31\nResources:\n", 1)


def _in_module_project(tmp_path: Path) -> Path:
    root = module_project(tmp_path / "m", "Acme::Aa::Bb::MODULE", TRANSFORMED)
    return root / "fragments" / "module.yaml"


def _file(relpath: str, text: str) -> Callable[[Path], Path]:
    def write(tmp_path: Path) -> Path:
        path = tmp_path / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    return write


#: A file given by path -> (write it, the exit code, what validate says it took it for).
TAKEN_FOR = {
    "a SAM stack beside custom resource templates": (
        _file("templates/api.yaml", STACK),
        0,
        "taken for a SAM stack (Transform: AWS::Serverless-2016-10-31): it declares no custom "
        "resource and is not in a module project's fragments/; not an extension",
    ),
    "a CloudFormation stack": (
        _file("stacks/network.yaml", NETWORK_STACK),
        0,
        "taken for a CloudFormation stack: it declares no custom resource",
    ),
    "a JSON SAM stack with two transforms": (
        _file("stack.json", SAM_JSON_STACK),
        0,
        "taken for a SAM stack (Transform: AWS::LanguageExtensions, AWS::Serverless-2016-10-31)",
    ),
    "a template in fragments/ of no module project": (
        _file("nested/fragments/vpc.yaml", TRANSFORMED),
        0,
        "taken for a SAM stack",
    ),
    "a module project's fragment keeps the module's rules": (
        _in_module_project,
        1,
        "checked as a module fragment: it is in ",
    ),
    "a custom resource template": (
        _file("templates/thing.yaml", CUSTOM_RESOURCE_TEMPLATE.format(code_uri="../src/")),
        0,
        "checked as a custom resource template: it declares Thing: Custom::Thing",
    ),
}


@pytest.mark.parametrize("case", sorted(TAKEN_FOR))
def test_a_file_is_what_it_declares_and_validate_says_what_it_took_it_for(
    tmp_path: Path, cli: Callable[..., Any], case: str
) -> None:
    write, exit_code, taken_for = TAKEN_FOR[case]
    path = write(tmp_path)
    result = cli("validate", path)
    assert result.exit_code == exit_code, result.stdout + result.stderr
    assert f"cfngen: {path}: {taken_for}" in result.stderr
    transforms = "a module cannot use transforms" in result.stdout
    assert transforms == (exit_code == 1), result.stdout


def test_json_output_stays_one_document_with_a_stack_in_it(
    tmp_path: Path, cli: Callable[..., Any]
) -> None:
    path = _file("api.yaml", STACK)(tmp_path)
    result = cli("validate", path, "--format", "json")
    assert result.exit_code == 0 and result.stderr == ""
    assert json.loads(result.stdout) == {
        "files": [{"path": str(path), "valid": True, "diagnostics": []}]
    }


# --------------------------------------------------------------------------- the official oracle

#: Planted bugs the official `cfn validate` lets through (docs/module.md, "Where cfngen and the
#: official tool differ"): everything else it must reject too.
OFFICIAL_ACCEPTS = {
    "fn-transform-nested",
    "stack-set",
    "serverless-type",
    "unknown-aws-type",
    "cfn-lint-error",
    "resources-null",  # it crashes rather than rejects: see official_verdict
    "resources-empty",
    "circular-conditions",
}
#: Good fragments the official tool rejects: the raw text "Fn::ImportValue".
OFFICIAL_REJECTS = {"words-in-strings", "words-in-a-comment"}


def official_verdict(text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """'ok', 'rejected' or 'crashed' from the official fragment checks (cfn-lint, whose findings
    it only prints, left out)."""
    from rpdk.core.exceptions import FragmentValidationError
    from rpdk.core.fragment import generator

    monkeypatch.setattr(generator, "print_cfn_lint_warnings", lambda _folder: None)
    (tmp_path / "fragments").mkdir(exist_ok=True)
    (tmp_path / "fragments" / "module.yaml").write_text(text)
    try:
        generator.TemplateFragment("Acme::Aa::Bb::MODULE", tmp_path).validate_fragments()
    except FragmentValidationError:
        return "rejected"
    except Exception:  # the official tool's own crash (e.g. `Resources:` with no value)
        return "crashed"
    return "ok"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_official_tool_agrees_but_for_the_documented_differences(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    verdict = official_verdict(case.text, tmp_path, monkeypatch)
    if case.name in OFFICIAL_ACCEPTS:
        assert verdict != "rejected", f"{case.name} is no longer a difference: update the docs"
    else:
        assert verdict == "rejected", f"the official tool {verdict} {case.name}"


@pytest.mark.parametrize("name", sorted(GOOD))
def test_the_official_tool_on_the_good_fragments(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = "rejected" if name in OFFICIAL_REJECTS else "ok"
    assert official_verdict(GOOD[name], tmp_path, monkeypatch) == expected
