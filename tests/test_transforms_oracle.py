"""jsonata-python, which cfngen evaluates transforms with, against the JSONata reference
implementation (the `jsonata` package on npm, run by Node.js): every alternative of every
transform in the pinned cfn-lint bundle, on models holding sample values of several shapes,
evaluated on the root and on the transformed property's parent as `cfngen test` does, gives
the same result or fails in both."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cfngen._kinds._shared._transforms import TransformError, evaluate, transforms_of
from tests._corpus import corpus
from tests.conftest import _locked, build_cache

pytestmark = pytest.mark.oracle

REFERENCE = "jsonata@2.2.2"
EVALUATOR = Path(__file__).parent / "fixtures" / "jsonata" / "evaluate.js"
#: 315 evaluations per sample: 253 alternatives, those of `*` and nested keys twice.
EVALUATIONS = 315
SAMPLES = [
    "Sample-Value/part:ONE.2",
    "5.7",
    443,
    "arn:aws:kms:us-east-1:123456789012:key/abc-DEF",
    "10.0.0.0/24",
    "2001:db8::/64",
    "12:30",
    ["a", "B"],
    {"Owner": "CUSTOM_LAMBDA"},
    True,
]


def _installed(where: Path) -> bool:
    """`where` holds the pinned reference, whole: its manifest names the version and its entry
    module is there (an interrupted install or a damaged cache lacks one or the other)."""
    try:
        manifest = json.loads((where / "node_modules" / "jsonata" / "package.json").read_text())
    except (OSError, ValueError):
        return False
    name, _, pinned = REFERENCE.partition("@")
    main = where / "node_modules" / "jsonata" / str(manifest.get("main", "index.js"))
    return manifest.get("name") == name and manifest.get("version") == pinned and main.is_file()


@pytest.fixture(scope="module")
def reference(oracle_tool) -> list[str]:
    """The reference installed by npm once per machine: kept in the build cache (it outlives
    the checkout, so CI's fresh clone reuses it), keyed by the pinned version and the node and
    npm that installed it; installed into a folder of its own and renamed into place, and
    installed again when the entry found is not whole."""
    node, npm = oracle_tool("node"), oracle_tool("npm")
    tools = [
        subprocess.run([tool, "--version"], capture_output=True, text=True, check=True).stdout
        for tool in (node, npm)
    ]
    key = hashlib.sha256(json.dumps([REFERENCE, tools]).encode()).hexdigest()[:20]
    cache = build_cache("jsonata-reference")
    where = cache / key
    with _locked(cache / f"{key}.lock"):
        if not _installed(where):
            shutil.rmtree(where, ignore_errors=True)
            work = cache / f"{key}.{os.getpid()}.tmp"
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            subprocess.run(
                [
                    npm,
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--silent",
                    "--prefix",
                    str(work),
                    REFERENCE,
                ],
                check=True,
                capture_output=True,
                timeout=300,
            )
            assert _installed(work), f"npm install {REFERENCE} left no whole package in {work}"
            os.rename(work, where)
    return [node, str(EVALUATOR), str(where / "node_modules")]


def _model(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """A model holding `value` at a transform's path (one item for each `*`)."""
    root: dict[str, Any] = {}
    node: Any = root
    for position, token in enumerate(path):
        if token == "*":
            continue
        if position == len(path) - 1:
            node[token] = value
        elif path[position + 1] == "*":
            node[token] = [{}]
            node = node[token][0]
        else:
            node[token] = {}
            node = node[token]
    return root


def _at(root: Any, path: tuple[str, ...]) -> Any:
    for token in path:
        root = root[0] if token == "*" else root[token]
    return root


def _evaluations(value: Any) -> list[tuple[str, str, Any]]:
    found = []
    for name, schema in corpus().items():
        for transform in transforms_of(schema):
            if transform.path is None:
                continue
            root = _model(transform.path, value)
            parent = _at(root, transform.path[:-1])
            for alternative in transform.alternatives:
                for data in [root] if parent is root else [root, parent]:
                    found.append((f"{name} {transform.key}", alternative.text, data))
    return found


@pytest.mark.parametrize("value", SAMPLES, ids=json.dumps)
def test_jsonata_python_agrees_with_the_reference_on_the_bundle(reference, value):
    cases = _evaluations(value)
    assert len(cases) == EVALUATIONS
    node, script, modules = reference
    lines = "".join(json.dumps({"expression": e, "data": d}) + "\n" for _, e, d in cases)
    ran = subprocess.run(
        [node, script],
        input=lines,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={"NODE_PATH": modules, "PATH": str(Path(node).parent)},
    )
    theirs = [json.loads(line) for line in ran.stdout.splitlines()]
    assert len(theirs) == len(cases)
    disagree = []
    for (where, expression, data), answer in zip(cases, theirs, strict=True):
        try:
            ours: dict[str, Any] = {"result": evaluate(expression, data)}
        except TransformError as exc:
            ours = {"error": exc.message}
        if "error" in answer and "error" in ours:
            continue
        if "result" in ours and json.dumps(ours.get("result"), sort_keys=True) == json.dumps(
            answer.get("result", "(failed)"), sort_keys=True
        ):
            continue
        disagree.append(f"{where}: {expression} on {json.dumps(data)}: {answer} vs {ours}")
    assert not disagree, "\n".join(disagree)
