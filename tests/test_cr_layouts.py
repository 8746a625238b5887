"""Custom-resource projects as they sit in real repositories: a template path is enough to find
the project, a handler inside a package runs with `--handler` as Lambda imports it, inline code
gets AWS's cfnresponse (and a preprocessor's placeholder is refused, naming `--handler`), and the
code a function runs may come from anywhere in the repository, never from outside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests._cr_projects import IMPORTS, TEMPLATE, git_init, package, repository

ONLY_CREATE = ("-k", "cr_create and not duplicate and not failed")


# --------------------------------------------------------------------------- a template path


#: (the folder the command runs in, relative to the repository; its arguments)
BY_TEMPLATE = {
    "test --template from the repository root": (
        ".",
        ("test", "--template", "templates/thing.yaml", *ONLY_CREATE),
    ),
    "test TEMPLATE from the repository root": (
        ".",
        ("test", "templates/thing.yaml", *ONLY_CREATE),
    ),
    "invoke --template from the repository root": (
        ".",
        ("invoke", "Create", "--template", "templates/thing.yaml"),
    ),
    "invoke --template from another folder": (
        "src",
        ("invoke", "Create", "--template", "../templates/thing.yaml"),
    ),
    "test in templates/, whose template.yaml is a plain SAM stack": (
        "templates",
        ("test", *ONLY_CREATE),
    ),
}


@pytest.mark.parametrize("case", sorted(BY_TEMPLATE))
def test_a_template_path_is_enough_to_find_the_project(tmp_path, cli, case):
    root = tmp_path / "repo"
    template = repository(root)
    (template.parent / "api.yaml").rename(template.parent / "template.yaml")
    folder, args = BY_TEMPLATE[case]
    result = cli(*args, cwd=root / folder)
    assert result.exit_code == 0, result.stdout + result.stderr
    if args[0] == "invoke":
        assert '"Greeting": "Hello, dev-world"' in result.stdout
    else:
        assert "1 passed, 0 failed" in result.stdout


#: Arguments that name the template wrongly -> words of the usage error.
BAD_TEMPLATE = {
    ("test", "--template", "templates/missing.yaml"): "--template templates/missing.yaml: no such",
    ("test", "templates/thing.yaml", "--template", "templates/thing.yaml"): "the template once",
    ("test", "--template", "templates/api.yaml"): "declares no Custom:: or AWS::CloudFormation",
}


@pytest.mark.parametrize("args", sorted(BAD_TEMPLATE))
def test_a_template_named_wrongly_is_a_usage_error(tmp_path, cli, args):
    root = tmp_path / "repo"
    repository(root)
    result = cli(*args, cwd=root)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert BAD_TEMPLATE[args] in result.stderr


# --------------------------------------------------------------------------- --handler


IMPORTED_TOKEN = """\
AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  Env:
    Type: String
    Default: dev
Resources:
  Thing:
    Type: Custom::Thing
    Properties:
      ServiceToken: !ImportValue shared-thing-function
      ServiceTimeout: 60
      Name: !Sub "${Env}-world"
"""


@pytest.mark.parametrize("imports", sorted(IMPORTS))
@pytest.mark.parametrize("pythonpath", [False, True], ids=["", "PYTHONPATH=src"])
@pytest.mark.parametrize("function", ["in the template", "imported"])
def test_a_handler_inside_a_package_runs_as_lambda_imports_it(  # noqa: PLR0917
    tmp_path, cli, monkeypatch, imports, pythonpath, function
):
    """`--handler src/pkg/main.py:handler` is `pkg.main` with src/ on sys.path: from the code
    folder of the function the ServiceToken names, else from the first folder above the file
    that is not a package. With src/ also on PYTHONPATH it is the same module."""
    root = tmp_path / "repo"
    template = repository(root, imports=imports)
    if function == "imported":
        template.write_text(IMPORTED_TOKEN)
    if pythonpath:
        monkeypatch.syspath_prepend(str(root / "src"))
    result = cli(
        "invoke", "Create", "--handler", "../src/pkg/main.py:handler", cwd=root / "templates"
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    assert '"Greeting": "Hello, dev-world"' in result.stdout
    why = (
        "the code folder of ThingFunction"
        if function == "in the template"
        else "the first folder above it that is not a package"
    )
    assert f"--handler runs pkg.main.handler from {root / 'src'} ({why})" in result.stderr


# --------------------------------------------------------------------------- inline code


INLINE = {
    "ZipFile": """\
