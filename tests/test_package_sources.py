"""`cfngen build` packs what the deployed handler will import and nothing private: symbolic links
are followed as Python's import follows them, as far as the repository holding the project
(a monorepo's `../shared`), and never further; dotfiles, cfngen's `.cfngen-old` backups and
caches are never packed. Every followed link and every exclusion is listed, in text and JSON.

Each case runs on both kinds that build a handler: a resource type and a hook, as
`cfngen init` makes them, inside a git repository."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import made_once, run_command

KINDS = {
    "resource": ("widget", "--type-name", "Acme::Svc::Widget"),
    "hook": ("editor-hook", "--artifact-type", "hook", "-t", "Acme::Svc::Hook"),
}
SECRET = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


@dataclass
class Repo:
    """A git repository holding a project (`root`, in `ext/`) beside other folders."""

    top: Path
    root: Path
    #: The handler package's folder name (`acme_svc_widget`).
    pkg: str
    #: A folder outside the repository.
    outside: Path

    @property
    def package_dir(self) -> Path:
        return self.root / "src" / self.pkg

    def write(self, relpath: str, text: str, base: Path | None = None) -> Path:
        path = (base or self.top) / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def link(self, relpath: str, target: Path | str) -> None:
        """A symbolic link at `relpath` (from the project) to `target` (a Path: as a path
        relative to the link's folder when inside the repository, else absolute)."""
        path = self.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(target, Path) and target.is_relative_to(self.top):
            target = os.path.relpath(target, path.parent)
        os.symlink(target, path)

    def build(self, *options: str) -> subprocess.CompletedProcess[str]:
        env = {"CFNGEN_HOME": str(self.top.parent / "home"), "PIP_CONFIG_FILE": os.devnull}
        return run_command("build", *options, cwd=self.root, env=env)

    def package(self) -> tuple[set[str], set[str], bytes]:
        """The package's entries, its handler zip's entries, and all the bytes of both."""
        [path] = self.root.glob("acme-svc-*.zip")
        with zipfile.ZipFile(path) as outer:
            inner = outer.read("ResourceProvider.zip")
            names = set(outer.namelist())
            data = b"".join(outer.read(n) for n in sorted(names))
        with zipfile.ZipFile(io.BytesIO(inner)) as archive:
            inner_names = set(archive.namelist())
            data += b"".join(archive.read(n) for n in sorted(inner_names))
        return names, inner_names, data


@pytest.fixture(params=sorted(KINDS))
def repo(request: pytest.FixtureRequest, tmp_path_factory, tmp_path) -> Repo:
    top = tmp_path / "repo"
    top.mkdir()
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    root = top / "ext"
    shutil.copytree(made_once(tmp_path_factory, *KINDS[request.param]), root, symlinks=True)
    (root / "requirements.txt").write_text("")  # no dependencies: pip has nothing to do
    pkg = json.loads((root / ".rpdk-config").read_text())["entrypoint"].split(".")[0]
    outside = tmp_path / "outside"
    outside.mkdir()
    return Repo(top, root, pkg, outside)


# ------------------------------------------------------------------------- links followed


def shared_folder(repo: Repo) -> str:
    """A monorepo's shared code beside the project: `src/pkg/shared -> ../../../shared`."""
    repo.write("shared/__init__.py", "")
    repo.write("shared/util.py", "SHARED = True\n")
    repo.link(f"src/{repo.pkg}/shared", repo.top / "shared")
    return "../shared"


def project_folder(repo: Repo) -> str:
    repo.write("ext/common/util.py", "COMMON = True\n")
    repo.link(f"src/{repo.pkg}/shared", repo.root / "common")
    return "common"


def project_file(repo: Repo) -> str:
    repo.write("ext/config/util.py", "FROM_CONFIG = True\n")
    repo.link(f"src/{repo.pkg}/shared/util.py", repo.root / "config" / "util.py")
    repo.write(f"ext/src/{repo.pkg}/shared/__init__.py", "")
    return "config/util.py"


FOLLOWED: dict[str, Callable[[Repo], str]] = {
    "folder in the repository, outside the project": shared_folder,
    "folder inside the project": project_folder,
    "file inside the project": project_file,
}


@pytest.mark.parametrize("plant", FOLLOWED.values(), ids=FOLLOWED.keys())
def test_a_link_within_the_repository_is_packed_as_python_imports_it_and_listed(repo, plant):
    target = plant(repo)
    link = f"src/{repo.pkg}/shared" + ("/util.py" if target.endswith(".py") else "")
    with (repo.package_dir / "handlers.py").open("a") as handlers:
        handlers.write("\nfrom .shared import util\n")

    result = repo.build("--format", "json")

    assert result.returncode == 0, result.stdout + result.stderr
    doc = json.loads(result.stdout)
    assert {"path": link, "target": target} in doc["links"]
    names, inner, _ = repo.package()
    assert f"{repo.pkg}/shared/util.py" in inner
    assert f"src/{repo.pkg}/shared/util.py" in names
    # The deployed handler imports it from the zip's files alone.
    site = repo.top.parent / "lambda"
    [path] = repo.root.glob("acme-svc-*.zip")
    with zipfile.ZipFile(path) as outer:
        zipfile.ZipFile(io.BytesIO(outer.read("ResourceProvider.zip"))).extractall(site)
    assert not any(p.is_symlink() for p in site.rglob("*"))
    assert (site / repo.pkg / "shared" / "util.py").read_text().endswith("= True\n")


def test_a_symlinked_package_folder_and_a_dotenv_pack_the_first_and_not_the_second(repo):
    shared_folder(repo)
    repo.write(f"src/{repo.pkg}/.env", SECRET + "\n", base=repo.root)

    result = repo.build()

    assert result.returncode == 0, result.stdout + result.stderr
    names, inner, data = repo.package()
    assert f"{repo.pkg}/shared/util.py" in inner
    assert SECRET.encode() not in data
    assert not {n for n in names | inner if n.endswith(".env")}
    assert f"  followed a link: src/{repo.pkg}/shared -> ../shared" in result.stdout
    assert f"src/{repo.pkg}/.env" in result.stdout


# ------------------------------------------------------------------------- links refused


def outside_file(repo: Repo) -> str:
    secret = repo.write("credentials", SECRET + "\n", base=repo.outside)
    repo.link(f"src/{repo.pkg}/credentials", secret)
    return f"src/{repo.pkg}/credentials"


def outside_folder(repo: Repo) -> str:
    repo.write("aws/credentials", SECRET + "\n", base=repo.outside)
    repo.link(f"src/{repo.pkg}/aws", repo.outside / "aws")
    return f"src/{repo.pkg}/aws"


def outside_inputs(repo: Repo) -> str:
    secret = repo.write("credentials", SECRET + "\n", base=repo.outside)
    repo.link("inputs/inputs_9_create.json", secret)
    return "inputs/inputs_9_create.json"


def dangling(repo: Repo) -> str:
    repo.link(f"src/{repo.pkg}/shared", repo.top / "shared")  # a checkout without ../shared
    return f"src/{repo.pkg}/shared"


def loop(repo: Repo) -> str:
    repo.link(f"src/{repo.pkg}/again", repo.package_dir)
    return f"src/{repo.pkg}/again"


def to_itself(repo: Repo) -> str:
    repo.link(f"src/{repo.pkg}/self.py", "self.py")
    return f"src/{repo.pkg}/self.py"


REFUSED: dict[str, tuple[Callable[[Repo], str], str]] = {
    "file outside the repository": (outside_file, "is outside the repository"),
    "folder outside the repository": (outside_folder, "is outside the repository"),
    "input outside the repository": (outside_inputs, "is outside the repository"),
    "dangling": (dangling, "which does not exist"),
    "a loop back to the package": (loop, "a folder it is inside"),
    "a link to itself": (to_itself, "symbolic link loop"),
}


@pytest.mark.parametrize(("plant", "says"), REFUSED.values(), ids=REFUSED.keys())
def test_a_link_that_cannot_be_packed_is_refused_by_name_and_nothing_is_written(repo, plant, says):
    named = plant(repo)

    result = repo.build()

    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    [error] = [line for line in result.stderr.splitlines() if line.startswith("cfngen: error:")]
    assert named in error
    assert says in error
    assert SECRET not in result.stdout + result.stderr
    assert not list(repo.root.glob("acme-svc-*.zip"))


# ------------------------------------------------------------------------- left out


#: What is planted -> what the build lists as left out (the folder, for a file inside one).
EXCLUDED = {
    "a .env file": ("src/{pkg}/.env", None),
    "a .git folder": ("src/{pkg}/.git/config", "src/{pkg}/.git"),
    "a cfngen backup": ("src/{pkg}/handlers.py.cfngen-old", None),
    "an input's cfngen backup": ("inputs/inputs_1_x.json.cfngen-old", None),
    "an input dotfile": ("inputs/.DS_Store", None),
    "bytecode": ("src/{pkg}/__pycache__/handlers.cpython-312.pyc", "src/{pkg}/__pycache__"),
    "a stray .pyc": ("src/{pkg}/old.pyc", None),
    "pytest's cache": ("src/{pkg}/.pytest_cache/v/cache/lastfailed", "src/{pkg}/.pytest_cache"),
    "mypy's cache": ("src/{pkg}/.mypy_cache/3.12/handlers.data.json", "src/{pkg}/.mypy_cache"),
}


@pytest.mark.parametrize(("planted", "listed"), EXCLUDED.values(), ids=EXCLUDED.keys())
def test_private_files_and_caches_are_never_packed_and_each_is_listed(repo, planted, listed):
    planted = planted.format(pkg=repo.pkg)
    listed = planted if listed is None else listed.format(pkg=repo.pkg)
    repo.write(planted, SECRET + "\n", base=repo.root)

    result = repo.build("--format", "json")

    assert result.returncode == 0, result.stdout + result.stderr
    names, inner, data = repo.package()
    assert SECRET.encode() not in data
    base = planted.rpartition("/")[2]
    assert not {n for n in names | inner if n.rpartition("/")[2] == base}
    assert listed in [entry["path"] for entry in json.loads(result.stdout)["excluded"]]


def test_a_dotfile_link_to_outside_the_repository_is_left_out_not_followed(repo):
    secret = repo.write("credentials", SECRET + "\n", base=repo.outside)
    repo.link(f"src/{repo.pkg}/.aws-credentials", secret)

    result = repo.build("--format", "json")

    assert result.returncode == 0, result.stdout + result.stderr
    assert SECRET.encode() not in repo.package()[2]
    doc = json.loads(result.stdout)
    assert f"src/{repo.pkg}/.aws-credentials" in [e["path"] for e in doc["excluded"]]
    assert doc["links"] == []


# ------------------------------------------------------------------------- a module


@pytest.mark.parametrize("where", ["repository", "outside"])
def test_a_modules_fragment_linked_from_elsewhere_is_read_only_within_the_repository(
    where, tmp_path_factory, tmp_path
):
    made = made_once(
        tmp_path_factory, "net-vpc", "--artifact-type", "module", "-t", "Acme::Net::Vpc::MODULE"
    )
    top = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    root = top / "vpc"
    shutil.copytree(made, root, symlinks=True)
    [fragment] = (root / "fragments").iterdir()
    away = (top / "shared" if where == "repository" else tmp_path / "outside") / fragment.name
    away.parent.mkdir()
    shutil.move(fragment, away)
    fragment.symlink_to(away)
    env = {"CFNGEN_HOME": str(tmp_path / "home")}

    result = run_command("build", "--format", "json", cwd=root, env=env)

    shown = f"fragments/{fragment.name}"
    if where == "outside":
        assert result.returncode == 2
        assert f"{shown}: {fragment} is outside the repository" in result.stdout
        assert not list(root.glob("*.zip"))
        return
    assert result.returncode == 0, result.stdout + result.stderr
    doc = json.loads(result.stdout)
    assert doc["links"] == [{"path": shown, "target": f"../shared/{fragment.name}"}]
    [package] = root.glob("*.zip")
    with zipfile.ZipFile(package) as archive:
        assert archive.read(shown) == away.read_bytes()
