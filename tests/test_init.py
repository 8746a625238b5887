"""`cfngen init`: answers from flags, the destination rules, git, and leaving nothing behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cfngen._cli import main
from cfngen._errors import CfngenError, ExitCode
from cfngen._init import _template_cache
from cfngen._init._scaffold import init_project
from cfngen._kind import named
from cfngen._kinds.resource._answers import EXAMPLE_TYPE_NAME
from cfngen._languages._python_runtimes import DEFAULT_RUNTIME
from tests.test_init_support import cfngen_argv, git, project_files, run_cfngen

LIVE = _template_cache.live_version("resource").tag


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A machine of its own: HOME (so ~/.cfngen and ~/.gitconfig are the test's), no system
    git config."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("CFNGEN_HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    return home


def init(*args: str) -> int:
    return main(["init", "--no-input", *args])


def answers_of(root: Path) -> dict:
    return yaml.safe_load((root / ".copier-answers.yml").read_text())


def test_no_input_makes_a_project_with_one_commit(home, tmp_path, capsys):
    dest = tmp_path / "widget"
    assert init("--type-name", "Acme::Svc::Widget", str(dest)) == ExitCode.OK
    out = capsys.readouterr().out
    assert f"Created Acme::Svc::Widget in {dest}" in out
    assert "git: one commit" in out
    assert git(dest, "rev-list", "--count", "HEAD").strip() == "1"
    assert git(dest, "status", "--porcelain", "--untracked-files=all") == ""
    committed = set(git(dest, "ls-files").split())
    assert committed == set(project_files(dest))
    assert {
        ".copier-answers.yml",
        ".gitignore",
        ".rpdk-config",
        "README.md",
        "acme-svc-widget.json",
        "callback-context.json",
        "inputs/inputs_1_create.json",
        "inputs/inputs_1_update.json",
        "inputs/inputs_1_invalid.json",
        "requirements.txt",
        "src/acme_svc_widget/__init__.py",
        "src/acme_svc_widget/handlers.py",
        "src/acme_svc_widget/models.py",
        "tests/test_handlers.py",
    } <= committed
    assert answers_of(dest) == {
        "_commit": LIVE,
        "_src_path": "~/.cfngen/templates/resource",
        "artifact_type": "RESOURCE",
        "example": False,
        "type_name": "Acme::Svc::Widget",
        "package_name": "acme_svc_widget",
        "runtime": DEFAULT_RUNTIME.name,
        "tagging": True,
        "type_configuration": False,
        "handlers": ["create", "read", "update", "delete", "list"],
        "ci": "github",
    }
    # git had no identity on this machine: the commit is cfngen's, and nothing is configured.
    assert git(dest, "log", "-1", "--format=%an").strip() == "cfngen"
    assert git(dest, "config", "--local", "--get-regexp", "user", check=False) == ""


def test_the_commit_is_the_users_when_git_knows_them(home, tmp_path):
    (home / ".gitconfig").write_text("[user]\n\tname = Ada\n\temail = ada@example.com\n")
    dest = tmp_path / "widget"
    assert init("-t", "Acme::Svc::Widget", str(dest)) == ExitCode.OK
    assert git(dest, "log", "-1", "--format=%an <%ae>").strip() == "Ada <ada@example.com>"


def test_no_git(home, tmp_path):
    dest = tmp_path / "widget"
    assert init("-t", "Acme::Svc::Widget", "--no-git", str(dest)) == ExitCode.OK
    assert not (dest / ".git").exists()
    assert (dest / "src" / "acme_svc_widget" / "handlers.py").is_file()


def test_inside_a_repository_no_second_repository_is_made(home, tmp_path, capsys):
    outer = tmp_path / "monorepo"
    outer.mkdir()
    git(outer, "init", "-q")
    dest = outer / "types" / "widget"
    assert init("-t", "Acme::Svc::Widget", str(dest)) == ExitCode.OK
    assert not (dest / ".git").exists()
    assert f"inside the git repository at {outer}" in capsys.readouterr().err


def test_a_non_empty_folder_needs_force(home, tmp_path, capsys):
    dest = tmp_path / "widget"
    dest.mkdir()
    (dest / "notes.txt").write_text("mine")
    assert init("-t", "Acme::Svc::Widget", str(dest)) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "is not empty" in err
    assert "--force" in err
    assert sorted(p.name for p in dest.iterdir()) == ["notes.txt"]

    assert init("-t", "Acme::Svc::Widget", "--force", str(dest)) == ExitCode.OK
    assert (dest / "notes.txt").read_text() == "mine"
    assert (dest / "acme-svc-widget.json").is_file()
    # The commit holds what init wrote; the user's own file stays untracked.
    assert "notes.txt" not in git(dest, "ls-files").split()
    assert git(dest, "status", "--porcelain").strip() == "?? notes.txt"


def test_force_never_replaces_a_file_and_lists_what_it_kept(home, tmp_path, capsys):
    dest = tmp_path / "widget"
    (dest / "src").mkdir(parents=True)
    (dest / "README.md").write_text("old")
    (dest / "src" / "keep.py").write_text("")
    (dest / "template.yml").write_text("my SAM template\n")
    assert init("-t", "Acme::Svc::Widget", "--force", str(dest)) == ExitCode.OK
    assert (dest / "README.md").read_text() == "old"
    assert (dest / "template.yml").read_text() == "my SAM template\n"
    assert (dest / "src" / "keep.py").is_file()
    assert (dest / "src" / "acme_svc_widget" / "handlers.py").is_file()
    err = capsys.readouterr().err
    assert "kept 2 file(s) already in the folder" in err
    assert "README.md" in err and "template.yml" in err
    # The commit holds what init added; the kept files stay the user's, also for generate.
    committed = git(dest, "ls-files").split()
    assert "README.md" not in committed and "template.yml" not in committed
    assert main(["generate", str(dest)]) == ExitCode.OK
    assert (dest / "template.yml").read_text() == "my SAM template\n"


@pytest.mark.parametrize("marker", [".rpdk-config", ".copier-answers.yml"])
def test_force_never_writes_into_a_project(home, tmp_path, capsys, marker):
    dest = tmp_path / "widget"
    dest.mkdir()
    (dest / marker).write_text("{}")
    (dest / "README.md").write_text("mine")
    before = sorted(p.name for p in dest.iterdir())
    assert init("-t", "Acme::Svc::Widget", "--force", str(dest)) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "a project exists here" in err and "cfngen upgrade" in err
    assert sorted(p.name for p in dest.iterdir()) == before
    assert (dest / "README.md").read_text() == "mine"


def test_an_empty_existing_folder_and_the_current_folder_are_fine(home, tmp_path, monkeypatch):
    dest = tmp_path / "widget"
    dest.mkdir()
    monkeypatch.chdir(dest)
    assert init("-t", "Acme::Svc::Widget") == ExitCode.OK
    assert (dest / ".rpdk-config").is_file()
    assert git(dest, "rev-list", "--count", "HEAD").strip() == "1"
    assert not [p for p in dest.iterdir() if p.name.startswith(".cfngen-init-")]


def test_a_fresh_clone_of_an_empty_repository_counts_as_empty(home, tmp_path, capsys):
    dest = tmp_path / "widget"
    dest.mkdir()
    git(dest, "init", "-q")
    assert init("-t", "Acme::Svc::Widget", str(dest)) == ExitCode.OK
    assert "commit the new files there" in capsys.readouterr().err
    assert git(dest, "rev-list", "--all").strip() == ""  # the user's repository: not committed
    assert (dest / ".copier-answers.yml").is_file()


def test_a_file_in_the_way(home, tmp_path, capsys):
    (tmp_path / "widget").write_text("")
    assert init("-t", "Acme::Svc::Widget", str(tmp_path / "widget")) == ExitCode.USAGE
    assert "is not a folder" in capsys.readouterr().err


def test_no_input_without_a_type_name(home, tmp_path, capsys):
    assert init(str(tmp_path / "widget")) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "--no-input needs the type name" in err
    assert "--type-name" in err
    assert not (tmp_path / "widget").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-t", "AWS::S3::Thing"], "the AWS namespace is reserved"),
        (["-t", "Acme::Svc"], "exactly three"),
        (["-t", "Acme::Svc::Widget", "--artifact-type", "lambda"], "unknown artifact type"),
        (["-t", "Acme::Svc::Widget", "--runtime", "python2.7"], "unknown runtime"),
        (["-t", "Acme::Svc::Widget", "--package-name", "1abc"], "invalid package name"),
        (["-t", "Acme::Svc::Widget", "--handlers", "create,destroy"], "unknown handler"),
        (["-t", "Acme::Svc::Widget", "--data", "colour=red"], "unknown key 'colour'"),
        (["-t", "Acme::Svc::Widget", "--template-version", "0.0.1"], "no resource template"),
        (["-t", "Acme::Svc::Widget", "--data", "type_name=Acme::Svc::Other"], "given twice"),
        (["--example", "--no-tags"], "the example is made with tagging=true, not tagging=false"),
        (
            ["--example", "--handlers", "create,read"],
            "with handlers=create,read,update,delete,list",
        ),
        (
            ["--example", "--template-version", "0.1.0"],
            "the resource template 0.1.0 has no example",
        ),
        (["--data", "example=maybe"], "example='maybe' is not a yes/no value"),
        (["--example", "-t", "Amazon::SSM::Parameter"], "the Amazon namespace is reserved"),
    ],
)
def test_bad_answers_are_one_message_and_nothing_is_written(home, tmp_path, capsys, args, message):
    dest = tmp_path / "widget"
    assert init(*args, str(dest)) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert message in err
    assert err.startswith("cfngen: error: ")
    assert "Traceback" not in err
    assert not dest.exists()


def test_data_and_flags_reach_the_project(home, tmp_path):
    dest = tmp_path / "widget"
    code = init(
        "-t",
        "Acme::Svc::Widget",
        "--package-name",
        "widgets",
        "--runtime",
        "python3.11",
        "--data",
        "tagging=false",
        "--data",
        "handlers=create,read,delete",
        "--type-configuration",
        str(dest),
    )
    assert code == ExitCode.OK
    answers = answers_of(dest)
    assert answers["package_name"] == "widgets"
    assert answers["runtime"] == "python3.11"
    assert answers["tagging"] is False
    assert answers["type_configuration"] is True
    assert answers["handlers"] == ["create", "read", "delete"]
    config = json.loads((dest / ".rpdk-config").read_text())
    assert (config["runtime"], config["language"]) == ("python3.11", "python311")
    assert config["entrypoint"] == "widgets.handlers.resource"
    schema = json.loads((dest / "acme-svc-widget.json").read_text())
    assert "Tags" not in schema["properties"]
    assert schema["tagging"] == {"taggable": False}
    assert sorted(schema["handlers"]) == ["create", "delete", "read"]
    assert "ApiEndpoint" in schema["typeConfiguration"]["properties"]
    handlers = (dest / "src" / "widgets" / "handlers.py").read_text()
    assert "def create_handler(" in handlers
    assert "def update_handler(" not in handlers
    assert "def list_handler(" not in handlers


def test_example_needs_no_type_name_and_records_its_answers(home, tmp_path, capsys):
    dest = tmp_path / "demo"
    assert init("--example", str(dest)) == ExitCode.OK
    out = capsys.readouterr().out
    assert f"Created {EXAMPLE_TYPE_NAME} in {dest}" in out
    assert "not implemented" not in out
    answers = answers_of(dest)
    assert answers["example"] is True
    assert answers["type_name"] == EXAMPLE_TYPE_NAME == "Example::SSM::Parameter"
    assert answers["package_name"] == "example_ssm_parameter"
    assert (answers["tagging"], answers["type_configuration"]) == (True, False)
    assert answers["handlers"] == ["create", "read", "update", "delete", "list"]
    schema = json.loads((dest / "example-ssm-parameter.json").read_text())
    assert schema["typeName"] == EXAMPLE_TYPE_NAME
    assert schema["primaryIdentifier"] == ["/properties/Name"]
    handlers = (dest / "src" / "example_ssm_parameter" / "handlers.py").read_text()
    assert 'client(session, "ssm")' in handlers
    assert "STUB:" not in handlers
    models = (dest / "src" / "example_ssm_parameter" / "models.py").read_text()
    assert "class CallbackContext(CfnModel):\n    cfngen: dict[str, Any] | None" in models


def test_example_under_a_type_name_of_ones_own(home, tmp_path):
    dest = tmp_path / "params"
    assert init("--data", "example=yes", "-t", "Acme::Params::Greeting", str(dest)) == 0
    schema = json.loads((dest / "acme-params-greeting.json").read_text())
    assert schema["typeName"] == "Acme::Params::Greeting"
    assert "ssm:PutParameter" in schema["handlers"]["create"]["permissions"]
    handlers = (dest / "src" / "acme_params_greeting" / "handlers.py").read_text()
    assert 'TYPE_NAME = "Acme::Params::Greeting"' in handlers


def test_a_stub_project_says_what_cfngen_test_will_say(home, tmp_path, capsys):
    assert init("-t", "Acme::Svc::Widget", str(tmp_path / "w")) == ExitCode.OK
    out = capsys.readouterr().out
    assert "cfngen test  (says 'not implemented' until you implement the handlers in " in out


def test_an_earlier_template_version(home, tmp_path):
    dest = tmp_path / "widget"
    assert init("-t", "Acme::Svc::Widget", "--template-version", "0.1.0", str(dest)) == 0
    assert answers_of(dest)["_commit"] == "0.1.0"
    assert (dest / "pytest.ini").is_file()
    assert not (dest / "pyproject.toml").exists()


def test_awkward_type_name_gives_a_package_under_a_python_name(home, tmp_path, capsys):
    dest = tmp_path / "odd"
    assert init("-t", "1Org::2Svc::3Res", str(dest)) == ExitCode.OK
    assert "`cfn submit` looks for the handlers in src/1org_2svc_3res/" in capsys.readouterr().err
    assert (dest / "1org-2svc-3res.json").is_file()
    assert (dest / "src" / "ext_1org_2svc_3res" / "handlers.py").is_file()
    config = json.loads((dest / ".rpdk-config").read_text())
    assert config["entrypoint"] == "ext_1org_2svc_3res.handlers.resource"


@pytest.mark.oracle  # pytest runs the project's own unit tests: they are the judge
def test_awkward_type_names_package_imports_in_its_own_tests(home, tmp_path):
    dest = tmp_path / "odd"
    assert init("-t", "1Org::2Svc::3Res", str(dest)) == ExitCode.OK
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=dest,
        capture_output=True,
        text=True,
        check=False,
    )
    assert tests.returncode == 0, tests.stdout + tests.stderr


@pytest.mark.parametrize(
    "failure", [KeyboardInterrupt(), CfngenError("schema broke", exit_code=ExitCode.FAILED)]
)
@pytest.mark.parametrize("existing", [False, True])
def test_an_interrupted_or_failed_init_leaves_nothing_behind(home, tmp_path, failure, existing):
    def boom(_project: Path) -> None:
        raise failure

    work = tmp_path / "work"
    work.mkdir()
    dest = work / "widget" if existing else work / "new" / "deeper" / "widget"
    if existing:
        dest.mkdir()
    spec = named("resource").init
    assert spec is not None
    (type_name,) = (q for q in spec.questions if q.key == "type_name")
    answers = spec.resolve(spec.fold({"type_name": type_name.check("Acme::Svc::Widget")}))
    with pytest.raises(type(failure)):
        init_project(dest, answers, generate=boom)
    assert [p.relative_to(work).as_posix() for p in work.rglob("*")] == (
        ["widget"] if existing else []
    )


def test_without_git_the_project_is_made_and_can_be_upgraded_once_git_is_there(
    home, tmp_path, monkeypatch, capsys
):
    path = os.environ["PATH"]
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    dest = tmp_path / "widget"
    assert init("-t", "Acme::Svc::Widget", str(dest)) == ExitCode.OK
    assert "git is not installed" in capsys.readouterr().err
    assert not (dest / ".git").exists()
    answers = answers_of(dest)
    assert (answers["_commit"], answers["_src_path"]) == (LIVE, "~/.cfngen/templates/resource")

    monkeypatch.setenv("PATH", path)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "first")
    assert main(["upgrade", str(dest)]) == ExitCode.OK
    assert "Already on template" in capsys.readouterr().out


def test_without_a_terminal_and_without_no_input_it_fails_at_once(tmp_path):
    result = run_cfngen("init", "-t", "Acme::Svc::Widget", "widget", cwd=tmp_path, home=tmp_path)
    assert result.returncode == ExitCode.USAGE
    assert "this is not one" in result.stderr
    assert "--no-input" in result.stderr
    assert not (tmp_path / "widget").exists()


def test_an_unwritable_template_cache_does_not_stop_init(home, tmp_path, monkeypatch, capsys):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder should be")
    monkeypatch.setenv("CFNGEN_HOME", str(blocked))
    dest = tmp_path / "widget"
    assert init("-t", "Acme::Svc::Widget", str(dest)) == ExitCode.OK
    err = capsys.readouterr().err
    assert f"cfngen's caches in {blocked} are not used: {blocked} is a file" in err
    assert "CFNGEN_NO_CACHE=1" in err
    # The answers file never records a machine's path (tests/test_cache_layer.py).
    assert answers_of(dest)["_src_path"] == "~/.cfngen/templates/resource"


def test_init_help_lists_every_prompt_flag():
    result = subprocess.run(
        [*cfngen_argv(), "init", "--help"], capture_output=True, text=True, check=True
    )
    for flag in (
        "--artifact-type",
        "--example",
        "--type-name",
        "--package-name",
        "--runtime",
        "--tags",
        "--type-configuration",
        "--handlers",
        "--data",
        "--no-input",
        "--force",
        "--no-git",
    ):
        assert flag in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("--package-name", "json"),
        ("--package-name", "boto3"),
        ("--data", "package_name=os"),
        ("--data", "package_name=cloudformation_cli_python_lib"),
    ],
)
def test_a_package_name_that_hides_a_module_is_refused_before_anything_is_written(
    home, tmp_path, capsys, args
):
    dest = tmp_path / "widget"
    assert init("-t", "Acme::Svc::Widget", *args, str(dest)) == ExitCode.USAGE
    assert "would hide" in capsys.readouterr().err
    assert not dest.exists()


@pytest.mark.parametrize(
    ("args", "stubs"),
    [
        (("-t", "Acme::Svc::Widget"), True),
        (("-t", "Acme::Svc::Widget", "--template-version", "0.1.0"), False),
        (("--example",), False),
        (("-t", "Acme::Svc::Widget", "--handlers", "none"), False),
        (("--artifact-type", "hook", "-t", "Acme::Svc::Guard"), False),
    ],
    ids=["stubs", "template-0.1.0", "example", "no-handlers", "hook"],
)
def test_next_mentions_stub_lines_only_when_the_project_has_them(
    home, tmp_path, capsys, args, stubs
):
    """Template 0.1.0's handlers have no `# STUB:` line: Next told the user to delete them."""
    root = tmp_path / "project"
    assert init("--no-git", *args, str(root)) == ExitCode.OK
    out = capsys.readouterr().out
    has = any("# STUB: not implemented" in path.read_text() for path in root.rglob("handlers.py"))
    assert has == stubs
    assert ("`# STUB:` lines" in out.split("Next:", 1)[1]) == stubs, out


