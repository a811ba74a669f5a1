"""JSON Schemas for tool inputs and outputs, generated from the Structs.

MCP requires an object schema at the root, while msgspec emits a ``$ref`` to
the root Struct; the root component is inlined and the rest kept in
``$defs``. Input schemas come from the same Structs that ``msgspec.convert``
validates against, so the advertised schema and the enforced one cannot drift.
"""

from __future__ import annotations

from typing import Any

import msgspec


def object_schema(struct: type[msgspec.Struct]) -> dict[str, Any]:
    """The JSON Schema of ``struct`` with the root object inlined."""
    (ref,), components = msgspec.json.schema_components([struct], ref_template="#/$defs/{name}")
    name = ref["$ref"].rsplit("/", 1)[1]
    root = dict(components.pop(name))
    root.pop("title", None)
    root.pop("description", None)
    if components:
        root["$defs"] = components
    return root
