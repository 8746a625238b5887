"""The project `cfngen init --no-input` makes works, with stubs and as the example
(`--example`): black-clean, its own tests pass, and the official toolchain (cfn validate,
cfn submit --dry-run, cfn-lint) accepts it."""

from __future__ import annotations

import itertools
import json
import logging
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import copier
import jsonschema
import pytest

from cfngen._init import _template_cache
from cfngen._languages._python_runtimes import DEFAULT_RUNTIME
from cfngen._support import package_files
from cfngen._typename import TypeName
from tests.conftest import black_formatted

BIN = Path(sys.executable).parent
DERIVED = ("models.py", "cfngen_runtime", "resource-role.yaml", "template.yml")


@pytest.fixture(scope="session")
def project(made_project):
    """The quick-start project (a git repository), made once for the session through the real
    command line; tests only read it."""
    return made_project("quickstart", "--type-name", "Acme::Svc::Widget", git=True)


@pytest.fixture(scope="session")
def example(made_project):
    """The example project (a git repository), made once for the session; tests only read it."""
    return made_project("demo", "--example", git=True)


@pytest.fixture(scope="module", params=["project", "example"])
def each(request):
    """Both: the stub project and the example."""
    return request.getfixturevalue(request.param)


def tool_env() -> dict[str, str]:
    # The official tool runs `pip` from PATH; give it this environment's.
    return {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PIP_NO_COMPILE": "1",  # the Lambda zip needs no .pyc files; compiling botocore is slow
    }


def test_the_project_is_black_clean(each):
    """As `black --check .` in the project (which sets no black options), in this process."""
    files = [p for p in each.rglob("*.py") if ".git" not in p.relative_to(each).parts]
    assert files
    for path in files:
        text = path.read_text()
        assert black_formatted(text) == text, path


@pytest.mark.oracle  # pytest runs the project's own unit tests: they are the judge
def test_the_projects_own_tests_pass(each):
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=each,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout


def test_cfngen_validate_finds_nothing(each):
    from cfngen._validate import validate_paths

    reports = validate_paths([each], strict=True)
    assert [Path(r.path).name for r in reports][1:] == ["callback-context.json"]
    assert [d for r in reports for d in r.diagnostics] == []


