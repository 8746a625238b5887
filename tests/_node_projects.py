"""TypeScript projects installed and built for the tests, fast: `npm install` once per
package.json (and lock), `npm run build` once per set of sources, both kept in a cache folder
(`~/.cache/cfngen-test-builds/cfngen-node/`, tests/conftest.py's build_cache) that outlives the
session and the checkout.

A project gets its libraries as a `node_modules` link into the cache (Node resolves a module
by its real path, so the library and the project share one class-transformer), and its build as
a fresh copy of the cached `dist/` (new modification times: newer than the sources, as after a
real build). A missing node or npm fails the test that needs it (`oracle_tool`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

#: What makes a build differ (besides the arguments to the build).
_BUILD_INPUTS = ("package.json", "tsconfig.json")


def _digest(parts: list[bytes]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()[:20]


def _publish(work: Path, done: Path) -> None:
    """Move a finished folder into the cache, unless another worker was first."""
    try:
        os.rename(work, done)
    except OSError:
        shutil.rmtree(work, ignore_errors=True)


def installed(root: Path, npm: str, cache: Path) -> None:
    """`npm install` in `root`, from the cache when this package.json was installed before."""
    lock = root / "package-lock.json"
    manifest = (root / "package.json").read_bytes()
    key = _digest([manifest, lock.read_bytes() if lock.is_file() else b""])
    done = cache / "modules" / key
    if not (done / "node_modules").is_dir():
        work = cache / "modules" / f"{key}.{os.getpid()}.tmp"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        shutil.copy(root / "package.json", work)
        if lock.is_file():
            shutil.copy(lock, work)
        for extra in (".npmrc",):
            if (root / extra).is_file():
                shutil.copy(root / extra, work)
        done_install = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert done_install.returncode == 0, done_install.stdout + done_install.stderr
        _publish(work, done)
    (root / "node_modules").symlink_to(done / "node_modules", target_is_directory=True)
    if not lock.is_file() and (done / "package-lock.json").is_file():
        shutil.copy(done / "package-lock.json", lock)


def built(root: Path, npm: str, cache: Path, *args: str) -> None:
    """`npm run build [-- args]` in `root` (installed first), from the cache when these
    sources were built before."""
    if not (root / "node_modules").exists():
        installed(root, npm, cache)
    sources = sorted((root / "src").rglob("*.ts"))
    key = _digest(
        [
            *((root / name).read_bytes() for name in _BUILD_INPUTS if (root / name).is_file()),
            *(p.relative_to(root).as_posix().encode() + p.read_bytes() for p in sources),
            " ".join(args).encode(),
        ]
    )
    done = cache / "builds" / key
    if not done.is_dir():
        command = [npm, "run", "build", *(["--", *args] if args else [])]
        build = subprocess.run(
            command, cwd=root, capture_output=True, text=True, timeout=600, check=False
        )
        assert build.returncode == 0, build.stdout + build.stderr
        work = cache / "builds" / f"{key}.{os.getpid()}.tmp"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(root / "dist", work)
        _publish(work, done)
        return
    shutil.rmtree(root / "dist", ignore_errors=True)
    shutil.copytree(done, root / "dist", copy_function=shutil.copy)
