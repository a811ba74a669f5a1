"""JSON Schemas for tool inputs and outputs, generated from the Structs.

MCP requires an object schema at the root, while msgspec emits a ``$ref`` to
the root Struct; the root component is inlined and the rest kept in
``$defs``. Input schemas come from the same Structs that ``msgspec.convert``
validates against, so the advertised schema and the enforced one cannot drift.

Every byte of an input schema sits in a model's context in every
conversation (issue 14.1), and clients map schemas onto dialects that allow
one ``type`` per schema (the Inspector's ``type-union`` warning). Two rules,
neither changing what a call may do:

Rule 1 (input): an optional ``X | None`` field whose default is null is
advertised as plain ``X``. Null and absence are the same argument there (the
decoded default is None either way), so the schema advertises absence, the
one spelling every dialect has; the decoder still accepts an explicit null.
Every other nullable (a required one, or one whose default is not null) keeps
msgspec's portable ``anyOf`` with a null branch, because there null means
something absence does not.

Rule 2 (output): a nullable result field keeps the ``anyOf`` with a null
branch, since results carry the null.

In both, ``"default": null``, an empty ``required`` and the titles of
``$defs`` go: they say nothing the rest does not.
"""

from __future__ import annotations

from typing import Any

import msgspec

_NULL = {"type": "null"}


def _without_null(node: dict[str, Any]) -> dict[str, Any] | None:
    """Rule 1: the non-null branch of a nullable ``node`` with a null default, else None."""
    branches = node.get("anyOf")
    if not (isinstance(branches, list) and len(branches) == 2 and _NULL in branches):
        return None
    if node.get("default") is not None:
        return None
    (other,) = [b for b in branches if b != _NULL]
    rest = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
    return {**rest, **other}


def _compact(node: Any, *, inputs: bool) -> Any:
    """``node`` with redundant keys removed and, in inputs, optional nulls folded away."""
    if isinstance(node, list):
        return [_compact(item, inputs=inputs) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _compact(value, inputs=inputs) for key, value in node.items()}
    properties = out.get("properties")
    if inputs and isinstance(properties, dict):
        required = set(out.get("required", ()))
        for name, schema in properties.items():
            folded = None if name in required else _without_null(schema)
            if folded is not None:
                properties[name] = folded
    if out.get("default", 0) is None:
        del out["default"]
    if out.get("required") == []:
        del out["required"]
    return out


def _object_schema(struct: type[msgspec.Struct], *, inputs: bool) -> dict[str, Any]:
    (ref,), components = msgspec.json.schema_components([struct], ref_template="#/$defs/{name}")
    name = ref["$ref"].rsplit("/", 1)[1]
    root = dict(components.pop(name))
    root.pop("title", None)
    root.pop("description", None)
    if components:
        root["$defs"] = {
            key: {k: v for k, v in c.items() if k != "title"} for key, c in components.items()
        }
    compact: dict[str, Any] = _compact(root, inputs=inputs)
    return compact


def input_schema(struct: type[msgspec.Struct]) -> dict[str, Any]:
    """The ``inputSchema`` of an argument Struct, root inlined (Rule 1)."""
    return _object_schema(struct, inputs=True)


def output_schema(struct: type[msgspec.Struct]) -> dict[str, Any]:
    """The ``outputSchema`` of a result Struct, root inlined (Rule 2)."""
    return _object_schema(struct, inputs=False)
