"""The runtime library as a versioned package in projects (cfngen/_support/cfngen_runtime/).

generate writes it into the handler package (`src/<pkg>/cfngen_runtime/`, where `cfngen build`
and the official `cfn submit` both take it) or beside a custom resource's models. A project
made by an earlier cfngen holds single files instead (cfngen_runtime.py, cfngen_aws.py,
cfngen_hook.py, each with cfngen's header and recorded in the manifest): generate removes each
one the project's code no longer imports, makes a shim of the ones it still imports, says so,
and the handlers keep passing their contract tests either way. A copy the user edited stays.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from cfngen._files._ownership import MANIFEST_PATH, with_header
from cfngen._support import LIBRARY_RANGE, PACKAGE, VERSION, package_files

ROOT = Path(__file__).resolve().parent.parent
#: What stands in for a single file of an earlier version (its text does not matter: it is
#: cfngen's by its header and the manifest's record).
OLD = '"""The runtime library of an earlier cfngen, as one file."""\n'

#: kind -> (init arguments, the handler package's folder)
PROJECTS = {
    "resource": (("--example",), "src/example_ssm_parameter"),
    "hook": (("--artifact-type", "hook", "--example"), "src/example_s3_compliancehook"),
}
#: How the templates' handlers import the package -> how an earlier version's imported the files
EARLIER_IMPORTS = {
    r"from \.cfngen_runtime\.clients import (.*)\n": r"from .cfngen_aws import \1\n",
    r"from \.cfngen_runtime\.steps import (.*)\n": r"from .cfngen_aws import \1\n",
    r"from \.cfngen_runtime\.protocol import": "from .cfngen_runtime import",
    r"from \.cfngen_runtime\.hooks import": "from .cfngen_hook import",
}


def _earlier(made_project, tmp_path: Path, kind: str, files: list[str]) -> tuple[Path, str]:
    """The project of `kind` as an earlier cfngen left it: the single `files` in the handler
    package (with the header, recorded), no package folder, handlers importing the files."""
    args, package = PROJECTS[kind]
    root = tmp_path / kind
    shutil.copytree(made_project(f"library-{kind}", *args), root, symlinks=True)
    shutil.rmtree(root / package / PACKAGE)
    handlers = root / package / "handlers.py"
    text = handlers.read_text()
    for pattern, replacement in EARLIER_IMPORTS.items():
        text = re.sub(pattern, replacement, text)
    handlers.write_text(text)
    manifest = json.loads((root / MANIFEST_PATH).read_text())
    manifest["files"] = {
        path: digest for path, digest in manifest["files"].items() if f"/{PACKAGE}/" not in path
    }
    for name in files:
        data = with_header(name, OLD).encode()
        (root / package / name).write_bytes(data)
        manifest["files"][f"{package}/{name}"] = hashlib.sha256(data).hexdigest()
    manifest["fingerprint"] = "of an earlier cfngen"
    (root / MANIFEST_PATH).write_text(json.dumps(manifest, indent=2) + "\n")
    return root, package


#: kind -> (the single files it held, those its handlers import: shims, those removed)
EARLIER = {
    "resource": (["cfngen_runtime.py", "cfngen_aws.py"], ["cfngen_aws.py"], ["cfngen_runtime.py"]),
    "hook": (
        ["cfngen_runtime.py", "cfngen_hook.py", "cfngen_aws.py"],
        ["cfngen_hook.py"],
        ["cfngen_runtime.py", "cfngen_aws.py"],
    ),
}


@pytest.mark.parametrize("kind", sorted(EARLIER))
def test_an_earlier_projects_single_files_go_and_its_handlers_keep_working(
    made_project, tmp_path, cli, kind
):
    files, shimmed, removed = EARLIER[kind]
    root, package = _earlier(made_project, tmp_path, kind, files)
    result = cli("generate", cwd=root)
    assert result.exit_code == 0, result.stderr
    for name in removed:
        assert not (root / package / name).exists()
        assert f"removed {package}/{name}" in result.stdout
        assert f"{package}/{name}: cfngen's runtime library is now the package" in result.stderr
    for name in shimmed:
        shim = (root / package / name).read_text()
        assert f"from .{PACKAGE}." in shim and OLD not in shim
        assert f"{package}/{name}: cfngen's runtime library is now the package" in result.stderr
        assert "so this file is now a shim" in result.stderr
    for relpath, text in package_files().items():
        assert (root / package / relpath).read_text() == with_header(relpath, text)
    tested = cli("test", cwd=root)
    assert tested.exit_code == 0, tested.stdout + tested.stderr
    # The user moves the imports to the package: the next generate removes the shims.
    handlers = root / package / "handlers.py"
    text = handlers.read_text()
    text = text.replace("from .cfngen_aws import", f"from .{PACKAGE}.steps import")
    text = text.replace("from .cfngen_hook import", f"from .{PACKAGE}.hooks import")
    handlers.write_text(text)
    if kind == "resource":  # client and aws_errors live in clients
        text = re.sub(
            rf"from \.{PACKAGE}\.steps import aws_errors, client\n",
            f"from .{PACKAGE}.clients import aws_errors, client\n",
            text,
        )
        handlers.write_text(text)
    again = cli("generate", cwd=root)
    assert again.exit_code == 0, again.stderr
    assert not any((root / package / name).exists() for name in files)
    assert cli("test", cwd=root).exit_code == 0


def test_a_single_file_the_user_edited_stays(made_project, tmp_path, cli):
    root, package = _earlier(made_project, tmp_path, "resource", ["cfngen_aws.py"])
    edited = root / package / "cfngen_aws.py"
    edited.write_text(edited.read_text() + "MINE = 1\n")
    handlers = root / package / "handlers.py"
    handlers.write_text(handlers.read_text().replace("from .cfngen_aws import", "from .x import"))
    before = edited.read_bytes()
    result = cli("generate", cwd=root)
    assert edited.read_bytes() == before
    assert f"{package}/cfngen_aws.py" in result.stderr


def test_a_custom_resource_gets_the_package_for_its_models(made_project, tmp_path, cli):
    root = tmp_path / "cr"
    made = made_project("library-cr", "--artifact-type", "custom-resource", "--example")
    shutil.copytree(made, root, symlinks=True)
    shutil.rmtree(root / "src" / PACKAGE)
    data = with_header("cfngen_runtime.py", OLD).encode()
    (root / "src" / "cfngen_runtime.py").write_bytes(data)
    manifest = json.loads((root / MANIFEST_PATH).read_text())
    manifest["files"] = {
        p: d for p, d in manifest["files"].items() if not p.startswith(f"src/{PACKAGE}/")
    }
    manifest["files"]["src/cfngen_runtime.py"] = hashlib.sha256(data).hexdigest()
    manifest["fingerprint"] = "of an earlier cfngen"
    (root / MANIFEST_PATH).write_text(json.dumps(manifest, indent=2) + "\n")
    result = cli("generate", cwd=root)
    assert result.exit_code == 0, result.stderr
    assert not (root / "src" / "cfngen_runtime.py").exists()
    assert "src/cfngen_runtime.py: cfngen's runtime library is now the package" in result.stderr
    assert (root / "src" / PACKAGE / "serialisation.py").is_file()
    assert (
        "from cfngen_runtime.serialisation import CfnModel"
        in (root / "src" / "properties_model.py").read_text()
    )
    tested = cli("test", cwd=root)
    assert tested.exit_code == 0, tested.stdout + tested.stderr


def test_the_package_says_its_version_and_range_in_every_project(made_project):
    root = made_project("library-resource", *PROJECTS["resource"][0])
    shipped = (root / PROJECTS["resource"][1] / PACKAGE / "__init__.py").read_text()
    assert f'__version__ = "{VERSION}"' in shipped
    assert f'CLOUDFORMATION_CLI_PYTHON_LIB = "{LIBRARY_RANGE}"' in shipped


#: The requirements files the templates render: they spell the range out (copier renders them
#: once, and `copier update` must render them without cfngen).
TEMPLATE_REQUIREMENTS = (
    "templates/resource/project/requirements.txt.jinja",
    "templates/hook/project/requirements.txt.jinja",
    "templates/custom_resource/project/src/requirements.txt.jinja",
)
_SPEC = re.compile(r"cloudformation-cli-python-lib\s*([<>=!~][^\s\"'`#]*)")


def test_one_range_of_cloudformation_cli_python_lib():
    """The runtime library's declared range is the only one: cfngen's code names no other,
    the templates write this one, and cfngen's own pin (what its tests run) is inside it."""
    from packaging.specifiers import SpecifierSet

    declared = ROOT / "cfngen" / "_support" / PACKAGE / "__init__.py"
    in_code = {
        path.relative_to(ROOT).as_posix(): _SPEC.findall(path.read_text())
        for path in sorted((ROOT / "cfngen").rglob("*.py"))
        if path != declared and _SPEC.search(path.read_text())
    }
    assert in_code == {}
    for name in TEMPLATE_REQUIREMENTS:
        assert set(_SPEC.findall((ROOT / name).read_text())) == {LIBRARY_RANGE}, name
    pyproject = (ROOT / "pyproject.toml").read_text()
    (pinned,) = re.findall(r'"cloudformation-cli-python-lib==([\d.]+)"', pyproject)
    assert pinned in SpecifierSet(LIBRARY_RANGE)
