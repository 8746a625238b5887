"""Hook schemas checked: cfngen's hook meta-schema, then what it cannot say.

Errors are what the registry (and the official loader) rejects, or what makes cfngen's generated
files wrong: a `cloudformation:*` or `cloudformation:RegisterType` permission, `*?` in a target
name, a top-level `properties`, a `$ref` that resolves to nothing, a typeName that is not the one
`.rpdk-config` registers. Warnings are mistakes the registry accepts: target names that are no
resource type cfngen knows (the bundled list lags new types, and other namespaces may be private
types), wildcards that match nothing, empty target lists, `*` permissions, `required` names that
name nothing, a hook without handlers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfngen._diagnostics import Problem
from cfngen._kinds._shared import _targets
from cfngen._schema import close_match, join_pointer

if TYPE_CHECKING:
    from cfngen._schema import Resolver

METASCHEMA = Path(__file__).with_name("metaschema.json")
#: The handlers of a hook schema and the invocation points they stand for.
HANDLERS = {
    "preCreate": "CREATE_PRE_PROVISION",
    "preUpdate": "UPDATE_PRE_PROVISION",
    "preDelete": "DELETE_PRE_PROVISION",
}
#: The official loader refuses these permissions (rpdk/core/data_loaders.py, load_hook_spec).
_BLOCKED_PERMISSION = "cloudformation:RegisterType"


def keyword_hints() -> dict[str, str]:
    """What to do instead of an unknown key: the resource schema language's hints (settings are
    property schemas) and the hook's own."""
    from cfngen._kinds._shared._checks import KEYWORD_HINTS

    return {
        **KEYWORD_HINTS,
        # The official loader's own words: properties belong in typeConfiguration.
        "properties": "a hook has no properties of its own: declare its settings in "
        "typeConfiguration.properties",
        "timeoutInMinutes": "hooks have no handler timeout; remove it",
    }


def looks_like_hook(schema: Any) -> bool:
    """Whether a schema file on its own (outside a project) is a hook schema: it has a hook
    handler, or a typeConfiguration and no properties."""
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "HOOK":
        return True
    handlers = schema.get("handlers")
    if isinstance(handlers, dict) and set(handlers) & set(HANDLERS):
        return True
    return "properties" not in schema and "typeConfiguration" in schema


def check(schema: dict[str, Any], resolver: Resolver) -> list[Problem]:
    """The semantic checks and lint of a hook schema (the meta-schema's rules come first, from
    the validate engine); the typeName is compared with the `.rpdk-config` beside the file."""
    from cfngen._kinds._shared import _checks
    from cfngen._kinds._shared._node_checks import node_problems
    from cfngen._kinds._shared._pointers import PropertyIndex

    problems: list[Problem] = []
    problems.extend(_checks._namespace(schema))
    problems.extend(_checks._refs(schema, PropertyIndex(schema, resolver)))
    problems.extend(node_problems(schema))
    problems.extend(_type_name(schema, _registered_name(resolver.base_dir)))
    problems.extend(_handlers(schema))
    problems.extend(_required(schema))
    problems.extend(_configuration_names(schema))
    return problems


def _registered_name(folder: Path | None) -> str | None:
    """`.rpdk-config`'s typeName, when the schema sits in a hook project."""
    if folder is None or not (folder / ".rpdk-config").is_file():
        return None
    from cfngen._errors import CfngenError
    from cfngen._project import load_project

    try:
        project = load_project(folder)
    except CfngenError:
        return None
    if project.kind.name != "hook":
        return None
    name = project.config.get("typeName")
    return name if isinstance(name, str) else None


# --------------------------------------------------------------------------- checks


def _type_name(schema: dict[str, Any], expected: str | None) -> Iterator[Problem]:
    name = schema.get("typeName")
    if expected is None or not isinstance(name, str) or name == expected:
        return
    yield Problem(
        "error",
        "/typeName",
        f"{name!r} is not the type name .rpdk-config registers ({expected!r})",
        "the registry registers the schema under .rpdk-config's typeName: make them the same",
        code="cfngen/type-name-mismatch",
    )


