"""Serialisation: `CfnModel`, the base of every dataclass in models.py.

`_deserialize`/`_serialize` as cloudformation_cli_python_lib calls them, driven by the type hints
of the dataclass fields. JSON names that are not usable Python names are kept in
`field(metadata={"alias": ...})`. CloudFormation sends every primitive as a string ("5", "1.5",
"true"): they become typed values where the hint asks for one. Empty lists and objects are kept,
None is dropped on output, and keys beyond the declared properties are kept as they came (in
`_extra`) and written back.

Only the standard library and cloudformation_cli_python_lib. It runs on Python 3.8 and newer
(every runtime a project may declare): whatever it evaluates at import time is spelled the 3.8
way (`typing.Callable[...]`, no `X | Y`); annotations are never evaluated (`from __future__
import annotations`), so they may use the newer spellings.

    context = CallbackContext._deserialize(callback_context)   # typed progress state
    ...
    callbackContext=context._serialize()
"""

from __future__ import annotations

import dataclasses
import re
import sys
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Callable, Dict, List, Literal, TypeVar, Union, overload

from cloudformation_cli_python_lib.interface import (
    BaseModel,
    BaseResourceHandlerRequest,
)

__all__ = ["BaseResourceHandlerRequest", "CfnModel"]

_M = TypeVar("_M", bound="CfnModel")
# typing.Callable, not collections.abc's: subscripted at import time, which 3.8 cannot do.
_Load = Callable[[Any], Any]
# `X | Y` hints (3.10 and newer) have their own origin; on 3.8 and 3.9 there are none.
_UNIONS = (Union, getattr(types, "UnionType", Union))
_NO_MATCH = object()
_INT = re.compile(r"[-+]?\d+")
_FLOAT = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


class CfnModel(BaseModel):
    """Base of the generated dataclasses: JSON in and out, following the field type hints."""

    #: Keys of the JSON object that are not declared properties, kept to be written back.
    #: (typing.Dict: `typing.get_type_hints` of every model evaluates it, on 3.8 too.)
    _extra: Dict[str, Any]  # noqa: UP006

    # A class with very many fields is `@dataclass(init=False, repr=False)` in models.py:
    # dataclasses writes __init__ and __repr__ as one function over every field, which takes
    # time quadratic in their number (minutes for 10,000 fields, at every import). These two
    # do the same for any number of fields.
    def __init__(self, **values: Any) -> None:
        for spec in dataclasses.fields(self):  # type: ignore[arg-type]
            if spec.name in values:
                value = values.pop(spec.name)
            elif spec.default is not dataclasses.MISSING:
                value = spec.default
            elif spec.default_factory is not dataclasses.MISSING:
                value = spec.default_factory()
            else:
                raise TypeError(
                    f"{type(self).__name__}() needs the argument {spec.name!r}"
                )
            setattr(self, spec.name, value)
        if values:
            raise TypeError(
                f"{type(self).__name__}() got an unexpected keyword argument "
                f"{next(iter(values))!r}"
            )

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{spec.name}={getattr(self, spec.name)!r}"
            for spec in dataclasses.fields(self)  # type: ignore[arg-type]
            if spec.repr
        )
        return f"{type(self).__name__}({fields})"

    @overload
    @classmethod
    def _deserialize(cls: type[_M], json_data: None) -> None: ...
    @overload
    @classmethod
    def _deserialize(cls: type[_M], json_data: Mapping[str, Any]) -> _M: ...
    @overload
    @classmethod
    def _deserialize(
        cls: type[_M], json_data: Mapping[str, Any] | None
    ) -> _M | None: ...
    @classmethod
    def _deserialize(cls: type[_M], json_data: Mapping[str, Any] | None) -> _M | None:
        """The model for a JSON object; None for None. `{}` gives a model with every field None."""
        if json_data is None:
            return None
        if not isinstance(json_data, Mapping):
            raise TypeError(
                f"{cls.__name__} needs a JSON object, not {type(json_data).__name__}"
            )
        fields = _fields(cls)
        values: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, value in json_data.items():
            spec = fields.get(key)
            if spec is None:
                extra[key] = value
            else:
                values[spec[0]] = spec[1](value)
        model = cls(**values)
        if extra:
            model._extra = extra
        return model

    def _serialize(self) -> dict[str, Any]:
        """The JSON object: fields that are None are left out, empty lists and objects kept."""
        out: dict[str, Any] = {}
        for name, (attribute, _, _) in _fields(type(self)).items():
            value = getattr(self, attribute)
            if value is not None:
                out[name] = _dump(value)
        for name, value in getattr(self, "_extra", {}).items():
            out.setdefault(name, _dump(value))
        return out


