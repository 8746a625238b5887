"""The paths a resource type project's generate may write: the one rule that decides what
cfngen may ever rewrite or remove (a path in `.cfngen/generated.json` that fails it is ignored).

When the kind registry lands, this is the resource kind's answer to "which paths do you
derive"; generate's engine only asks the question.
"""

from __future__ import annotations

import re

_FIXED = ("resource-role.yaml", "template.yml", "src/requirements.txt")
#: docs/ pages come and go with the schema's definitions; example inputs with the input sets.
_PATTERNS = (
    re.compile(r"docs/[^/]+\.md"),
    re.compile(r"example_inputs/inputs_[0-9]+_[a-z_]+\.json"),
)
_PACKAGE_FILES = ("models.py", "cfngen_runtime.py")


def may_derive(relpath: str, package: str) -> bool:
    """Whether `relpath` (canonical, relative to the project) is one this kind derives for a
    project whose handlers live in src/<package>/."""
    if relpath in _FIXED:
        return True
    if any(f"src/{package}/{name}" == relpath for name in _PACKAGE_FILES):
        return True
    return any(pattern.fullmatch(relpath) for pattern in _PATTERNS)
