"""The files that belong to one custom type of a template: its properties schema and the
properties `cfngen test` sends, beside the template.

A template with one custom type (however many resources have it) keeps them as
`properties-schema.json` and `custom-resource-inputs.json`; a template with several types
gives each its own, `properties-schemas/<Custom__Name>.json` and
`custom-resource-inputs/<Custom__Name>.json` (`::` written `__`, which file names everywhere
accept). A file of one type never applies to another: with several types, the single-type
names apply to none, and saying so is the caller's note. validate, generate and test all ask
here.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from cfngen._kinds.custom_resource import INPUTS_FILE, PROPERTIES_SCHEMA

#: The folders of per-type files, beside the template.
SCHEMAS_FOLDER = "properties-schemas"
INPUTS_FOLDER = "custom-resource-inputs"


def file_stem(type_name: str) -> str:
    """`Custom::Name` -> `Custom__Name`."""
    return type_name.replace("::", "__")


@dataclass(frozen=True)
class TypeFiles:
    """Where one type's files are looked for, and whether each is there."""

    type_name: str
    #: The schema and inputs files of this type (each may not exist).
    schema_path: Path
    inputs_path: Path

    @property
    def schema(self) -> Path | None:
        return self.schema_path if self.schema_path.is_file() else None

    @property
    def inputs(self) -> Path | None:
        return self.inputs_path if self.inputs_path.is_file() else None


def type_files(folder: Path, type_name: str, types: Collection[str]) -> TypeFiles:
    """The files of `type_name` in `folder` (the template's), for a template declaring the
    custom types `types`."""
    stem = f"{file_stem(type_name)}.json"
    own_schema, own_inputs = folder / SCHEMAS_FOLDER / stem, folder / INPUTS_FOLDER / stem
    single = [folder / PROPERTIES_SCHEMA, folder / INPUTS_FILE]
    if len(set(types)) > 1:
        return TypeFiles(type_name, own_schema, own_inputs)
    return TypeFiles(
        type_name,
        own_schema if own_schema.is_file() else single[0],
        own_inputs if own_inputs.is_file() else single[1],
    )


def unclaimed(folder: Path, types: Collection[str]) -> str | None:
    """What to say when single-type files sit beside a template of several types, to which
    none of them applies (None when there is nothing to say)."""
    if len(set(types)) < 2:
        return None
    found = [name for name in (PROPERTIES_SCHEMA, INPUTS_FILE) if (folder / name).is_file()]
    if not found:
        return None
    verb = "applies" if len(found) == 1 else "apply"
    return (
        f"{' and '.join(found)} {verb} to no resource: the template declares several custom "
        f"types ({', '.join(sorted(set(types)))}); give each type its own "
        f"{SCHEMAS_FOLDER}/<Custom__Name>.json and {INPUTS_FOLDER}/<Custom__Name>.json"
    )


def schema_files(folder: Path, types: Collection[str]) -> list[Path]:
    """Every properties schema that applies to one of `types` (what validate checks)."""
    found = [type_files(folder, name, types).schema for name in sorted(set(types))]
    return list(dict.fromkeys(path for path in found if path is not None))


def is_schema_file(path: Path) -> bool:
    """Whether `path` is named as a properties schema is (beside a template, or in its
    folder of per-type schemas)."""
    return path.name == PROPERTIES_SCHEMA or (
        path.parent.name == SCHEMAS_FOLDER and path.suffix == ".json"
    )
