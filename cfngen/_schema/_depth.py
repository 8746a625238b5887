"""How deep a schema goes once `$ref`s are followed, and `$ref` loops that describe nothing.

Everything downstream (the meta-schema validator on example values, the model generator, the
docs and example-input writers) recurses once or more per level, so a schema nested a few
hundred levels deep, inline or through a chain of definitions, would end in a RecursionError
somewhere inside. Measured here once, without recursion, on the graph of subschemas: an edge
from each schema to its properties, items, map values, combiner branches and `$ref` target.
Recursive types (a Node whose Children are Nodes) are cycles in that graph: fine, every
consumer stops where it meets a schema it is already inside, so a cycle counts as deep as it
has schemas. A cycle made of `$ref`s and combiners alone never says what a value is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from cfngen._diagnostics import ACCEPTED, Problem
from cfngen._schema._pointer import join_pointer, pointer_tokens
from cfngen._schema._refs import COMBINERS, Resolver, subschemas

#: The deepest chain of schemas (counting each `$ref` followed) cfngen accepts. Real schemas
#: reach 39 (cfn-lint's 1898 AWS schemas, WAFv2 and Lex); everything downstream works to 150.
MAX_DEPTH = 100


def depth_checks(schema: dict[str, Any], resolver: Resolver) -> Iterator[Problem]:
    """depth_problems as findings: each loop a warning (the models take any value there), a
    schema nested too deep an error."""
    loops, too_deep = depth_problems(schema, resolver)
    for pointer in loops:
        # A -> A, A -> B -> A, A = allOf[B], B = allOf[A] (EC2::VerifiedAccessTrustProvider's
        # SseSpecification is one): nothing says what the value is, so the models take any
        # value there. Through properties or items it is a recursive type, which is fine.
        yield Problem(
            ACCEPTED,
            pointer,
            "this $ref leads back to itself through $ref, allOf, anyOf or oneOf alone, so the "
            "schema never says what the value is (the models accept any value here)",
            "give the definition a type, properties or items, or point the $ref at what it "
            "was meant to name",
            code="cfngen/ref-cycle",
        )
    if too_deep is not None:
        pointer, depth = too_deep
        yield Problem(
            "error",
            pointer,
            f"the schema nests {depth} levels deep here (following $refs); cfngen handles "
            f"{MAX_DEPTH}",
            "real schemas nest at most about 15 levels: flatten the nesting, or break a long "
            "chain of definitions",
            code="cfngen/schema-too-deep",
        )


def depth_problems(
    schema: dict[str, Any], resolver: Resolver
) -> tuple[list[str], tuple[str, int] | None]:
    """(pointers of the `$ref`s that loop back to themselves through `$ref`s and combiners
    alone, (the pointer where the deepest chain passes MAX_DEPTH, its depth) or None)."""
    graph = _Graph(schema, resolver)
    return graph.loops(), graph.too_deep()


def without_ref_loops(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every `$ref` that loops back to itself (see depth_problems) replaced by
    `{}`, any value: what the models and example inputs make of it. The schema itself when
    there is none (a copy is made only along the way to each loop).

    Remembered for the last few schemas (by identity: treat them as frozen), since the models,
    each example input and each conformance check ask about the same one.
    """
    cached = _LOOP_FREE.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    out = schema
    for pointer in _Graph(schema, Resolver(schema), nested=False).loops():
        tokens = pointer_tokens(pointer)[:-1]  # the node holding the $ref
        out = _replaced(out, tokens)
    _LOOP_FREE[id(schema)] = (schema, out)
    while len(_LOOP_FREE) > 8:
        del _LOOP_FREE[next(iter(_LOOP_FREE))]
    return out


_LOOP_FREE: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}


def _replaced(node: Any, tokens: list[str]) -> Any:
    if not tokens:
        return {k: v for k, v in node.items() if k != "$ref"}
    if isinstance(node, list):
        index = int(tokens[0])
        return [*node[:index], _replaced(node[index], tokens[1:]), *node[index + 1 :]]
    return {**node, tokens[0]: _replaced(node[tokens[0]], tokens[1:])}


