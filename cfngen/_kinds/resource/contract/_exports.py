"""`{{Name}}` placeholders in input and request files: CloudFormation exports.

`cfn test` replaces `{{Name}}` with the value of the export Name, looked up with ListExports in
the account. cfngen runs offline: a value the user gives (`--export Name=VALUE`, `--exports
FILE`) is used as is; otherwise a value valid for the property that holds the placeholder is
made from the schema, with a warning saying so.

The placeholders are replaced in the parsed JSON, not in its text, so a value holding a quote
cannot break the file, and a placeholder that is a whole JSON value (`"Port": {{PortExport}}`,
which `cfn test`'s text replacement allows) becomes the value itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen import _schema
from cfngen._contract._references import EXPORT
from cfngen._errors import CfngenError, ExitCode
from cfngen._kinds.resource._view import ResourceSchema

# `{{Name}}`, never a `{{resolve:...}}` dynamic reference.
_EXPORT = EXPORT
# Private-use characters: they survive JSON parsing inside a string and appear in no real input.
_OPEN, _CLOSE = "\ue000", "\ue001"
#: Opens the marker of a placeholder that stood outside a JSON string (a whole value).
_BARE = "\ue002"
_MARK = re.compile(f"[{_OPEN}{_BARE}]([^{_CLOSE}]*){_CLOSE}")

#: The model path (as ResourceSchema.subschema takes it) of a path in the document, if any.
ModelPath = Callable[[tuple[str, ...]], "tuple[str, ...] | None"]
#: For a path of the document: how to make a value valid there from a stand-in, if known.
_ValueMaker = Callable[[tuple[str, ...]], "Callable[[Any], Any] | None"]


@dataclass
class Exports:
    """The values given by the user, and what each placeholder met so far became."""

    given: Mapping[str, Any] = field(default_factory=dict)
    #: Export name -> the value used for it (the same in every file, where it is valid there),
    #: for the placeholders no value was given for.
    stand_ins: dict[str, Any] = field(default_factory=dict)
    #: Export name -> the files that name it without a value given.
    files: dict[str, list[str]] = field(default_factory=dict)

    def notes(self) -> list[str]:
        return [
            f"{{{{{name}}}}} ({', '.join(self.files[name])}) is a CloudFormation export, which "
            f"cfngen cannot look up offline; used {json.dumps(value, ensure_ascii=False)} "
            f"instead (give the real value with --export {name}=VALUE or --exports FILE)"
            for name, value in sorted(self.stand_ins.items())
        ]


def load(
    path: Path,
    hint: str,
    exports: Exports,
    *,
    info: ResourceSchema | None = None,
    model_path: ModelPath = lambda path: path,
    display: str | None = None,
) -> dict[str, Any]:
    """The JSON object in `path` with every `{{Name}}` replaced (see the module docstring);
    `info` and `model_path` say which property a placeholder stands for."""
    text = _schema.read_text(path, not_utf8=ExitCode.USAGE)
    if not _EXPORT.search(text):
        return _nested_within_reason(path, _schema.load_object(path, hint, text=text))
    data = _nested_within_reason(path, _schema.load_object(path, hint, text=_marked(text)))

    def schema_at(at: tuple[str, ...]) -> Callable[[Any], Any] | None:
        where = model_path(at)
        node = info.subschema(where) if info is not None and where is not None else None
        if info is None or node is None:
            return None
        return lambda fallback: _valid_value(info.schema, node, fallback)

    out: dict[str, Any] = _replace(data, (), display or path.name, exports, schema_at)
    return out


def _nested_within_reason(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """Requests and inputs are copied and compared recursively on their way to the handler:
    nesting past the JSON reader's limit for documents is refused here, with where."""
    deep = _schema.nesting_too_deep(data)
    if deep is not None:
        raise CfngenError(
            f"{path}: nested deeper than {_schema.MAX_NESTING} levels at {deep}",
            "no CloudFormation model nests that deeply: fix the file",
        )
    return data


def _marked(text: str) -> str:
    """`text` with each placeholder as a marker; one outside a JSON string becomes a string."""
    out: list[str] = []
    in_string = escaped = False
    position = 0
    for match in _EXPORT.finditer(text):
        for char in text[position : match.start()]:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = in_string
            elif char == '"':
                in_string = not in_string
        out.append(text[position : match.start()])
        name = match.group(1).strip()
        out.append(f"{_OPEN}{name}{_CLOSE}" if in_string else f'"{_BARE}{name}{_CLOSE}"')
        position = match.end()
    out.append(text[position:])
    return "".join(out)


def _replace(
    value: Any, path: tuple[str, ...], where: str, exports: Exports, schema_at: _ValueMaker | None
) -> Any:
    if isinstance(value, dict):
        return {
            _replace(key, path, where, exports, None): _replace(
                item, (*path, key), where, exports, schema_at
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [
            _replace(item, (*path, str(index)), where, exports, schema_at)
            for index, item in enumerate(value)
        ]
    if not isinstance(value, str) or (_OPEN not in value and _BARE not in value):
        return value
    whole = _MARK.fullmatch(value)
    if whole:
        found = _value(whole.group(1), path, where, exports, schema_at)
        if value.startswith(_BARE) and isinstance(found, str):
            # `cfn test` pastes the export's text into the file: unquoted, `9` is a number.
            try:
                return json.loads(found)
            except ValueError:
                return found
        return found

    def inline(match: re.Match[str]) -> str:
        found = _value(match.group(1), None, where, exports, None)
        return found if isinstance(found, str) else json.dumps(found)

    return _MARK.sub(inline, value)


def _value(
    name: str,
    path: tuple[str, ...] | None,
    where: str,
    exports: Exports,
    schema_at: _ValueMaker | None,
) -> Any:
    if name in exports.given:
        return exports.given[name]
    # The value used before for this name, where it is valid here too: a placeholder in the
    # create and the update input must not differ (a createOnly property would change).
    value: Any = exports.stand_ins.get(name, f"cfngen-export-{name}")
    make = schema_at(path) if schema_at is not None and path is not None else None
    if make is not None:
        value = make(value)
    exports.stand_ins.setdefault(name, value)
    if where not in exports.files.setdefault(name, []):
        exports.files[name].append(where)
    return value


def _valid_value(root: dict[str, Any], node: dict[str, Any], fallback: Any) -> Any:
    """A value the property's schema `node` (in the resource schema `root`) accepts: the
    stand-in string when it is one."""
    from cfngen._instances._values import MISSING, Builder

    try:
        builder = Builder(root)
        if builder.valid(node, fallback):
            return fallback
        value = builder.value(node, ("Value",), 1)
    except Exception:  # the generator gives up on some schemas; the stand-in still runs
        return fallback
    return fallback if value is MISSING or not builder.valid(node, value) else value
