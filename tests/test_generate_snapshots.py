"""Golden snapshots of `cfngen generate`: snapshots/generate/<case>/{input,expected}/.

`input/` holds the case's schema (and callback-context.json when it has one); `expected/` every
derived file. Each case is checked twice: cfngen's own files (role, SAM template, requirements,
docs) with the model and input renderers faked out, and the whole project with the real
renderers (skipped while those are not implemented). Refresh them all with:

    CFNGEN_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_generate_snapshots.py
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cfngen._instances
import cfngen._models
from cfngen._kinds.resource._derive import render_project
from cfngen._project import load_project
from tests._generate_helpers import FakeRenderers, make_project

SNAPSHOTS = Path(__file__).parent.parent / "snapshots" / "generate"
CASES = sorted(p.name for p in SNAPSHOTS.iterdir() if (p / "input").is_dir())
UPDATE = os.environ.get("CFNGEN_UPDATE_SNAPSHOTS") == "1"
REFRESH = "CFNGEN_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_generate_snapshots.py"


def renderer_output(relpath: str) -> bool:
    """Files the model and example-input renderers produce (not cfngen's orchestration)."""
    name = relpath.rsplit("/", 1)[-1]
    return name in ("models.py", "cfngen_runtime.py") or relpath.startswith(
        ("example_inputs/", "inputs/")
    )


def build(case: str, root: Path) -> Path:
    inputs = SNAPSHOTS / case / "input"
    schema = json.loads((inputs / "schema.json").read_text(encoding="utf-8"))
    make_project(root, schema)
    context = inputs / "callback-context.json"
    if context.is_file():
        shutil.copy(context, root / "callback-context.json")
    return root


def rendered(root: Path) -> dict[str, bytes]:
    from cfngen._validate import validate_file

    project = load_project(root)
    schema = validate_file(project.schema_path).schema
    assert schema is not None
    context = root / "callback-context.json"
    callback = json.loads(context.read_text()) if context.is_file() else None
    return render_project(project, schema, callback)


def compare(case: str, actual: dict[str, bytes], *, only) -> None:
    """File set first, then a unified diff per file; or rewrite them with UPDATE."""
    expected_dir = SNAPSHOTS / case / "expected"
    expected = {
        p.relative_to(expected_dir).as_posix(): p.read_bytes()
        for p in sorted(expected_dir.rglob("*"))
        if p.is_file()
    }
    expected = {k: v for k, v in expected.items() if only(k)}
    actual = {k: v for k, v in actual.items() if only(k)}
    if UPDATE:
        for relpath in set(expected) - set(actual):
            (expected_dir / relpath).unlink()
        for relpath, data in actual.items():
            (expected_dir / relpath).parent.mkdir(parents=True, exist_ok=True)
            (expected_dir / relpath).write_bytes(data)
        return
    missing, extra = sorted(set(expected) - set(actual)), sorted(set(actual) - set(expected))
    assert not missing and not extra, (
        f"{case}: file set differs; missing {missing}, unexpected {extra}.\nRefresh: {REFRESH}"
    )
    for relpath in sorted(expected):
        if expected[relpath] != actual[relpath]:
            diff = "".join(
                difflib.unified_diff(
                    expected[relpath].decode().splitlines(keepends=True),
                    actual[relpath].decode().splitlines(keepends=True),
                    f"expected/{relpath}",
                    f"actual/{relpath}",
                )
            )
            pytest.fail(f"{case}: {relpath} differs:\n{diff}\nRefresh: {REFRESH}")


@pytest.mark.parametrize("case", CASES)
def test_own_files_match_snapshot(case, tmp_path, monkeypatch):
    fakes = FakeRenderers()
    monkeypatch.setattr(cfngen._models, "render_models", fakes.render_models)
    monkeypatch.setattr(cfngen._instances, "example_inputs", fakes.example_inputs)
    actual = rendered(build(case, tmp_path / case))
    compare(case, actual, only=lambda relpath: not renderer_output(relpath))


def real_renderers_or_skip(root: Path) -> dict[str, bytes]:
    try:
        return rendered(root)
    except NotImplementedError as exc:
        pytest.skip(f"a renderer is still a stub ({exc}); refresh with: {REFRESH}")


@pytest.mark.parametrize("case", CASES)
def test_project_matches_snapshot(case, tmp_path):
    actual = real_renderers_or_skip(build(case, tmp_path / case))
    compare(case, actual, only=lambda relpath: True)


@pytest.mark.parametrize("case", CASES[:1])
def test_same_bytes_under_another_hash_seed(case, tmp_path):
    first = real_renderers_or_skip(build(case, tmp_path / "a"))
    root = build(case, tmp_path / "b")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run(
        [sys.executable, "-m", "cfngen", "generate", str(root)],
        env=env,
        check=True,
        capture_output=True,
    )
    for relpath, data in first.items():
        assert (root / relpath).read_bytes() == data, relpath
