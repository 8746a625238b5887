"""The templates reach users: inside a built wheel, and from the checkout in an editable install."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import cfngen
from cfngen._init import _template_cache, _template_repo
from tests.test_init_support import REPO


def test_a_source_checkout_reads_the_templates_at_the_top_of_the_repository():
    # pyproject's pytest `pythonpath = ["."]` imports cfngen from this checkout.
    assert Path(cfngen.__file__).resolve().parent.parent == REPO
    assert _template_cache.templates_root() == REPO / "templates"


def test_a_built_wheel_ships_every_template_version_and_finds_them(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("cfngen-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")
    for template in _template_cache.packaged_versions("resource"):
        relative = template.path.relative_to(REPO / "templates").as_posix()
        for path in _template_repo.template_files(template.path):
            name = f"cfngen/templates/{relative}/{path.relative_to(template.path).as_posix()}"
            assert name in names
    code = (
        "from cfngen._init import _template_cache as t;"
        "print(t.templates_root());"
        "print(' '.join(v.tag for v in t.packaged_versions('resource')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path / "site")},
        capture_output=True,
        text=True,
        check=True,
    )
    root, versions = result.stdout.splitlines()
    assert Path(root) == tmp_path / "site" / "cfngen" / "templates"
    assert versions.split() == [v.tag for v in _template_cache.packaged_versions("resource")]
