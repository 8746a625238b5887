"""The check after generating: models.py runs, is written for the Python it targets, and every
dataclass reads and writes exactly the JSON names its schema object declares. A failure is a bug
in cfngen, never the user's."""

from __future__ import annotations

import ast
import sys
import types

from cfngen._models._assemble import HANDLER_REQUEST, OFFICIAL_LIBRARY
from cfngen._models._generate import MODERN_PYTHON, RUNTIME_MODULE, internal_error
from cfngen._models._names import BASE_CLASS
from cfngen._models._normalise import Normalised

#: typing names models.py may import, with the Python version that has them.
_TYPING_SINCE = {
    "Annotated": (3, 9),
    "TypeAlias": (3, 10),
    "TypeGuard": (3, 10),
    "Never": (3, 11),
    "NotRequired": (3, 11),
    "Required": (3, 11),
    "Self": (3, 11),
    "TypeAliasType": (3, 12),
}
#: Builtins that take a subscript in annotations from 3.9 on (PEP 585).
_GENERIC_BUILTINS = frozenset({"dict", "frozenset", "list", "set", "tuple", "type"})


def target_problems(text: str, python: tuple[int, int]) -> list[str]:
    """What in models.py the Python version `python` cannot run, as sentences (none: fine).

    The module is exec'd on cfngen's own Python, which reads newer syntax; `typing.get_type_hints`
    evaluates every annotation on the user's runtime, so `X | None` breaks on 3.9 and `list[X]`
    on 3.8 although the module imports.
    """
    try:
        tree = ast.parse(text, feature_version=python)
    except SyntaxError as error:
        return [f"line {error.lineno}: syntax Python {python[0]}.{python[1]} cannot read"]
    problems: list[str] = []
    # The runtime evaluates the annotations of classes (typing.get_type_hints); a module-level
    # annotation is never evaluated under `from __future__ import annotations`.
    in_classes = {
        id(statement)
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef)
        for statement in cls.body
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "typing":
            problems += [
                f"line {node.lineno}: typing.{alias.name} needs Python "
                f"{'.'.join(map(str, _TYPING_SINCE[alias.name]))}"
                for alias in node.names
                if _TYPING_SINCE.get(alias.name, python) > python
            ]
        evaluated = isinstance(node, ast.AnnAssign) and id(node) in in_classes
        annotation = node.annotation if evaluated else None  # type: ignore[attr-defined]
        for part in ast.walk(annotation) if annotation is not None else ():
            if python < (3, 10) and isinstance(part, ast.BinOp) and isinstance(part.op, ast.BitOr):
                problems.append(f"line {part.lineno}: `X | Y` in an annotation needs Python 3.10")
            if (
                python < (3, 9)
                and isinstance(part, ast.Subscript)
                and isinstance(part.value, ast.Name)
                and part.value.id in _GENERIC_BUILTINS
            ):
                problems.append(f"line {part.lineno}: `{part.value.id}[...]` needs Python 3.9")
    return problems


def check_models(
    text: str,
    normalised: Normalised,
    *,
    handler_request: bool = True,
    python: tuple[int, int] = MODERN_PYTHON,
) -> frozenset[str]:
    """Run the module; return the JSON property names some dataclass does not read and write.

    Raises CfngenError when the module does not run on `python`, or a class is missing.
    """
    import dataclasses
    import typing

    problems = target_problems(text, python)
    if problems:
        raise internal_error(
            f"the generated models.py cannot run on Python {python[0]}.{python[1]}: "
            + "; ".join(problems[:3])
        )

    package = f"_cfngen_models_check_{id(normalised)}"
    stub = types.ModuleType(f"{package}.{RUNTIME_MODULE}")
    # The real runtime imports cloudformation_cli_python_lib (and boto3): half a second.
    # The module only needs names from it to define its classes.
    stub.__dict__.update(
        {BASE_CLASS: type(BASE_CLASS, (), {}), "BaseResourceHandlerRequest": type("B", (), {})}
    )
    module = types.ModuleType(f"{package}.models")
    module.__package__ = package
    library = _library_stubs()
    parent = stub.__name__.rpartition(".")[0]
    saved = {
        name: sys.modules.get(name)
        for name in (package, parent, stub.__name__, module.__name__, *library)
    }
    sys.modules[package] = types.ModuleType(package)
    sys.modules[parent] = types.ModuleType(parent)
    sys.modules[stub.__name__] = stub
    sys.modules[module.__name__] = module
    sys.modules.update(library)
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


def _library_stubs() -> dict[str, types.ModuleType]:
    """Stand-ins for the library modules models.py imports names from (for the names the
    official models.py binds), unless they are imported already: importing the library
    imports boto3, 0.2 s that a generate would spend on this check alone."""
    stubs: dict[str, types.ModuleType] = {}
    for line in OFFICIAL_LIBRARY:
        _from, module_name, _import, names = line.split(" ", 3)
        if module_name in sys.modules:
            continue
        stub = stubs.setdefault(module_name, types.ModuleType(module_name))
        for name in names.split(", "):
            setattr(stub, name, type(name, (), {}))
    if stubs and "cloudformation_cli_python_lib" not in sys.modules:
        stubs["cloudformation_cli_python_lib"] = types.ModuleType("cloudformation_cli_python_lib")
    return stubs
