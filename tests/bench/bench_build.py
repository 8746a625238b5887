"""`cfngen build` against the official `cfn submit --dry-run --no-docker` on a stub resource
(`cfngen init --no-input`), side by side in one run: time and package size.

    python tests/bench/bench_build.py [--runs 5]

Each round runs, in turn: the official dry-run (its pip runs with --no-cache-dir, as it always
does); `cfngen build --no-cache` (cfngen's build cache off, pip's own cache warm: a first build,
or one after requirements.txt changed); `cfngen build` after an edit to handlers.py (the
dependencies come from cfngen's cache, the handler zip is deflated again); and `cfngen build`
with nothing changed. Both tools use this machine's pip configuration and index. The commands
are printed so that they can be rerun with hyperfine.
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.bench._timing import Command, alternate, bench_env, load_note  # noqa: E402

BIN = Path(sys.executable).parent
AWS = {
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args()
    if args.keep:
        shutil.rmtree(args.keep, ignore_errors=True)
        args.keep.mkdir(parents=True)
        run(args.keep, args.runs)
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        run(Path(tmp), args.runs)
    return 0


def run(base: Path, runs: int) -> None:
    home = base / "home"
    home.mkdir()
    env = bench_env(HOME=str(home), CFNGEN_HOME=str(home / ".cfngen"), **AWS)
    env["PATH"] = f"{BIN}:{env.get('PATH', '')}"
    cfngen = str(BIN / "cfngen")
    init = [cfngen, "init", "--no-input", "--type-name", "Acme::Svc::Widget", "ours"]
    subprocess.run(init, cwd=base, env=env, check=True, capture_output=True)
    ours, theirs = base / "ours", base / "theirs"
    shutil.copytree(ours, theirs)
    handlers = ours / "src" / "acme_svc_widget" / "handlers.py"
    edits = iter(range(1_000_000))

    def edit() -> None:
        with handlers.open("a") as handle:
            handle.write(f"# edit {next(edits)}\n")

    commands = {
        "cfn submit --dry-run --no-docker": Command(
            [str(BIN / "cfn"), "submit", "--dry-run", "--no-docker"], theirs, env
        ),
        "cfngen build --no-cache": Command([cfngen, "build", "--no-cache"], ours, env),
        "cfngen build, handlers.py edited": Command([cfngen, "build"], ours, env, setup=edit),
        "cfngen build, nothing changed": Command([cfngen, "build"], ours, env),
    }
    print(load_note())
    samples = alternate(commands, runs)
    print(load_note())
    official = samples["cfn submit --dry-run --no-docker"].median
    for name, sample in samples.items():
        print(f"{name:36} {sample.describe()}  ratio {sample.median / official:.2f}")
    for name, folder in (("official", theirs), ("cfngen", ours)):
        data = (folder / "acme-svc-widget.zip").read_bytes()
        with zipfile.ZipFile(io.BytesIO(data)) as outer:
            handler = outer.read("ResourceProvider.zip")
            with zipfile.ZipFile(io.BytesIO(handler)) as inner:
                unzipped = sum(i.file_size for i in inner.infolist())
        print(
            f"{name:9} package {len(data):>11,} bytes, ResourceProvider.zip {len(handler):>11,} "
            f"bytes ({unzipped:,} unzipped)"
        )
    for name, command in commands.items():
        print(f"{name}:\n  {command.shell()}")


if __name__ == "__main__":
    raise SystemExit(main())
