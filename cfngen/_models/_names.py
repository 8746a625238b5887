"""The names of generated models: the classes models.py always has, the class names a
definition may not take, and Python names for schema names (a class name the generator keeps as
it is, a property name that must travel as an alias, an identifier for a keyword or a name that
is none); and the names the official plugin's models.py gives the same classes.
"""

from __future__ import annotations

import keyword
import re

RESOURCE_MODEL = "ResourceModel"
TYPE_CONFIGURATION_MODEL = "TypeConfigurationModel"
CALLBACK_CONTEXT = "CallbackContext"
BASE_CLASS = "CfnModel"

#: Class names a definition may not take: the names models.py defines or imports itself, and
#: typing names (a definition called `Mapping` or `Any` must not shadow the typing import).
RESERVED_CLASS_NAMES = frozenset(
    {
        RESOURCE_MODEL,
        TYPE_CONFIGURATION_MODEL,
        CALLBACK_CONTEXT,
        BASE_CLASS,
        "ResourceHandlerRequest",
        "BaseResourceHandlerRequest",
        # a hook's models.py defines and imports these
        "HookHandlerRequest",
        "BaseHookHandlerRequest",
        # the official models.py binds these besides its classes, and so does ours
        "BaseModel",
        "T",
        *[
            "AbstractSet",
            "Annotated",
            "Any",
            "Callable",
            "ClassVar",
            "Dict",
            "FrozenSet",
            "Generic",
            "Iterable",
            "List",
            "Literal",
            "Mapping",
            "MutableMapping",
            "NoneType",
            "Optional",
            "Sequence",
            "Set",
            "Tuple",
            "Type",
            "TypeAlias",
            "TypeVar",
            "Union",
        ],
    }
)


_NON_WORD = re.compile(r"[^A-Za-z0-9]+")


def class_name(name: str) -> str:
    """An UpperCamelCase identifier the generator keeps as it is ("AWS::X::Y.Foo" -> "Foo")."""
    if "." in name and name.rsplit(".", 1)[1]:
        name = name.rsplit(".", 1)[1]
    parts = [p for p in _NON_WORD.split(name) if p]
    out = "".join(p[0].upper() + p[1:] for p in parts) or "Model"
    return f"Model{out}" if out[0].isdigit() else out


def needs_alias(name: str) -> bool:
    """Whether the generator renames this property, so its JSON name must travel as an alias."""
    return (
        not name.isascii()
        or not name.isidentifier()
        or keyword.iskeyword(name)
        or name.startswith("_")
    )


def python_name(name: str, used: set[str], *, retry: bool = False) -> str:
    """An ASCII identifier for a property, unlike `used` ("from" -> "from_", "1a" -> "field_1a")."""
    if keyword.iskeyword(name):
        base = f"{name}_"
    else:
        base = re.sub(r"[^0-9A-Za-z_]", "_", name)
        if not base or base[0].isdigit() or base[0] == "_":
            base = f"field_{base.lstrip('_')}" if base.strip("_") else "field_"
    if retry:
        base += "_"
    candidate, number = base, 2
    while candidate in used or keyword.iskeyword(candidate):
        candidate, number = f"{base}_{number}", number + 1
    return candidate


def official_class_name(name: str) -> str | None:
    """The class the official plugin makes of a definition or an object property `name`: its
    first letter upper-cased, the rest as it is (`tag_spec` -> `Tag_spec`; cloudformation-cli
    0.2.41, `base_class_from_ref`); None when that is no Python name (its models.py would not
    compile)."""
    last = name.rpartition("/")[2]
    official = last[:1].upper() + last[1:]
    if not official.isidentifier() or keyword.iskeyword(official):
        return None
    return official
