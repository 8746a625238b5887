"""The Python source of a hook project's models: `models.py` (TypeConfigurationModel and
HookHandlerRequest), a typed module per target (`target_models/aws_s3_bucket.py`, named as the
official plugin names it) and `target_models/__init__.py`, the table `typed_target` reads.
"""

from __future__ import annotations

from typing import Any

from cfngen._kinds._shared import _targets
from cfngen._models import MODERN_PYTHON


def models_module(
    schema: dict[str, Any], *, official: bool, python: tuple[int, int] = MODERN_PYTHON
) -> str:
    """models.py: TypeConfigurationModel and the classes it uses, and HookHandlerRequest, for
    the oldest Python `python` it must run on (the hook's runtime)."""
    from cfngen._models import models_source

    config = schema.get("typeConfiguration")
    config = config if isinstance(config, dict) else {}
    source = {
        "typeName": schema.get("typeName"),
        "properties": config.get("properties") or {},
        "definitions": schema.get("definitions") or {},
    }
    text = models_source(source, root="TypeConfigurationModel", python=python, official_names=True)
    text = text.replace(
        "\nfrom cloudformation_cli_python_lib.interface import BaseModel\n",
        "\nfrom cloudformation_cli_python_lib.interface import BaseHookHandlerRequest, BaseModel\n",
        1,
    )
    if official:
        text = text.replace(
            "\nfrom .cfngen_runtime.serialisation import CfnModel\n",
            "\nfrom .cfngen_runtime.hooks import none_when_empty\n"
            "from .cfngen_runtime.serialisation import CfnModel\n",
            1,
        )
    text += (
        "\n\n@dataclass\n"
        "class HookHandlerRequest(BaseHookHandlerRequest):\n"
        '    """What a handler gets: `hookContext.targetModel` is the dict CloudFormation sent;\n'
        '    `cfngen_runtime.hooks.typed_target(request)` the target as its typed model."""\n'
    )
    if official:
        text += (
            "\n\n# Handlers written for `cfn init` projects expect None for an empty "
            "configuration.\n"
            "none_when_empty(TypeConfigurationModel)\n"
        )
    return text


def target_module(
    schema: dict[str, Any], type_name: str, *, python: tuple[int, int] = MODERN_PYTHON
) -> str:
    from cfngen._models import models_source

    text = models_source(
        schema, root=_targets.class_name(type_name), python=python, official_names=True
    )
    # The module lives in target_models/, one level below the runtime library.
    return text.replace("from .cfngen_runtime.", "from ..cfngen_runtime.", 1)


def target_table(targets: dict[str, dict[str, Any]]) -> str:
    rows = "".join(
        f'    "{name}": ("{_targets.module_name(name)}", "{_targets.class_name(name)}"),\n'
        for name in targets
    )
    return (
        '"""Typed models of the hook\'s targets, one module per type.\n\n'
        "MODULES maps a target type to (module, class) for every type with a model here:\n"
        "each type the schema names, and each type a wildcard matches that the project's code\n"
        "imports (`from .target_models.aws_s3_accesspoint import AwsS3Accesspoint`) or whose\n"
        "schema is in target-schemas/. `cfngen_runtime.hooks.typed_target` reads it.\n"
        '"""\n\n'
        "from __future__ import annotations\n\n"
        + "MODULES: dict[str, tuple[str, str]] = {"
        + ("\n" + rows if rows else "")
        + "}\n"
    )
