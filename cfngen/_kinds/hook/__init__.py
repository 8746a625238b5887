"""The hook kind: CloudFormation hooks, which check resources, stacks and change sets before
CloudFormation provisions them (preCreate, preUpdate, preDelete).

What it gives the engines (cfngen/_kind/_kind.py says when each is asked):

- validate: its meta-schema (metaschema.json, borrowing the resource meta-schema's property
  schemas) and semantic checks (_schema.py), target names checked against the resource types
  cfn-lint bundles (_targets.py);
- generate: typed models of the configuration and of every target through cfngen/_models, the
  hook role, template.yml, the configuration schema, docs, target-schemas/ (_derive.py);
- invoke and test: the hook protocol (_hook_protocol.py) and its contract tests as plain
  functions of a `carry` collaborator (_hook_tests.py, _inputs.py), driven by cfngen/_contract's
  runner (_run.py: `HookProtocol`, a `ContractProtocol`);
- init: its questions and answers (_answers.py) and the copier template in templates/hook/.

Nothing heavy is imported here: the registry imports every kind.
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

#: cfngen's example hook schema (`cfngen validate --example`): the schema of
#: `cfngen init --artifact-type hook --example`.
EXAMPLE_SCHEMA = Path(__file__).with_name("example-schema.json")
#: The invocation points, and the names of their handlers in hook schemas, in the same order.
INVOCATION_POINTS = ("CREATE_PRE_PROVISION", "UPDATE_PRE_PROVISION", "DELETE_PRE_PROVISION")
HOOK_HANDLERS = ("preCreate", "preUpdate", "preDelete")


@functools.cache
def schema_rules() -> SchemaRules:
    from cfngen._kinds.hook._schema import METASCHEMA, check, keyword_hints
    from cfngen._validate import SchemaRules

    return SchemaRules(
        what="a hook schema", metaschema=METASCHEMA, hints=keyword_hints(), checks=check
    )


class HookKind(KindBase):
    name = "hook"
    label = "hook"
    order = 1
    artifact_types = ("HOOK",)
    aliases: tuple[str, ...] = ()
    example_files = (EXAMPLE_SCHEMA,)
    #: The invocation points and the handler names that stand for them (_hook_protocol.py).
    invoke_actions = (*INVOCATION_POINTS, *HOOK_HANDLERS)
    #: Test inputs, the targets' schemas, the docs generate derives.
    precommit_exclude = ("inputs", "target-schemas", "docs")

    # ------------------------------------------------------------------ validate

    def checked_files(self, project: Project) -> list[Path]:
        schema = project.schema_path
        if not schema.is_file():
            raise CfngenError(
                f"{project.root}: the project's schema {schema.name} is missing",
                "create it, or pass the schema file itself",
            )
        return [schema]

    def claims(self, path: Path) -> bool:
        """A schema file outside any project is a hook's when it looks like one."""
        from cfngen import _schema
        from cfngen._files import read_optional
        from cfngen._kinds.hook._schema import looks_like_hook

        try:
            # The one reader: a named pipe given as the schema is refused, never waited on.
            data = read_optional(path)
            return data is not None and looks_like_hook(_schema.loads(data.decode("utf-8")).data)
        except (CfngenError, UnicodeDecodeError, ValueError, RecursionError):
            return False

    def check_file(self, path: Path, *, strict: bool, display: str | None = None) -> FileReport:
        from cfngen._validate import check_json_schema_file

        return check_json_schema_file(path, schema_rules(), strict=strict, display=display)

    def check_text(
        self, text: str, *, path: Path | None, strict: bool, display: str | None = None
    ) -> FileReport:
        from cfngen._validate import check_json_schema

        return check_json_schema(text, schema_rules(), path=path, strict=strict, display=display)


KIND = HookKind()
