"""What a kind gives `cfngen init` (`Kind.init`, an `InitSpec`): the questions, each checked the
same way whether the wizard, a flag or `--data` gives the answer, and the complete answers its
copier template renders.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

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
    #: What the wizard offers first, from the answers so far and the name of the folder the
    #: project goes to (e.g. a type name from `acme-storage-bucket`); None: `default`'s. Only
    #: the wizard proposes: without questions nothing is taken from a folder's name.
    propose: Callable[[Mapping[str, Any], str], Any] | None = None


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

    def next_steps(self, stubbed: Sequence[str]) -> list[str]:
        """Commands to run in the new project, after `cd` into it. `stubbed`: the files init
        wrote whose handlers are stubs `cfngen test` reports as not implemented (they carry
        `# STUB:` lines; an earlier template version's stubs do not)."""
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
