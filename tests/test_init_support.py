"""Helpers shared by the init, upgrade, wizard and template-cache tests (no tests here).

While `cfngen generate` is still a stub in a branch, `fake_generate` stands in for it: it writes
the two derived modules the handlers import (models.py, cfngen_runtime.py), implementing only
the interface the handler stubs rely on (ResourceModel/TypeConfigurationModel/CallbackContext
with `_deserialize`/`_serialize`, ResourceHandlerRequest, and a `Resource`). Tests that need the
real derived files (snapshots, template.yml, resource-role.yaml) skip instead.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

REPO = Path(__file__).resolve().parent.parent

FAKE_MODELS = '''"""Interface fake of cfngen generate's models.py (tests only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from cloudformation_cli_python_lib.interface import BaseModel, BaseResourceHandlerRequest


class _Model(BaseModel):
    _names: tuple[str, ...] = ()

    def __init__(self, **values: Any) -> None:
        for name in self._names:
            setattr(self, name, values.get(name))

    @classmethod
    def _deserialize(cls, data: Any) -> Any:
        return None if data is None else cls(**data)

    def _serialize(self) -> dict[str, Any]:
        values = {name: getattr(self, name) for name in self._names}
        return {k: v for k, v in values.items() if v is not None}


class ResourceModel(_Model):
    _names = __RESOURCE__


class TypeConfigurationModel(_Model):
    _names = __CONFIGURATION__


class CallbackContext(_Model):
    _names = __CONTEXT__


@dataclass
class ResourceHandlerRequest(BaseResourceHandlerRequest):
    desiredResourceState: Optional[ResourceModel]
    previousResourceState: Optional[ResourceModel]
    typeConfiguration: Optional[TypeConfigurationModel]
'''

FAKE_RUNTIME = '''"""Interface fake of cfngen generate's runtime module (tests only)."""

from cloudformation_cli_python_lib import Resource

__all__ = ["Resource"]
'''


def fake_generate(root: Path, *, check: bool = False, force: bool = False) -> Any:
    from cfngen._generate import GenerateResult
    from cfngen._project import load_project

    project = load_project(root)
    schema = json.loads(project.schema_path.read_text(encoding="utf-8"))
    context_path = root / "callback-context.json"
    context = json.loads(context_path.read_text()) if context_path.is_file() else {}
    text = (
        FAKE_MODELS.replace("__RESOURCE__", repr(tuple(schema.get("properties", {}))))
        .replace(
            "__CONFIGURATION__",
            repr(tuple(schema.get("typeConfiguration", {}).get("properties", {}))),
        )
        .replace("__CONTEXT__", repr(tuple(context.get("properties", {}))))
    )
    import black

    written = []
    for name, content in (("models.py", text), ("cfngen_runtime.py", FAKE_RUNTIME)):
        path = project.package_dir / name
        path.write_text(black.format_str(content, mode=black.Mode()), encoding="utf-8")
        written.append(path)
    return GenerateResult(written=written)


@functools.cache
def generate_is_stub() -> bool:
    from cfngen._generate import generate_project

    with tempfile.TemporaryDirectory() as empty:
        try:
            generate_project(Path(empty))
        except NotImplementedError:
            return True
        except Exception:
            return False
    return False


STUB_REASON = (
    "cfngen generate is a stub in this branch: this test needs the real derived files "
    "(it runs once generate is merged)"
)


def __getattr__(name: str) -> Any:
    # `needs_real_generate` is made on first use so that the benchmark can import the fake
    # without importing pytest.
    if name == "needs_real_generate":
        import pytest

        return pytest.mark.skipif(generate_is_stub(), reason=STUB_REASON)
    raise AttributeError(name)


def use_generate(monkeypatch: pytest.MonkeyPatch) -> None:
    """Swap in the interface fake while generate is a stub; the real one otherwise."""
    if generate_is_stub():
        import cfngen._generate

        monkeypatch.setattr(cfngen._generate, "generate_project", fake_generate)


_SHIM = (
    "import sys, cfngen._generate as g, tests.test_init_support as s\n"
    "if s.generate_is_stub(): g.generate_project = s.fake_generate\n"
    "from cfngen._cli import main\n"
    "sys.exit(main())\n"
)


def cfngen_argv() -> list[str]:
    """How to run the cfngen CLI in a subprocess (through the fake generate while it is a stub)."""
    return [sys.executable, "-c", _SHIM]


def cfngen_env(home: Path, **extra: str) -> dict[str, str]:
    """A hermetic environment: its own HOME (so ~/.cfngen is the test's), no CFNGEN_HOME, the
    repository importable, no colour."""
    env = {k: v for k, v in os.environ.items() if k not in ("CFNGEN_HOME", "FORCE_COLOR")}
    env.update(
        HOME=str(home),
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
        NO_COLOR="1",
        **extra,
    )
    return env


def run_cfngen(
    *args: str, cwd: Path, home: Path, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*cfngen_argv(), *args],
        cwd=cwd,
        env=cfngen_env(home, **env),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, *init_args: str) -> Path:
    """The project `cfngen init --no-input --no-git *init_args` makes, made once per test
    session (per xdist worker) in the session's temporary folder: copy it before changing it."""
    base = tmp_path_factory.getbasetemp() / f"made-{name}"
    root = base / name
    if not root.is_dir():
        base.mkdir(exist_ok=True)
        result = run_cfngen("init", "--no-input", "--no-git", *init_args, name, cwd=base, home=base)
        assert result.returncode == 0, result.stdout + result.stderr
    return root


def git(cwd: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=check
    ).stdout


def commit_all(cwd: Path, message: str) -> None:
    git(cwd, "add", "-A")
    git(
        cwd,
        "-c",
        "user.name=Test",
        "-c",
        "user.email=test@example.com",
        "commit",
        "-q",
        "--no-verify",
        "--no-gpg-sign",
        "-m",
        message,
    )


def project_files(root: Path) -> dict[str, bytes]:
    """Every file of a project but .git/, by relative path."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }
