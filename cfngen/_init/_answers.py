"""Checks for the answers `cfngen init` needs, shared by every kind's questions, and the
plumbing that gathers answers from flags and `--data KEY=VALUE`.

Every answer is checked once, with the same words whether it was typed into the wizard or
passed as a flag: a kind's `Question.check` is built from these.
"""

from __future__ import annotations

import keyword
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cfngen._errors import CfngenError
from cfngen._kind._init_spec import Question
from cfngen._languages._python_runtimes import RUNTIMES, get_runtime
from cfngen._typename import TypeName, reserved_namespace, type_name_problem

_TRUE = frozenset({"true", "yes", "y", "1", "on"})
_FALSE = frozenset({"false", "no", "n", "0", "off"})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def type_name_error(value: str) -> str | None:
    """Why `value` cannot be the type name of a new extension, or None."""
    problem = type_name_problem(value)
    if problem is not None:
        return f"{problem}; use Organization::Service::Resource, e.g. Acme::Storage::Bucket"
    reserved = reserved_namespace(value.split("::", maxsplit=1)[0])
    if reserved is not None:
        return f"the {reserved} namespace is reserved by AWS; use your organization's name"
    return None


def check_type_name(value: str) -> TypeName:
    problem = type_name_error(value)
    if problem is not None:
        raise CfngenError(f"invalid type name {value!r}: {problem}")
    return TypeName(value)


def folder_words(folder: str) -> list[str]:
    """`acme-storage-bucket` -> [Acme, Storage, Bucket]: the words of a folder's name (split
    at anything but letters and digits), each with its first letter in upper case."""
    return [word[:1].upper() + word[1:] for word in re.split(r"[^A-Za-z0-9]+", folder) if word]


def type_name_from_folder(
    folder: str, *, suffix: str = "", problem: Callable[[str], str | None] = type_name_error
) -> str | None:
    """The type name a folder's name proposes: its first word the organization, the second the
    service, the rest the resource (`acme-storage-bucket-policy` -> Acme::Storage::BucketPolicy),
    then `suffix` (a module's `::MODULE`, which a last word "module" stands for); None when
    `problem` finds fault with it (fewer than three words, a namespace AWS reserves)."""
    words = folder_words(folder)
    if suffix and words and words[-1].upper() == suffix.strip(":").upper():
        words = words[:-1]
    if len(words) < 3:
        return None
    value = f"{words[0]}::{words[1]}::{''.join(words[2:])}{suffix}"
    return value if problem(value) is None else None


#: Where `cfngen init --ci` puts the project's CI workflow.
CI_SERVICES = {
    "github": "GitHub Actions (.github/workflows/cfngen.yml)",
    "gitlab": "GitLab CI (.gitlab-ci.yml)",
    "none": "none",
}


def check_ci(value: str) -> str:
    text = str(value).strip().lower()
    if text not in CI_SERVICES:
        raise CfngenError(f"unknown CI service {value!r}", f"use one of {', '.join(CI_SERVICES)}")
    return text


def ci_question() -> Question:
    """The CI workflow every kind with one in its template asks for (the template's `ci`)."""
    return Question(
        "ci",
        "CI workflow to add:",
        "select",
        check_ci,
        default=lambda _a: "github",
        choices=lambda _a: list(CI_SERVICES.items()),
        flags=("--ci",),
        metavar="|".join(CI_SERVICES),
        help="the CI workflow to add: GitHub Actions (.github/workflows/cfngen.yml, the "
        "default; at the repository's root when the project is in a folder of one), GitLab CI "
        "(.gitlab-ci.yml) or none; it validates, checks the derived files, runs the unit and "
        "contract tests and uploads their JUnit reports",
    )


def _dependency_of(name: str) -> str | None:
    """The distribution whose top-level module `name` is (compared without case), among those
    the handlers run beside: their runtime library and its dependencies, what cfngen runs them
    with, and pytest (cfngen/_init/_dependency_modules.py, made at release time from cfngen's
    own dependencies, so the same on every machine)."""
    from cfngen._init._dependency_modules import MODULES

    lowered = name.lower()
    for distribution, modules in MODULES.items():
        if any(module.lower() == lowered for module in modules):
            return distribution
    return None


def package_name_error(value: str) -> str | None:
    if not _IDENTIFIER.fullmatch(value):
        return "use letters, digits and '_' only, not starting with a digit"
    if keyword.iskeyword(value):
        return f"{value!r} is a Python keyword"
    # Compared without case: on macOS's file system `Json/` hides `json` too.
    lowered = value.lower()
    if lowered in {name.lower() for name in sys.stdlib_module_names}:
        return (
            f"{value!r} would hide Python's own {lowered} module from the handlers; "
            "choose a name of your own, e.g. acme_widget"
        )
    distribution = _dependency_of(value)
    if distribution is not None:
        return (
            f"{value!r} would hide the {lowered} package ({distribution}) the handlers and "
            "cfngen rely on; choose a name of your own, e.g. acme_widget"
        )
    return None


def check_package_name(value: str) -> str:
    problem = package_name_error(value)
    if problem is not None:
        raise CfngenError(f"invalid package name {value!r}: {problem}")
    return value


def supported_runtimes() -> list[str]:
    return [r.name for r in RUNTIMES if r.status == "supported"]


def check_runtime(value: str) -> str:
    runtime = get_runtime(value)
    if runtime.status != "supported":
        raise CfngenError(
            f"runtime {runtime.name} is deprecated: Lambda ended its support on "
            f"{runtime.deprecated_on}, so a new project should not start on it",
            f"use one of {', '.join(supported_runtimes())}",
        )
    return runtime.name


def parse_bool(key: str, value: str | bool) -> bool:
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise CfngenError(f"{key}={value!r} is not a yes/no value", f"use {key}=true or {key}=false")


def parse_data(items: Sequence[str], keys: Sequence[str]) -> dict[str, str]:
    """`--data KEY=VALUE` arguments -> {key: value}; keys must be questions of the kind."""
    data: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise CfngenError(f"--data {item!r} is not KEY=VALUE", "e.g. --data tagging=false")
        if key not in keys:
            raise CfngenError(f"--data: unknown key {key!r}", f"use one of {', '.join(keys)}")
        data[key] = value
    return data


def collect(
    questions: Sequence[Question], flags: Mapping[str, Any], data: Mapping[str, str]
) -> dict[str, Any]:
    """Checked answers from flags (None = not given) and --data; the same key given twice with
    different values is an error rather than a silent choice."""
    by_key = {question.key: question for question in questions}

    def check(key: str, raw: Any) -> Any:
        question = by_key.get(key)
        if question is None:
            raise CfngenError(f"unknown answer {key!r}", f"use one of {', '.join(by_key)}")
        return question.check(raw)

    given: dict[str, Any] = {}
    for key, raw in data.items():
        given[key] = check(key, raw)
    for key, raw in flags.items():
        if raw is None:
            continue
        value = check(key, raw)
        if key in given and given[key] != value:
            raise CfngenError(
                f"{key} is given twice with different values ({given[key]!r} and {value!r})",
                "drop the --data entry or the flag",
            )
        given[key] = value
    return given