Resources:
  Fn:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      Role: arn:aws:iam::123456789012:role/thing
      Code:
        ZipFile: {code}
  Thing:
    Type: AWS::CloudFormation::CustomResource
    Properties:
      ServiceToken: !GetAtt Fn.Arn
      Name: world
""",
    "InlineCode": """\
Transform: AWS::Serverless-2016-10-31
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      InlineCode: {code}
  Thing:
    Type: Custom::Thing
    Properties:
      ServiceToken: !GetAtt Fn.Arn
      Name: world
""",
}

#: The file a preprocessor (rain's `!Rain::Embed`) puts into the template as inline code: it
#: imports AWS's cfnresponse, which Lambda provides to inline code.
EMBEDDED = """\
import cfnresponse


def handler(event, context):
    physical_id = event.get("PhysicalResourceId") or "thing-" + event["LogicalResourceId"]
    data = {"Greeting": "Hello, " + event["ResourceProperties"].get("Name", "")}
    if event["RequestType"] == "Delete":
        data = {}
    cfnresponse.send(event, context, cfnresponse.SUCCESS, data, physical_id)
"""

#: Inline code that is no text cfngen can know offline -> the hint's words.
NOT_CODE = {
    "!Rain::Embed handler.py": "pass --handler handler.py:handler",
    "!GetAtt Source.Code": "pass --handler FILE.py:handler",
    '!Sub "${Source.Code}"': "pass --handler FILE.py:handler",
    "!Join ['', [!ImportValue shared-code]]": "pass --handler FILE.py:handler",
}


def inline_project(root: Path, style: str, code: str) -> Path:
    git_init(root)
    (root / "template.yaml").write_text(INLINE[style].format(code=code))
    (root / "handler.py").write_text(EMBEDDED)
    return root


@pytest.mark.parametrize("style", sorted(INLINE))
@pytest.mark.parametrize("code", sorted(NOT_CODE))
def test_inline_code_that_is_not_code_is_refused_naming_handler(tmp_path, cli, style, code):
    root = inline_project(tmp_path / "p", style, code)
    result = cli("invoke", "Create", cwd=root)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "Fn's inline code is `!" in result.stderr
    assert NOT_CODE[code] in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("style", sorted(INLINE))
@pytest.mark.parametrize("command", ["invoke", "test"])
def test_a_handler_standing_for_inline_code_gets_cfnresponse(tmp_path, cli, style, command):
    root = inline_project(tmp_path / "p", style, "!Rain::Embed handler.py")
    args = ("invoke", "Create") if command == "invoke" else ("test", *ONLY_CREATE)
    result = cli(*args, "--handler", "handler.py:handler", cwd=root)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "Fn's code is inline, so cfnresponse is importable" in result.stderr


@pytest.mark.parametrize("style", sorted(INLINE))
def test_inline_code_cfngen_can_resolve_still_runs_beside_cfnresponse(tmp_path, cli, style):
    lines = [f"'{line}'" for line in EMBEDDED.splitlines()]
    code = '!Join\n          - "\\n"\n          - [' + ", ".join(lines) + "]"
    root = inline_project(tmp_path / "p", style, code)
    result = cli("invoke", "Create", cwd=root)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert '"Greeting": "Hello, world"' in result.stdout


# --------------------------------------------------------------------------- what code is read

LAYER = """\
      Layers:
        - !Ref Common
  Common:
    Type: AWS::Serverless::LayerVersion
    Properties:
      ContentUri: {content}
