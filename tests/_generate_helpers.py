"""Projects on disk and stand-ins for the model and input renderers, for the generate tests.

The fakes follow the fixed interfaces of `cfngen._models.render_models` and
`cfngen._instances.example_inputs`, so generate's orchestration is tested on its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HANDLERS_PY = """\
from cloudformation_cli_python_lib import Action, Resource

from .models import ResourceModel

resource = Resource("Acme::Test::Widget", ResourceModel)


@resource.handler(Action.CREATE)
def create_handler(session, request, callback_context):
    raise NotImplementedError


@resource.handler(Action.READ)
def read_handler(session, request, callback_context):
    raise NotImplementedError
"""


def widget_schema(**extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "typeName": "Acme::Test::Widget",
        "description": "A widget for tests.",
        "properties": {
            "Name": {"type": "string", "minLength": 1, "maxLength": 64, "description": "The name."},
            "Arn": {"type": "string", "description": "The ARN."},
            "Size": {"type": "integer", "enum": [1, 2, 3]},
            "Config": {"$ref": "#/definitions/Config"},
        },
        "definitions": {
            "Config": {
                "type": "object",
                "properties": {"Mode": {"type": "string", "pattern": "^[a-z]+$"}},
                "additionalProperties": False,
            }
        },
        "additionalProperties": False,
        "required": ["Name"],
        "primaryIdentifier": ["/properties/Name"],
        "readOnlyProperties": ["/properties/Arn"],
        "createOnlyProperties": ["/properties/Name"],
        "handlers": {
            "create": {"permissions": ["s3:PutObject", "s3:GetObject"]},
            "read": {"permissions": ["s3:GetObject"]},
        },
    }
    schema.update(extra)
    return schema


def make_project(
    root: Path,
    schema: dict[str, Any] | None = None,
    *,
    runtime: str = "python3.12",
    handlers: str | None = HANDLERS_PY,
    requirements: bool = True,
) -> Path:
    """A minimal project in the official layout: .rpdk-config, schema, package, handlers.py."""
    root.mkdir(parents=True, exist_ok=True)
    schema = schema or widget_schema()
    type_name = schema["typeName"]
    package = "_".join(p.lower() for p in type_name.split("::"))
    config = {
        "artifact_type": "RESOURCE",
        "typeName": type_name,
        "language": "python312",
        "runtime": runtime,
        "entrypoint": f"{package}.handlers.resource",
        "testEntrypoint": f"{package}.handlers.test_entrypoint",
        "settings": {"protocolVersion": "2.0.0"},
    }
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4) + "\n")
    schema_name = "-".join(p.lower() for p in type_name.split("::")) + ".json"
    (root / schema_name).write_text(json.dumps(schema, indent=4) + "\n")
    pkg = root / "src" / package
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    if handlers is not None:
        (pkg / "handlers.py").write_text(handlers)
    if requirements:
        (root / "requirements.txt").write_text("cloudformation-cli-python-lib>=2.1.9\n")
    return root


def schema_path(root: Path) -> Path:
    config = json.loads((root / ".rpdk-config").read_text())
    return root / ("-".join(p.lower() for p in config["typeName"].split("::")) + ".json")


def snapshot_tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` with its bytes, to check that nothing changed."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


class FakeRenderers:
    """Records what generate passed to the renderers; returns small deterministic output."""

    def __init__(self) -> None:
        self.models_calls: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
        #: The Python version each call asked the models for.
        self.models_pythons: list[tuple[int, int]] = []
        self.fail_models: Exception | None = None

    def render_models(
        self,
        schema: dict[str, Any],
        callback_context: dict[str, Any] | None = None,
        *,
        python: tuple[int, int] = (3, 10),
    ) -> dict[str, str]:
        self.models_calls.append((schema, callback_context))
        self.models_pythons.append(python)
        if self.fail_models is not None:
            raise self.fail_models
        names = ", ".join(sorted(schema.get("properties", {})))
        context = ", ".join(sorted((callback_context or {}).get("properties", {})))
        return {
            "models.py": f'"""Models for {schema["typeName"]}."""\n\n'
            f'PROPERTIES = "{names}"\nCALLBACK_CONTEXT = "{context}"\n',
        }

    @staticmethod
    def example_inputs(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
        first = next(iter(schema.get("properties", {})), "X")
        return {"create": {first: "a"}, "update": {first: "b"}, "invalid": {first: 1}}


FAKE_SCRIPT = """\
import sys
import cfngen._instances
import cfngen._models
sys.path.insert(0, {tests_dir!r})
from _generate_helpers import FakeRenderers

fakes = FakeRenderers()
cfngen._models.render_models = fakes.render_models
cfngen._instances.example_inputs = fakes.example_inputs
{run}
"""
_RUN_MAIN = "from cfngen._cli import main\n\nsys.exit(main(sys.argv[1:]))"
#: As the `cfngen` command runs: owning the process (signals, a forked models child).
_RUN_OWNED = "from cfngen.__main__ import run\n\nrun()"


def fake_cli_script(directory: Path, *, owned: bool = False) -> Path:
    """A script that runs the cfngen CLI with the fakes in place, for subprocess tests;
    owned=True runs it as the `cfngen` command does (SIGTERM handled, models in a child)."""
    script = directory / ("cfngen_owned_with_fakes.py" if owned else "cfngen_with_fakes.py")
    script.write_text(
        FAKE_SCRIPT.format(
            tests_dir=str(Path(__file__).parent), run=_RUN_OWNED if owned else _RUN_MAIN
        )
    )
    return script
