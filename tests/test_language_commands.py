"""`cfngen runtime`, `runtime set`, `build` and `test --watch` in the projects of the official
TypeScript, Go and Java plugins (issue 28 item 3).

runtime set edits `.rpdk-config`'s "runtime" and the language's template.yml Runtime: values,
all or nothing, and no other byte of any file; runtime shows Lambda's dates (cfn-lint's table)
and warns on a deprecated one (--strict: exit 1); build checks the handlers' own build (the
artefact there and newer than its sources) and names the command when not (exit 2); --watch
refuses upfront. Each behaviour twice: a layout the test writes (inner loop), and the projects
the official plugins' `cfn init` makes (oracle).
"""

from __future__ import annotations

import datetime
import difflib
import json
import os
import re
import time
from importlib import resources
from pathlib import Path

import pytest

from cfngen._errors import CfngenError
from tests.test_languages import LABELS, LANGUAGES, cfngen, official, project, tree  # noqa: F401

TODAY = datetime.date.today().isoformat()


def _lifecycle() -> dict[str, dict[str, str | None]]:
    """cfn-lint's table of Lambda's runtime dates, read here on its own (the test's judge)."""
    path = resources.files("cfnlint") / "data" / "AdditionalSpecs" / "LmbdRuntimeLifecycle.json"
    return json.loads(path.read_text("utf-8"))


def _successor(runtime: str) -> str:
    """What Lambda says to move `runtime` to (its table's successor)."""
    successor = _lifecycle()[runtime]["successor"]
    assert successor, runtime
    return successor


#: Per language: a runtime a project is on, and a runtime Lambda blocked (refused as a target).
MOVES = {
    "typescript": ("nodejs18.x", "nodejs12.x"),
    "go": ("provided.al2", "go1.x"),
    "java": ("java11", "java8"),
}
#: The SAM template each plugin writes, in the test's own words: two functions (the handler and
#: the test entrypoint), a comment and a quoted value that must keep their bytes.
_TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Description: SAM template of {type_name}  # kept as written

Globals:
  Function:
    Timeout: 180
    MemorySize: 256

Resources:
  TypeFunction:
    Type: AWS::Serverless::Function
    Properties:
      Handler: {entrypoint}
      Runtime: {runtime}
      CodeUri: {code}

  TestEntrypoint:
    Type: AWS::Serverless::Function
    Properties:
      Handler: {entrypoint}
      Runtime: '{runtime}'
      CodeUri: {code}
      Environment:
        Variables:
          MODE: Test
