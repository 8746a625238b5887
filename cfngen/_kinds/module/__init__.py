"""The module kind: CloudFormation modules, a template fragment that users include as
`Org::Service::Name::MODULE`.

What it gives the engines (cfngen/_kind/_kind.py says when each is asked):

- validate: the fragment in `fragments/` (exactly one), read with cfn-lint's decoder with
  positions; what the registry and the user guide forbid (_checks.py); then cfn-lint (_lint.py);
- generate: `schema.json` as the registry shows it, with each parameter's type, default and
  allowed values and the outputs, and `docs/README.md` (_derive.py); never a side effect of
  validate;
- test: the module rendered into a consumer template as CloudFormation expands it, then linted
  (_render.py, _run.py); `cfngen module render` prints the same template;
- init: its questions (_answers.py) and the copier template in templates/module/;
- build/submit: the official file set, `.rpdk-config`, `schema.json`, `fragments/<file>`.

Nothing heavy is imported here: the registry imports every kind.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._kind._options import CliOption
from cfngen._kinds._shared._base import KindBase
from cfngen._kinds._shared._options import PARAMETERS

if TYPE_CHECKING:
    from cfngen._project import Project
    from cfngen._validate._file_report import FileReport

#: cfngen's example fragment (`cfngen validate --example` checks it as a module's).
EXAMPLE_FRAGMENT = Path(__file__).with_name("example-fragment.yaml")


class ModuleKind(KindBase):
    name = "module"
    label = "module"
    order = 2
    artifact_types = ("MODULE",)
    aliases: tuple[str, ...] = ("modules", "fragment")
    example_files = (EXAMPLE_FRAGMENT,)
    #: The fragment is JSON or YAML (fragments/ holds one .json, .yaml, .yml or .template).
    precommit_files = (r"\.rpdk-config", r"[^/]+\.(json|ya?ml|template)")
    #: How the module is used (`cfngen test`, `cfngen invoke`; `cfngen module render` too).
    cli_options = (
        CliOption(
            "--logical-id",
            "logical_id",
            "the module's logical id in the template that uses it (default: Module)",
            "modules",
            metavar="ID",
            commands=("test", "invoke", "module render"),
        ),
        *PARAMETERS,
    )

    def check_type_name(self, value: str) -> str:
        """`.rpdk-config`'s typeName for this kind (the project loader asks)."""
        from cfngen._kinds.module._fragment import check_module_type_name

        return check_module_type_name(value)

    # ------------------------------------------------------------------ validate

    def checked_files(self, project: Project) -> list[Path]:
        from cfngen._kinds.module._fragment import fragment_files, no_fragment

        found = fragment_files(project.root)
        if not found:
            raise no_fragment(project.root)
        return found

    def claims(self, path: Path) -> str | None:
        """A file given by path is a fragment when it sits in a module project's `fragments/`
        (cfngen/_validate decides what other templates are)."""
        from cfngen._kinds.module._validate import fragment_of

        return fragment_of(path)

    def check_file(self, path: Path, *, strict: bool, display: str | None = None) -> FileReport:
        from cfngen._kinds.module._validate import check_file

        return check_file(path, strict=strict, display=display)

    def check_text(
        self, text: str, *, path: Path | None, strict: bool, display: str | None = None
    ) -> FileReport:
        from cfngen._kinds.module._validate import check_text

        return check_text(text, path=path, strict=strict, display=display)


KIND = ModuleKind()
