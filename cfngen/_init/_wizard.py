"""The `cfngen init` wizard: questionary prompts for whatever the flags left open.

Each prompt checks its answer as it is typed, with the same rules the flags use (_answers).
Ctrl-C raises KeyboardInterrupt before anything is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cfngen._init import _answers
from cfngen._init._answers import (
    ARTIFACT_TYPES,
    EXAMPLE_FIXED,
    EXAMPLE_TYPE_NAME,
    HANDLERS,
    Answers,
)
from cfngen._runtimes import DEFAULT_RUNTIME, RUNTIMES
from cfngen._typename import python_package_name


def _validator(error: Any) -> Any:
    def validate(text: str) -> bool | str:
        problem = error(text.strip())
        return True if problem is None else str(problem)

    return validate


def ask(given: Mapping[str, Any], dest: Path) -> Answers | None:
    """Prompt for every answer not in `given`, show a summary, and return the answers, or
    None when the user declines at the summary."""
    import questionary
    from questionary import Choice

    values = dict(given)
    if "artifact_type" not in values:
        choices = [
            Choice(label, value=answer, disabled=None if available else "not yet available")
            for answer, label, available in ARTIFACT_TYPES
        ]
        values["artifact_type"] = questionary.select(
            "What do you want to build?", choices=choices, default="RESOURCE"
        ).unsafe_ask()
    if values["artifact_type"] == "HOOK":
        from cfngen._kinds.hook._wizard import ask_hook

        return _confirm(ask_hook(values), dest)
    if "example" not in values:
        values["example"] = questionary.confirm(
            "Start from the working example (an SSM parameter whose handlers call AWS)?",
            default=False,
        ).unsafe_ask()
    if values["example"]:
        # The example is one fixed resource type: the schema questions do not apply.
        _answers.example_conflicts(values)
        values = {**EXAMPLE_FIXED, **values}
    if "type_name" not in values:
        raw = questionary.text(
            "Type name (Organization::Service::Resource):",
            default=EXAMPLE_TYPE_NAME if values["example"] else "",
            validate=_validator(_answers.type_name_error),
        ).unsafe_ask()
        values["type_name"] = _answers.check_type_name(raw.strip())
    if "package_name" not in values:
        raw = questionary.text(
            "Python package name:",
            default=python_package_name(values["type_name"]),
            validate=_validator(_answers.package_name_error),
        ).unsafe_ask()
        values["package_name"] = _answers.check_package_name(raw.strip())
    if "runtime" not in values:
        values["runtime"] = questionary.select(
            "Lambda runtime:",
            choices=[r.name for r in RUNTIMES if r.status == "supported"],
            default=DEFAULT_RUNTIME.name,
        ).unsafe_ask()
    if "tagging" not in values:
        values["tagging"] = questionary.confirm(
            "Give the schema a Tags property (taggable)?", default=True
        ).unsafe_ask()
    if "type_configuration" not in values:
        values["type_configuration"] = questionary.confirm(
            "Give the schema a typeConfiguration (account-level settings)?", default=False
        ).unsafe_ask()
    if "handlers" not in values:
        values["handlers"] = _answers.parse_handlers(
            questionary.checkbox(
                "Handlers to scaffold:",
                choices=[Choice(h, value=h, checked=True) for h in HANDLERS],
            ).unsafe_ask()
        )
    return _confirm(_answers.resolve(values), dest)


def _confirm(answers: Answers, dest: Path) -> Answers | None:
    import questionary

    questionary.print(summary(answers, dest))
    if not questionary.confirm("Create this project?", default=True).unsafe_ask():
        return None
    return answers


def summary(answers: Answers, dest: Path) -> str:
    if answers.artifact_type == "HOOK":
        from cfngen._kinds.hook._wizard import summary_rows

        rows = [("folder", str(dest)), *summary_rows(answers)]
        width = max(len(label) for label, _ in rows)
        return "\n".join(f"  {label.ljust(width)}  {value}" for label, value in rows)
    handlers = ", ".join(answers.handlers) or "none"
    rows = [
        ("folder", str(dest)),
        ("artifact type", answers.artifact_type),
        ("type name", str(answers.type_name)),
        ("package", f"src/{answers.package_name}"),
        ("runtime", answers.runtime),
        ("start from", "the working SSM example" if answers.example else "stubs"),
        ("tags", "yes" if answers.tagging else "no"),
        ("type configuration", "yes" if answers.type_configuration else "no"),
        ("handlers", handlers),
    ]
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"  {label.ljust(width)}  {value}" for label, value in rows)
