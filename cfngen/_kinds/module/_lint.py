"""cfn-lint on a fragment (or a rendered template), as findings.

The official tool prints cfn-lint's findings and ignores them; cfngen counts cfn-lint's errors
as errors and its warnings as warnings (errors with --strict). Rules that cfngen's own checks
replace are switched off (docs/module.md lists them):

- E3006 ("resource type does not exist") fires on every private third-party type and on
  modules; cfngen's M-checks decide instead (an unknown AWS:: type is an error, another
  namespace a warning unless a project beside this one declares it).
"""

from __future__ import annotations

import functools
from typing import Any

from cfngen._diagnostics import Diagnostic

#: cfn-lint rules that cfngen's own checks replace.
REPLACED_RULES = ("E3006",)
REGION = "us-east-1"


@functools.cache
def _rules() -> Any:
    """cfn-lint's rules, loaded once per process (loading them costs more than linting)."""
    from cfngen._kinds.module._imports import defer_sympy

    defer_sympy()
    from cfnlint.config import ConfigMixIn  # type: ignore[import-untyped]
    from cfnlint.runner import Runner  # type: ignore[import-untyped]

    return Runner(ConfigMixIn(regions=[REGION])).rules


def lint(template: Any, *, ignore: tuple[str, ...] = REPLACED_RULES) -> list[Diagnostic]:
    """cfn-lint's errors and warnings on a decoded template (informational findings dropped)."""
    from cfnlint.config import ConfigMixIn
    from cfnlint.runner import run_template_by_data

    config = ConfigMixIn(regions=[REGION], ignore_checks=list(ignore))
    found: list[Diagnostic] = []
    for match in run_template_by_data(template, config, _rules()):
        rule_id = str(match.rule.id)
        severity = {"E": "error", "W": "warning"}.get(rule_id[:1])
        if severity is None:
            continue
        path = getattr(match, "path", None) or []
        pointer = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)
        found.append(
            Diagnostic(
                "error" if severity == "error" else "warning",
                pointer,
                f"{str(match.message).strip()} (cfn-lint {rule_id})",
                None,
                max(int(match.linenumber), 1),
                max(int(match.columnnumber), 1),
            )
        )
    return found
