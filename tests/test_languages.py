"""Projects the official TypeScript, Go and Java plugins make: the language-free commands work
there and leave every file of the plugin's alone (generate writes the role, docs/ and inputs/
only); the commands that need Python handlers stop before writing anything, naming the language
(cfngen/_languages.py)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import _locked, shared_tmp

LANGUAGES = {
    # language -> (type name, what its .rpdk-config entrypoint looks like, its runtime's prefix)
    "typescript": ("Acme::Lang::Ts", "dist/handlers.entrypoint", "nodejs"),
    "go": ("Acme::Lang::Go", "bootstrap", "provided"),
    "java": ("Acme::Lang::Jv", "com.acme.lang.jv.HandlerWrapper::handleRequest", "java"),
}
LABELS = {"typescript": "TypeScript", "go": "Go", "java": "Java"}
ENV = {
    **os.environ,
    "NO_COLOR": "",
    "AWS_EC2_METADATA_DISABLED": "true",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@e",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@e",
}


def _official_init(cfn: str, go: str, language: str, root: Path) -> None:
    type_name = LANGUAGES[language][0]
    env = dict(ENV)
    root.mkdir(parents=True)
    base = [cfn, "init", "-t", type_name, "-a", "RESOURCE"]
    if language == "typescript":
        args, stdin = [*base, "typescript", "--no-docker"], ""
    elif language == "go":
        args, stdin = [*base, "go", "-p", "github.com/acme/lang"], ""
        env = {**env, "PATH": f"{Path(go).parent}{os.pathsep}{env['PATH']}"}  # it runs `go fmt`
    else:
        # The Java plugin registers no subcommand: `cfn init` asks for the language by number,
        # then the package (default) and the codegen model (1, the default).
        listing = subprocess.run(
            base, cwd=root, input="", capture_output=True, text=True, check=False
        )
        number = re.search(r"\[(\d+)\] java\b", listing.stdout + listing.stderr)
        assert number, listing.stdout + listing.stderr
        for leftover in root.iterdir():
            shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
        args, stdin = base, f"{number.group(1)}\n\n1\n"
    done = subprocess.run(
        args, cwd=root, input=stdin, capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0 and (root / ".rpdk-config").is_file(), done.stdout + done.stderr
    config = json.loads((root / ".rpdk-config").read_text())
    assert config["language"] == language and config["entrypoint"] == LANGUAGES[language][1]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "cfn init"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=ENV, capture_output=True)


@pytest.fixture(scope="module")
def official(oracle_tool, tmp_path_factory):
    """One project per official plugin, made once per session for every xdist worker and both
    modules that use them (each `cfn init` of the three takes seconds); each test gets a copy."""
    cfn, go = oracle_tool("cfn"), oracle_tool("go")
    base = shared_tmp(tmp_path_factory) / "official-plugins"
    with _locked(base.parent / "official-plugins.lock"):
        if not (base / ".done").is_file():
            shutil.rmtree(base, ignore_errors=True)
            for language in LANGUAGES:
                _official_init(cfn, go, language, base / language)
            (base / ".done").write_text("")
    return {language: base / language for language in LANGUAGES}


@pytest.fixture(params=list(LANGUAGES))
def project(request, official, tmp_path) -> tuple[str, Path]:
    copy = tmp_path / request.param
    shutil.copytree(official[request.param], copy, symlinks=True)
    return request.param, copy


def tree(root: Path) -> dict[str, str]:
    """Every file's bytes (digested), .git and what cfngen writes under .cfngen/ left out."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.relative_to(root).parts[0] not in (".git", ".cfngen")
    }


def cfngen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfngen", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=ENV,
        check=False,
        timeout=120,
    )


