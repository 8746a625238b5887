"""The one reader of CloudFormation templates (and of YAML in their dialect, `--params` files).

Two readings, for two needs:
- `decode`: cfn-lint's decoder, for what checks or runs a template (custom resources' validate
  and test, module fragments, `--params`): short-form intrinsics (`!Ref x`, `!Sub`) as the
  long forms CloudFormation reads, every node with its position (`position`), syntax errors
  with theirs. cfn-lint is imported with sympy deferred (cfngen/_cfnlint_imports.py).
- `read_plain`: PyYAML's safe loader with every short-form tag read as the plain value under
  it, for what only looks at a template (which resources it declares, a function's
  architecture) and must stay cheap: cfn-lint's import costs ~0.3 s.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any


@dataclass
class Decoded:
    #: The template as cfn-lint's decoder read it (nodes carry positions), or None on errors.
    template: Any
    #: Syntax errors: (line, column, message), 1-based.
    errors: list[tuple[int, int, str]]


def decode(text: str) -> Decoded:
    from cfngen._cfnlint_imports import defer_sympy

    defer_sympy()
    from cfnlint.decode import decode_str  # type: ignore[import-untyped]

    template, matches = decode_str(text)
    errors = [
        (max(int(m.linenumber), 1), max(int(m.columnnumber), 1), str(m.message).strip())
        for m in matches
    ]
    if template is None and not errors:
        errors.append((1, 1, "the file holds no template"))
    return Decoded(template=template if not errors else None, errors=errors)


def position(node: Any) -> tuple[int, int] | None:
    """1-based (line, column) where a decoded node starts, when it knows."""
    mark = getattr(node, "start_mark", None)
    if mark is None:
        return None
    return int(mark.line) + 1, int(mark.column) + 1


def plain(value: Any) -> Any:
    """A decoded node as plain dicts, lists, str, int, float, bool and None (what JSON holds;
    anything else YAML makes, such as a date, as CloudFormation's string)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        # YAML reads `2010-09-09` as a date; CloudFormation reads it as the string.
        return value.isoformat()
    return str(value)


def read_plain(text: str, *, as_json: bool = False) -> Any:
    """A template in JSON (`as_json`), or in YAML with short-form intrinsics read as the plain
    values under their tags. Raises ValueError when the text is neither."""
    if as_json:
        from cfngen._schema import loads

        return loads(text).data  # JsonSyntaxError is a ValueError
    import yaml

    class _Loader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no types
        pass

    def any_tag(loader: yaml.SafeLoader, _suffix: str, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            return loader.construct_scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node)
        return loader.construct_mapping(node)

    _Loader.add_multi_constructor("!", any_tag)
    try:
        return yaml.load(text, Loader=_Loader)  # a SafeLoader subclass: safe
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from None
