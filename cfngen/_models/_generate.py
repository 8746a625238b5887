"""The one datamodel-code-generator call: a normalised schema in, an unformatted module out."""

from __future__ import annotations

import gc
import sys
import warnings
from typing import Any

from cfngen._errors import CfngenError, ExitCode
from cfngen._models._names import BASE_CLASS, RESOURCE_MODEL

#: The module of the runtime library (cfngen/_support) that defines the models' base class.
RUNTIME_MODULE = "cfngen_runtime.serialisation"
#: The oldest Python that evaluates `X | None` and `list[X]` (what the generator writes for it);
#: older targets get the typing module's spellings.
MODERN_PYTHON = (3, 10)
#: The oldest Python generated code runs on: cloudformation-cli-python-lib 2.1.20's minimum.
OLDEST_PYTHON = (3, 8)
BUG_HINT = "this is a bug in cfngen: please report it with the schema"


def internal_error(message: str) -> CfngenError:
    return CfngenError(message, BUG_HINT, exit_code=ExitCode.INTERNAL)


def _import_generator() -> None:
    """Import what generate() needs, with the cyclic garbage collector paused.

    Its pydantic models allocate so much while they are built that collections take ~10 % of
    the 0.4 s import, and nothing they allocate is garbage. Frozen afterwards, the collector
    also skips them at exit (0.05 s less for a `cfngen generate`).
    """
    if "datamodel_code_generator.config" in sys.modules:
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        import datamodel_code_generator.config
        import datamodel_code_generator.model.dataclass
        import datamodel_code_generator.parser.jsonschema  # noqa: F401

        gc.freeze()
    finally:
        if enabled:
            gc.enable()


def generate_raw(
    schema: dict[str, Any],
    class_name: str = RESOURCE_MODEL,
    *,
    python: tuple[int, int] = MODERN_PYTHON,
) -> str:
    """datamodel-code-generator's dataclasses for a normalised schema, unformatted.

    Its oldest `target_python_version` is 3.10; for older targets we turn off the two spellings
    that need 3.10 (`X | None`) and 3.9 (`list[X]`). `TypeAlias` (3.10) is left to `assemble`.

    Imported here, not at the top: the first call costs ~0.4 s of imports (pydantic models).
    """
    _import_generator()
    from datamodel_code_generator import LiteralType, PythonVersion, generate
    from datamodel_code_generator.enums import DataModelType, InputFileType

    with warnings.catch_warnings():
        # It warns about every `format` it does not know; normalised schemas have none left.
        warnings.simplefilter("ignore")
        try:
            out = generate(
                schema,
                input_file_type=InputFileType.JsonSchema,
                output_model_type=DataModelType.DataclassesDataclass,
                target_python_version=PythonVersion.PY_310,
                class_name=class_name,
                # Written as an absolute import (it refuses a relative one); assemble fixes it.
                base_class=f"{RUNTIME_MODULE}.{BASE_CLASS}",
                enum_field_as_literal=LiteralType.All,
                field_extra_keys={"metadata"},
                disable_timestamp=True,
                formatters=[],
                use_union_operator=python >= MODERN_PYTHON,
                use_standard_collections=python >= MODERN_PYTHON,
            )
        except Exception as error:
            raise internal_error(
                f"datamodel-code-generator failed on this schema: {error}"
            ) from error
    if not isinstance(out, str):
        raise internal_error("datamodel-code-generator split the models into several modules")
    return out
