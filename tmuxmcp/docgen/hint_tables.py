"""The annotation tables: each tool's whole-call hints in the documented scenarios (CM-4).

Rendering only. The scenarios and the hints in them come from
``capability.scenarios``, which computes them as startup does; nothing here
decides a hint.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tmuxmcp.capability.annotations import CAUTIOUS, Hints
from tmuxmcp.capability.manifest import hints_json
from tmuxmcp.capability.model import ToolSpec
from tmuxmcp.capability.scenarios import only_if_named, scenario_hints, scenarios

_WIRE_NAMES = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _hint_words(hints: Hints | None) -> str:
    if hints is None:
        return "— (its presence voids the evidence)"
    if hints == CAUTIOUS:
        return "cautious"
    words = [
        word
        for word, narrowed in (
            ("read-only", hints.read_only),
            ("non-destructive", not hints.destructive),
            ("idempotent", hints.idempotent),
            ("closed-world", not hints.open_world),
        )
        if narrowed
    ]
    return "narrowed: " + ", ".join(words)


def annotation_table(tools: Sequence[ToolSpec[Any, Any]]) -> str:
    """Per tool, a one-word summary of its hints in every scenario."""
    cases = scenarios(tools)
    rows = [
        "| tool | " + " | ".join(c.title for c in cases) + " |",
        "|---|" + "---|" * len(cases),
    ]
    for spec in tools:
        cells = []
        for case in cases:
            text = _hint_words(scenario_hints(spec, case, tools))
            if only_if_named(spec, case):
                text += " (only if named)"
            cells.append(text)
        rows.append(f"| [`{spec.name}`](#{spec.name}) | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def tool_hints_table(spec: ToolSpec[Any, Any], tools: Sequence[ToolSpec[Any, Any]]) -> list[str]:
    """The rows of one tool's hint-by-scenario table, for its reference section."""
    cases = scenarios(tools)
    rows = [
        "| hint | " + " | ".join(c.title for c in cases) + " |",
        "|---|" + "---|" * len(cases),
    ]
    per_case = [scenario_hints(spec, c, tools) for c in cases]
    for wire in _WIRE_NAMES:
        cells = []
        for case, hints in zip(cases, per_case, strict=True):
            if hints is None:
                cells.append("—")
                continue
            value = "true" if hints_json(hints)[wire] else "false"
            cells.append(value + (" (only if named)" if only_if_named(spec, case) else ""))
        rows.append(f"| `{wire}` | " + " | ".join(cells) + " |")
    return rows