def _handlers(schema: dict[str, Any]) -> Iterator[Problem]:
    handlers = schema.get("handlers")
    if handlers is None or handlers == {}:
        yield Problem(
            "warning",
            "/handlers" if handlers == {} else "",
            "the hook declares no handlers: CloudFormation never invokes it",
            'add "handlers": {"preCreate": {"targetNames": [...], "permissions": []}}',
            code="cfngen/hook-no-handlers",
        )
        return
    if not isinstance(handlers, dict):
        return
    known = _targets.bundled_types()
    for name, handler in handlers.items():
        if name not in HANDLERS or not isinstance(handler, dict):
            continue
        here = f"/handlers/{name}"
        yield from _target_names(handler.get("targetNames"), f"{here}/targetNames", name, known)
        yield from _permissions(handler.get("permissions"), f"{here}/permissions")


def _target_names(value: Any, here: str, handler: str, known: list[str]) -> Iterator[Problem]:
    if value == []:
        yield Problem(
            "warning",
            here,
            f"the {handler} handler names no target: CloudFormation never calls it",
            'name the resource types it inspects, e.g. ["AWS::S3::Bucket"], or STACK',
            code="cfngen/hook-handler-no-target",
        )
        return
    if not isinstance(value, list):
        return
    seen: dict[str, int] = {}
    for i, name in enumerate(value):
        if not isinstance(name, str):
            continue
        at = f"{here}/{i}"
        if name in seen:
            yield Problem(
                "warning",
                at,
                f"{name!r} is listed twice (first at {here}/{seen[name]})",
                "remove the repeat",
                code="cfngen/hook-target-duplicate",
            )
            continue
        seen[name] = i
        yield from target_name_problems(name, at, known)


def target_name_problems(name: str, at: str, known: list[str]) -> Iterator[Problem]:
    """What is wrong with one target name (`at` is its pointer); `known`: the resource types
    cfngen knows. `cfngen init` says the same about the targets it is given."""
    if "*?" in name:
        yield Problem(
            "error",
            at,
            f"{name!r} contains the wildcard pattern '*?', which CloudFormation does not allow",
            "use '*' alone, e.g. AWS::S3::*",
            code="cfngen/hook-target-wildcard-invalid",
        )
        return
    if name in _targets.SPECIAL_TARGETS:
        return
    if name == "CLOUD_CONTROL":
        yield Problem(
            "warning",
            at,
            "CLOUD_CONTROL is a target operation, not a target name",
            "name resource types here; choose CLOUD_CONTROL among TargetOperations when you "
            "activate the hook",
            code="cfngen/hook-target-is-operation",
        )
        return
    namespace = name.split("::", 1)[0]
    if namespace != "AWS" and namespace.upper() == "AWS":
        yield from _miscased(name, at, known)
        return
    if _targets.is_wildcard(name):
        if namespace in ("AWS", "*") and not _targets.matches(name, known):
            yield Problem(
                "warning",
                at,
                f"the wildcard {name!r} matches none of the {len(known)} resource types "
                "cfngen knows",
                "check the spelling (names are case-sensitive); cfngen's list may also lag a "
                "brand-new type",
                code="cfngen/hook-target-wildcard-matches-nothing",
            )
        return
    if not _targets.is_type_name(name):
        yield Problem(
            "warning",
            at,
            f"{name!r} is neither a resource type name (Organization::Service::Resource) nor "
            "STACK or CHANGE_SET",
            "name a resource type such as AWS::S3::Bucket, a wildcard such as AWS::S3::*, "
            "STACK or CHANGE_SET",
            code="cfngen/hook-target-not-type-name",
        )
        return
    if name.split("::", 1)[0] == "AWS" and name not in set(known):
        close = close_match(name, known)
        yield Problem(
            "warning",
            at,
            f"{name!r} is not a resource type cfngen knows",
            f"did you mean {close!r}?"
            if close
            else "check the spelling; cfngen's list may lag a brand-new type",
            code="cfngen/hook-target-unknown-type",
        )


