"""The permission contract: `contract_<action>_permissions`, one test per handler the schema
declares, judged on the AWS calls its handler made in the other tests of the run (_calls.py).

CloudFormation runs a registered type's handlers with one execution role made of the union of
every handler's `permissions`. So, for each call a handler made, its IAM action (_iam.py):

- declared by no handler: AccessDenied after `cfn submit`. The test fails
  (`cfngen/permission-missing`), naming the handler, the call, the action and the line of the
  schema where it belongs; `cfngen test --fix-permissions` adds it there;
- declared only under another handler: it works, since the role is a union, but the published
  schema tells consumers the wrong permissions for this action: a warning
  (`cfngen/permission-elsewhere`), a failure with `--strict`.

A permission a handler declares that none of its calls needed is a warning,
"untested or unneeded" (`cfngen/permission-unused`), unless no call can show it: an action no
operation is called with (`iam:PassRole`) or a dependent action of one the handler declares or
called (`kms:Decrypt` of the services that encrypt), as the table lists them.

The engine knows no kind: a kind says which handlers it has (`Declared`) and where their
permissions are in its schema.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._contract._calls import Call
from cfngen._contract._results import SuiteResult, TestResult

if TYPE_CHECKING:
    from cfngen._contract._iam import IamTable

MISSING = "cfngen/permission-missing"
ELSEWHERE = "cfngen/permission-elsewhere"
UNUSED = "cfngen/permission-unused"

R_MISSING = (
    "every AWS call a handler makes needs its IAM action in the handler's permissions: "
    "CloudFormation runs the handlers with a role made of them, so an undeclared one is "
    "AccessDenied after submit"
)


@dataclass(frozen=True)
class Declared:
    """One handler the schema declares, and its permissions there."""

    #: The runner's name of its action (`CREATE`, `CREATE_PRE_PROVISION`).
    action: str
    #: The handler's key in the schema (`create`, `preCreate`).
    key: str
    #: Its test's name (`contract_create_permissions`).
    test: str
    permissions: tuple[str, ...]
    #: The schema file, relative to the project, and the pointer of its permissions list
    #: (of the handler when it has none) and that pointer's line.
    schema_file: str
    pointer: str
    line: int | None


def permission_tests(
    declared: list[Declared],
    calls: list[Call],
    ran: set[str],
    *,
    strict: bool,
    selected: Callable[[str], bool],
    suite: SuiteResult,
) -> list[TestResult]:
    """The permission tests `selected` keeps, in `declared`'s order; the actions a handler
    needs and does not declare go to `suite.missing_permissions` for `--fix-permissions`."""
    if not any(selected(d.test) for d in declared):
        return []
    from cfngen._contract._iam import table

    results = []
    for handler in declared:
        if not selected(handler.test):
            continue
        if handler.action not in ran:
            results.append(
                TestResult(
                    handler.test,
                    "skipped",
                    f"no test of this run called the {handler.key} handler",
                    0.0,
                )
            )
            continue
        mine = [c for c in calls if c.action == handler.action]
        results.append(_judge(handler, mine, declared, table(), strict=strict, suite=suite))
    return results


def _judge(
    handler: Declared,
    calls: list[Call],
    declared: list[Declared],
    iam: IamTable,
    *,
    strict: bool,
    suite: SuiteResult,
) -> TestResult:
    from cfngen._contract._iam import covers

    failures: list[str] = []
    result = TestResult(handler.test, "passed", None, 0.0)
    used: set[str] = set()
    seen: dict[str, list[Call]] = {}
    actions: dict[str, bool] = {}
    for call in calls:
        found = iam.action_of(call.service, call.operation, call.client_service)
        seen.setdefault(found.name, []).append(call)
        actions[found.name] = found.known
    where = f"{handler.schema_file}:{handler.line}" if handler.line else handler.schema_file
    for action, its_calls in seen.items():
        mine = [p for p in handler.permissions if covers(p, action)]
        used.update(mine)
        if mine:
            continue
        suite.missing_permissions.setdefault(handler.schema_file, {}).setdefault(
            handler.pointer, []
        ).append(action)
        call = its_calls[0]
        what = f"{call.service} {call.operation} ({_tests(its_calls)})"
        others = [d.key for d in declared if d is not handler and _any_covers(d, action)]
        if others:
            text = (
                f"the {handler.key} handler called {what}, which needs {action}: declared only "
                f"under {', '.join(others)}, so the schema tells consumers the {handler.key} "
                f"handler does not need it; add it to {handler.pointer} at {where} "
                f"[{ELSEWHERE}]"
            )
            if strict:
                failures.append(text)
                result.code = result.code or ELSEWHERE
            else:
                result.warnings.append(text)
                result.warning_codes[text] = ELSEWHERE
            continue
        guessed = "" if actions[action] else f" (not in {iam.source}: named after the operation)"
        failures.append(
            f"the {handler.key} handler called {what}, which needs {action}{guessed}; no "
            f"handler declares it: add it to {handler.pointer} at {where} "
            f"(cfngen test --fix-permissions does) [{MISSING}]"
        )
        result.code = MISSING
    exempt = iam.dependents([*handler.permissions, *seen])
    for permission in handler.permissions:
        if permission in used or permission.lower() in exempt:
            continue
        if iam.permission_only(permission):
            continue
        text = (
            f"{permission} of the {handler.key} handler ({where}): no call of its tests needed "
            f"it, untested or unneeded [{UNUSED}]"
        )
        result.warnings.append(text)
        result.warning_codes[text] = UNUSED
    if failures:
        # CI formats pin the failure to the schema line where the permission belongs.
        if handler.line is not None:
            result.location = (handler.schema_file, handler.line)
        result.outcome = "failed"
        result.message = "\n".join([*failures, f"rule: {R_MISSING}"])
    return result


def _any_covers(handler: Declared, action: str) -> bool:
    from cfngen._contract._iam import covers

    return any(covers(p, action) for p in handler.permissions)


def _tests(calls: list[Call]) -> str:
    names = list(dict.fromkeys(c.test or "a test's clean-up" for c in calls))
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"in {shown}"


def declared_handlers(
    schema_path: Path, root: Path, handlers: list[tuple[str, str, str]]
) -> list[Declared]:
    """`Declared` for each (action, schema key, test name) whose key the schema's `handlers`
    holds, with the line of its permissions in the schema file."""
    from cfngen._schema import escape_token, loads, read_text

    document = loads(read_text(schema_path))
    found = document.data.get("handlers") if isinstance(document.data, dict) else None
    table = found if isinstance(found, dict) else {}
    relative = schema_path.relative_to(root).as_posix()
    out = []
    for action, key, test in handlers:
        node = table.get(key)
        if not isinstance(node, dict):
            continue
        permissions = node.get("permissions")
        pointer = f"/handlers/{escape_token(key)}/permissions"
        position = document.position(pointer)
        out.append(
            Declared(
                action,
                key,
                test,
                tuple(p for p in permissions if isinstance(p, str) and p)
                if isinstance(permissions, list)
                else (),
                relative,
                pointer,
                position[0] if position else None,
            )
        )
    return out
