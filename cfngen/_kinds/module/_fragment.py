"""A module's fragment: finding it, reading it with positions, and the module type name.

The fragment is read with cfn-lint's template decoder (the one the official tool lints with):
JSON or YAML with short-form tags (`!Ref x` arrives as `{"Ref": "x"}`), every mapping, list and
string carrying the line and column it starts at. Everything else here works on those nodes, or
on `plain(...)` copies of them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError, ExitCode

FRAGMENT_DIR = "fragments"
#: The official tool's `ALLOWED_EXTENSIONS` (compared in lower case, as it does).
EXTENSIONS = (".json", ".yaml", ".yml", ".template")
SCHEMA_FILE = "schema.json"
MODULE_SUFFIX = "::MODULE"
_PART = r"[A-Za-z0-9]{2,64}"
#: The official meta-schema's pattern, exactly.
MODULE_TYPE_NAME = re.compile(rf"^{_PART}::{_PART}::{_PART}::MODULE$")
#: A type name of any kind: three parts, or a module's four.
ANY_TYPE_NAME = re.compile(rf"^{_PART}::{_PART}::{_PART}(::MODULE)?$")


def module_type_name_problem(value: object) -> str | None:
    """Why `value` is not a module type name (Organization::Service::Name::MODULE), or None."""
    if not isinstance(value, str) or not value:
        return "it is empty"
    if not value.endswith(MODULE_SUFFIX):
        return "a module's type name ends in ::MODULE"
    if not MODULE_TYPE_NAME.match(value):
        return "use Organization::Service::Name::MODULE, each part 2-64 letters or digits"
    return None


def check_module_type_name(value: str) -> str:
    problem = module_type_name_problem(value)
    if problem is not None:
        raise CfngenError(
            f"invalid module type name {value!r}: {problem}",
            "e.g. Acme::Storage::Bucket::MODULE",
        )
    return value


def fragment_files(root: Path) -> list[Path]:
    """Every file under `root`/fragments the official tool counts as a fragment (it walks
    sub-folders too), sorted."""
    folder = root / FRAGMENT_DIR
    found: list[Path] = []
    for base, _dirs, files in os.walk(folder):
        for name in files:
            if os.path.splitext(name)[1].lower() in EXTENSIONS:
                found.append(Path(base) / name)
    return sorted(found)


def no_fragment(root: Path) -> CfngenError:
    return CfngenError(
        f"{root}: {FRAGMENT_DIR}/ holds no fragment file",
        f"put the module's template in {FRAGMENT_DIR}/ as one YAML or JSON file "
        f"({', '.join(EXTENSIONS)})",
        exit_code=ExitCode.FAILED,
    )


def syntax_of(text: str) -> str:
    """How cfn-lint's decoder reads `text` (and so how its errors are worded)."""
    return "JSON" if text.lstrip().startswith(("{", "[")) else "YAML"


def the_fragment(root: Path) -> Path:
    """The module's one fragment file; a CfngenError (exit 1) when there is none or several."""
    found = fragment_files(root)
    if len(found) == 1:
        return found[0]
    shown = ", ".join(p.relative_to(root).as_posix() for p in found)
    if not found:
        raise no_fragment(root)
    raise CfngenError(
        f"{root}: a module is exactly one fragment file, but {FRAGMENT_DIR}/ holds "
        f"{len(found)}: {shown}",
        "merge them into one template, or move the others out of fragments/",
        exit_code=ExitCode.FAILED,
    )


# --------------------------------------------------------------------------- reading


class NotUTF8(CfngenError):
    """The fragment's bytes are not UTF-8 (exit 2): every command that reads it stops with this
    one message and writes nothing; `cfngen validate` reports it as a finding instead."""

    def __init__(self, shown: str, raw: bytes, bad: UnicodeDecodeError) -> None:
        self.line = raw.count(b"\n", 0, bad.start) + 1
        self.column = bad.start - (raw.rfind(b"\n", 0, bad.start) + 1) + 1
        self.reason = f"the fragment is not UTF-8 (byte {raw[bad.start]:#04x})"
        super().__init__(
            f"{shown}:{self.line}:{self.column}: {self.reason}",
            "save it as UTF-8: CloudFormation reads a YAML or JSON template as UTF-8",
        )


def fragment_text(path: Path, *, display: str | None = None) -> str:
    """The text of the fragment at `path`, read as every command reads it (cfngen's file
    reader: regular files only); NotUTF8 when it is not UTF-8."""
    from cfngen._files import read_bytes

    return decode_utf8(read_bytes(path, display=display), display or str(path))


def decode_utf8(raw: bytes, shown: str) -> str:
    """A fragment's bytes as text; NotUTF8 naming `shown` when they are not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        raise NotUTF8(shown, raw, bad) from None


# --------------------------------------------------------------------------- decoding


def key_of(mapping: Any, name: str) -> Any:
    """The key object of `mapping` equal to `name` (it carries the key's position)."""
    for key in mapping:
        if key == name:
            return key
    return name
