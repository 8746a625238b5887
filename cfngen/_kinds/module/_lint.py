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
import json
from pathlib import Path
from typing import Any

from cfngen._diagnostics import Diagnostic
from cfngen._schema import join_pointer

#: cfn-lint rules that cfngen's own checks replace.
REPLACED_RULES = ("E3006",)
REGION = "us-east-1"


@functools.cache
def _rules() -> Any:
    """cfn-lint's rules, loaded once per process (loading them costs more than linting)."""
    from cfngen._cfnlint_imports import defer_sympy

    defer_sympy()
    from cfnlint.config import ConfigMixIn  # type: ignore[import-untyped]
    from cfnlint.runner import Runner  # type: ignore[import-untyped]

    rules = _made_reading_large_data_when_used(lambda: Runner(ConfigMixIn(regions=[REGION])).rules)
    if rules is None:  # cfn-lint's code is not as expected: everything read as usual
        rules = Runner(ConfigMixIn(regions=[REGION])).rules
    return rules


#: Data files at least this large are read when a rule first uses them, not when it is made.
#: AWS's IAM actions (2 MB, read by two rules) and the EC2/RDS instance classes (4-5 MB) are
#: ~40 % of making the rules, and only templates with IAM policies or those resources use them.
LAZY_BYTES = 256 * 1024


class _Unread:
    """A cfn-lint data file not read yet."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> Any:
        return json.loads(self.path.read_text(encoding="utf-8"))  # as cfn-lint's load_resource


class _ReadWhenUsed:
    """A rule's attribute whose value may be an _Unread file: read (once) on first use."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type) -> Any:
        if instance is None:
            return self
        try:
            value = instance.__dict__[self.name]
        except KeyError:
            raise AttributeError(self.name) from None
        if isinstance(value, _Unread):
            value = instance.__dict__[self.name] = value.read()
        return value

    def __set__(self, instance: Any, value: Any) -> None:
        instance.__dict__[self.name] = value


def _made_reading_large_data_when_used(make: Any) -> Any:
    """cfn-lint's rules, made while its `load_resource` gives a large file as _Unread.

    A rule that only keeps the file in an attribute gets that attribute read on first use (the
    same JSON, read as cfn-lint reads it). None when any rule did more with an unread file at
    creation (it failed, or the file is not in a rule's attribute): then the caller makes the
    rules again as usual."""
    import sys

    import cfnlint.helpers  # type: ignore[import-untyped]

    original = cfnlint.helpers.load_resource
    unread: list[_Unread] = []
    loading = True

    def load_resource(package: Any, filename: str = "us-east-1.json") -> Any:
        folder = getattr(package, "__file__", None)
        if loading and folder:
            path = Path(folder).parent / filename
            try:
                if path.stat().st_size >= LAZY_BYTES:
                    unread.append(_Unread(path))
                    return unread[-1]
            except OSError:
                pass
        return original(package, filename)

    # Rule modules run during loading bind the name then; modules imported before hold it too.
    # (Each module's own namespace: a module-level __getattr__, sympy's for one, is not run.)
    holders = [
        namespace
        for namespace in (getattr(m, "__dict__", None) for m in list(sys.modules.values()))
        if isinstance(namespace, dict) and namespace.get("load_resource") is original
    ]
    for namespace in holders:
        namespace["load_resource"] = load_resource
    try:
        rules = make()
    except Exception:
        return None
    finally:
        loading = False
        for namespace in holders:
            namespace["load_resource"] = original
    kept: set[int] = set()
    for rule in rules.data.values():
        for name, value in list(vars(rule).items()):
            if not isinstance(value, _Unread):
                continue
            descriptor = type(rule).__dict__.get(name)
            if descriptor is None:
                setattr(type(rule), name, _ReadWhenUsed(name))
            elif not isinstance(descriptor, _ReadWhenUsed):
                rule.__dict__[name] = value.read()
            kept.add(id(value))
    if any(id(file) not in kept for file in unread):
        return None
    return rules


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
        pointer = join_pointer("", *(str(p) for p in path))
        found.append(
            Diagnostic(
                "error" if severity == "error" else "warning",
                pointer,
                f"{str(match.message).strip()} (cfn-lint {rule_id})",
                None,
                max(int(match.linenumber), 1),
                max(int(match.columnnumber), 1),
                code=f"cfn-lint/{rule_id}",
            )
        )
    return found
