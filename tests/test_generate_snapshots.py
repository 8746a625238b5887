"""Golden snapshots of `cfngen generate`: snapshots/generate/<case>/{input,expected}/.

`input/` holds the case's schema (and callback-context.json when it has one); `expected/` every
derived file. Each case is checked twice: cfngen's own files (role, SAM template, requirements,
docs) with stand-ins for the model and input renderers, and the whole project with the real
renderers. The comparator and the refresh command are the shared ones (tests/conftest.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfngen._kinds.resource._derive import render_project
from cfngen._project import load_project
from tests._generate_helpers import FakeRenderers, make_project
from tests.conftest import other_hash_seed

pytestmark = pytest.mark.snapshot

SNAPSHOTS = Path(__file__).parent.parent / "snapshots" / "generate"
CASES = sorted(p.name for p in SNAPSHOTS.iterdir() if (p / "input").is_dir())


def renderer_output(relpath: str) -> bool:
    """Files the model and example-input renderers produce (not cfngen's orchestration)."""
    name = relpath.rsplit("/", 1)[-1]
    return name == "models.py" or relpath.startswith(("example_inputs/", "inputs/"))


def build(case: str, root: Path) -> Path:
    inputs = SNAPSHOTS / case / "input"
    schema = json.loads((inputs / "schema.json").read_text(encoding="utf-8"))
    make_project(root, schema)
    context = inputs / "callback-context.json"
    if context.is_file():
        shutil.copy(context, root / "callback-context.json")
    return root


def rendered(root: Path, renderers: FakeRenderers | None = None) -> dict[str, bytes]:
    from cfngen._validate import validate_file

    project = load_project(root)
    schema = validate_file(project.schema_path).schema
    assert schema is not None
    context = root / "callback-context.json"
    callback = json.loads(context.read_text()) if context.is_file() else None
    if renderers is None:
        return render_project(project, schema, callback)
    return render_project(
        project,
        schema,
        callback,
        render_models=renderers.render_models,
        example_inputs=renderers.example_inputs,
    )


@pytest.mark.parametrize("case", CASES)
def test_own_files_match_snapshot(case, tmp_path, golden):
    actual = rendered(build(case, tmp_path / case), FakeRenderers())
    golden(f"generate/{case}/expected", actual, only=lambda rel: not renderer_output(rel))


@pytest.mark.parametrize("case", CASES)
def test_project_matches_snapshot(case, tmp_path, golden):
    golden(f"generate/{case}/expected", rendered(build(case, tmp_path / case)))


@pytest.mark.parametrize("case", CASES[:1])
def test_same_bytes_under_another_hash_seed(case, tmp_path):
    first = rendered(build(case, tmp_path / "a"))
    root = build(case, tmp_path / "b")
    # Rendered again, not read from the model cache the first generate filled.
    env = {**os.environ, "PYTHONHASHSEED": other_hash_seed(), "CFNGEN_NO_CACHE": "1"}
    subprocess.run(
        [sys.executable, "-m", "cfngen", "generate", str(root)],
        env=env,
        check=True,
        capture_output=True,
    )
    for relpath, data in first.items():
        assert (root / relpath).read_bytes() == data, relpath
