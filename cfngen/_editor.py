"""Editor support: cfngen's meta-schemas as single-file JSON Schemas (`cfngen schema export`).

Each kind keeps its draft-07 meta-schema as `metaschema.json` in its folder (and others as
`<name>-metaschema.json`, e.g. the callback context's); an editor gets each as one
self-contained file in the project, `.cfngen/schemas/<kind>.schema.json`: definitions borrowed
from another kind's meta-schema copied in, cfngen's own annotations (`x-message`, `x-hint`)
dropped, and the rules the registry does not enforce (`x-severity: warning`, warnings in
`cfngen validate`) left out, so that an editor marks only what the registry rejects. A kind whose
meta-schema describes `typeConfiguration` also gives `type-configuration.schema.json`.

`cfngen init` writes them with `.vscode/settings.json` and `.idea/jsonSchemas.xml` (in the
copier templates) pointing at them, so VS Code and JetBrains IDEs validate and complete the
schema as it is typed, offline.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen import __version__

__all__ = ["SCHEMA_DIR", "ExportResult", "export_schemas", "metaschemas", "wants_schemas"]

#: Where the exported schemas go in a project (posix, relative to its root).
SCHEMA_DIR = ".cfngen/schemas"
_SUFFIX = "-metaschema.json"


@dataclass
class ExportResult:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"written": self.written, "unchanged": self.unchanged}


def metaschemas() -> dict[str, dict[str, Any]]:
    """File name -> single-file JSON Schema, for every meta-schema the kinds have."""
    from cfngen._kind import all_kinds

    found: dict[str, dict[str, Any]] = {}
    for kind in all_kinds():
        folder = _folder(kind)
        for path in sorted(folder.glob("*metaschema.json")):
            name = kind.name if path.name == "metaschema.json" else path.name[: -len(_SUFFIX)]
            schema = _single_file(path)
            found[f"{name}.schema.json"] = schema
            type_configuration = schema.get("definitions", {}).get("typeConfiguration")
            if path.name == "metaschema.json" and isinstance(type_configuration, dict):
                found.setdefault(
                    "type-configuration.schema.json",
                    _rooted(schema, type_configuration, "a type configuration (typeConfiguration)"),
                )
    return found


def _folder(kind: object) -> Path:
    import importlib

    module = importlib.import_module(type(kind).__module__)
    return Path(str(module.__file__)).parent


def _single_file(path: Path) -> dict[str, Any]:
    from cfngen._schema import loads

    schema: dict[str, Any] = loads(path.read_text(encoding="utf-8")).data
    borrowed = schema.pop("x-definitions-from", None)
    if isinstance(borrowed, str):
        other = loads((path.parent / borrowed).read_text(encoding="utf-8")).data
        schema["definitions"] = {**other.get("definitions", {}), **schema.get("definitions", {})}
    cleaned = _clean(schema)
    assert isinstance(cleaned, dict)
    cleaned["$comment"] = (
        f"Written by `cfngen schema export` (cfngen {__version__}) from cfngen's meta-schema: "
        "what the CloudFormation registry rejects. `cfngen validate` checks more."
    )
    return cleaned


def _clean(node: Any) -> Any:
    if isinstance(node, list):
        return [_clean(item) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and not ref.startswith("#"):
        # A reference outside the file (draft-07's own meta-schema, for a property's schema):
        # an editor offline cannot fetch it, so the file says what it can by itself.
        return {"type": ["object", "boolean"], "description": f"a JSON schema ({ref})"}
    lenient = node.get("x-severity") or {}
    return {
        key: _clean(value)
        for key, value in node.items()
        if not key.startswith("x-") and lenient.get(key) != "warning"
    }


def _rooted(whole: dict[str, Any], node: dict[str, Any], title: str) -> dict[str, Any]:
    """One definition as a schema of its own, with the definitions it may refer to."""
    rooted = copy.deepcopy(node)
    rooted["$schema"] = whole.get("$schema", "http://json-schema.org/draft-07/schema#")
    rooted["title"] = title
    rooted["$comment"] = whole["$comment"]
    rooted["definitions"] = copy.deepcopy(whole.get("definitions", {}))
    return rooted


def wants_schemas(root: Path) -> bool:
    """The project's editor settings (from its template) point at the exported schemas."""
    return any(
        SCHEMA_DIR in text
        for text in (
            _text(root / ".vscode" / "settings.json"),
            _text(root / ".idea" / "jsonSchemas.xml"),
        )
    )


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def export_schemas(root: Path, *, check: bool = False) -> ExportResult:
    """Write every meta-schema into `root/.cfngen/schemas/` (all or nothing); with `check`,
    write nothing and list what is out of date."""
    from cfngen._files import Transaction

    result = ExportResult()
    transaction = Transaction(root)
    for name, schema in sorted(metaschemas().items()):
        relpath = f"{SCHEMA_DIR}/{name}"
        data = (json.dumps(schema, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        target = root / relpath
        if target.is_file() and target.read_bytes() == data:
            result.unchanged.append(relpath)
            continue
        result.written.append(relpath)
        if not check:
            transaction.write(relpath, data)
    if not check and len(transaction):
        transaction.commit()
    return result