@pytest.mark.parametrize(
    ("kind", "answer", "written"),
    [
        ("resource", ("--ci", "gitlab"), ".gitlab-ci.yml"),
        ("resource", ("--data", "ci=gitlab"), ".gitlab-ci.yml"),
        ("hook", ("--data", "ci=none"), None),
        ("custom_resource", ("--ci", "github"), ".github/workflows/cfngen.yml"),
    ],
)
def test_the_ci_answer_is_one_question_every_way_it_comes(home, tmp_path, kind, answer, written):
    """`--data ci=...` was refused (ci was a flag of the CLI's, not a question)."""
    root = tmp_path / "project"
    type_name = () if kind == "custom_resource" else ("-t", "Acme::Svc::Widget")
    args = ("--artifact-type", kind, *type_name, *answer, "--no-git", str(root))
    assert init(*args) == ExitCode.OK
    found = {p for p in (".gitlab-ci.yml", ".github/workflows/cfngen.yml") if (root / p).exists()}
    assert found == ({written} if written else set())
    assert answers_of(root)["ci"] == answer[1].removeprefix("ci=")


@pytest.mark.parametrize("value", ["github", "none"])
def test_ci_is_refused_for_a_module_which_has_no_workflow(home, tmp_path, capsys, value):
    root = tmp_path / "module"
    args = ("--artifact-type", "module", "-t", "Acme::Svc::Stack::MODULE", "--ci", value)
    assert init(*args, str(root)) == ExitCode.USAGE
    assert "ci does not apply to this kind of extension" in capsys.readouterr().err
    assert not root.exists()