"""


def _with_layer(template: Path, content: str) -> None:
    text = template.read_text()
    text = text.replace(
        "      Timeout: 10\n", "      Timeout: 10\n" + LAYER.format(content=content)
    )
    template.write_text(text)


def _code_uri(template: Path, code_uri: str) -> None:
    template.write_text(TEMPLATE.format(code_uri=code_uri))


def _link(link: Path, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    (target / "__init__.py").write_text("")
    link.symlink_to(os.path.relpath(target, link.parent), target_is_directory=True)


#: Code read from the repository, outside the project (the templates/ folder): runs, and each
#: such path is listed. name -> (set up the repository at `root`, the line that lists it)
INSIDE = {
    "CodeUri ../src": (lambda root, template: None, "CodeUri of ThingFunction: reads ../src"),
    "a layer's ContentUri ../layers/common": (
        lambda root, template: (
            (root / "layers" / "common" / "python").mkdir(parents=True),
            _with_layer(template, "../layers/common/"),
        ),
        "ContentUri of Common: reads ../layers/common",
    ),
    "a package folder linked to ../shared": (
        lambda root, template: _link(root / "src" / "shared", root / "shared"),
        "src/shared (a link in the CodeUri of ThingFunction): reads ../shared",
    ),
}


@pytest.mark.parametrize("case", sorted(INSIDE))
def test_code_from_the_repository_runs_and_is_listed(tmp_path, cli, case):
    root = tmp_path / "repo"
    template = repository(root)
    setup, listed = INSIDE[case]
    setup(root, template)
    result = cli("invoke", "Create", "--template", template, cwd=root)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert listed in result.stderr
    assert f"outside the project {root / 'templates'}, inside its repository {root}" in (
        result.stderr
    )


def _outside_code_uri(root: Path, template: Path, outside: Path) -> Path:
    package(outside / "src")
    _code_uri(template, "../../outside/src/")
    return outside / "src"


def _absolute_code_uri(root: Path, template: Path, outside: Path) -> Path:
    package(outside / "src")
    _code_uri(template, str(outside / "src"))
    return outside / "src"


def _linked_outside(root: Path, template: Path, outside: Path) -> Path:
    _link(root / "src" / "shared", outside / "shared")
    return root / "src" / "shared"


def _layer_outside(root: Path, template: Path, outside: Path) -> Path:
    (outside / "layer").mkdir(parents=True)
    _with_layer(template, "../../outside/layer/")
    return outside / "layer"


#: Code from outside the repository: refused, the path named. name -> set up, return the path
OUTSIDE = {
    "CodeUri ../../outside/src": _outside_code_uri,
    "an absolute CodeUri": _absolute_code_uri,
    "a package folder linked outside": _linked_outside,
    "a layer outside": _layer_outside,
}


@pytest.mark.parametrize("case", sorted(OUTSIDE))
def test_code_from_outside_the_repository_is_refused_naming_it(tmp_path, cli, case):
    root = tmp_path / "repo"
    template = repository(root)
    named = OUTSIDE[case](root, template, tmp_path / "outside")
    result = cli("invoke", "Create", "--template", template, cwd=root)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert f"{named} is outside the repository {root}" in result.stderr.replace("\n", " ")
    assert result.stdout == ""


def test_a_handler_outside_the_repository_is_refused_naming_it(tmp_path, cli):
    root = tmp_path / "repo"
    template = repository(root)
    main = package(tmp_path / "outside" / "src")
    result = cli("invoke", "Create", "--template", template, "--handler", f"{main}:handler")
    assert result.exit_code == 2, result.stdout + result.stderr
    assert f"--handler: {main} is outside the repository {root}" in result.stderr


def test_without_git_the_project_is_the_repository(tmp_path, cli):
    """No git work tree: code may come only from the project (the template's folder)."""
    root = tmp_path / "download"
    template = repository(root, git=False)
    result = cli("invoke", "Create", "--template", template, cwd=root)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert f"{root / 'src'} is outside the repository {root / 'templates'}" in result.stderr
    assert "no git repository" in result.stderr
