"""`template.yml` and `src/requirements.txt`: what `sam build` / `sam local` need.

The official template points `CodeUri` at `build/`, which only exists after `cfn submit` and
holds installed dependencies, so `sam build` fails on it. `sam build` wants the source folder
with a `requirements.txt` inside it: the package lives in `src/`, so `CodeUri: src/` and a
derived `src/requirements.txt` that includes the project's own requirements.
"""

from __future__ import annotations

from pathlib import Path

from cfngen._generate._jinja import render
from cfngen._languages._python_runtimes import Runtime

TEMPLATES = Path(__file__).with_name("templates")

#: Seconds; generous because `sam local` counts its container start-up against it.
FUNCTION_TIMEOUT = 180
FUNCTION_MEMORY = 256


def render_template(
    type_name: str,
    runtime: Runtime | str,
    entrypoint: str,
    test_entrypoint: str,
    *,
    kind: str = "resource type",
) -> str:
    return render(
        TEMPLATES,
        "template.yml",
        type_name=type_name,
        kind=kind,
        runtime=runtime if isinstance(runtime, str) else runtime.name,
        timeout=FUNCTION_TIMEOUT,
        memory=FUNCTION_MEMORY,
        functions=[("TypeFunction", entrypoint), ("TestEntrypoint", test_entrypoint)],
    )


def render_requirements(has_root_requirements: bool) -> str:
    """pip resolves `-r` relative to the including file, which `sam build` reads in place."""
    if has_root_requirements:
        return "-r ../requirements.txt\n"
    # What the Lambda function needs when the project has no requirements.txt of its own: the
    # library the runtime library is tested with (its one declared range).
    from cfngen._support import LIBRARY_REQUIREMENT

    return LIBRARY_REQUIREMENT + "\n"