"""
_CODE = {"typescript": "./", "go": "bin/", "java": "./target/acme-lang-handler-1.0-SNAPSHOT.jar"}
#: The plugin's sources, which the commands must not touch, and its build's artefact.
_SOURCES = {
    "typescript": ["src/handlers.ts", "src/models.ts", "tsconfig.json", "package.json"],
    "go": ["cmd/resource/resource.go", "cmd/main.go", "go.mod", "Makefile"],
    "java": ["pom.xml", "src/main/java/com/acme/lang/CreateHandler.java"],
}
_ARTEFACT = {
    "typescript": "dist/handlers.js",
    "go": "bin/bootstrap",
    "java": "target/acme-lang-handler-1.0-SNAPSHOT.jar",
}
_COMMAND = {"typescript": "npm run build", "go": "make", "java": "mvn package"}


def _layout(root: Path, language: str, runtime: str) -> Path:
    """A project laid out as the plugin lays it out (the test writes every file)."""
    type_name, entrypoint, _ = LANGUAGES[language]
    config = {
        "artifact_type": "RESOURCE",
        "typeName": type_name,
        "language": language,
        "runtime": runtime,
        "entrypoint": entrypoint,
        "testEntrypoint": entrypoint,
        "settings": {"protocolVersion": "2.0.0"},
    }
    root.mkdir(parents=True, exist_ok=True)
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4) + "\n")
    schema = {
        "typeName": type_name,
        "description": "A thing.",
        "properties": {"Id": {"type": "string"}, "Title": {"type": "string"}},
        "additionalProperties": False,
        "readOnlyProperties": ["/properties/Id"],
        "primaryIdentifier": ["/properties/Id"],
        "handlers": {"create": {"permissions": []}, "read": {"permissions": []}},
    }
    (root / f"{type_name.lower().replace('::', '-')}.json").write_text(json.dumps(schema))
    (root / "template.yml").write_text(
        _TEMPLATE.format(
            type_name=type_name,
            entrypoint=entrypoint,
            runtime=runtime,
            code=_CODE[language],
        )
    )
    for relpath in _SOURCES[language]:
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        text = '{"scripts": {"build": "tsc"}}\n' if relpath == "package.json" else "// source\n"
        (root / relpath).write_text(text)
    return root


def _line_changes(root: Path, before: dict[str, bytes]) -> dict[str, list[str]]:
    """Per file that changed since `before` (its bytes), the lines removed and added."""
    changed = {}
    for path in sorted(root.rglob("*")):
        relpath = path.relative_to(root).as_posix()
        if not path.is_file() or relpath.split("/")[0] in (".git", ".cfngen"):
            continue
        old, new = before.get(relpath), path.read_bytes()
        if old == new:
            continue
        lines = difflib.ndiff(
            (old or b"").decode().splitlines(keepends=True), new.decode().splitlines(keepends=True)
        )
        changed[relpath] = [line for line in lines if line[:2] in ("- ", "+ ")]
    gone = set(before) - {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    assert not gone, gone
    return changed


def _bytes(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).parts[0] not in (".git", ".cfngen")
    }


def _assert_moved(root: Path, before: dict[str, bytes], old: str, new: str) -> None:
    """Exactly the runtime lines changed: one in `.rpdk-config`, the two functions'."""
    changes = _line_changes(root, before)
    assert sorted(changes) == [".rpdk-config", "template.yml"], changes
    assert changes[".rpdk-config"] == [
        f'-     "runtime": "{old}",\n',
        f'+     "runtime": "{new}",\n',
    ]
    template = changes["template.yml"]
    assert sorted(template) == sorted(
        [
            f"-       Runtime: {old}\n",
            f"+       Runtime: {new}\n",
            f"-       Runtime: '{old}'\n",
            f"+       Runtime: '{new}'\n",
        ]
    ), template


