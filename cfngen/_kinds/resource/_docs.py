"""`docs/`: a property reference for the resource type, laid out like the official one.

`docs/README.md` documents the top-level properties and return values; every object type with
properties gets its own page (`docs/<path>.md`), shared by every property that uses it, so
recursive definitions link to themselves instead of looping. Walked in schema order only, so the
output does not depend on hashing.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag

from cfngen._files import sha256
from cfngen._generate._jinja import render
from cfngen._schema import Resolver, pointer_tokens

TEMPLATES = Path(__file__).with_name("templates")

_BASIC_TYPES = {"string": "String", "number": "Double", "integer": "Integer", "boolean": "Boolean"}
_MARKDOWN_RESERVED = frozenset("^*+.([{#")
_UPDATE_DOCS = "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-updating-stacks-update-behaviors.html"
_REPLACEMENT = f"[Replacement]({_UPDATE_DOCS}#update-replacement)"
_SOME_INTERRUPTIONS = f"[Some interruptions]({_UPDATE_DOCS}#update-some-interrupt)"
_NO_INTERRUPTION = f"[No interruption]({_UPDATE_DOCS}#update-no-interrupt)"
#: Page file names stay well under every file system's limit (255 bytes) however deep or long
#: the property path; longer paths keep their start and end and a hash of the whole.
_MAX_PAGE_NAME = 80
_UNSAFE_NAME = re.compile(r"[^a-z0-9_-]+")
#: C0/C1 controls but tab and newline: NUL, CR, escape sequences have no place in Markdown.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class _TypeText:
    json: str
    yaml: str
    long: str


def render_docs(schema: dict[str, Any], type_name: str) -> dict[str, str]:
    """`{"README.md": text, "<page>.md": text, ...}` for the docs folder; {} without properties."""
    if not isinstance(schema.get("properties"), dict):
        return {}
    return _DocsBuilder(schema, type_name).build()


def _escape_markdown(text: str) -> str:
    return "\\" + text if text and text[0] in _MARKDOWN_RESERVED else text


def markdown_text(text: str) -> str:
    """Schema text (a description) as Markdown that shows it as written: line ends made
    `\\n`, control characters (NUL, ESC, ...) removed, HTML escaped, and a line that would start
    a heading or a list escaped."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    return "\n".join(_escape_markdown(html.escape(line, quote=False)) for line in text.split("\n"))


def page_file_name(path: tuple[str, ...], taken: set[str]) -> str:
    """`docs/` file name for the page of the object at `path`: lower-case, safe characters,
    at most _MAX_PAGE_NAME characters, not in `taken` (lower-case names)."""
    base = _UNSAFE_NAME.sub("-", "-".join(path).lower()).strip("-") or "type"
    if len(base) + len(".md") > _MAX_PAGE_NAME:
        digest = sha256(base.encode())[:10]
        keep = (_MAX_PAGE_NAME - len(".md") - len(digest) - 2) // 2
        base = f"{base[:keep]}-{digest}-{base[-keep:]}"
    filename, n = f"{base}.md", 1
    while filename in taken:
        n += 1
        filename = f"{base}-{n}.md"
    return filename


def _code(value: Any) -> str:
    return f"<code>{html.escape(value if isinstance(value, str) else _json(value))}</code>"


