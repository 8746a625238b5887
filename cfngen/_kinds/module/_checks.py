"""What the registry and the user guide forbid in a module's fragment, each with its position.

The official `cfn validate` stops at the first problem, matches `Fn::ImportValue` as raw text,
misses `Fn::Transform` below the top level, `AWS::CloudFormation::StackSet`, unknown types and
the nesting of modules, and crashes on `Resources:` with no value. These checks report every
problem at once, at the node that has it. Rule ids (`M...`) name each check in messages and in
docs/module.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cfngen._diagnostics import ACCEPTED, Diagnostic, Severity
from cfngen._kinds.module._fragment import MODULE_SUFFIX, key_of, position
from cfngen._kinds.module._local import LocalType, local_types
from cfngen._schema import join_pointer

#: The official tool's limits (rpdk/core/fragment/generator.py), which are the service's.
MAX_BYTES = 1_500_000
MAX_RESOURCES = 500
MAX_OUTPUTS = 200
MAX_MAPPINGS = 200
MAX_MAPPING_KEYS = 200
#: The user guide: modules nest at most three levels deep (this module counts as one).
MAX_DEPTH = 3
#: Resource types a module may not contain, and why.
FORBIDDEN_TYPES = {
    "AWS::CloudFormation::Stack": "a module cannot contain a nested stack",
    "AWS::CloudFormation::StackSet": "a module cannot contain a stack set",
    "AWS::CloudFormation::Macro": "a module cannot contain a macro",
}
_SECTIONS = frozenset(
    {
        "AWSTemplateFormatVersion",
        "Description",
        "Metadata",
        "Parameters",
        "Rules",
        "Mappings",
        "Conditions",
        "Transform",
        "Resources",
        "Outputs",
    }
)
_IMPORT_TEXT = ("Fn::ImportValue", "!ImportValue")


class _Findings:
    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def add(
        self,
        severity: Severity,
        pointer: str,
        node: Any,
        message: str,
        hint: str | None = None,
        *,
        fallback: Any = None,
        at: tuple[int, int] | None = None,
    ) -> None:
        where = position(node) or position(fallback) or at or (None, None)
        self.items.append(Diagnostic(severity, pointer, message, hint, where[0], where[1]))


def check(
    template: Any,
    text: str,
    *,
    root: Path | None,
    own_type: str | None = None,
) -> list[Diagnostic]:
    """Every module rule `template` (cfn-lint's nodes) breaks; `text` is its source, `root`
    the module's project folder (for modules and types available locally)."""
    out = _Findings()
    size = len(text.encode("utf-8"))
    if size > MAX_BYTES:
        out.add(
            "error",
            "",
            None,
            f"the fragment is {size:,} bytes; a module's template may be at most "
            f"{MAX_BYTES:,} bytes",
            "move resources into a second module and use it from this one",
            at=(1, 1),
        )
    if not isinstance(template, dict):
        out.add("error", "", template, "a fragment must be a template: a mapping of sections")
        return _with_positions(out.items)
    _sections(template, out)
    _parameters(template, out)
    _resources(template, out, root=root, own_type=own_type)
    _outputs(template, out)
    _mappings(template, out)
    _walk(template, "", out)
    _import_text(template, text, out)
    return _with_positions(out.items)


def _with_positions(items: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(items, key=Diagnostic.sort_key)


def _section(template: dict[str, Any], name: str) -> tuple[Any, Any]:
    return key_of(template, name), template.get(name)


def _sections(template: dict[str, Any], out: _Findings) -> None:
    for key in template:
        if key in ("Transform", "transform"):
            out.add(
                "error",
                join_pointer("", str(key)),
                key,
                "a module cannot use transforms (AWS::Serverless, AWS::Include, macros): "
                "CloudFormation does not expand them in a module",
                "remove the Transform section and write the resources it would make",
            )


def _parameters(template: dict[str, Any], out: _Findings) -> None:
    key, section = _section(template, "Parameters")
    if section is None:
        return
    if not isinstance(section, dict):
        out.add("error", "/Parameters", section, "Parameters must be a mapping", fallback=key)
        return
    for name, param in section.items():
        pointer = join_pointer("/Parameters", str(name))
        if not isinstance(param, dict):
            out.add("error", pointer, param, f"parameter {name} must be a mapping", fallback=name)
        elif "Type" not in param:
            out.add(
                "error",
                pointer,
                name,
                f"parameter {name} has no Type",
                "add `Type: String` (or Number, CommaDelimitedList, an AWS-specific type)",
            )


def _resources(
    template: dict[str, Any], out: _Findings, *, root: Path | None, own_type: str | None
) -> None:
    key, section = _section(template, "Resources")
    if key not in template:
        out.add(
            "error",
            "",
            None,
            "a module's fragment must have a Resources section",
            "add Resources with at least one resource",
            fallback=template,
        )
        return
    if not isinstance(section, dict) or not section:
        what = "empty" if section is None or section == {} else "not a mapping"
        out.add(
            "error",
            "/Resources",
            section if section else None,
            f"Resources is {what}: a module must declare at least one resource",
            "add a resource under Resources",
            fallback=key,
        )
        return
    if len(section) > MAX_RESOURCES:
        out.add(
            "error",
            "/Resources",
            key,
            f"the fragment declares {len(section)} resources; a module may declare at most "
            f"{MAX_RESOURCES}",
            "split it into modules",
        )
    known: set[str] | None = None
    local: dict[str, LocalType] | None = None
    for name, resource in section.items():
        pointer = join_pointer("/Resources", str(name))
        if not isinstance(resource, dict):
            out.add("error", pointer, resource, f"resource {name} must be a mapping", fallback=name)
            continue
        if "Type" not in resource:
            out.add("error", pointer, name, f"resource {name} has no Type", "add its Type")
            continue
        rtype = resource["Type"]
        tpointer = pointer + "/Type"
        if not isinstance(rtype, str):
            out.add("error", tpointer, rtype, f"resource {name}: Type must be a string")
            continue
        if rtype in FORBIDDEN_TYPES:
            out.add(
                "error",
                tpointer,
                rtype,
                f"resource {name}: {FORBIDDEN_TYPES[rtype]} ({rtype})",
                "the user guide forbids it in modules; declare its resources here instead",
            )
            continue
        if rtype.startswith("AWS::Serverless::"):
            out.add(
                "error",
                tpointer,
                rtype,
                f"resource {name}: {rtype} needs the AWS::Serverless transform, which a module "
                "cannot use",
                "write the plain CloudFormation resources (AWS::Lambda::Function, ...) instead",
            )
            continue
        if local is None:
            local = local_types(root)
        if rtype.endswith(MODULE_SUFFIX):
            _nested_module(name, rtype, tpointer, out, local=local, own_type=own_type)
            continue
        if rtype.startswith("Custom::") or rtype == "AWS::CloudFormation::CustomResource":
            continue
        if known is None:
            from cfngen._kinds.hook._targets import bundled_types

            known = set(bundled_types())
        if rtype in known or rtype in local:
            continue
        if rtype.startswith("AWS::"):
            from cfngen._schema import close_match

            close = close_match(rtype, sorted(known))
            out.add(
                "error",
                tpointer,
                rtype,
                f"resource {name}: {rtype} is not a resource type",
                f"did you mean {close}?" if close else "check the spelling",
            )
        else:
            out.add(
                ACCEPTED,
                tpointer,
                rtype,
                f"resource {name}: {rtype} is not a public type and no project beside this one "
                "declares it; it must be registered in the account that uses the module",
                "put its project beside this one (or in CFNGEN_MODULE_PATH) to have it checked",
            )


def _nested_module(
    name: Any,
    rtype: str,
    pointer: str,
    out: _Findings,
    *,
    local: dict[str, LocalType],
    own_type: str | None,
) -> None:
    if rtype == own_type:
        out.add("error", pointer, rtype, f"resource {name}: the module uses itself (a cycle)")
        return
    if rtype not in local:
        out.add(
            ACCEPTED,
            pointer,
            rtype,
            f"resource {name}: module {rtype} is not available locally, so its nesting depth "
            "and cycles are not checked",
            "put its project beside this one (or in CFNGEN_MODULE_PATH)",
        )
        return
    chain = [own_type or "this module", rtype]
    problem = _depth(rtype, local, chain)
    if problem is not None:
        out.add("error", pointer, rtype, f"resource {name}: {problem}", _DEPTH_HINT)


_DEPTH_HINT = (
    f"modules nest at most {MAX_DEPTH} levels deep and never include themselves; "
    "flatten the innermost module into its parent"
)


def _depth(type_name: str, local: dict[str, LocalType], chain: list[str]) -> str | None:
    """Why using `type_name` after `chain` breaks the nesting rules, or None."""
    if len(chain) > MAX_DEPTH:
        return f"modules nest {len(chain)} levels deep: {' -> '.join(chain)}"
    for nested in _module_types(local[type_name]):
        if nested in chain:
            return f"the modules form a cycle: {' -> '.join([*chain, nested])}"
        if nested in local:
            problem = _depth(nested, local, [*chain, nested])
            if problem is not None:
                return problem
    return None


def _module_types(found: LocalType) -> list[str]:
    from cfngen._kinds.module._fragment import decode

    path = found.fragment()
    if path is None:
        return []
    try:
        template = decode(path.read_text(encoding="utf-8")).template
    except (OSError, UnicodeDecodeError):
        return []
    resources = template.get("Resources") if isinstance(template, dict) else None
    if not isinstance(resources, dict):
        return []
    types = [r.get("Type") for r in resources.values() if isinstance(r, dict)]
    return [str(t) for t in types if isinstance(t, str) and t.endswith(MODULE_SUFFIX)]


def _outputs(template: dict[str, Any], out: _Findings) -> None:
    key, section = _section(template, "Outputs")
    if section is None:
        return
    if not isinstance(section, dict):
        out.add("error", "/Outputs", section, "Outputs must be a mapping", fallback=key)
        return
    if len(section) > MAX_OUTPUTS:
        out.add(
            "error",
            "/Outputs",
            key,
            f"the fragment declares {len(section)} outputs; a module may declare at most "
            f"{MAX_OUTPUTS}",
        )
    for name, output in section.items():
        if isinstance(output, dict) and "Export" in output:
            export = key_of(output, "Export")
            out.add(
                "error",
                join_pointer("/Outputs", str(name)) + "/Export",
                export,
                f"output {name} has an Export: a module's outputs cannot be exported",
                "remove Export; the template that uses the module can export the value",
            )


def _mappings(template: dict[str, Any], out: _Findings) -> None:
    key, section = _section(template, "Mappings")
    if not isinstance(section, dict):
        return
    if len(section) > MAX_MAPPINGS:
        out.add(
            "error",
            "/Mappings",
            key,
            f"the fragment declares {len(section)} mappings; a module may declare at most "
            f"{MAX_MAPPINGS}",
        )
    for name, mapping in section.items():
        if isinstance(mapping, dict) and len(mapping) > MAX_MAPPING_KEYS:
            out.add(
                "error",
                join_pointer("/Mappings", str(name)),
                name,
                f"mapping {name} has {len(mapping)} keys; a module's mapping may have at most "
                f"{MAX_MAPPING_KEYS}",
            )


def _walk(template: dict[str, Any], pointer: str, out: _Findings) -> None:
    """Fn::ImportValue and Fn::Transform used as functions, at any depth."""
    for where, key, node in _functions(template, pointer):
        if key == "Fn::ImportValue":
            out.add(
                "error",
                where,
                node,
                "Fn::ImportValue: a module cannot import another stack's exports",
                "make the value a parameter of the module; the template that uses it can "
                "pass Fn::ImportValue",
            )
        elif key == "Fn::Transform":
            name = node.get(key, {}).get("Name") if isinstance(node.get(key), dict) else None
            what = f" ({name})" if isinstance(name, str) else ""
            out.add(
                "error",
                where,
                node,
                f"Fn::Transform{what}: a module cannot use transforms such as AWS::Include",
                "write the included content into the fragment",
            )


def _functions(node: Any, pointer: str) -> Iterator[tuple[str, str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            child = join_pointer(pointer, str(key))
            if key in ("Fn::ImportValue", "Fn::Transform"):
                yield child, str(key), node
            yield from _functions(value, child)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _functions(value, f"{pointer}/{index}")


def _strings(node: Any, pointer: str) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            child = join_pointer(pointer, str(key))
            mentions = isinstance(key, str) and any(word in key for word in _IMPORT_TEXT)
            if mentions and key != "Fn::ImportValue":
                yield child, key
            yield from _strings(value, child)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _strings(value, f"{pointer}/{index}")
    elif isinstance(node, str) and any(word in node for word in _IMPORT_TEXT):
        yield pointer, node


_IMPORT_TEXT_HINT = (
    "cfngen accepts it, but the official `cfn validate` and `cfn submit` reject the raw "
    "text anywhere in the file; reword it (e.g. 'ImportValue') to keep them working"
)


def _import_text(template: dict[str, Any], text: str, out: _Findings) -> None:
    """The words "Fn::ImportValue" in a string are not a function call: a warning only."""
    found = False
    for where, node in _strings(template, ""):
        found = True
        out.add(
            ACCEPTED,
            where,
            node,
            "the text mentions Fn::ImportValue (not a function call)",
            _IMPORT_TEXT_HINT,
        )
    calls = any(key == "Fn::ImportValue" for _w, key, _n in _functions(template, ""))
    if found or calls:
        return
    for word in _IMPORT_TEXT:
        offset = text.find(word)
        if offset >= 0:
            line = text.count("\n", 0, offset) + 1
            column = offset - (text.rfind("\n", 0, offset) + 1) + 1
            out.items.append(
                Diagnostic(
                    ACCEPTED,
                    "",
                    f"the file mentions {word} (in a comment)",
                    _IMPORT_TEXT_HINT,
                    line,
                    column,
                )
            )
            return
