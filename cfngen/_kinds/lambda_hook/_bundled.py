"""The resource schemas cfn-lint bundles (the LambdaHook resource's own, and the type names a
target filter may match), read by the one reader cfngen has for them.

That reader lives with the hook kind today (cfngen/_kinds/hook/_targets.py); this module is the
only place this kind reaches it, so that moving it to a package the kinds share changes one
import here.
"""

from __future__ import annotations

from typing import Any


def bundled_schema(type_name: str) -> dict[str, Any] | None:
    from cfngen._kinds.hook._targets import bundled_schema as read

    return read(type_name)


def bundled_types() -> list[str]:
    from cfngen._kinds.hook._targets import bundled_types as read

    return read()
