"""The answers `cfngen init` needs, however they arrive: wizard, flags, `--data KEY=VALUE`.

Every answer is checked here, once, with the same words whether it was typed into the wizard or
passed as a flag. The keys are the questions of the copier template (templates/<kind>/copier.yml),
so the answers file copier writes holds exactly these.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cfngen._errors import CfngenError
from cfngen._runtimes import DEFAULT_RUNTIME, RUNTIMES, get_runtime
from cfngen._typename import TypeName, reserved_namespace, type_name_problem

HANDLERS = ("create", "read", "update", "delete", "list")

#: Artifact types the wizard lists, in order: (answer value, label, available).
ARTIFACT_TYPES = (
    ("RESOURCE", "resource type", True),
    ("MODULE", "module", False),
    ("HOOK", "hook", True),
    ("CUSTOM_RESOURCE", "custom resource (Custom::)", False),
)

#: Answer keys in the order the wizard asks them; `--data` accepts exactly these.
KEYS = (
    "artifact_type",
    "example",
    "type_name",
    "package_name",
    "runtime",
    "tagging",
    "type_configuration",
    "handlers",
    # Hooks (cfngen/_kinds/hook/_answers.py checks them).
    "targets",
    "invocation_points",
    "config_properties",
)
#: The answers that only resource types have, and those that only hooks have.
_RESOURCE_KEYS = frozenset({"tagging", "type_configuration", "handlers"})
_HOOK_KEYS = frozenset({"targets", "invocation_points", "config_properties"})
_BOOL_KEYS = frozenset({"example", "tagging", "type_configuration"})
_TRUE = frozenset({"true", "yes", "y", "1", "on"})
_FALSE = frozenset({"false", "no", "n", "0", "off"})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: The type name of `cfngen init --example` when none is given: what the example is (an SSM
#: parameter), in a namespace AWS does not reserve, so it can be registered as it is.
EXAMPLE_TYPE_NAME = "Example::SSM::Parameter"
#: The answers the example is made for: its schema has tags, no typeConfiguration and every
#: handler, whatever these say, so other values are refused rather than silently ignored.
EXAMPLE_FIXED: dict[str, Any] = {
    "tagging": True,
    "type_configuration": False,
    "handlers": HANDLERS,
}


@dataclass(frozen=True)
class Answers:
    type_name: TypeName
    package_name: str
    #: Lambda runtime id, e.g. python3.12.
    runtime: str
    artifact_type: str = "RESOURCE"
    #: Start from the working SSM example instead of stubs.
    example: bool = False
    tagging: bool = True
    type_configuration: bool = False
    handlers: tuple[str, ...] = HANDLERS
    #: Hooks: target names, invocation points (preCreate...), (setting name, JSON type).
    targets: tuple[str, ...] = ()
    invocation_points: tuple[str, ...] = ()
    config_properties: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        """The template folder for this artifact type."""
        return self.artifact_type.lower()

    def copier_data(self) -> dict[str, Any]:
        common = {
            "artifact_type": self.artifact_type,
            "example": self.example,
            "type_name": str(self.type_name),
            "package_name": self.package_name,
            "runtime": self.runtime,
        }
        if self.artifact_type == "HOOK":
            from cfngen._kinds.hook import _answers as hook

            return {
                **common,
                **hook.copier_data(self.targets, self.invocation_points, self.config_properties),
            }
        return {
            "artifact_type": self.artifact_type,
            "example": self.example,
            "type_name": str(self.type_name),
            "package_name": self.package_name,
            "runtime": self.runtime,
            "tagging": self.tagging,
            "type_configuration": self.type_configuration,
            "handlers": list(self.handlers),
        }


# --------------------------------------------------------------------------- single answers


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


def package_name_error(value: str) -> str | None:
    if not _IDENTIFIER.fullmatch(value):
        return "use letters, digits and '_' only, not starting with a digit"
    if keyword.iskeyword(value):
        return f"{value!r} is a Python keyword"
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


def check_artifact_type(value: str) -> str:
    wanted = value.strip().upper().replace("-", "_").replace(" ", "_")
    for answer, label, available in ARTIFACT_TYPES:
        if wanted in (answer, answer.split("_")[0]) or value.strip().lower() == label:
            if not available:
                raise CfngenError(
                    f"cfngen cannot make a {label} yet", "use --artifact-type resource"
                )
            return answer
    raise CfngenError(f"unknown artifact type {value!r}", "use --artifact-type resource")


def parse_bool(key: str, value: str | bool) -> bool:
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise CfngenError(f"{key}={value!r} is not a yes/no value", f"use {key}=true or {key}=false")


def parse_handlers(value: str | Sequence[str]) -> tuple[str, ...]:
    """`create,read` or a list -> handlers in contract order; `none` or '' -> none."""
    if isinstance(value, str):
        items = [] if value.strip().lower() in ("", "none") else value.split(",")
    else:
        items = list(value)
    chosen = {item.strip().lower() for item in items if item.strip()}
    unknown = sorted(chosen.difference(HANDLERS))
    if unknown:
        raise CfngenError(
            f"unknown handler(s): {', '.join(unknown)}",
            f"choose from {','.join(HANDLERS)}, or 'none'",
        )
    return tuple(h for h in HANDLERS if h in chosen)


def check(key: str, value: Any) -> Any:
    """One answer, checked and normalised; raises CfngenError with a fix."""
    if key == "artifact_type":
        return check_artifact_type(str(value))
    if key == "type_name":
        return check_type_name(str(value))
    if key == "package_name":
        return check_package_name(str(value))
    if key == "runtime":
        return check_runtime(str(value))
    if key in _BOOL_KEYS:
        return parse_bool(key, value)
    if key == "handlers":
        return parse_handlers(value)
    if key in _HOOK_KEYS:
        from cfngen._kinds.hook import _answers as hook

        if key == "targets":
            return hook.parse_targets(value)
        if key == "invocation_points":
            return hook.parse_invocation_points(value)
        return hook.parse_config_properties(value)
    raise CfngenError(f"unknown answer {key!r}", f"use one of {', '.join(KEYS)}")


def parse_data(items: Sequence[str]) -> dict[str, str]:
    """`--data KEY=VALUE` arguments -> {key: value}; keys must be template questions."""
    data: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise CfngenError(f"--data {item!r} is not KEY=VALUE", "e.g. --data tagging=false")
        if key not in KEYS:
            raise CfngenError(f"--data: unknown key {key!r}", f"use one of {', '.join(KEYS)}")
        data[key] = value
    return data


# --------------------------------------------------------------------------- all answers


def defaults(given: Mapping[str, Any]) -> dict[str, Any]:
    """Default answers for what `given` (already checked) leaves open."""
    out: dict[str, Any] = {
        "artifact_type": "RESOURCE",
        "example": False,
        "runtime": DEFAULT_RUNTIME.name,
        "tagging": True,
        "type_configuration": False,
        "handlers": HANDLERS,
    }
    if given.get("artifact_type") == "HOOK":
        from cfngen._kinds.hook import _answers as hook

        out.update(
            {
                "artifact_type": "HOOK",
                "targets": hook.DEFAULT_TARGETS,
                "invocation_points": hook.INVOCATION_POINTS,
                "config_properties": (),
            }
        )
        if given.get("example"):
            out.update(hook.EXAMPLE_FIXED)
            out["type_name"] = TypeName(hook.EXAMPLE_TYPE_NAME)
    elif given.get("example"):
        out.update(EXAMPLE_FIXED)
        out["type_name"] = TypeName(EXAMPLE_TYPE_NAME)
    type_name = given.get("type_name", out.get("type_name"))
    if type_name is not None:
        out["package_name"] = TypeName(str(type_name)).package_name
    return out


def example_conflicts(given: Mapping[str, Any]) -> None:
    """Refuse answers the example cannot honour: it is one fixed resource type (or hook), and
    answers of the other kind."""
    hook = given.get("artifact_type") == "HOOK"
    wrong = sorted(set(given) & (_RESOURCE_KEYS if hook else _HOOK_KEYS))
    if wrong:
        kind, other = ("a hook", "resource types") if hook else ("a resource type", "hooks")
        raise CfngenError(
            f"{', '.join(wrong)}: only {other} have such answers, and this is {kind}",
            "drop the answer, or choose another --artifact-type",
        )
    if not given.get("example"):
        return
    if hook:
        from cfngen._kinds.hook import _answers as hook_answers

        fixed_answers: dict[str, Any] = hook_answers.EXAMPLE_FIXED
    else:
        fixed_answers = EXAMPLE_FIXED
    for key, fixed in fixed_answers.items():
        if key in given and given[key] != fixed:
            raise CfngenError(
                f"the example is made with {key}={_shown(fixed)}, not {key}={_shown(given[key])}",
                "drop that answer, or drop --example to start from stubs",
            )


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (tuple, list)):
        return ",".join(":".join(v) if isinstance(v, tuple) else str(v) for v in value) or "none"
    return str(value)


def resolve(given: Mapping[str, Any]) -> Answers:
    """Complete answers from checked values plus defaults; the type name is required unless
    the project is the example."""
    if "type_name" not in given and not given.get("example"):
        raise CfngenError("no type name given", "pass --type-name Organization::Service::Resource")
    example_conflicts(given)
    values = {**defaults(given), **given}
    return Answers(
        type_name=values["type_name"],
        package_name=values["package_name"],
        runtime=values["runtime"],
        artifact_type=values["artifact_type"],
        example=values["example"],
        tagging=values["tagging"],
        type_configuration=values["type_configuration"],
        handlers=tuple(values["handlers"]),
        targets=tuple(values.get("targets", ())),
        invocation_points=tuple(values.get("invocation_points", ())),
        config_properties=tuple(values.get("config_properties", ())),
    )


def collect(flags: Mapping[str, Any], data: Mapping[str, str]) -> dict[str, Any]:
    """Checked answers from flags (None = not given) and --data; the same key given twice with
    different values is an error rather than a silent choice."""
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
