"""The resource type kind: a schema, CRUDL handlers, and everything derived from them.

What it gives the engines (cfngen/_kind/_kind.py says when each is asked):

- validate: its meta-schema (metaschema.json) and semantic checks (_checks.py);
- generate: models.py through cfngen/_models, resource-role.yaml (_role.py), template.yml and
  src/requirements.txt (_sam.py), docs/ (_docs.py), example_inputs/ (cfngen/_instances), all
  put together in _derive.py;
- invoke and test: the handler contract, its requests and its tests (contract/);
- init: its questions and answers (_answers.py) and the copier template in templates/resource/;
- build and submit: the resource file set of cfngen/_package (RESOURCE).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._errors import CfngenError
from cfngen._kinds._shared._base import KindBase

if TYPE_CHECKING:
    from cfngen._project import Project
    from cfngen._validate import SchemaRules
    from cfngen._validate._file_report import FileReport

#: A complete, valid resource schema that ships with cfngen (`cfngen validate --example`).
EXAMPLE_SCHEMA = Path(__file__).with_name("example-schema.json")
METASCHEMA = Path(__file__).with_name("metaschema.json")
#: The handlers a resource type may declare, in contract order: the schema's `handlers` keys,
#: the wizard's choices, copier.yml's choices and (upper-cased) the actions of `cfngen invoke`.
HANDLERS = ("create", "read", "update", "delete", "list")
ACTIONS = tuple(handler.upper() for handler in HANDLERS)


#: The JSON schema of the handlers' progress state (CallbackContext in models.py).
CALLBACK_CONTEXT_FILE = "callback-context.json"


@functools.cache
def schema_rules() -> SchemaRules:
    from cfngen._kinds._shared._checks import KEYWORD_HINTS, check
    from cfngen._validate import SchemaRules

    return SchemaRules(
        what="a resource schema", metaschema=METASCHEMA, hints=KEYWORD_HINTS, checks=check
    )


@functools.cache
def callback_context_rules() -> SchemaRules:
    from cfngen._kinds._shared._checks import check_callback_context
    from cfngen._validate import SchemaRules

    return SchemaRules(
        what="a callback context schema",
        metaschema=Path(__file__).with_name("callback-context-metaschema.json"),
        hints={},
        checks=check_callback_context,
    )


def _rules_for(path: Path | None) -> SchemaRules:
    """callback-context.json has its own rules; every other file is a resource schema."""
    if path is not None and path.name == CALLBACK_CONTEXT_FILE:
        return callback_context_rules()
    return schema_rules()


class ResourceKind(KindBase):
    name = "resource"
    label = "resource type"
    order = 0
    artifact_types = ("RESOURCE",)
    aliases: tuple[str, ...] = ()
    example_files = (EXAMPLE_SCHEMA,)
    invoke_actions = ACTIONS
    #: Contract inputs, the example inputs generate writes, the docs it derives.
    precommit_exclude = ("inputs", "example_inputs", "docs")

    # ------------------------------------------------------------------ validate

    def checked_files(self, project: Project) -> list[Path]:
        schema = project.schema_path
        if not schema.is_file():
            raise CfngenError(
                f"{project.root}: the project's schema {schema.name} is missing",
                "create it, or pass the schema file itself",
            )
        context = project.root / CALLBACK_CONTEXT_FILE
        return [schema, context] if context.is_file() else [schema]

    def check_file(self, path: Path, *, strict: bool, display: str | None = None) -> FileReport:
        from cfngen._validate import check_json_schema_file

        return check_json_schema_file(path, _rules_for(path), strict=strict, display=display)

    def check_text(
        self, text: str, *, path: Path | None, strict: bool, display: str | None = None
    ) -> FileReport:
        from cfngen._validate import check_json_schema

        rules = _rules_for(path)
        return check_json_schema(text, rules, path=path, strict=strict, display=display)

    contract_at = ".contract:CONTRACT"


KIND = ResourceKind()