# --------------------------------------------------------------------------- inner loop


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_runtime_set_edits_the_two_runtime_lines_and_nothing_else(tmp_path, language):
    old = MOVES[language][0]
    root = _layout(tmp_path / language, language, old)
    before = _bytes(root)
    new = _successor(old)
    done = cfngen("runtime", "set", new, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    _assert_moved(root, before, old, new)
    assert f"moved to {new}" in done.stdout
    # What Python's move also does and this one does not, said; and the build to run again.
    assert "requirements or pyproject" in done.stdout and _COMMAND[language] in done.stdout
    again = cfngen("runtime", "set", new, cwd=root)
    assert again.returncode == 0 and "nothing changed" in again.stdout, again.stdout


def test_moving_go_off_go1x_says_what_the_build_must_change(tmp_path):
    """go1.x projects (the Go plugin's older ones) move to provided.*: cfngen changes the
    runtime only, and says the executable must now be named bootstrap."""
    root = _layout(tmp_path / "go", "go", "go1.x")
    before = _bytes(root)
    done = cfngen("runtime", "set", "provided.al2023", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    _assert_moved(root, before, "go1.x", "provided.al2023")
    assert "executable named bootstrap" in done.stdout


@pytest.mark.parametrize("language", list(LANGUAGES))
@pytest.mark.parametrize("why", ["blocked", "another language's", "unknown"])
def test_runtime_set_refuses_what_cannot_run_the_handlers_and_changes_nothing(
    tmp_path, language, why
):
    root = _layout(tmp_path / language, language, MOVES[language][0])
    before = tree(root)
    target = {
        "blocked": MOVES[language][1],
        "another language's": "python3.12" if language != "java" else "nodejs22.x",
        "unknown": "nodejs99.x" if language == "typescript" else "java99",
    }[why]
    done = cfngen("runtime", "set", target, cwd=root)
    assert done.returncode == 2, done.stdout + done.stderr
    expected = "no longer creates" if why == "blocked" else f"for {LABELS[language]} handlers"
    assert expected in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert tree(root) == before


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_a_failed_write_leaves_both_files_as_they_were(tmp_path, language, monkeypatch):
    """The second file's swap fails (a full disk): the first, already swapped, is put back."""
    from cfngen._files import _transaction
    from cfngen._runtime_set import set_runtime

    old = MOVES[language][0]
    root = _layout(tmp_path / language, language, old)
    before = tree(root)
    real = _transaction._apply

    applied = []

    def apply(at: Path, entry: object) -> None:
        applied.append(getattr(entry, "path", None))
        if applied[-1] == "template.yml":
            raise OSError(28, "No space left on device")
        real(at, entry)

    monkeypatch.setattr(_transaction, "_apply", apply)
    with pytest.raises(CfngenError, match="no space left on the device; everything was put back"):
        set_runtime(root, _successor(old), TODAY)
    assert applied == [".rpdk-config", "template.yml"]  # the first was in place when it failed
    assert tree(root) == before
    assert not [p for p in os.listdir(root) if p.startswith(".cfngen")]


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_runtime_warns_on_a_deprecated_runtime_and_strict_fails(tmp_path, language):
    deprecated = MOVES[language][1]  # blocked for new functions: deprecated long ago
    root = _layout(tmp_path / language, language, deprecated)
    before = tree(root)
    shown = cfngen("runtime", cwd=root)
    assert shown.returncode == 0, shown.stderr
    assert "warning: Lambda" in shown.stderr and deprecated in shown.stderr, shown.stderr
    assert f"cfngen runtime set {_newest(language)}" in shown.stderr
    assert f"{LABELS[language]} runtimes" in shown.stdout
    assert cfngen("runtime", "--strict", cwd=root).returncode == 1
    current = _layout(tmp_path / "current", language, _newest(language))
    fine = cfngen("runtime", "--strict", cwd=current)
    assert fine.returncode == 0 and "warning" not in fine.stderr, fine.stderr
    assert tree(root) == before


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_runtime_warns_when_the_template_disagrees_with_rpdk_config(tmp_path, language):
    """A move made by hand in one file only: runtime names both values and the fix."""
    old = MOVES[language][0]
    root = _layout(tmp_path / language, language, old)
    config = root / ".rpdk-config"
    new = _newest(language)
    config.write_text(config.read_text().replace(f'"{old}"', f'"{new}"'))
    shown = cfngen("runtime", cwd=root)
    assert shown.returncode == 0, shown.stderr
    assert f"template.yml runs {old} where .rpdk-config says {new}" in shown.stderr
    assert cfngen("runtime", "--strict", cwd=root).returncode == 1
    fixed = cfngen("runtime", "set", new, cwd=root)
    assert fixed.returncode == 0, fixed.stderr
    assert cfngen("runtime", "--strict", cwd=root).returncode == 0


def _newest(language: str) -> str:
    """The newest runtime of the language Lambda supports today, from cfn-lint's table."""
    prefix = {"typescript": "nodejs", "go": "provided.", "java": "java"}[language]
    rows = {n: r for n, r in _lifecycle().items() if n.startswith(prefix) and n != "nodejs"}
    live = [n for n, r in rows.items() if not r["deprecated"] or r["deprecated"] > TODAY]
    return max(live, key=lambda n: [int(x) for x in re.findall(r"\d+", n)])


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_build_checks_the_handlers_own_build(tmp_path, language):
    root = _layout(tmp_path / language, language, MOVES[language][0])
    before = tree(root)
    missing = cfngen("build", cwd=root)
    assert missing.returncode == 2, missing.stdout + missing.stderr
    assert "is not built" in missing.stderr and _COMMAND[language] in missing.stderr
    assert tree(root) == before

    artefact = root / _ARTEFACT[language]
    artefact.parent.mkdir(parents=True, exist_ok=True)
    artefact.write_bytes(b"built")
    artefact.chmod(0o755)
    later = time.time() + 60
    os.utime(artefact, (later, later))
    built = tree(root)
    done = cfngen("build", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{_ARTEFACT[language]} is built and newer than" in done.stdout, done.stdout
    assert "cfn submit" in done.stdout
    as_json = json.loads(cfngen("build", "--format", "json", cwd=root).stdout)
    assert as_json["artefact"] == _ARTEFACT[language]
    assert as_json["command"] == _COMMAND[language] and as_json["package"] == "cfn submit"
    assert tree(root) == built  # no package of cfngen's beside it

    source = root / _SOURCES[language][0]
    os.utime(source, (later + 60, later + 60))
    stale = cfngen("build", cwd=root)
    assert stale.returncode == 2, stale.stdout + stale.stderr
    assert f"{_ARTEFACT[language]} is older than {_SOURCES[language][0]}" in stale.stderr
    assert _COMMAND[language] in stale.stderr
    assert tree(root) == built


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_watch_refuses_upfront_naming_the_language(tmp_path, language):
    root = _layout(tmp_path / language, language, MOVES[language][0])
    done = cfngen("test", "--watch", "--poll", cwd=root)  # would watch forever (timeout 120 s)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"this is a {LABELS[language]} project" in done.stderr
    assert "--watch runs Python handlers in this process" in done.stderr


# --------------------------------------------------------------------------- oracle


@pytest.mark.oracle
def test_runtime_and_runtime_set_on_the_official_projects(project):  # noqa: F811
    """The plugins' own files: `runtime` changes nothing; `runtime set` the runtime lines only
    (the plugin's template writes them unquoted: both lines read `Runtime: <name>`)."""
    language, root = project
    before = tree(root)
    shown = cfngen("runtime", cwd=root)
    assert shown.returncode == 0, shown.stderr
    assert f"{LABELS[language]} handlers" in shown.stdout
    assert tree(root) == before
    old = json.loads((root / ".rpdk-config").read_text())["runtime"]
    new = _newest(language)
    raw = _bytes(root)
    done = cfngen("runtime", "set", new, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    changes = _line_changes(root, raw)
    assert sorted(changes) == [".rpdk-config", "template.yml"], changes
    assert changes[".rpdk-config"] == [
        f'-     "runtime": "{old}",\n',
        f'+     "runtime": "{new}",\n',
    ]
    assert (
        changes["template.yml"]
        == [
            f"-       Runtime: {old}\n",
            f"+       Runtime: {new}\n",
        ]
        * 2
    )
    validated = cfngen("validate", cwd=root)
    assert validated.returncode == 0, validated.stderr


@pytest.mark.oracle
def test_build_on_the_official_projects_names_the_plugins_build(project):  # noqa: F811
    """Not built: the command the plugin's project builds with. Built (the artefact the
    plugin's entrypoint and CodeUri name, placed as its build places it): checked, no file
    of cfngen's written."""
    language, root = project
    before = tree(root)
    missing = cfngen("build", cwd=root)
    assert missing.returncode == 2, missing.stdout + missing.stderr
    assert _COMMAND[language] in missing.stderr and "is not built" in missing.stderr
    assert tree(root) == before
    import yaml

    template = yaml.safe_load(
        (root / "template.yml").read_text().replace("!", "")  # no short-form tags there
    )
    code = template["Resources"]["TypeFunction"]["Properties"]["CodeUri"]
    artefact = {
        "typescript": "dist/handlers.js",
        "go": f"{code.rstrip('/')}/bootstrap",
        "java": code.removeprefix("./"),
    }[language]
    (root / artefact).parent.mkdir(parents=True, exist_ok=True)
    (root / artefact).write_bytes(b"built")
    (root / artefact).chmod(0o755)
    later = time.time() + 60
    os.utime(root / artefact, (later, later))
    done = cfngen("build", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{artefact} is built" in done.stdout


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_runtime_warns_within_lambdas_notice_before_deprecation(tmp_path, language):
    """From 180 days before the deprecation cfn-lint's table gives (Lambda's notice), a
    supported runtime is warned about; the day before that window it is not."""
    from cfngen._runtime_set import show_runtime

    runtime = _newest(language)
    root = _layout(tmp_path / language, language, runtime)
    deprecated = datetime.date.fromisoformat(_lifecycle()[runtime]["deprecated"] or "")
    inside = (deprecated - datetime.timedelta(days=180)).isoformat()
    before = (deprecated - datetime.timedelta(days=181)).isoformat()
    warned = show_runtime(root, inside)
    assert [w for w in warned.warnings if f"Lambda deprecates {runtime} on" in w], warned
    assert show_runtime(root, before).warnings == []
