"""`KindBase`: what every kind's `__init__.py` repeated, once. A kind names where its parts
live and overrides only what differs; the parts are imported when first asked (the registry
imports every kind to build `cfngen init --help`, so a kind's `__init__.py` stays cheap).

Every kind names its parts by the same roles, in modules of the same names: `_derive.py`
(generate: `may_derive`, `generate_inputs`, `derive`, `generate_notes`), `_answers.py`
(`INIT`, init's questions), `_package.py` (`PACKAGING`, the registry file set) and the
contract (`CONTRACT`) in `_run.py`, or `contract/` for a resource type.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfngen._contract import ContractProtocol
    from cfngen._kind import Derived, FileSet, InitSpec, Project
    from cfngen._kind._options import CliOption


class KindBase:
    name: str
    label: str
    order: int
    artifact_types: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    example_files: tuple[Path, ...] = ()
    invoke_actions: tuple[str, ...] = ()
    #: A `.rpdk-config` kind's files are JSON schemas; the `.rpdk-config` stands for its project.
    precommit_files: tuple[str, ...] = (r"\.rpdk-config", r"[^/]+\.json")
    precommit_exclude: tuple[str, ...] = ()
    cli_options: tuple[CliOption, ...] = ()
    #: Where the parts are, as "module:ATTRIBUTE" relative to the kind's package (None: the
    #: kind has no such part).
    contract_at: str | None = "._run:CONTRACT"
    init_at: str | None = "._answers:INIT"
    packaging_at: str | None = "._package:PACKAGING"
    #: The module with the generate functions (see the module docstring).
    derive_module: str = "._derive"

    def _load(self, where: str) -> Any:
        module, _, attribute = where.partition(":")
        return getattr(importlib.import_module(module, type(self).__module__), attribute)

    def check_type_name(self, value: str) -> str:
        from cfngen._typename import TypeName

        return TypeName(value)

    def project_file(self, root: Path) -> Path | None:
        """Kinds with `.rpdk-config` are found by it: no other file makes their project."""
        return None

    def claims(self, path: Path) -> bool | str | None:
        return False

    # ------------------------------------------------------------------ generate

    def may_derive(self, project: Project, relpath: str) -> bool:
        return bool(self._load(self.derive_module + ":may_derive")(project, relpath))

    def generate_inputs(self, project: Project) -> dict[str, bytes | None]:
        found: dict[str, bytes | None] = self._load(self.derive_module + ":generate_inputs")(
            project
        )
        return found

    def derive(self, project: Project, inputs: Mapping[str, bytes | None]) -> Derived:
        derived: Derived = self._load(self.derive_module + ":derive")(project, inputs)
        return derived

    def generate_notes(self, project: Project, inputs: Mapping[str, bytes | None]) -> list[str]:
        notes: list[str] = self._load(self.derive_module + ":generate_notes")(project, inputs)
        return notes

    # ------------------------------------------------------------------ the parts

    @functools.cached_property
    def contract(self) -> ContractProtocol | None:
        return None if self.contract_at is None else self._load(self.contract_at)

    @functools.cached_property
    def init(self) -> InitSpec | None:
        return None if self.init_at is None else self._load(self.init_at)

    @functools.cached_property
    def packaging(self) -> FileSet | None:
        return None if self.packaging_at is None else self._load(self.packaging_at)
