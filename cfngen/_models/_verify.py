"""The check after generating: models.py runs, and every dataclass reads and writes exactly the
JSON names its schema object declares. A failure is a bug in cfngen, never the user's."""

from __future__ import annotations

import sys
import types

from cfngen._models._assemble import HANDLER_REQUEST
from cfngen._models._generate import RUNTIME_MODULE, internal_error
from cfngen._models._normalise import BASE_CLASS, Normalised


def check_models(
    text: str, normalised: Normalised, *, handler_request: bool = True
) -> frozenset[str]:
    """Run the module; return the JSON property names some dataclass does not read and write.

    Raises CfngenError when the module does not run or a class is missing.
    """
    import dataclasses
    import typing

    package = f"_cfngen_models_check_{id(normalised)}"
    stub = types.ModuleType(f"{package}.{RUNTIME_MODULE}")
    # The real runtime imports cloudformation_cli_python_lib (and boto3): half a second.
    # The module only needs names from it to define its classes.
    stub.__dict__.update(
        {BASE_CLASS: type(BASE_CLASS, (), {}), "BaseResourceHandlerRequest": type("B", (), {})}
    )
    module = types.ModuleType(f"{package}.models")
    module.__package__ = package
    saved = {name: sys.modules.get(name) for name in (package, stub.__name__, module.__name__)}
    sys.modules[package] = types.ModuleType(package)
    sys.modules[stub.__name__] = stub
    sys.modules[module.__name__] = module
    renamed: set[str] = set()
    try:
        try:
            exec(compile(text, "models.py", "exec"), module.__dict__)
        except Exception as error:
            raise internal_error(
                f"the generated models.py does not run: {type(error).__name__}: {error}"
            ) from error
        for name in [*normalised.classes, *([HANDLER_REQUEST] if handler_request else [])]:
            cls = getattr(module, name, None)
            if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
                raise internal_error(f"the generated models.py has no dataclass {name}")
            try:
                typing.get_type_hints(cls)
            except Exception as error:
                raise internal_error(
                    f"a type hint of {name} in the generated models.py does not resolve: {error}"
                ) from error
            if name == HANDLER_REQUEST:
                continue
            properties = normalised.classes[name]
            names = [f.metadata.get("alias", f.name) for f in dataclasses.fields(cls)]
            missing = set(properties) - set(names)
            renamed.update(missing)
            if not missing and sorted(names) != sorted(properties):
                raise internal_error(
                    f"the generated {name} reads and writes {sorted(names)},"
                    f" but the schema declares {sorted(properties)}"
                )
    finally:
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous
    return frozenset(renamed)