# ------------------------------------------------------------------ a folder of a repository

#: kind -> the answers that make one with --no-input.
KIND_ARGS = {
    "resource": ("-t", "Acme::Svc::Widget"),
    "hook": ("--artifact-type", "hook", "-t", "Acme::Svc::Guard"),
    "custom_resource": ("--artifact-type", "custom_resource"),
}


def monorepo(tmp_path: Path) -> Path:
    repo = tmp_path / "mono"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "README.md").write_text("many projects\n")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=a", "-c", "user.email=a@b.c", "commit", "-qm", "start")
    return repo


@pytest.mark.parametrize("kind", KIND_ARGS)
def test_in_a_folder_of_a_repository_the_github_workflow_goes_to_its_root(
    home, tmp_path, capsys, kind
):
    """GitHub runs workflows only from the repository's root: the one init wrote in the
    project's folder never ran."""
    repo = monorepo(tmp_path)
    root = repo / "types" / "thing"
    assert init(*KIND_ARGS[kind], str(root)) == ExitCode.OK
    out = capsys.readouterr().out
    workflow = repo / ".github" / "workflows" / "cfngen-types-thing.yml"
    job = yaml.safe_load(workflow.read_text())["jobs"]["check"]
    assert job["defaults"]["run"]["working-directory"] == "types/thing"
    paths = [
        value
        for step in job["steps"]
        for key, value in step.get("with", {}).items()
        if key in ("cache-dependency-path", "path")
    ]
    assert paths and all(path.startswith("types/thing/") for path in paths), paths
    assert all((root / path.removeprefix("types/thing/")).exists() for path in paths[:-1])
    assert not (root / ".github").exists()
    assert f"CI: {workflow}" in out
    assert answers_of(root)["ci_working_directory"] == "types/thing"


