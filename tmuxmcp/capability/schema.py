"""JSON Schemas for tool inputs and outputs, generated from the Structs.

MCP requires an object schema at the root, while msgspec emits a ``$ref`` to
the root Struct; the root component is inlined and the rest kept in
``$defs``. Input schemas come from the same Structs that ``msgspec.convert``
validates against, so the advertised schema and the enforced one cannot drift.

Every byte of an input schema sits in a model's context in every
conversation (issue 14.1), so the schema is written compactly without
changing what it accepts: an optional ``X | None`` becomes one schema whose
``type`` (or ``enum``) lists null (instead of an ``anyOf`` with a separate null
branch), ``"default": null`` and an empty ``required`` are left out (an
absent optional field is the null default), and titles of ``$defs`` go.
"""

from __future__ import annotations

from typing import Any

import msgspec

_NULL = {"type": "null"}


def _compact(node: Any) -> Any:
    """``node`` with nullable unions folded and redundant keys removed."""
    if isinstance(node, list):
        return [_compact(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _compact(value) for key, value in node.items()}
    branches = out.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2 and _NULL in branches:
        (other,) = [b for b in branches if b != _NULL]
        merged = {k: v for k, v in out.items() if k != "anyOf"}
        if isinstance(other.get("type"), str) and "anyOf" not in other:
            out = {**merged, **other, "type": [other["type"], "null"]}
        elif isinstance(other.get("enum"), list) and "type" not in other:
            out = {**merged, **other, "enum": [*other["enum"], None]}
    if out.get("default", 0) is None:
        del out["default"]
    if out.get("required") == []:
        del out["required"]
    return out


def object_schema(struct: type[msgspec.Struct]) -> dict[str, Any]:
    """The JSON Schema of ``struct`` with the root object inlined."""
    (ref,), components = msgspec.json.schema_components([struct], ref_template="#/$defs/{name}")
    name = ref["$ref"].rsplit("/", 1)[1]
    root = dict(components.pop(name))
    root.pop("title", None)
    root.pop("description", None)
    if components:
        root["$defs"] = {
            key: {k: v for k, v in c.items() if k != "title"} for key, c in components.items()
        }
    compact: dict[str, Any] = _compact(root)
    return compact
