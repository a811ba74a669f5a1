"""Claude Code's allow rule for the observe-only tools (docs/quickstart.md), from the definition.

Claude Code asks before every MCP tool call unless a ``permissions.allow``
rule names the tool; its prompt does not read the annotations. The rule the
quickstart shows is generated here, so it cannot drift from the declared
authority (CM-2, CM-7).

Rule 1, which tools: a tool is observe-only when its declared process reach
is ``none``, its tmux effect is exactly ``observe``, and every nested
operation it may invoke is observe-only too (an aggregate carries the
authority of what it calls). Nothing else decides: not the toolset
(``wait_for_command`` is in ``execute`` but only reads a run's output), not
the annotations (they depend on the start).

Rule 2, say what they return: observe-only is about what a call does, not
what it returns. The table beside the rule says, per tool, whether its
result can carry text a pane program chose (untrusted content) and whether
it may expose secrets, as the definition derives them from the result type.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tmuxmcp.capability.model import ToolSpec
from tmuxmcp.capability.vocabulary import Effect, Reach
from tmuxmcp.docgen.markdown import outputs, yes

SERVER_NAME = "tmux"
"""The name the quickstart registers the server under (``claude mcp add ... tmux``)."""


def observe_only(tools: Sequence[ToolSpec[Any, Any]]) -> list[ToolSpec[Any, Any]]:
    """The observe-only tools of ``tools``, in definition order (Rule 1)."""
    by_name = {spec.name: spec for spec in tools}

    def direct(spec: ToolSpec[Any, Any]) -> bool:
        return spec.reach is Reach.NONE and spec.effects == frozenset({Effect.OBSERVE})

    return [
        spec
        for spec in tools
        if direct(spec) and all(direct(by_name[name]) for name in spec.nested)
    ]


def rule_name(tool: str, server: str = SERVER_NAME) -> str:
    """Claude Code's name of an MCP tool in a permission rule."""
    return f"mcp__{server}__{tool}"


def allow_rule(tools: Sequence[ToolSpec[Any, Any]]) -> str:
    """The ``.claude/settings.json`` snippet and the table of what each allowed tool returns."""
    chosen = observe_only(tools)
    settings = {"permissions": {"allow": [rule_name(spec.name) for spec in chosen]}}
    rows = [
        "```json",
        json.dumps(settings, indent=2),
        "```",
        "",
        "| tool | toolset | output classes | untrusted content | may expose secrets |",
        "|---|---|---|---|---|",
    ]
    rows += [
        f"| [`{spec.name}`](tools.md#{spec.name}) | {spec.toolset.value} | {outputs(spec)} | "
        f"{yes(spec.returns_untrusted_content)} | {yes(spec.may_expose_secrets)} |"
        for spec in chosen
    ]
    return "\n".join(rows)