def test_in_a_folder_of_a_repository_the_gitlab_job_runs_there_and_init_says_how_to_include_it(
    home, tmp_path, capsys
):
    repo = monorepo(tmp_path)
    root = repo / "types" / "thing"
    assert init(*KIND_ARGS["resource"], "--ci", "gitlab", str(root)) == ExitCode.OK
    err = capsys.readouterr().err
    (name, job), *_ = yaml.safe_load((root / ".gitlab-ci.yml").read_text()).items()
    assert name == "cfngen types/thing"
    assert job["script"][0] == "cd types/thing"
    assert job["artifacts"]["reports"]["junit"] == "types/thing/reports/*.xml"
    assert job["cache"]["key"]["files"] == ["types/thing/requirements-dev.txt"]
    assert "include: [{local: types/thing/.gitlab-ci.yml}]" in err
    assert not (repo / ".gitlab-ci.yml").exists()  # the repository's own file: never written


@pytest.mark.parametrize(
    "case", ["a workflow of that name exists", "a path it cannot name", ".github is a file"]
)
def test_in_a_folder_of_a_repository_init_says_why_the_workflow_is_not_at_the_root(
    home, tmp_path, capsys, case
):
    repo = monorepo(tmp_path)
    existing = repo / ".github" / "workflows" / "cfngen-types-thing.yml"
    if case == "a workflow of that name exists":
        existing.parent.mkdir(parents=True)
        existing.write_text("name: mine\n")
        root = repo / "types" / "thing"
    elif case == ".github is a file":
        (repo / ".github").write_text("not a folder\n")
        root = repo / "types" / "thing"
    else:
        root = repo / "types" / "my thing"
    assert init(*KIND_ARGS["resource"], str(root)) == ExitCode.OK
    err = capsys.readouterr().err
    if case == "a workflow of that name exists":
        assert existing.read_text() == "name: mine\n"
        assert f"{existing} exists, so the project's GitHub workflow was not written" in err
        assert not (root / ".github").exists()
    elif case == ".github is a file":
        assert (repo / ".github").read_text() == "not a folder\n"
        assert "the project's GitHub workflow could not be written to" in err
        assert (root / ".rpdk-config").is_file()  # the project is there
    else:
        assert not (repo / ".github").exists()
        assert "GitHub does not run the CI file init wrote in the project" in err
        assert "'types/my thing'" in err
        assert (root / ".github" / "workflows" / "cfngen.yml").is_file()


@pytest.mark.oracle  # check-jsonschema (GitHub's and GitLab's schemas) and zizmor are the judges
@pytest.mark.parametrize("ci", ["github", "gitlab"])
def test_the_ci_files_of_a_project_in_a_folder_validate(home, tmp_path, ci):
    from tests.test_editor_ci import tool

    repo = monorepo(tmp_path)
    root = repo / "types" / "thing"
    assert init(*KIND_ARGS["resource"], "--ci", ci, str(root)) == ExitCode.OK
    if ci == "github":
        workflow = repo / ".github" / "workflows" / "cfngen-types-thing.yml"
        schema = "vendor.github-workflows"
        audit = tool("zizmor", "--offline", "--persona", "pedantic", str(workflow), cwd=repo)
        assert audit.returncode == 0, audit.stdout + audit.stderr
    else:
        workflow, schema = root / ".gitlab-ci.yml", "vendor.gitlab-ci"
    checked = tool("check-jsonschema", "--builtin-schema", schema, str(workflow), cwd=repo)
    assert checked.returncode == 0, checked.stdout + checked.stderr