@pytest.mark.oracle
def test_the_official_validator_accepts_it_without_a_warning(each):
    result = subprocess.run(
        [BIN / "cfn", "validate"], cwd=each, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = (result.stdout + result.stderr).strip().splitlines()
    assert lines == ["Resource schema is valid."]


@pytest.mark.oracle
def test_the_official_submit_dry_run_packages_it(project, tmp_path):
    work = tmp_path / "copy"
    subprocess.run(["git", "clone", "-q", str(project), str(work)], check=True)
    result = subprocess.run(
        [BIN / "cfn", "submit", "--dry-run"],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
        env=tool_env(),
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    with zipfile.ZipFile(work / "acme-svc-widget.zip") as archive:
        names = set(archive.namelist())
    assert {
        ".rpdk-config",
        "schema.json",
        "ResourceProvider.zip",
        "src/acme_svc_widget/handlers.py",
        # The runtime library, inside the handler package the official plugin packs.
        *(f"src/acme_svc_widget/{path}" for path in package_files()),
        "inputs/inputs_1_create.json",
        "inputs/inputs_1_update.json",
        "inputs/inputs_1_invalid.json",
    } <= names


@pytest.mark.oracle
def test_rpdk_config_matches_what_cfn_init_writes(project, tmp_path):
    official_init = ["init", "-t", "Acme::Svc::Widget", "-a", "RESOURCE", "python312"]
    subprocess.run(
        [BIN / "cfn", *official_init, "--no-docker"],
        cwd=tmp_path,
        capture_output=True,
        check=True,
    )
    official = json.loads((tmp_path / ".rpdk-config").read_text())
    ours = json.loads((project / ".rpdk-config").read_text())
    for key in ("artifact_type", "typeName", "language", "entrypoint", "testEntrypoint"):
        assert ours[key] == official[key], key
    # The official plugin stops at python3.12; ours records the newer Lambda runtime it runs on.
    assert ours["runtime"] == DEFAULT_RUNTIME.name
    for key in ("use_docker", "no_docker", "protocolVersion"):
        assert ours["settings"][key] == official["settings"][key], key
    assert (tmp_path / "acme-svc-widget.json").is_file()
    assert (project / TypeName("Acme::Svc::Widget").schema_filename).is_file()


@pytest.mark.oracle
def test_cfn_lint_finds_no_errors_in_the_templates(each):
    result = subprocess.run(
        [BIN / "cfn-lint", "template.yml", "resource-role.yaml"],
        cwd=each,
        capture_output=True,
        text=True,
        check=False,
    )
    # cfn-lint's exit code is a bit mask: 2 = errors (4 warnings, 8 informational).
    assert result.returncode & 2 == 0, result.stdout


def test_generate_check_finds_no_drift_right_after_init(each):
    from cfngen._generate import generate_project

    assert generate_project(each, check=True).written == []


def test_derived_files_are_generated_not_templated(tmp_path):
    rendered = render(tmp_path, {})
    names = {p.name for p in rendered.rglob("*")}
    assert not set(DERIVED) & names
    assert not (rendered / "docs").exists()
    assert not (rendered / "example_inputs").exists()


# --------------------------------------------------------------------------- every variant


def render(dest: Path, data: dict, template: Path | None = None) -> Path:
    """The live template rendered straight from its folder (no cache, no generate)."""
    copier.run_copy(
        str(template or _template_cache.live_version("resource").path),
        dest,
        data={"type_name": "Acme::Svc::Widget", **data},
        defaults=True,
        quiet=True,
        settings=copier.Settings(),
    )
    return dest


def official_warnings(schema_path: Path, caplog) -> list[str]:
    from rpdk.core.data_loaders import load_resource_spec

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="rpdk"), schema_path.open() as handle:
        load_resource_spec(handle)
    return [r.getMessage() for r in caplog.records if r.name.startswith("rpdk")]


def check_rendered(root: Path, caplog) -> None:
    """Every JSON file parses, the schema passes the official validator without a warning,
    every Python file compiles and is exactly what black would make of it."""
    for path in root.rglob("*.json"):
        json.loads(path.read_text())
    (schema_path,) = [p for p in root.glob("*.json") if p.name not in ("callback-context.json",)]
    assert official_warnings(schema_path, caplog) == []
    for path in root.rglob("*.py"):
        text = path.read_text()
        compile(text, str(path), "exec")
        assert black_formatted(text) == text, path


HANDLER_SETS = [
    "create,read,update,delete,list",
    "none",
    "create",
    "list",
    "read,list",
    "create,read,delete",
]
TEMPLATES = {t.tag: t.path for t in _template_cache.packaged_versions("resource")}


#: The inner loop's sample of the variants: every handler set once, tags and type configuration
#: each on and off among them; CI renders every combination (the rest are `exhaustive`).
VARIANT_SAMPLE = [(i % 2 == 0, i // 2 % 2 == 0, h) for i, h in enumerate(HANDLER_SETS)]


@pytest.mark.parametrize("version", TEMPLATES)
@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(
            variant,
            id=f"tags={variant[0]}-config={variant[1]}-{variant[2]}",
            marks=() if variant in VARIANT_SAMPLE else pytest.mark.exhaustive,
        )
        for variant in itertools.product([True, False], [True, False], HANDLER_SETS)
    ],
)
def test_every_variant_renders_valid_json_and_black_clean_python(
    tmp_path, caplog, version, variant
):
    tagging, type_configuration, handlers = variant
    data = {"tagging": tagging, "type_configuration": type_configuration}
    data["handlers"] = [] if handlers == "none" else handlers.split(",")
    root = render(tmp_path / "p", data, TEMPLATES[version])
    check_rendered(root, caplog)
    schema = json.loads((root / "acme-svc-widget.json").read_text())
    assert sorted(schema.get("handlers", {})) == sorted(data["handlers"])
    assert ("Tags" in schema["properties"]) is tagging
    assert schema["tagging"]["taggable"] is tagging
    assert ("typeConfiguration" in schema) is type_configuration


def package_of_length(n: int) -> str:
    """A type name whose package name is n characters long."""
    org = "A" * (n - len("_svc_res"))
    return f"{org}::Svc::Res"


@pytest.mark.parametrize(
    "type_name",
    [
        "1Org::2Svc::3Res",
        "Import::As::If",
        "A1::B2::C3",
        "::".join(["A" * 64, "B" * 64, "C" * 64]),
        package_of_length(67),  # the longest package that keeps `from x import handlers` short
        package_of_length(68),
    ],
)
def test_awkward_type_names_render_black_clean(tmp_path, caplog, type_name):
    package = TypeName(type_name).package_name
    root = render(tmp_path / "p", {"type_name": type_name, "package_name": package})
    check_rendered(root, caplog)
    assert (root / "src" / package / "handlers.py").is_file()


@pytest.mark.parametrize(
    "type_name", ["Example::SSM::Parameter", "1Org::2Svc::3Res", package_of_length(68)]
)
def test_the_example_renders_black_clean(tmp_path, caplog, type_name):
    package = TypeName(type_name).package_name
    data = {"example": True, "type_name": type_name, "package_name": package}
    root = render(tmp_path / "p", data)
    check_rendered(root, caplog)
    handlers = (root / "src" / package / "handlers.py").read_text()
    assert f'TYPE_NAME = "{type_name}"' in handlers
    assert "STUB:" not in handlers


def test_every_stub_handler_carries_the_stub_marker_and_nothing_else_does(tmp_path):
    from cfngen._contract._stub_markers import STUB_MARKER

    handlers = (render(tmp_path / "p", {}) / "src/acme_svc_widget/handlers.py").read_text()
    marked = [line for line in handlers.splitlines() if STUB_MARKER.match(line)]
    assert len(marked) == 5
    assert handlers.count("def ") - handlers.count("def _") == 5


@pytest.mark.parametrize("example", [False, True], ids=["stubs", "example"])
def test_contract_inputs_fit_the_schema(tmp_path, example):
    """The template has no inputs/ (issue 8.11): generate derives them from the schema."""
    from cfngen._generate import generate_project

    root = render(tmp_path / "p", {"example": example})
    assert not (root / "inputs").exists()
    generate_project(root)
    schema = json.loads((root / "acme-svc-widget.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    inputs = {
        kind: json.loads((root / "inputs" / f"inputs_1_{kind}.json").read_text())
        for kind in ("create", "update", "invalid")
    }
    assert list(validator.iter_errors(inputs["create"])) == []
    assert list(validator.iter_errors(inputs["update"])) == []
    assert list(validator.iter_errors(inputs["invalid"])) != []
    read_only = {p.rsplit("/", 1)[1] for p in schema["readOnlyProperties"]}
    create_only = {p.rsplit("/", 1)[1] for p in schema["createOnlyProperties"]}
    for kind in ("create", "update"):
        assert not read_only & set(inputs[kind])
    assert {k: inputs["create"][k] for k in create_only} == {
        k: inputs["update"][k] for k in create_only
    }
    assert inputs["create"] != inputs["update"]


def test_starter_schema_has_the_promised_parts(tmp_path):
    schema = json.loads((render(tmp_path / "p", {}) / "acme-svc-widget.json").read_text())
    assert schema["primaryIdentifier"] == ["/properties/Id"]
    assert "/properties/Id" in schema["readOnlyProperties"]
    assert schema["tagging"]["tagProperty"] == "/properties/Tags"
    assert schema["tagging"]["permissions"]
    assert all(h["permissions"] for h in schema["handlers"].values())
    assert schema["properties"]["Tags"]["insertionOrder"] is False


def test_the_schema_is_never_overwritten_by_an_upgrade():
    """Every version's skip patterns (as copier matches them) take the schema."""
    import jinja2
    import yaml
    from pathspec import PathSpec

    for template in _template_cache.packaged_versions("resource"):
        config = yaml.safe_load((template.path / "copier.yml").read_text())
        patterns = [
            jinja2.Template(pattern).render(schema_file="acme-svc-widget.json")
            for pattern in config["_skip_if_exists"]
        ]
        spec = PathSpec.from_lines("gitignore", patterns)  # as copier matches them
        assert spec.match_file("acme-svc-widget.json"), template.tag
        assert not spec.match_file("src/acme_svc_widget/handlers.py"), template.tag


#: The resource name -> the plural the starter's list permission names (List<plural>).
PLURALS = {
    "Widget": "Widgets",
    "Box": "Boxes",
    "Bus": "Buses",
    "Status": "Statuses",
    "Address": "Addresses",
    "Alias": "Aliases",
    "Match": "Matches",
    "Dish": "Dishes",
    "Index": "Indexes",
    "Policy": "Policies",
    "Registry": "Registries",
    "Key": "Keys",
    "Gateway": "Gateways",
    "Lambda": "Lambdas",
    "VPC": "VPCs",
    "ACL": "ACLs",
}


@pytest.mark.parametrize("noun", PLURALS)
def test_the_starter_list_permission_names_the_plural(tmp_path, noun):
    """`List{{ resource_name }}s` made storage:ListBoxs."""
    root = render(tmp_path / "p", {"type_name": f"Acme::Storage::{noun}"})
    schema = json.loads((root / f"acme-storage-{noun.lower()}.json").read_text())
    assert schema["handlers"]["list"]["permissions"] == [f"storage:List{PLURALS[noun]}"]


def test_the_quick_start_line_makes_the_demo_outside_the_checkout(tmp_path, monkeypatch, cli):
    """README's quick start runs in the cfngen checkout (a git repository): the demo it makes
    must not land inside it, where it would be a repository nested in cfngen's."""
    import re
    import shlex

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    block = re.search(r"## Quick start\n+```\n(.*?)\n```", readme, re.S)
    assert block, "README has no quick-start line"
    steps = [shlex.split(step) for step in block.group(1).split("&&")]
    checkout = tmp_path / "cfngen"
    checkout.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=checkout, check=True)
    monkeypatch.setenv("HOME", str(tmp_path))  # the template cache and git identity are its own
    monkeypatch.delenv("CFNGEN_HOME", raising=False)
    cwd = checkout
    for step in steps:
        if step[:2] == ["python", "-m"] and "pip" in step:
            continue  # installing is not what this test is about
        if step[0] == "cd":
            cwd = (cwd / step[1]).resolve()
            continue
        assert step[0] == "cfngen", step
        result = cli(*step[1:], cwd=cwd)
        assert result.exit_code == 0, result.stdout + result.stderr
        assert "inside the git repository" not in result.stderr
    assert not cwd.is_relative_to(checkout), cwd
    assert (cwd / ".git").is_dir() and (cwd / ".rpdk-config").is_file()
    assert sorted(p.name for p in checkout.iterdir()) == [".git"]
