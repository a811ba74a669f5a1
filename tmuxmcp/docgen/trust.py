"""The trust model's tables (docs/trust.md): who acts with the user's authority, what discloses.

Both tables select tools by their declared reach and output flags (CM-7); a
tool appears here exactly when its declaration says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tmuxmcp.capability.model import ToolSpec
from tmuxmcp.capability.vocabulary import REACH_MEANING, Reach
from tmuxmcp.docgen.markdown import cell, outputs, yes


def authority_table(tools: Sequence[ToolSpec[Any, Any]]) -> str:
    """Tools that start or drive a pane process: they act with the tmux user's authority."""
    rows = ["| tool | toolset | process reach | what that means |", "|---|---|---|---|"]
    for spec in tools:
        if spec.reach is not Reach.NONE:
            rows.append(
                f"| [`{spec.name}`](tools.md#{spec.name}) | {spec.toolset.value} | "
                f"`{spec.reach.value}` | {cell(REACH_MEANING[spec.reach])} |"
            )
    return "\n".join(rows)


def disclosure_table(tools: Sequence[ToolSpec[Any, Any]]) -> str:
    """Tools that may return untrusted content or expose secrets."""
    rows = [
        "| tool | toolset | output classes | untrusted content | secrets |",
        "|---|---|---|---|---|",
    ]
    for spec in tools:
        if spec.returns_untrusted_content or spec.may_expose_secrets:
            rows.append(
                f"| [`{spec.name}`](tools.md#{spec.name}) | {spec.toolset.value} | "
                f"{outputs(spec)} | {yes(spec.returns_untrusted_content)} | "
                f"{yes(spec.may_expose_secrets)} |"
            )
    return "\n".join(rows)
