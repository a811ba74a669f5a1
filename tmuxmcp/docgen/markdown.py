"""Markdown building blocks shared by the docs renderers.

Pure text: each helper turns one declared value into the words every
generated table uses for it, so two tables never word the same property
differently.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tmuxmcp.capability.model import ToolSpec
from tmuxmcp.capability.vocabulary import EFFECT_ORDER, Toolset

_CODE_SPAN = re.compile(r"(`[^`]*`)")


def cell(text: str) -> str:
    """Text made safe for one Markdown table cell.

    A ``|`` outside a code span would end the cell and is escaped; inside a
    code span Python-Markdown keeps it literal, and an escape would show.
    """
    parts = _CODE_SPAN.split(text.replace("\n", " "))
    return "".join(p if i % 2 else p.replace("|", "\\|") for i, p in enumerate(parts))


def effects(spec: ToolSpec[Any, Any]) -> str:
    """The tmux effects, in the vocabulary's order."""
    return ", ".join(e.value for e in EFFECT_ORDER if e in spec.effects)


def outputs(spec: ToolSpec[Any, Any]) -> str:
    """The output classes, sorted."""
    return ", ".join(sorted(o.value for o in spec.outputs))


def yes(flag: bool) -> str:
    return "yes" if flag else "no"


def by_toolset(
    tools: Sequence[ToolSpec[Any, Any]],
) -> list[tuple[Toolset, list[ToolSpec[Any, Any]]]]:
    """Every toolset with its tools in definition order (a toolset may have none)."""
    return [(t, [s for s in tools if s.toolset is t]) for t in Toolset]
