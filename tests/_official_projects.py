"""Projects in the official layouts, for tests of what cfngen does with projects others wrote:
made by the official `cfn init` itself (once per session, shared by the xdist workers: copy one
before changing it), or written by hand in the same layout for the inner loop.

Both kinds `cfn init` makes with its python312 plugin: a resource type (`acme_test_widget`,
entrypoint `.handlers.resource`) and a hook (`acme_test_hook`, `.handlers.hook`), each with
`requirements.txt` at its root listing cloudformation-cli-python-lib.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import _locked, shared_tmp

TYPE_NAMES = {"resource": "Acme::Test::Widget", "hook": "Acme::Test::Hook"}
PACKAGES = {"resource": "acme_test_widget", "hook": "acme_test_hook"}
ATTRIBUTES = {"resource": "resource", "hook": "hook"}
CFN = Path(sys.executable).parent / "cfn"


def cfn_init(factory: pytest.TempPathFactory, kind: str) -> Path:
    """The project `cfn init -t <type> -a <KIND> python312 --no-docker` makes (read only)."""
    base = shared_tmp(factory) / f"cfn-init-{kind}"
    root = base / "project"
    base.parent.mkdir(parents=True, exist_ok=True)
    with _locked(base.parent / f"cfn-init-{kind}.lock"):
        if not (base / ".done").is_file():
            shutil.rmtree(base, ignore_errors=True)
            root.mkdir(parents=True)
            # Without credentials the official tool reads a hook's target schemas from the
            # plugin's local copy; with any (the tests' fake ones) it asks CloudFormation.
            env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
            result = subprocess.run(
                [str(CFN), "init", "-t", TYPE_NAMES[kind], "-a", kind.upper(), "python312",
                 "--no-docker"],
                cwd=root,
                capture_output=True,
                text=True,
                check=False,
                env={**env, "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": os.devnull,
                     "AWS_SHARED_CREDENTIALS_FILE": os.devnull},
            )  # fmt: skip
            assert result.returncode == 0, f"the official `cfn init` failed: {result.stderr}"
            (root / "rpdk.log").unlink(missing_ok=True)
            (base / ".done").write_text("")
    return root


RESOURCE_SCHEMA = {
    "typeName": TYPE_NAMES["resource"],
    "description": "A widget",
    "properties": {"Id": {"type": "string"}, "Title": {"type": "string"}},
    "primaryIdentifier": ["/properties/Id"],
    "readOnlyProperties": ["/properties/Id"],
    "additionalProperties": False,
    "tagging": {"taggable": False},
    "handlers": {
        name: {"permissions": []} for name in ("create", "read", "update", "delete", "list")
    },
}
HOOK_SCHEMA = {
    "typeName": TYPE_NAMES["hook"],
    "description": "Checks buckets",
    "typeConfiguration": {
        "properties": {"Mode": {"type": "string"}},
        "additionalProperties": False,
    },
    "handlers": {"preCreate": {"targetNames": ["AWS::S3::Bucket"], "permissions": []}},
    "additionalProperties": False,
}
RESOURCE_HANDLERS = """\
from cloudformation_cli_python_lib import Action, OperationStatus, ProgressEvent, Resource

from .models import ResourceHandlerRequest, ResourceModel

resource = Resource("Acme::Test::Widget", ResourceModel)
test_entrypoint = resource.test_entrypoint


@resource.handler(Action.READ)
def read_handler(session, request: ResourceHandlerRequest, callback_context):
    model = request.desiredResourceState
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)
"""
HOOK_HANDLERS = """\
from cloudformation_cli_python_lib import (
    Hook,
    HookInvocationPoint,
    OperationStatus,
    ProgressEvent,
)

from .models import HookHandlerRequest, TypeConfigurationModel

hook = Hook("Acme::Test::Hook", TypeConfigurationModel)
test_entrypoint = hook.test_entrypoint


@hook.handler(HookInvocationPoint.CREATE_PRE_PROVISION)
def pre_create_handler(session, request: HookHandlerRequest, callback_context, configuration):
    return ProgressEvent(status=OperationStatus.SUCCESS, message="ok")
"""


def by_hand(root: Path, kind: str, *, handlers: str | None = None) -> Path:
    """The same kind of project written file by file in `cfn init`'s layout (not generated)."""
    package = PACKAGES[kind]
    config = {
        "artifact_type": kind.upper(),
        "typeName": TYPE_NAMES[kind],
        "language": "python312",
        "runtime": "python3.12",
        "entrypoint": f"{package}.handlers.{ATTRIBUTES[kind]}",
        "testEntrypoint": f"{package}.handlers.test_entrypoint",
        "settings": {"use_docker": False, "no_docker": True, "protocolVersion": "2.0.0"},
    }
    schema = RESOURCE_SCHEMA if kind == "resource" else HOOK_SCHEMA
    files = {
        ".rpdk-config": json.dumps(config, indent=4) + "\n",
        "-".join(TYPE_NAMES[kind].split("::")).lower() + ".json": json.dumps(schema, indent=4),
        "requirements.txt": "cloudformation-cli-python-lib>=2.1.9\n",
        f"src/{package}/__init__.py": "",
        f"src/{package}/handlers.py": handlers
        or (RESOURCE_HANDLERS if kind == "resource" else HOOK_HANDLERS),
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def edit_config(root: Path, **changes: object) -> None:
    """Change keys of `.rpdk-config` as a user would."""
    config = json.loads((root / ".rpdk-config").read_text())
    config.update(changes)
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4) + "\n")
