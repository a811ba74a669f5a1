"""A JSON Schema, stated in a few words for a parameter table.

The schemas are the ones ``tools/list`` advertises (``capability.schema``);
this module only words their type and constraints. Long enums are cut after
``MAX_ENUM_SHOWN`` values and point to capabilities.json, which has them all.
"""

from __future__ import annotations

import json
from typing import Any

MAX_ENUM_SHOWN = 12

_BOUNDS = (
    ("minLength", "min length"),
    ("maxLength", "max length"),
    ("minimum", "≥"),
    ("exclusiveMinimum", ">"),
    ("maximum", "≤"),
    ("exclusiveMaximum", "<"),
    ("minItems", "min items"),
    ("maxItems", "max items"),
)


def schema_type(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A short statement of one JSON Schema's type and constraints."""
    if "$ref" in schema:
        return schema_type(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    if "anyOf" in schema:
        branches = [b for b in schema["anyOf"] if b.get("type") != "null"]
        text = " or ".join(schema_type(b, defs) for b in branches)
        return text + (" or null" if len(branches) < len(schema["anyOf"]) else "")
    parts: list[str] = []
    if "enum" in schema:
        values = [json.dumps(v) for v in schema["enum"]]
        if len(values) > MAX_ENUM_SHOWN:
            shown = ", ".join(values[:MAX_ENUM_SHOWN])
            parts.append(f"one of {len(values)} values ({shown}, …; all in capabilities.json)")
        else:
            parts.append("one of " + ", ".join(values))
    else:
        parts.append(str(schema.get("type", "any")))
    if "pattern" in schema:
        parts.append(f"pattern `{schema['pattern']}`")
    for key, word in _BOUNDS:
        if key in schema:
            parts.append(f"{word} {schema[key]}")
    if "items" in schema:
        parts.append("items: " + schema_type(schema["items"], defs))
    return ", ".join(parts)


def constraints(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """The type and constraints, and the default if the schema has one."""
    text = schema_type(schema, defs)
    if "default" in schema:
        text += f"; default {json.dumps(schema['default'])}"
    return text