@pytest.mark.oracle
def test_validate_works_and_changes_nothing(project):
    _, root = project
    before = tree(root)
    done = cfngen("validate", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 valid" in done.stderr
    strict = cfngen("validate", ".", "--format", "json", cwd=root)
    assert json.loads(strict.stdout)["files"][0]["valid"] is True
    assert tree(root) == before


@pytest.mark.oracle
def test_compatibility_and_schema_export_work_and_leave_the_plugins_files_alone(project):
    _, root = project
    schema = next(root.glob("acme-lang-*.json"))
    data = json.loads(schema.read_text())
    data["properties"].pop("Title")
    schema.write_text(json.dumps(data, indent=4))
    before = tree(root)
    done = cfngen("validate", "--against", "HEAD", "--format", "json", cwd=root)
    assert done.returncode == 1, done.stderr  # a property removed: breaking
    assert json.loads(done.stdout)["compatibility"]["bump"] == "major"
    exported = cfngen("schema", "export", cwd=root)
    assert exported.returncode == 0, exported.stderr
    assert tree(root) == before  # only .cfngen/ is new


@pytest.mark.oracle
@pytest.mark.parametrize("command", [["test"], ["submit", "--dry-run"]], ids=" ".join)
def test_commands_that_need_python_handlers_stop_naming_the_language(project, command):
    language, root = project
    before = tree(root)
    done = cfngen(*command, cwd=root)
    assert done.returncode == 2, done.stdout + done.stderr
    if language == "typescript" and command == ["test"]:
        # cfngen runs TypeScript handlers (tests/test_typescript.py), once they are built.
        assert "dist/handlers.js is not built" in done.stderr, done.stderr
        assert "npm install && npm run build" in done.stderr, done.stderr
    elif language == "go" and command == ["test"]:
        # And Go's bootstrap (tests/test_go.py), once `make` built it.
        assert "bin/bootstrap is not built" in done.stderr, done.stderr
        assert "make" in done.stderr, done.stderr
    elif language == "java" and command == ["test"]:
        # And Java's jar (tests/test_java.py), once `mvn package` built it.
        assert "target/*.jar is not built" in done.stderr, done.stderr
        assert "mvn package" in done.stderr, done.stderr
    else:
        assert f"this is a {LABELS[language]} project" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert tree(root) == before


@pytest.mark.oracle
def test_runtime_shows_the_languages_runtimes(project):
    """Lambda's runtimes of the project's language, not Python's (tests/test_language_commands.py
    has the rest: set, warnings, build)."""
    language, root = project
    done = cfngen("runtime", cwd=root)
    assert done.returncode == 0, done.stderr
    assert f"{LABELS[language]} handlers" in done.stdout
    assert f"{LABELS[language]} runtimes" in done.stdout and "python3" not in done.stdout


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_another_languages_entrypoint_is_not_held_to_pythons_form(tmp_path, language):
    """The inner loop's version: a `.rpdk-config` as the plugin writes it, beside a schema."""
    from cfngen._project import load_project

    type_name, entrypoint, _ = LANGUAGES[language]
    (tmp_path / ".rpdk-config").write_text(
        json.dumps(
            {
                "artifact_type": "RESOURCE",
                "typeName": type_name,
                "language": language,
                "entrypoint": entrypoint,
                "testEntrypoint": entrypoint,
            }
        )
    )
    project = load_project(tmp_path)
    assert project.language.label == LABELS[language] and not project.language.handlers
    assert "this is a" in project.language.handler_problem(project).message
    python = json.loads((tmp_path / ".rpdk-config").read_text())
    (tmp_path / ".rpdk-config").write_text(json.dumps({**python, "language": "python312"}))
    with pytest.raises(Exception, match="is not a Python module and attribute"):
        load_project(tmp_path)


#: What `cfngen generate` writes in another language's project: nothing of the plugin's.
LANGUAGE_FREE = re.compile(
    r"resource-role\.yaml|docs/[^/]+\.md|inputs/inputs_1_(create|update|invalid)\.json"
)


def _changes(before: dict[str, str], after: dict[str, str]) -> set[str]:
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


@pytest.mark.oracle
def test_generate_writes_the_language_free_files_and_agrees_with_cfn_generate(project, oracle_tool):
    """The role, docs/ and inputs/ are written; every file of the plugin's keeps its bytes.
    The official `cfn generate` rewrites the role and docs/ in its own words (same file names);
    neither tool takes the other's for a hand edit, and the plugin's files stay as it left them."""
    _, root = project
    before = tree(root)
    done = cfngen("generate", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    after = tree(root)
    changed = _changes(before, after)
    assert changed and all(LANGUAGE_FREE.fullmatch(path) for path in changed), sorted(changed)
    assert {p for p in after if p.startswith("inputs/")} == {
        f"inputs/inputs_1_{k}.json" for k in ("create", "update", "invalid")
    }
    assert cfngen("generate", "--check", cwd=root).returncode == 0

    env = {**ENV, "PATH": f"{Path(oracle_tool('go')).parent}{os.pathsep}{ENV['PATH']}"}
    official = subprocess.run(
        [oracle_tool("cfn"), "generate"],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert official.returncode == 0, official.stdout + official.stderr
    by_cfn = tree(root)
    by_cfn.pop("rpdk.log", None)  # cfn's log, appended to on every run
    after.pop("rpdk.log", None)
    rewritten = _changes(after, by_cfn)
    # Only cfngen's role and docs differ from what the official core writes (its own words);
    # the docs pages have the same names.
    assert rewritten and all(LANGUAGE_FREE.fullmatch(p) for p in rewritten), sorted(rewritten)
    assert {p for p in by_cfn if p.startswith("docs/")} == {
        p for p in after if p.startswith("docs/")
    }
    again = cfngen("generate", cwd=root)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "edited by hand" not in again.stderr + again.stdout
    final = tree(root)
    final.pop("rpdk.log", None)
    assert {p: d for p, d in final.items() if not LANGUAGE_FREE.fullmatch(p)} == {
        p: d for p, d in by_cfn.items() if not LANGUAGE_FREE.fullmatch(p)
    }
    assert final == after


_SCHEMA = {
    "typeName": "Acme::Lang::Widget",
    "description": "A widget, for the inner loop.",
    "properties": {
        "Id": {"type": "string"},
        "Name": {"type": "string", "minLength": 1},
        "Size": {"$ref": "#/definitions/Size"},
    },
    "definitions": {
        "Size": {
            "type": "object",
            "properties": {"Width": {"type": "integer"}},
            "additionalProperties": False,
        }
    },
    "additionalProperties": False,
    "required": ["Name"],
    "readOnlyProperties": ["/properties/Id"],
    "primaryIdentifier": ["/properties/Id"],
    "tagging": {"taggable": False},
    "handlers": {
        action: {"permissions": [f"acme:{action.capitalize()}Widget"]}
        for action in ("create", "read", "update", "delete", "list")
    },
}

#: A few files each plugin writes (their contents do not matter: they must keep their bytes).
_PLUGIN_FILES = {
    "typescript": ["src/models.ts", "src/handlers.ts", "package.json", "template.yml"],
    "go": ["cmd/resource/model.go", "cmd/resource/resource.go", "go.mod", "Makefile"],
    "java": ["pom.xml", "src/main/java/com/acme/Handler.java", "template.yml"],
}


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_generate_leaves_the_plugins_files_alone(tmp_path, language):
    """The inner loop's version: a project laid out as the plugin lays it out, with cfn init's
    placeholder inputs and docs. generate writes the role, docs/ and inputs/; every other file
    keeps its bytes; the Python steps (models, support files, SAM template) are not taken."""
    _type, entrypoint, _ = LANGUAGES[language]
    config = {
        "artifact_type": "RESOURCE",
        "typeName": _SCHEMA["typeName"],
        "language": language,
        "runtime": {"typescript": "nodejs18.x", "go": "provided.al2", "java": "java17"}[language],
        "entrypoint": entrypoint,
        "testEntrypoint": entrypoint,
        "settings": {},
    }
    (tmp_path / ".rpdk-config").write_text(json.dumps(config, indent=4))
    (tmp_path / "acme-lang-widget.json").write_text(json.dumps(_SCHEMA, indent=4))
    for relpath in [*_PLUGIN_FILES[language], *(f"example_inputs/inputs_1_{k}.json" for k in "ab")]:
        (tmp_path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relpath).write_text(f"// {language} plugin's {relpath}\n")
    (tmp_path / "example_inputs" / "inputs_1_create.json").write_text('{"Name": "..."}\n')
    before = tree(tmp_path)
    done = cfngen("generate", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    after = tree(tmp_path)
    assert {p: d for p, d in after.items() if p in before} == before
    assert sorted(set(after) - set(before)) == [
        "docs/README.md",
        "docs/size.md",
        "inputs/inputs_1_create.json",
        "inputs/inputs_1_invalid.json",
        "inputs/inputs_1_update.json",
        "resource-role.yaml",
    ]
    assert "acme:CreateWidget" in (tmp_path / "resource-role.yaml").read_text()
    assert cfngen("generate", "--check", cwd=tmp_path).returncode == 0
    refused = cfngen("test", cwd=tmp_path)
    # Every language's handlers are run once built; none is built here.
    reason = {"typescript": "is not built", "go": "is not built", "java": "is not built"}[language]
    assert refused.returncode == 2 and reason in refused.stderr, refused.stderr
