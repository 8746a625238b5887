"""The `Kind` protocol: everything the engines need from one kind of extension, and the
`Project` a kind is asked about (a folder, its `.rpdk-config` and its kind: the two name each
other, so they live together; cfngen/_project.py finds a project on disk).

A kind is a resource type, a hook, a module or a Lambda-backed custom resource. The engines
(cfngen/_validate, _generate, _contract, _init, and the CLI) never name a kind and never compare
`artifact_type` strings: they load a project (cfngen/_project.py finds its kind), then ask the
kind. A new kind is a new folder `cfngen/_kinds/<name>/` whose `__init__.py` defines `KIND`, an
object with the attributes and methods below; the registry (cfngen/_kind/_registry.py) finds it
by that folder alone, so no engine changes.

Keep a kind's `__init__.py` cheap to import (the registry imports every kind to build
`cfngen init --help`): import jsonschema, jinja2, copier and the like inside the methods.

Which hooks each engine calls, in the order it calls them:

- project loader (`cfngen._project.load_project`): `artifact_types`, the `.rpdk-config`
  spellings this kind owns; for a folder without `.rpdk-config`, `project_file(root)` (a
  custom resource's template makes its folder a project).
- `cfngen validate PATH`, the pre-commit hook: `claims(path)`; the hook's file selection is
  `precommit_files` / `precommit_exclude` (cfngen/_kind/_precommit.py).
- `cfngen validate`: `checked_files(project)` for a project folder, then `check_file(...)` for
  each file (also for a file given by path: the kind of the project it sits in, else the
  default kind); `example_files` for `--example`; `check_text` for text already read.
- `cfngen generate`: `generate_inputs(project)` (bytes the no-op fingerprint covers), then, unless
  nothing changed, `derive(project, inputs)` (validate and render every derived file in memory);
  `generate_notes(project, inputs)` on every run; `may_derive(project, relpath)` decides which
  paths the ownership manifest may ever write or delete for this kind.
- `cfngen invoke` / `cfngen test`: `contract`, a `ContractProtocol` (None: this kind has no
  handlers to run); `invoke_actions` for invoke's --help and the shell completion;
  `cli_options`, the options the CLI adds for the kind (cfngen/_kind/_options.py).
- `cfngen init` / `upgrade` / `template sync`: `init` (None: this kind cannot be created yet);
  its `template` names the folder `templates/<template>/` holding the copier template.
- `cfngen build` / `cfngen submit`: `packaging` (None: nothing to register).

A kind's class derives from cfngen/_kinds/_shared/_base.py's `KindBase`, which gives the
defaults and forwards the parts to the kind's modules by role (`_derive.py`, `_run.py`,
`_answers.py`, `_package.py`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cfngen._errors import CfngenError
from cfngen._languages import Language, language_of
from cfngen._rpdk_config import CONFIG_FILE
from cfngen._typename import TypeName

if TYPE_CHECKING:
    from cfngen._contract._protocol import ContractProtocol
    from cfngen._kind._init_spec import InitSpec
    from cfngen._kind._options import CliOption
    from cfngen._package._limits import Limit
    from cfngen._package._sources import ProjectFiles
    from cfngen._validate._file_report import FileReport


# --------------------------------------------------------------------------- generate


@dataclass
class Derived:
    """What `Kind.derive` returns: every derived file of the project, rendered in memory."""

    #: Relative POSIX path -> bytes, each with cfngen's header where the format allows one.
    #: A pure function of the project's inputs (the same inputs give the same bytes).
    files: dict[str, bytes]
    #: The validation report of the file the derivation started from (shown as warnings).
    report: FileReport | None = None
    #: Things to tell the user that are not errors (an unsupported runtime, ...).
    warnings: list[str] = field(default_factory=list)
    #: Paths of `files` that are derived only until the user edits them: an edit makes the
    #: file the user's for good instead of stopping generate (a resource's contract inputs).
    until_edited: frozenset[str] = frozenset()
    #: Paths of `files` the official CLI rewrites by itself (a module's schema.json, on every
    #: `cfn validate`), each with the test that recognises its rewrite: such a rewrite of a
    #: file cfngen wrote is not a hand edit.
    official_rewrites: Mapping[str, Callable[[bytes], bool]] = field(default_factory=dict)
    #: Paths of `files` the official CLI generates too (`cfn init`, `cfn generate`), each with
    #: the test that recognises its output: such a file is cfngen's to rewrite without
    #: cfngen's header (cfngen works in `cfn init` projects), and, where the official generate
    #: ran, its output over cfngen's file is no hand edit.
    official_outputs: Mapping[str, Callable[[bytes], bool]] = field(default_factory=dict)
    #: The path of `official_outputs` whose official output shows the official generate ran
    #: here since cfngen's last generate (a resource's models.py: it rewrites the role and
    #: docs/ with it); None: nothing shows it.
    official_witness: str | None = None


# --------------------------------------------------------------------------- the kind


class Kind(Protocol):
    """One kind of extension. See the module docstring for which engine calls what."""

    #: The registry key and the folder name under cfngen/_kinds/: "resource", "hook",
    #: "module", "custom-resource" (folders use "_": custom_resource).
    name: str
    #: What users call it, for messages and the wizard: "resource type".
    label: str
    #: Position in the wizard's list and in `cfngen template sync`; the lowest is the default.
    order: int
    #: The `.rpdk-config` "artifact_type" values this kind owns, exactly as the official
    #: CloudFormation CLI writes them ("RESOURCE"); the first is the one cfngen writes.
    #: Empty for a kind that has no `.rpdk-config` (a custom resource must not get one).
    artifact_types: tuple[str, ...]
    #: Other spellings a user may type for `cfngen init --artifact-type` (compared ignoring
    #: case, "-" and spaces), besides `name`, `label` and `artifact_types`.
    aliases: tuple[str, ...]
    #: Example files that ship with cfngen, checked by `cfngen validate --example`.
    example_files: tuple[Path, ...]
    #: Every spelling of ACTION `cfngen invoke` takes for this kind (the shell completion
    #: offers them, `cfngen invoke --help` names them); (): nothing to invoke.
    invoke_actions: tuple[str, ...]
    #: For the `cfngen-validate` pre-commit hook (.pre-commit-hooks.yaml, written from these by
    #: cfngen/_kind/_precommit.py): regular expressions of the file names this kind may own
    #: (matched after the last "/"), and of the folders whose files it never checks (test
    #: inputs, derived docs).
    precommit_files: tuple[str, ...]
    precommit_exclude: tuple[str, ...]
    #: The command-line options this kind's contract takes beyond the shared ones, which the
    #: CLI adds to the commands each names (`--help` and the completion show them); their
    #: values reach the contract as `options[dest]` (cfngen/_kind/_options.py).
    cli_options: tuple[CliOption, ...]

    def project_file(self, root: Path) -> Path | None:
        """For a kind without `.rpdk-config` (no `artifact_types`): the file at the top of
        `root` that makes it a project of this kind (a custom resource's template), else None;
        a CfngenError when such a file cannot be read (a named pipe). The project loader asks
        every kind when a folder has no `.rpdk-config`."""
        ...

    def check_type_name(self, value: str) -> str:
        """`.rpdk-config`'s typeName checked by this kind's rules (the project loader asks;
        a module's end in ::MODULE): the name, or a CfngenError saying what is wrong."""
        ...

    # ------------------------------------------------------------------ validate

    def checked_files(self, project: Project) -> list[Path]:
        """The files `cfngen validate` checks when given the project folder."""
        ...

    def claims(self, path: Path) -> bool | str | None:
        """Whether a file named on the command line (`cfngen validate PATH`, the pre-commit
        hook's `--owned`) is this kind's by its content or place, before any project around it
        is asked; a string says what it was taken for."""
        ...

    def check_file(self, path: Path, *, strict: bool, display: str | None = None) -> FileReport:
        """Every problem in one file of this kind (a schema, a fragment, a template).

        Problems in the file are diagnostics in the report; a file that cannot be read at all is
        a CfngenError. cfngen._validate.check_json_schema_file is the pipeline for JSON-schema
        files: pass it the kind's SchemaRules.
        """
        ...

    def check_text(
        self, text: str, *, path: Path | None, strict: bool, display: str | None = None
    ) -> FileReport:
        """`check_file` for text already read (`path`, when given, locates relative `$ref`s)."""
        ...

    # ------------------------------------------------------------------ generate

    def may_derive(self, project: Project, relpath: str) -> bool:
        """Whether `relpath` (POSIX, relative to the root) is a path this kind derives for this
        project: `cfngen generate` must never write or remove any other path."""
        ...

    def generate_inputs(self, project: Project) -> dict[str, bytes | None]:
        """The bytes every derived file depends on, by name (None: absent). generate skips all
        work when they and the derived files are as last time; raise CfngenError when an input
        that must exist is missing."""
        ...

    def derive(self, project: Project, inputs: Mapping[str, bytes | None]) -> Derived:
        """Validate, then render every derived file in memory from `inputs`. An invalid input
        raises cfngen._generate.InvalidSchemaError with the report; nothing is written."""
        ...

    def generate_notes(self, project: Project, inputs: Mapping[str, bytes | None]) -> list[str]:
        """Warnings every generate prints, even when nothing changed (e.g. handlers the schema
        declares that the code does not register)."""
        ...

    # ------------------------------------------------------------------ invoke, test, init

    #: The request/response protocol and contract tests that cfngen/_contract's runner drives
    #: (cfngen/_contract/_protocol.py says what one gives and gets), or None: no handlers.
    @property
    def contract(self) -> ContractProtocol | None: ...

    #: How `cfngen init` makes a project of this kind, or None.
    init: InitSpec | None

    # ------------------------------------------------------------------ build, submit

    #: What the registry package holds (the official `cfn submit --dry-run`'s file set) and
    #: what registering it needs, declared with cfngen/_package/_layout.py's parts; None for a
    #: kind the registry does not take (a custom resource is deployed with its template).
    packaging: FileSet | None


# --------------------------------------------------------------------------- the project


@dataclass(frozen=True)
class Project:
    root: Path
    kind: Kind
    #: `.rpdk-config`, as read ({} for a project that has none).
    config: dict[str, Any] = field(default_factory=dict)
    #: For a project without `.rpdk-config`: the template that makes it one.
    template: Path | None = None
    #: What recovering from an earlier command killed while writing here did (cfngen._files).
    notes: tuple[str, ...] = ()

    @functools.cached_property
    def type_name(self) -> TypeName:
        """`.rpdk-config`'s typeName (the loader has checked it)."""
        raw = self.config.get("typeName")
        if not isinstance(raw, str):
            raise CfngenError(
                f"{self.root}: this {self.kind.label} project has no type name",
                f'add "typeName" to {CONFIG_FILE}',
            )
        return TypeName(raw)

    @property
    def schema_path(self) -> Path:
        return self.root / self.type_name.schema_filename

    @property
    def language(self) -> Language:
        """What the handlers are written in (`.rpdk-config`'s language; cfngen/_languages.py)."""
        return language_of(self.config)


def require_entrypoint(project: Project) -> None:
    """Stop (exit 2, before anything is written or imported) when the entrypoint is broken."""
    problem = project.language.handler_problem(project)
    if problem is not None:
        raise problem


# --------------------------------------------------------------------------- build, submit

Entries = dict[str, bytes]


@dataclass
class PackageContext:
    project: Project
    #: Builds ResourceProvider.zip when a part asks for it (it is the slow part).
    handler_zip: Callable[[], bytes]
    #: The one reader parts read the project's files with: it follows links as far as the
    #: repository, leaves dotfiles and backups out, and records both (_package/_sources.py).
    files: ProjectFiles
    warnings: list[str] = field(default_factory=list)


Part = Callable[[PackageContext], Entries]


@dataclass(frozen=True)
class Configuration:
    """How a kind's type configuration file wraps the properties SetTypeConfiguration sets."""

    #: The keys from the top of the file down to the properties (a hook's
    #: CloudFormationConfiguration, HookConfiguration, Properties); (): the file is the
    #: properties alone.
    envelope: tuple[str, ...] = ()
    #: The JSON schema the whole file is checked against before its properties (None: none).
    envelope_schema: Mapping[str, Any] | None = None
    #: The largest file CloudFormation takes (None: no limit of its own).
    limit: Limit | None = None


@dataclass(frozen=True)
class FileSet:
    """One kind's package: its parts, and what `cfngen submit` needs to register it."""

    #: RegisterType's `Type`.
    registry_type: str
    parts: tuple[Part, ...]
    #: The IAM role template `submit` deploys as the handlers' execution role (None: no code).
    role_template: str | None = None
    #: How `submit --configure FILE` reads the type configuration; None: the kind has none.
    configuration: Configuration | None = None

    def collect(self, context: PackageContext) -> Entries:
        if self.role_template is not None:  # it ships handlers: Lambda must import them
            from cfngen._languages._python_handler import require_handler

            project = context.project
            require_handler(project.language.layout(project), attribute=True)
        entries: Entries = {}
        for part in self.parts:
            entries.update(part(context))
        return entries