def _dump(value: Any) -> Any:
    if isinstance(value, (str, int, float)) or value is None:
        return value
    if isinstance(value, Mapping):
        return {key: _dump(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_dump(item) for item in value]
    if hasattr(value, "_serialize"):
        return value._serialize()
    return value


# --------------------------------------------------------------------------- loading by type hint

_FIELDS: dict[type, dict[str, tuple[str, _Load, Any]]] = {}
_LOADERS: dict[Any, _Load] = {}


def _fields(cls: type) -> dict[str, tuple[str, _Load, Any]]:
    """JSON name -> (attribute, loader, type hint) of a dataclass, computed once per class."""
    try:
        return _FIELDS[cls]
    except KeyError:
        pass
    hints = typing.get_type_hints(cls)
    namespace = vars(sys.modules[cls.__module__])
    hints = {name: _resolved(hint, namespace) for name, hint in hints.items()}
    fields = {
        field.metadata.get("alias", field.name): (
            field.name,
            _loader(hints[field.name]),
            hints[field.name],
        )
        for field in dataclasses.fields(cls)
    }
    _FIELDS[cls] = fields
    return fields


def _resolved(hint: Any, namespace: Mapping[str, Any]) -> Any:
    """The hint with quoted names inside aliases (`Dict[str, "Rule"]`) resolved.

    get_type_hints leaves them as they are on Python 3.8 (a ForwardRef) and 3.10 (a string in
    `dict[str, "Rule"]`); 3.9 and 3.11 and newer resolve them.
    """
    if isinstance(hint, (str, typing.ForwardRef)):
        name = hint if isinstance(hint, str) else hint.__forward_arg__
        return namespace.get(name, hint)
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if not args or origin is Literal or not _has_forward_ref(hint):
        return hint
    generic: Any = Union if origin in _UNIONS else {list: List, dict: Dict}.get(origin)
    if generic is None:
        return hint
    return generic[tuple(_resolved(arg, namespace) for arg in args)]


def _has_forward_ref(hint: Any) -> bool:
    return isinstance(hint, (str, typing.ForwardRef)) or any(
        _has_forward_ref(arg) for arg in typing.get_args(hint)
    )


def _loader(hint: Any) -> _Load:
    try:
        return _LOADERS[hint]
    except KeyError:
        pass
    except TypeError:  # an unhashable hint (never generated): build it every time
        return _build_loader(hint)
    loader = _LOADERS[hint] = _build_loader(hint)
    return loader


def _build_loader(hint: Any) -> _Load:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in _UNIONS:
        return _union_loader([arg for arg in args if arg is not type(None)])
    if origin is Literal:
        return _literal_loader(args)
    if origin is list:
        item = _loader(args[0]) if args else _keep
        return lambda value: (
            [item(v) for v in value] if isinstance(value, list) else value
        )
    if origin is dict:
        item = _loader(args[1]) if len(args) == 2 else _keep
        return lambda value: (
            {k: item(v) for k, v in value.items()} if isinstance(value, dict) else value
        )
    if isinstance(hint, type) and issubclass(hint, CfnModel):
        model = hint
        return lambda value: (
            model._deserialize(value) if isinstance(value, Mapping) else value
        )
    if hint in _SCALARS:
        return _scalar_loader(hint)
    return _keep


def _keep(value: Any) -> Any:
    return value


def _parse_bool(text: str) -> Any:
    lowered = text.lower()
    return True if lowered == "true" else False if lowered == "false" else _NO_MATCH


def _parse_int(text: str) -> Any:
    return int(text) if _INT.fullmatch(text) else _NO_MATCH


def _parse_float(text: str) -> Any:
    # "5" stays the integer 5 (as the JSON it came from), "1.5" becomes 1.5
    if _INT.fullmatch(text):
        return int(text)
    return float(text) if _FLOAT.fullmatch(text) else _NO_MATCH


def _fits_scalar(hint: type, value: Any) -> bool:
    if hint is float:
        return type(value) in (int, float)
    return type(value) is hint


_SCALARS: dict[Any, Callable[[str], Any]] = {
    str: lambda text: text,
    bool: _parse_bool,
    int: _parse_int,
    float: _parse_float,
}


def _scalar_loader(hint: type) -> _Load:
    parse = _SCALARS[hint]

    def load(value: Any) -> Any:
        if isinstance(value, str) and hint is not str:
            parsed = parse(value)
            return value if parsed is _NO_MATCH else parsed
        return value

    return load


def _literal_loader(members: tuple[Any, ...]) -> _Load:
    def load(value: Any) -> Any:
        if _is_member(value, members):
            return value
        if isinstance(value, str):
            for member in members:
                if type(member) in _SCALARS and type(member) is not str:
                    parsed = _SCALARS[type(member)](value)
                    if parsed is not _NO_MATCH and _is_member(parsed, members):
                        return parsed
        return value

    return load


def _is_member(value: Any, members: tuple[Any, ...]) -> bool:
    # type() too: True == 1 and 1 == 1.0, but they are different JSON values
    return any(type(value) is type(m) and value == m for m in members)


def _union_loader(options: list[Any]) -> _Load:
    """The first option the value already fits; else the first that parses a string; else as is."""
    if len(options) == 1:
        return _loader(options[0])

    def load(value: Any) -> Any:
        if value is None:
            return None
        fitting = _fitting_option(options, value)
        if fitting is not None:
            return _loader(fitting)(value)
        if isinstance(value, str):
            for option in options:
                parsed = _loader(option)(value)
                if parsed is not value:
                    return parsed
        return value

    return load


def _fitting_option(options: list[Any], value: Any) -> Any:
    """The option a value fits as it is, or None.

    A scalar or a list goes to the first option of its JSON type. An object goes to the option
    it fits best, looking inside it (`_fit`): the model that declares its keys, whose `Type`
    enum takes its value, whose nested models fit; a map only after a model that fits as well.
    """
    best: Any = None
    best_score: tuple[int, bool, int] = (-1, False, 0)
    for option in options:
        origin = typing.get_origin(option) or option
        if origin is Literal:
            if _is_member(value, typing.get_args(option)):
                return option
        elif origin in _SCALARS:
            if _fits_scalar(origin, value):
                return option
        elif origin is list:
            if isinstance(value, list):
                return option
        elif isinstance(value, Mapping) or option is Any:
            fits, exact = _fit(option, value)
            score = (fits, origin is not dict and option is not Any, exact)
            if score > best_score:
                best, best_score = option, score
    return best


def _fit(hint: Any, value: Any) -> tuple[int, int]:
    """How well a value fits a hint: (parts that fit, parts that fit without converting a string),
    counting every value inside lists, maps and models."""
    origin = typing.get_origin(hint) or hint
    args = typing.get_args(hint)
    if origin in _UNIONS:
        return max(_fit(arg, value) for arg in args)
    if hint is type(None) or value is None:
        return (1, 1) if hint is type(None) and value is None else (0, 0)
    if origin is Literal:
        if _is_member(value, args):
            return 1, 1
        return (1, 0) if _literal_loader(args)(value) is not value else (0, 0)
    if origin in _SCALARS:
        if _fits_scalar(origin, value):
            return 1, 1
        parsed = _SCALARS[origin](value) if isinstance(value, str) else _NO_MATCH
        return (1, 0) if parsed is not _NO_MATCH else (0, 0)
    if origin is list:
        if not isinstance(value, list):
            return 0, 0
        return _sum(1, (_fit(args[0] if args else Any, item) for item in value))
    if origin is dict:
        if not isinstance(value, Mapping):
            return 0, 0
        return _sum(
            1, (_fit(args[1] if len(args) == 2 else Any, v) for v in value.values())
        )
    if isinstance(origin, type) and issubclass(origin, CfnModel):
        if not isinstance(value, Mapping):
            return 0, 0
        fields = _fields(origin)
        return _sum(1, (_fit(fields[k][2], v) for k, v in value.items() if k in fields))
    return 1, 1


def _sum(own: int, parts: Iterable[tuple[int, int]]) -> tuple[int, int]:
    fits, exact = own, own
    for part_fits, part_exact in parts:
        fits += part_fits
        exact += part_exact
    return fits, exact
