"""The kind interface, below every engine: the `Kind` protocol and what it speaks of
(`Project`, `Derived`, `FileSet`, init's `Question`s), and the registry that finds the kinds.

Engines (cfngen/_validate, _generate, _contract, _package, _init, _editor, _completion, ...) import
this package, never cfngen/_kinds/; the kinds implement the protocol; only the CLI and entry
points import a kind's modules (tests/test_import_graph.py keeps it so).
"""

from __future__ import annotations

from cfngen._kind._init_spec import Answers, InitSpec, Question
from cfngen._kind._kind import (
    Configuration,
    Derived,
    Entries,
    FileSet,
    Kind,
    PackageContext,
    Part,
    Project,
    require_entrypoint,
)
from cfngen._kind._registry import (
    KIND_PACKAGES,
    all_kinds,
    by_artifact_type,
    default_kind,
    lookup,
    named,
)
from cfngen._rpdk_config import CONFIG_FILE

__all__ = [
    "CONFIG_FILE",
    "KIND_PACKAGES",
    "Answers",
    "Configuration",
    "Derived",
    "Entries",
    "FileSet",
    "InitSpec",
    "Kind",
    "PackageContext",
    "Part",
    "Project",
    "Question",
    "all_kinds",
    "by_artifact_type",
    "default_kind",
    "lookup",
    "named",
    "require_entrypoint",
]