class _Graph:
    """The subschemas of a schema, numbered, with their inline and nested children."""

    def __init__(self, schema: dict[str, Any], resolver: Resolver, *, nested: bool = True):
        """`nested=False`: only the inline edges, all that loops() needs."""
        number: dict[int, int] = {}  # id(schema) -> its number
        self.nodes: list[dict[str, Any]] = []
        self.pointers: list[str] = []
        for pointer, node in _documents(schema):
            if id(node) not in number:
                number[id(node)] = len(self.nodes)
                self.nodes.append(node)
                self.pointers.append(pointer)
        targets: dict[str, Any] = {}
        self.inline: list[list[int]] = []
        below: list[list[int]] = []
        for node in self.nodes:
            self.inline.append(
                [
                    number[id(c)]
                    for c in _inline_children(node, resolver, targets)
                    if id(c) in number
                ]
                if "$ref" in node or any(k in node for k in COMBINERS)
                else []
            )
            if nested:
                below.append([number[id(c)] for c in _nested_children(node) if id(c) in number])
        self.children = [[*a, *b] for a, b in zip(self.inline, below, strict=nested)]

    def loops(self) -> list[str]:
        found = []
        # Only schemas with a $ref or a combiner have inline edges: the loops are among them.
        keys = [k for k, edges in enumerate(self.inline) if edges]
        for component in _components(keys, self.inline.__getitem__):
            members = set(component)
            for key in component:
                node = self.nodes[key]
                if isinstance(node.get("$ref"), str) and members.intersection(self.inline[key]):
                    found.append(join_pointer(self.pointers[key], "$ref"))
        return sorted(found)

    def too_deep(self) -> tuple[str, int] | None:
        if len(self.nodes) <= MAX_DEPTH:  # no chain can be longer than the schemas there are
            return None
        depth = _longest_paths(list(range(len(self.nodes))), self.children.__getitem__)
        deepest = max(range(len(self.nodes)), key=depth.__getitem__)
        if depth[deepest] <= MAX_DEPTH:
            return None
        # Walk down the deepest chain to where it crosses the line: that is what to change.
        key = deepest
        for _ in range(MAX_DEPTH - 1):
            key = max(self.children[key], key=depth.__getitem__)
        return self.pointers[key], depth[deepest]


def _documents(schema: dict[str, Any]) -> Iterable[tuple[str, dict[str, Any]]]:
    """Every subschema: the schema's, its typeConfiguration's and its list handler schema's."""
    yield from subschemas(schema, "")
    config = schema.get("typeConfiguration")
    if isinstance(config, dict):
        yield from subschemas(config, "/typeConfiguration")
    handlers = schema.get("handlers")
    listing = handlers.get("list") if isinstance(handlers, dict) else None
    if isinstance(listing, dict) and isinstance(listing.get("handlerSchema"), dict):
        yield from subschemas(listing["handlerSchema"], "/handlers/list/handlerSchema")


def _inline_children(
    node: dict[str, Any], resolver: Resolver, targets: dict[str, Any]
) -> Iterable[Any]:
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref not in targets:
            targets[ref] = resolver.resolve_ref(ref).target
        yield targets[ref]
    for key in COMBINERS:
        branches = node.get(key)
        if isinstance(branches, list):
            yield from branches


def _nested_children(node: dict[str, Any]) -> Iterable[Any]:
    for key in ("properties", "patternProperties"):
        values = node.get(key)
        if isinstance(values, dict):
            yield from values.values()
    for key in ("items", "additionalProperties"):
        value = node.get(key)
        if isinstance(value, list):
            yield from value
        elif isinstance(value, dict):
            yield value


def _components(keys: list[int], edges: Callable[[int], list[int]]) -> list[list[int]]:
    """Strongly connected components (Tarjan's algorithm, iterative), each emitted after every
    component it reaches; only the ones with a cycle (two or more members, or a self-loop)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    for root in keys:
        if root in index:
            continue
        work = [(root, iter(edges(root)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            key, pending = work[-1]
            child = next(pending, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges(child))))
                elif child in on_stack:
                    low[key] = min(low[key], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[key])
            if low[key] == index[key]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == key:
                        break
                if len(component) > 1 or key in edges(key):
                    out.append(component)
    return out


def _longest_paths(keys: list[int], edges: Callable[[int], list[int]]) -> list[int]:
    """For each node, the most schemas on a path from it, a cycle counting once per member."""
    component_of: dict[int, int] = {}
    cycles = _components(keys, edges)
    for number, component in enumerate(cycles):
        for key in component:
            component_of[key] = number
    depth: dict[int, int] = {}
    # Iterative post-order: a node's depth is known once its children's are.
    for root in keys:
        if root in depth:
            continue
        work = [(root, False)]
        while work:
            key, done = work.pop()
            if key in depth:
                continue
            own = component_of.get(key)
            outside = [c for c in edges(key) if own is None or component_of.get(c) != own]
            if not done:
                work.append((key, True))
                work.extend((c, False) for c in outside if c not in depth)
                continue
            below = max((depth.get(c, 0) for c in outside), default=0)
            if own is None:
                depth[key] = 1 + below
            else:  # the whole cycle: its members, then the deepest way out of any of them
                members = cycles[own]
                exits = [c for m in members for c in edges(m) if component_of.get(c) != own]
                if any(c not in depth for c in exits):
                    work.append((key, True))
                    work.extend((c, False) for c in exits if c not in depth)
                    continue
                value = len(members) + max((depth[c] for c in exits), default=0)
                for member in members:
                    depth[member] = value
    return [depth[key] for key in keys]
