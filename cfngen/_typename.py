"""CloudFormation type names (`Organization::Service::Resource`), validated once."""

from __future__ import annotations

import keyword
import re

from cfngen._errors import CfngenError

_PART = r"[A-Za-z0-9]{2,64}"
TYPE_NAME_PATTERN = rf"^{_PART}::{_PART}::{_PART}$"
_TYPE_NAME_RE = re.compile(TYPE_NAME_PATTERN)

#: Namespaces AWS keeps for itself; registering a private type under one of them fails.
RESERVED_NAMESPACES = ("AWS", "Alexa", "AMZN", "Amazon", "ASK", "Custom", "Dev")


def reserved_namespace(organization: str) -> str | None:
    """The reserved namespace an organization name collides with, compared case-insensitively."""
    for reserved in RESERVED_NAMESPACES:
        if organization.lower() == reserved.lower():
            return reserved
    return None


class TypeName(str):
    """A syntactically valid type name. Construction raises CfngenError with a fix hint."""

    __slots__ = ()

    def __new__(cls, value: str) -> TypeName:
        problem = type_name_problem(value)
        if problem is not None:
            raise CfngenError(f"invalid type name {value!r}: {problem}", _HINT)
        return super().__new__(cls, value)

    @property
    def parts(self) -> tuple[str, str, str]:
        org, svc, res = self.split("::")
        return org, svc, res

    @property
    def namespace(self) -> str:
        return self.parts[0]

    @property
    def hyphenated(self) -> str:
        """`Acme-Svc-Widget`, as in role ARNs and registry names."""
        return "-".join(self.parts)

    @property
    def schema_filename(self) -> str:
        """`acme-svc-widget.json`, the name the official tool gives the schema file."""
        return self.hyphenated.lower() + ".json"

    @property
    def package_name(self) -> str:
        """A Python package name derived from the type name that is always importable.

        The official tool uses `org_svc_res`, which is not an identifier when the organization
        starts with a digit (`1org_...`) or is a keyword; we prefix such names.
        """
        return python_package_name(self)


_HINT = (
    "use three parts separated by '::', each 2-64 letters or digits, "
    "for example Acme::Storage::Bucket"
)


def type_name_problem(value: str) -> str | None:
    """Why `value` is not a usable type name, or None when it is."""
    if not isinstance(value, str) or not value:
        return "it is empty"
    parts = value.split("::")
    if len(parts) != 3:
        return f"it has {len(parts)} part(s); a type name has exactly three"
    for part in parts:
        if not re.fullmatch(_PART, part):
            if not 2 <= len(part) <= 64:
                return f"part {part!r} must be 2 to 64 characters long"
            return f"part {part!r} may only contain letters and digits"
    if not _TYPE_NAME_RE.match(value):  # pragma: no cover - the checks above are exhaustive
        return f"it does not match {TYPE_NAME_PATTERN}"
    return None


def python_package_name(type_name: str) -> str:
    name = "_".join(part.lower() for part in type_name.split("::"))
    if not name.isidentifier() or keyword.iskeyword(name):
        name = "ext_" + name
    return name