def _miscased(name: str, at: str, known: list[str]) -> Iterator[Problem]:
    """A target in the AWS namespace spelt in another case. Type names are case-sensitive (the
    official tool matches targets with fnmatchcase) and no private type may use the namespace,
    so it is a typo."""
    if _targets.is_wildcard(name):
        parts = name.split("::")
        services = {t.split("::")[1].lower(): t.split("::")[1] for t in known}
        if len(parts) > 1:
            parts[1] = services.get(parts[1].lower(), parts[1])
        proper: str | None = "::".join(["AWS", *parts[1:]])
    else:
        proper = close_match(name, known)
    yield Problem(
        "warning",
        at,
        f"{name!r} spells the AWS namespace in another case: type names are case-sensitive",
        f"did you mean {proper!r}?" if proper else "spell the namespace AWS",
        code="cfngen/type-name-aws-namespace-case",
    )


def _permissions(value: Any, here: str) -> Iterator[Problem]:
    if not isinstance(value, list):
        return
    for i, permission in enumerate(value):
        if not isinstance(permission, str):
            continue
        at = f"{here}/{i}"
        if "cloudformation:*" in permission:
            yield Problem(
                "error",
                at,
                f"{permission!r}: CloudFormation does not allow a hook a wildcard "
                "cloudformation permission",
                "list the cloudformation actions the handler calls, e.g. "
                "cloudformation:DescribeStacks",
                code="cfngen/hook-permission-cloudformation-wildcard",
            )
        elif permission == _BLOCKED_PERMISSION:
            yield Problem(
                "error",
                at,
                f"CloudFormation does not allow a hook the permission {permission!r}",
                "remove it",
                code="cfngen/hook-permission-refused",
            )
        elif "*" in permission:
            yield Problem(
                "warning",
                at,
                f"wildcard permission {permission!r}",
                "list the specific actions the handler calls",
                code="cfngen/permission-wildcard",
            )
        elif not permission.strip():
            yield Problem(
                "warning", at, "an empty permission", "remove it", code="cfngen/permission-empty"
            )


def _required(schema: dict[str, Any]) -> Iterator[Problem]:
    """`required` at the top names hook properties, which do not exist; in typeConfiguration it
    must name declared settings, or no configuration can ever be valid."""
    for i, name in _strings(schema.get("required")):
        yield Problem(
            "warning",
            f"/required/{i}",
            f"{name!r} is required, but a hook has no properties",
            "list required settings in typeConfiguration.required instead",
            code="cfngen/hook-required-without-properties",
        )
    config = schema.get("typeConfiguration")
    if not isinstance(config, dict):
        return
    declared = config.get("properties")
    names = sorted(declared) if isinstance(declared, dict) else []
    for i, name in _strings(config.get("required")):
        if name not in names:
            close = close_match(name, names)
            yield Problem(
                "warning",
                f"/typeConfiguration/required/{i}",
                f"{name!r} is required but not declared in typeConfiguration.properties: "
                "no configuration can be valid",
                f"did you mean {close!r}?" if close else "declare it, or remove it",
                code="cfngen/type-configuration-required-undeclared",
            )


def _configuration_names(schema: dict[str, Any]) -> Iterator[Problem]:
    """Settings whose names differ only in case: one Python model cannot tell them apart on
    every file system, and people confuse them."""
    config = schema.get("typeConfiguration")
    properties = config.get("properties") if isinstance(config, dict) else None
    if not isinstance(properties, dict):
        return
    seen: dict[str, str] = {}
    for name in properties:
        folded = name.lower()
        if folded in seen:
            yield Problem(
                "warning",
                join_pointer("/typeConfiguration/properties", name),
                f"{name!r} differs from {seen[folded]!r} only in case",
                "rename one of them",
                key=True,
                code="cfngen/property-name-case-duplicate",
            )
        else:
            seen[folded] = name


def _strings(value: Any) -> list[tuple[int, str]]:
    if not isinstance(value, list):
        return []
    return [(i, v) for i, v in enumerate(value) if isinstance(v, str)]