def _json(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


class _DocsBuilder:
    def __init__(self, schema: dict[str, Any], type_name: str) -> None:
        self.schema = schema
        self.resolver = Resolver(schema)
        self.type_name = type_name
        self.pages: dict[str, str] = {}
        #: page key -> file name, assigned before rendering children. A definition's key is its
        #: `$ref`; an inline object's is the chain of keys that leads to it.
        self.page_files: dict[tuple[str, ...], str] = {}
        self.create_only = _pointer_set(schema.get("createOnlyProperties"))
        self.conditional_create_only = _pointer_set(schema.get("conditionalCreateOnlyProperties"))
        self.read_only = _pointer_set(schema.get("readOnlyProperties"))
        #: `$ref`s whose type text is being written: met again, the type is recursive.
        self.describing: set[str] = set()

    def build(self) -> dict[str, str]:
        properties = self.properties(self.schema, (), ())
        readme = render(
            TEMPLATES,
            "docs-page.md",
            root=True,
            title=self.type_name,
            type_name=self.type_name,
            description=_description(self.schema, self.schema),
            indent="    ",
            properties=properties,
            ref=self.ref(),
            getatt=self.getatt(),
        )
        return {"README.md": readme, **dict(sorted(self.pages.items()))}

    # ------------------------------------------------------------------ properties

    def properties(
        self, node: dict[str, Any], path: tuple[str, ...], key: tuple[str, ...]
    ) -> list[dict[str, Any]]:
        """Template rows for the writable properties of an object."""
        required: list[Any] = node["required"] if isinstance(node.get("required"), list) else []
        rows = []
        for name, prop in (node.get("properties") or {}).items():
            if not isinstance(prop, dict):
                continue
            pointer = "/properties/" + "/".join((*path, name))
            if pointer in self.read_only:
                continue
            resolved, _ = self.resolve(prop)
            text = self.type_text(prop, (*path, name), name, (*key, name))
            enum = resolved.get("enum") if isinstance(resolved.get("enum"), list) else None
            if pointer in self.create_only:
                update = _REPLACEMENT
            elif pointer in self.conditional_create_only:
                update = _SOME_INTERRUPTIONS
            else:
                update = _NO_INTERRUPTION
            rows.append(
                {
                    "name": name,
                    "anchor": name.lower(),
                    "heading": _escape_markdown(name),
                    "description": _description(prop, resolved),
                    "required": name in required,
                    "json": text.json,
                    "yaml": text.yaml,
                    "long": text.long,
                    "allowed_values": " | ".join(_code(v) for v in enum) if enum else "",
                    "min_length": _int_or_none(resolved.get("minLength")),
                    "max_length": _int_or_none(resolved.get("maxLength")),
                    "pattern": html.escape(resolved["pattern"])
                    if isinstance(resolved.get("pattern"), str)
                    else "",
                    "update_requires": update,
                }
            )
        return rows

    def resolve(self, node: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        """Follow `$ref`s; returns the target and the name of the last one followed."""
        target, ref = self.resolver.follow_named(node)
        if ref is None:
            return target, None
        tokens = pointer_tokens(urldefrag(ref)[1])
        return target, tokens[-1] if tokens else None

    def type_text(
        self, node: dict[str, Any], path: tuple[str, ...], name: str, key: tuple[str, ...]
    ) -> _TypeText:
        ref = node.get("$ref")
        node, ref_name = self.resolve(node)
        if ref_name is not None:
            recursive_object = isinstance(node.get("properties"), dict) and node["properties"]
            if str(ref) in self.describing and not recursive_object:
                # A list of lists of ...: named, not spelled out forever. (An object type
                # has its own page, which links to itself.)
                text = markdown_text(ref_name)
                return _TypeText(text, text, text)
            self.describing.add(str(ref))
            try:
                # A definition has one page wherever it is used.
                return self.type_text(node, (ref_name,), ref_name, ("$ref", str(ref)))
            finally:
                self.describing.discard(str(ref))
        declared = node.get("type")
        if isinstance(declared, list):
            types = [t for t in declared if isinstance(t, str)]
        elif isinstance(declared, str):
            types = [declared]
        else:
            options = [
                o
                for key in ("oneOf", "anyOf")
                for o in (node.get(key) or [])
                if isinstance(o, dict)
            ]
            if options:
                return _join([self.type_text(o, path, name, key) for o in options])
            types = [_implied_type(node)]
        single = len(types) == 1
        texts = [self.single_type_text(t, node, path, name, key, single=single) for t in types]
        return _join(texts)

    def single_type_text(
        self,
        kind: str,
        node: dict[str, Any],
        path: tuple[str, ...],
        name: str,
        key: tuple[str, ...],
        *,
        single: bool,
    ) -> _TypeText:
        if kind in _BASIC_TYPES:
            basic = _BASIC_TYPES[kind]
            return _TypeText(basic, basic, basic)
        if kind == "array":
            items: dict[str, Any] = node["items"] if isinstance(node.get("items"), dict) else {}
            inner = self.type_text(items, path, name, key)
            yaml = f"\n      - {inner.yaml}" if single else f"[ {inner.yaml}, ... ]"
            return _TypeText(f"[ {inner.json}, ... ]", yaml, f"List of {inner.long}")
        if kind == "object":
            if isinstance(node.get("properties"), dict) and node["properties"]:
                link = f'<a href="{self.page(node, path, key)}">{name}</a>'
                return _TypeText(link, link, link)
            values = [
                v for v in (node.get("patternProperties") or {}).values() if isinstance(v, dict)
            ]
            if isinstance(node.get("additionalProperties"), dict):
                values.append(node["additionalProperties"])
            if len(values) == 1:
                inner = self.type_text(values[0], path, name, key)
                return _TypeText("Map", "Map", f"Map of {inner.long}")
            return _TypeText("Map", "Map", "Map")
        return _TypeText("Unknown", "Unknown", "Unknown")

    def page(self, node: dict[str, Any], path: tuple[str, ...], key: tuple[str, ...]) -> str:
        """The page documenting an object type, rendered once; returns its file name."""
        existing = self.page_files.get(key)
        if existing is not None:
            return existing
        filename = page_file_name(path, {*self.page_files.values(), "readme.md"})
        self.page_files[key] = filename
        self.pages[filename] = render(
            TEMPLATES,
            "docs-page.md",
            root=False,
            title=f"{self.type_name} {' '.join(path)}",
            type_name=self.type_name,
            description=_description(node, node),
            indent="",
            properties=self.properties(node, path, key),
            ref=None,
            getatt=[],
        )
        return filename

    # ------------------------------------------------------------------ return values

    def ref(self) -> str | None:
        identifier = self.schema.get("primaryIdentifier")
        if isinstance(identifier, list) and len(identifier) == 1 and isinstance(identifier[0], str):
            tokens = pointer_tokens(identifier[0])
            if len(tokens) == 2 and tokens[0] == "properties":
                return markdown_text(tokens[1])
        return None

    def getatt(self) -> list[dict[str, str]]:
        out = []
        for pointer in self.schema.get("readOnlyProperties") or []:
            if not isinstance(pointer, str):
                continue
            tokens = pointer_tokens(pointer)
            if not tokens:
                continue
            prop = self.lookup(tokens)
            name = markdown_text(".".join(t for t in tokens[1:] if t != "*"))
            description = _description(prop, self.resolve(prop)[0]) if prop else None
            out.append(
                {
                    "name": name,
                    "description": description or f"Returns the <code>{name}</code> value.",
                }
            )
        return out

    def lookup(self, tokens: list[str]) -> dict[str, Any] | None:
        """The property a `/properties/A/B` pointer names, following `$ref`s and arrays."""
        if len(tokens) < 2 or tokens[0] != "properties":
            return None
        node: Any = (self.schema.get("properties") or {}).get(tokens[1])
        for token in tokens[2:]:
            if not isinstance(node, dict):
                return None
            node = self.resolve(node)[0]
            while isinstance(node.get("items"), dict):
                node = self.resolve(node["items"])[0]
            if token != "*":
                props = node.get("properties")
                node = props.get(token) if isinstance(props, dict) else None
        return node if isinstance(node, dict) else None


def _pointer_set(value: Any) -> frozenset[str]:
    return (
        frozenset(v for v in value if isinstance(v, str))
        if isinstance(value, list)
        else frozenset()
    )


def _description(prop: dict[str, Any], resolved: dict[str, Any]) -> str | None:
    """The description as Markdown (markdown_text), or None."""
    for node in (prop, resolved):
        text = node.get("description")
        if isinstance(text, str) and text.strip():
            return markdown_text(text.strip())
    return None


def _implied_type(node: dict[str, Any]) -> str:
    if "items" in node:
        return "array"
    enum = node.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
        return "string"
    return "object"


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _join(texts: list[_TypeText]) -> _TypeText:
    def join(parts: list[str]) -> str:
        unique: list[str] = []
        for part in parts:
            if part not in unique:
                unique.append(part)
        return ", ".join(unique)

    return _TypeText(
        join([t.json for t in texts]), join([t.yaml for t in texts]), join([t.long for t in texts])
    )
