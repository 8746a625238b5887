"""The `Kind` protocol: everything the engines need from one kind of extension.

A kind is a resource type, a hook, a module or a Lambda-backed custom resource. The engines
(cfngen/_validate, _generate, _contract, _init, and the CLI) never name a kind and never compare
`artifact_type` strings: they load a project (cfngen/_project.py finds its kind), then ask the
kind. A new kind is a new folder `cfngen/_kinds/<name>/` whose `__init__.py` defines `KIND`, an
object with the attributes and methods below; the registry (cfngen/_kinds/__init__.py) finds it
by that folder alone, so no engine changes.

Keep a kind's `__init__.py` cheap to import (the registry imports every kind to build
`cfngen init --help`): import jsonschema, jinja2, copier and the like inside the methods.

Which hooks each engine calls, in the order it calls them:

- project loader (`cfngen._project.load_project`): `artifact_types`, the `.rpdk-config`
  spellings this kind owns. (A folder without `.rpdk-config` whose template declares a custom
  resource is a project of the kind named "custom-resource".)
- `cfngen validate`: `checked_files(project)` for a project folder, then `check_file(...)` for
  each file (also for a file given by path: the kind of the project it sits in, else the
  default kind); `example_files` for `--example`; `check_text` for text already read.
- `cfngen generate`: `generate_inputs(project)` (bytes the no-op fingerprint covers), then, unless
  nothing changed, `derive(project, inputs)` (validate and render every derived file in memory);
  `generate_notes(project, inputs)` on every run; `may_derive(project, relpath)` decides which
  paths the ownership manifest may ever write or delete for this kind.
- `cfngen invoke` / `cfngen test`: `contract`, a `ContractProtocol` (None: this kind has no
  handlers to run).
- `cfngen init` / `upgrade` / `template sync`: `init` (None: this kind cannot be created yet);
  its `template` names the folder `templates/<template>/` holding the copier template.
- `cfngen build` / `cfngen submit`: `packaging` (None: nothing to register).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from cfngen._contract import ContractProtocol
    from cfngen._package import FileSet
    from cfngen._project import Project
    from cfngen._validate._report import FileReport


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


# --------------------------------------------------------------------------- init

QuestionStyle = Literal["text", "confirm", "select", "checkbox"]


def _no_default(_answers: Mapping[str, Any]) -> Any:
    return None


def _always(_answers: Mapping[str, Any]) -> bool:
    return True


@dataclass(frozen=True)
class Question:
    """One answer `cfngen init` needs, asked by the wizard or given as a flag or `--data`.

    `key` is the question's name in the kind's copier template (copier.yml) and in the answers
    file; kinds that ask for the same thing use the same key and the same flags (the CLI merges
    them by key). Every way an answer arrives goes through `check`, so the wizard, the flags and
    `--data KEY=VALUE` accept exactly the same values with the same messages.
    """

    key: str
    #: The wizard's prompt.
    prompt: str
    style: QuestionStyle
    #: Normalise and check a raw answer (a str from a flag or --data, a bool, a list from a
    #: checkbox); raise CfngenError saying what to do. Returns the value copier receives.
    check: Callable[[Any], Any]
    #: The default, computed from the answers given so far (None: no default, must be given).
    default: Callable[[Mapping[str, Any]], Any] = _no_default
    #: Whether the wizard asks at all, given the answers so far.
    when: Callable[[Mapping[str, Any]], bool] = _always
    #: For "select" and "checkbox": (value, label) pairs, from the answers so far.
    choices: Callable[[Mapping[str, Any]], Sequence[tuple[Any, str]]] | None = None
    #: For "text": why typed text is not acceptable yet (None: it is), checked as it is typed.
    problem: Callable[[str], str | None] | None = None
    #: Command-line flags of `cfngen init` for this answer, e.g. ("-t", "--type-name"); none:
    #: only `--data KEY=VALUE` sets it.
    flags: tuple[str, ...] = ()
    #: The flag's --help text.
    help: str = ""
    metavar: str | None = None
    #: For "confirm": also accept `--no-<flag>` (argparse.BooleanOptionalAction).
    negatable: bool = True
    #: For "text": the answer is a list; the flag may be given several times, the wizard asks
    #: again until an empty answer (`choices`, when given, complete what is typed).
    repeatable: bool = False


class Answers(Protocol):
    """A kind's complete, checked answers: what its copier template renders."""

    @property
    def template(self) -> str:
        """The folder under the top-level `templates/` with the copier.yml that renders them."""
        ...

    @property
    def title(self) -> str:
        """What was made, for "Created <title> in <folder>" (e.g. the type name)."""
        ...

    def copier_data(self) -> dict[str, Any]:
        """The data passed to copier: one entry per question of the kind's copier.yml."""
        ...

    def summary(self) -> list[tuple[str, str]]:
        """(label, value) rows the wizard shows before it asks to create the project."""
        ...

    def notes(self) -> list[str]:
        """Warnings about these answers that do not stop init."""
        ...

    def details(self) -> list[str]:
        """Short facts for the "Created ..." line besides the file count and template."""
        ...

    def next_steps(self) -> list[str]:
        """Commands to run in the new project, after `cd` into it."""
        ...


class InitSpec(Protocol):
    """How `cfngen init` makes a project of one kind."""

    #: The folder under the top-level `templates/` with this kind's copier.yml.
    template: str

    @property
    def questions(self) -> Sequence[Question]:
        """The questions, in the order the wizard asks them."""
        ...

    def fold(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The answers given so far plus the ones they imply (e.g. a fixed example); raises
        CfngenError for answers that cannot go together. Called after every answer."""
        ...

    def resolve(self, given: Mapping[str, Any]) -> Answers:
        """Complete answers from the checked `given` plus defaults; raises CfngenError naming
        the flag to pass when a required answer is missing (`cfngen init --no-input`)."""
        ...


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

    # ------------------------------------------------------------------ validate

    def checked_files(self, project: Project) -> list[Path]:
        """The files `cfngen validate` checks when given the project folder."""
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
