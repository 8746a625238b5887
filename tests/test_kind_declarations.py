"""What a kind declares reaches every engine without an edit of the engine: a throwaway kind
in a package of its own (registered the way the registry finds cfngen's, by package name) is
found as a project, checks its files in `cfngen validate`, and shows in the shell completion
and the pre-commit hook's file selection; the shipped .pre-commit-hooks.yaml is what the kinds
declare."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from cfngen._kind import _registry
from cfngen._kind._precommit import precommit_patterns

REPO = Path(__file__).resolve().parent.parent

_THROWAWAY = """
from pathlib import Path

from cfngen._diagnostics import Diagnostic
from cfngen._kind._options import CliOption
from cfngen._kinds._shared._base import KindBase
from cfngen._validate._file_report import FileReport


class PingKind(KindBase):
    name = "ping"
    label = "ping check"
    order = 99
    invoke_actions = ("PING_NOW",)
    cli_options = (
        CliOption("--ping-count", "ping_count", "pings to send", "ping checks", metavar="N"),
        CliOption("--ping-host", "ping_host", "where to", "ping checks", commands=("invoke",)),
    )
    precommit_files = (r"[^/]+\\.ping",)
    precommit_exclude = ("ping-inputs",)
    contract_at = None
    init_at = None
    packaging_at = None

    def project_file(self, root):
        found = root / "check.ping"
        return found if found.is_file() else None

    def claims(self, path):
        return "checked as a ping file" if path.suffix == ".ping" else None

    def checked_files(self, project):
        return [project.template]

    def check_file(self, path, *, strict, display=None):
        return self.check_text(path.read_text(), path=path, strict=strict, display=display)

    def check_text(self, text, *, path, strict, display=None):
        problems = [] if text.strip() == "pong" else [
            Diagnostic("error", "", "a ping file says pong", code="ping/no-pong")
        ]
        return FileReport(path=display or str(path), diagnostics=problems)


KIND = PingKind()
"""


@pytest.fixture
def ping_kind(tmp_path, monkeypatch):
    package = tmp_path / "throwaway_kinds"
    (package / "ping").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "ping" / "__init__.py").write_text(textwrap.dedent(_THROWAWAY))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(_registry, "KIND_PACKAGES", (*_registry.KIND_PACKAGES, package.name))
    _registry.all_kinds.cache_clear()
    yield _registry.named("ping")
    _registry.all_kinds.cache_clear()
    for name in [m for m in sys.modules if m.startswith(package.name)]:
        del sys.modules[name]


def test_the_shipped_pre_commit_hook_selects_what_the_kinds_declare():
    hooks = {
        hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    }
    files, exclude = precommit_patterns()
    assert (hooks["cfngen-validate"]["files"], hooks["cfngen-validate"]["exclude"]) == (
        files,
        exclude,
    )


def test_a_new_kind_is_a_project_and_validate_checks_its_files(ping_kind, tmp_path):
    from cfngen._project import load_project
    from cfngen._validate import validate_paths

    project_dir = tmp_path / "proj"
    project_dir.mkdir()
    (project_dir / "check.ping").write_text("ping\n")
    project = load_project(project_dir)
    assert project.kind is ping_kind
    [report] = validate_paths([project_dir])
    assert [d.code for d in report.diagnostics] == ["ping/no-pong"]
    (project_dir / "check.ping").write_text("pong\n")
    [report] = validate_paths([project_dir / "check.ping"])
    assert report.valid


def test_a_new_kind_shows_in_completion_and_the_pre_commit_selection(ping_kind):
    from cfngen._cli import build_parser
    from cfngen._completion import script

    assert "PING_NOW" in script("bash", build_parser())
    files, exclude = precommit_patterns()
    assert r"[^/]+\.ping" in files and "ping-inputs" in exclude


@pytest.mark.parametrize("command", ["test", "invoke"])
def test_a_new_kinds_options_show_in_help_and_completion(ping_kind, command, capsys):
    """The options a kind declares are added by the CLI to the commands each names (none of
    the CLI's files names the kind): `--help` lists them, the completion offers them."""
    from cfngen._cli import build_parser, main
    from cfngen._completion import script

    with pytest.raises(SystemExit) as exit:
        main([command, "--help"])
    assert exit.value.code == 0
    shown = capsys.readouterr().out
    assert "ping checks:" in shown and "--ping-count N" in shown
    assert ("--ping-host" in shown) is (command == "invoke")
    assert "--ping-count" in script("bash", build_parser())
    assert "-l ping-count" in script("fish", build_parser())


def _type_name_questions():
    from cfngen._kind import all_kinds

    for kind in all_kinds():
        for question in kind.init.questions if kind.init is not None else ():
            if question.key == "type_name":
                yield pytest.param(question, id=kind.name)


@pytest.mark.parametrize("question", list(_type_name_questions()))
def test_a_kinds_type_name_question_explains_its_own_form(question):
    """The question is made once (cfngen/_kinds/_shared/_questions.py); copies had drifted: the
    hook's and the module's --help said Organization::Service::Resource."""
    form = question.prompt[question.prompt.index("(") + 1 : question.prompt.rindex(")")]
    assert question.help.startswith(f"{form}, e.g. ")
    example = question.help.removeprefix(f"{form}, e.g. ")
    assert question.check(example) == example
