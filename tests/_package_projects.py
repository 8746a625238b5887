"""Small projects in the official layouts for the packaging tests: files as `cfn init`
writes them."""

from __future__ import annotations

import json
from pathlib import Path

HOOK_SCHEMA = {
    "typeName": "Acme::Svc::Hook",
    "description": "Checks that buckets are encrypted",
    "typeConfiguration": {
        "properties": {
            "EncryptionAlgorithm": {
                "description": "Encryption algorithm for SSE",
                "default": "AES256",
                "type": "string",
                "enum": ["AES256", "aws:kms"],
            },
            "Limits": {"$ref": "#/definitions/Limits"},
        },
        "additionalProperties": False,
    },
    "definitions": {
        "Limits": {
            "type": "object",
            "properties": {"Max": {"type": "integer", "minimum": 1}},
            "additionalProperties": False,
        }
    },
    "required": [],
    "handlers": {
        "preCreate": {"targetNames": ["AWS::S3::Bucket"], "permissions": []},
        "preUpdate": {"targetNames": ["AWS::S3::Bucket", "STACK"], "permissions": []},
    },
    "additionalProperties": False,
}

BUCKET_SCHEMA = {
    "typeName": "AWS::S3::Bucket",
    "description": "A bucket",
    "properties": {"BucketName": {"type": "string"}, "Arn": {"type": "string"}},
    "primaryIdentifier": ["/properties/BucketName"],
    "readOnlyProperties": ["/properties/Arn"],
    "additionalProperties": False,
}


def hook_project(root: Path, requirements: str = "") -> Path:
    """A hook project as `cfn init --artifact-type HOOK` lays it out, with a local target schema."""
    files = {
        ".rpdk-config": json.dumps(
            {
                "artifact_type": "HOOK",
                "typeName": "Acme::Svc::Hook",
                "language": "python311",
                "runtime": "python3.11",
                "entrypoint": "acme_svc_hook.handlers.hook",
                "testEntrypoint": "acme_svc_hook.handlers.test_entrypoint",
                "settings": {"use_docker": False, "no_docker": True, "protocolVersion": "2.0.0"},
            },
            indent=4,
        ),
        "acme-svc-hook.json": json.dumps(HOOK_SCHEMA, indent=4),
        "requirements.txt": requirements,
        "hook-role.yaml": "AWSTemplateFormatVersion: '2010-09-09'\nResources: {}\n",
        "src/acme_svc_hook/__init__.py": "",
        "src/acme_svc_hook/handlers.py": "hook = None\ntest_entrypoint = None\n",
        "target-schemas/aws-s3-bucket.json": json.dumps(BUCKET_SCHEMA),
        "inputs/inputs_1_pre_create.json": json.dumps(
            {"AWS::S3::Bucket": {"resourceProperties": {"BucketName": "b"}}}
        ),
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


class NoPackage:
    name = "custom-resource"
    label = "Lambda-backed custom resource"
    packaging = None


def hook(root: Path):
    """The hook project in `root`, with its kind (cfngen/_kinds/hook)."""
    from cfngen._project import load_project

    project = load_project(root.absolute())
    assert project.kind.name == "hook"
    return project


def module(root: Path):
    """The module project in `root`, with its kind (cfngen/_kinds/module)."""
    from cfngen._project import load_project

    project = load_project(root.absolute())
    assert project.kind.name == "module"
    return project
