"""The models.py the official `cfn generate` writes, rendered in-process from the installed
Python plugin's own templates and model resolver (cloudformation-cli-python-plugin 2.1.10,
`codegen.py`'s `generate` and `_generate_target_models`), and the names a module binds.

Handlers written for the official tool import any of those names from `.models`; after
`cfngen generate` replaces the module, each must still be there.
"""

from __future__ import annotations

import ast
from typing import Any

LIB = "cloudformation_cli_python_lib"


def _env() -> Any:
    from rpdk.python.codegen import _PythonLanguagePlugin

    return _PythonLanguagePlugin().env


def configuration_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    """typeConfiguration as the official tool writes it beside the schema."""
    config = schema.get("typeConfiguration")
    if not isinstance(config, dict):
        return None
    return {**config, "definitions": schema.get("definitions", {}), "typeName": schema["typeName"]}


def resource_models(schema: dict[str, Any]) -> str:
    return _models(schema, "models.py", "ResourceModel")


def hook_models(schema: dict[str, Any]) -> str:
    return _models(schema, "hook_models.py", "HookInputModel")


def target_models(schema: dict[str, Any], type_name: str) -> str:
    """target_models/<type>.py for one target type (`AWS::S3::Bucket` -> `AwsS3Bucket`)."""
    from rpdk.core.jsonutils.resolver import resolve_models

    name = "".join(part.lower().capitalize() for part in type_name.split("::"))
    return (
        _env()
        .get_template("target_model.py")
        .render(support_lib_pkg=LIB, models=resolve_models(schema, name), target_name=name)
    )


def _models(schema: dict[str, Any], template: str, base: str) -> str:
    from rpdk.core.jsonutils.resolver import resolve_models

    models = resolve_models(schema, base)
    config = configuration_schema(schema)
    if config is not None:
        models.update(resolve_models(config, "TypeConfigurationModel"))
    else:
        models.update({"TypeConfigurationModel": {}})
    return _env().get_template(template).render(support_lib_pkg=LIB, models=models)


def bound_names(text: str) -> set[str]:
    """The names a module binds at its top level."""
    names: set[str] = set()
    for node in ast.parse(text).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names
