"""The schema layer every engine and kind reads schemas through: one of each.

- `_json`: the one JSON reader, which remembers the line and column of every value and notices
  duplicate keys (`loads`, `read_text`, `load_object`);
- `_pointer`: the one JSON-pointer parser (`~0`/`~1` escapes);
- `_refs`: the one `$ref`/`allOf` resolver, with one depth limit and one answer for references
  that cannot be followed, and the walk over nested subschemas;
- `_depth`: how deep a schema goes once references are followed, and `$ref` loops that
  describe nothing (what validate reports, and what the models and example inputs take as any
  value);
- `_wording`: the one wording of a rule a value breaks (`cfngen validate` on a schema, and every
  check of a value against a schema: models, inputs, type configurations, custom resource
  properties);
- `_view`: typed views of a schema; each kind grows its own (the resource kind's
  `ResourceSchema` is in cfngen/_kinds/resource/_view.py).
"""

from __future__ import annotations

from cfngen._schema._depth import depth_checks, depth_problems, without_ref_loops
from cfngen._schema._json import (
    MAX_NESTING,
    DuplicateKey,
    JsonDocument,
    JsonSyntaxError,
    load_object,
    loads,
    nesting_too_deep,
    read_text,
)
from cfngen._schema._pointer import (
    escape_token,
    join_pointer,
    parent_pointer,
    pointer_tokens,
    property_name,
    unescape_token,
)
from cfngen._schema._refs import (
    COMBINERS,
    MAX_DEPTH,
    RefOutcome,
    Resolver,
    close_match,
    subschemas,
)
from cfngen._schema._view import Handler, SchemaView

__all__ = [
    "COMBINERS",
    "MAX_DEPTH",
    "MAX_NESTING",
    "DuplicateKey",
    "Handler",
    "JsonDocument",
    "JsonSyntaxError",
    "RefOutcome",
    "Resolver",
    "SchemaView",
    "close_match",
    "depth_checks",
    "depth_problems",
    "escape_token",
    "join_pointer",
    "load_object",
    "loads",
    "nesting_too_deep",
    "parent_pointer",
    "pointer_tokens",
    "property_name",
    "read_text",
    "subschemas",
    "unescape_token",
    "without_ref_loops",
]
