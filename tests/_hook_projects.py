"""A small hook project in the official layout, for tests and benchmarks: the correct hook of
tests/test_hook_contract.py (S3 buckets must be versioned), or that hook with another body."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_hook_contract import CORRECT, PLAIN, SCHEMA, VERSIONED

CONFIG = {
    "artifact_type": "HOOK",
    "typeName": "Acme::Guard::Hook",
    "language": "python312",
    "runtime": "python3.12",
    "entrypoint": "acme_guard_hook.handlers.hook",
    "testEntrypoint": "acme_guard_hook.handlers.test_entrypoint",
}


def guard_project(root: Path, body: str | None = None, *, inputs: bool = True) -> Path:
    """Write the project at `root` (not generated); `body` replaces the check's body (after
    `properties = ...`), as the planted violations of tests/test_hook_contract.py do."""
    package = root / "src" / "acme_guard_hook"
    package.mkdir(parents=True)
    (root / ".rpdk-config").write_text(json.dumps(CONFIG))
    (root / "acme-guard-hook.json").write_text(json.dumps(SCHEMA, indent=4))
    (package / "__init__.py").write_text("")
    text = CORRECT
    if body is not None:
        start = text.index("    properties = ")
        end = text.index("\n\n\n@hook.handler")
        first = '    properties = request.hookContext.targetModel.get("resourceProperties") or {}\n'
        text = text[:start] + first + body + text[end:]
    (package / "handlers.py").write_text(text)
    if inputs:
        folder = root / "inputs"
        folder.mkdir()
        for point in ("pre_create", "pre_update"):
            (folder / f"inputs_1_{point}.json").write_text(
                json.dumps({"AWS::S3::Bucket": VERSIONED})
            )
        (folder / "inputs_1_invalid.json").write_text(json.dumps({"AWS::S3::Bucket": PLAIN}))
    return root
