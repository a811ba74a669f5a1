"""Byte budgets of what a model reads (issue 14.1, 14.2), over a real stdio client.

A client puts the tool list in a model's context in every conversation:
Claude Code sends each tool's name, description and input schema as compact
JSON (no output schema, no annotations). It shows a tool result's
structuredContent only; other clients show the text. So the tool list as the
model gets it, and both forms of ``server_info``'s default result, are held to
budgets here, while every disclosure CM-7 requires stays in them.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult

from tests.support import PrivateTmux, serve, structured
from tmuxmcp.capability.vocabulary import EFFECT_ORDER, Reach
from tmuxmcp.definition import BY_NAME, DEFINITION
from tmuxmcp.tools.inspect import MAX_SERVER_INFO_BYTES

TOOL_LIST_BUDGET = 24_000
"""Bytes of the default full tool list as a model receives it (issue 14.1)."""


def _compact(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def _forms(result: CallToolResult) -> tuple[int, int, str]:
    assert not result.is_error, result
    (text,) = [c.text for c in result.content if c.type == "text"]
    return _compact(result.structured_content), len(text.encode()), text


async def test_the_tool_list_a_model_reads_fits_the_budget(private_tmux: PrivateTmux) -> None:
    """Issue 14.1: names, descriptions and input schemas of every tool, compact JSON."""
    async with serve(private_tmux) as session:
        tools = (await session.list_tools()).tools
    assert [t.name for t in tools] == [spec.name for spec in DEFINITION], "full surface"
    as_sent = [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema}
        for t in tools
    ]
    size = _compact(as_sent)
    print(f"tool list as a model reads it: {size} bytes for {len(tools)} tools")
    assert size <= TOOL_LIST_BUDGET, f"{size} bytes > {TOOL_LIST_BUDGET}"
    for tool in tools:  # the shorter wording keeps every CM-7 disclosure
        spec = BY_NAME[tool.name]
        text = tool.description or ""
        assert text.startswith(f"Reach {spec.reach.value} ("), tool.name
        effects = ", ".join(e.value for e in EFFECT_ORDER if e in spec.effects)
        assert f"tmux effect {effects}." in text, tool.name
        assert ("untrusted content" in text.lower()) is spec.returns_untrusted_content, tool.name
        assert ("secrets" in text) is spec.may_expose_secrets, tool.name
        assert ("tmux user's authority" in text) is (spec.reach is not Reach.NONE), tool.name


async def test_server_info_by_default_is_compact_in_both_forms(private_tmux: PrivateTmux) -> None:
    """Issue 14.2: socket, provenance, version, verification, toolsets, names; within budget."""
    private_tmux.start_foreign_server()  # unknown provenance: teardown is off, with its reason
    async with serve(private_tmux) as session:
        listed = [t.name for t in (await session.list_tools()).tools]
        result = await session.call_tool("server_info", {})
    structured_size, text_size, text = _forms(result)
    print(f"server_info default: structuredContent {structured_size} B, text {text_size} B")
    assert structured_size <= MAX_SERVER_INFO_BYTES
    assert text_size <= MAX_SERVER_INFO_BYTES
    body = structured(result)
    info = body["info"]
    assert info["surface"]["tools"] == listed
    assert info["server"]["provenance"] == "unknown"
    assert info["server"]["tmux_version"] in private_tmux.bare("-V").stdout
    assert info["socket"]["path"].startswith(private_tmux.directory)
    assert "verified" in body["sink_claims"]
    (off,) = info["surface"]["toolsets_off"]
    assert off["toolset"] == "teardown"
    assert "provenance is unknown" in off["reason"]
    assert "teardown" not in info["surface"]["toolsets"]
    # The text says the same facts in prose, not as a JSON document.
    assert not text.lstrip().startswith("{")
    assert all(name in text for name in listed)
    assert off["reason"] in text
    assert info["socket"]["path"] in text
    assert "provenance unknown" in text
    assert "not a sandbox" in text


async def test_server_info_detail_adds_each_tools_declared_properties(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 14.2: the per-tool surface (CM-2 properties, CM-4 annotations) is behind detail."""
    async with serve(private_tmux) as session:
        compact = await session.call_tool("server_info", {"detail": False})
        detailed = await session.call_tool("server_info", {"detail": True})
    tools = structured(detailed)["info"]["surface"]["tools"]
    assert [t["name"] for t in tools] == structured(compact)["info"]["surface"]["tools"]
    for tool in tools:
        spec = BY_NAME[tool["name"]]
        assert tool["process_reach"] == spec.reach.value
        assert tool["returns_untrusted_content"] is spec.returns_untrusted_content
        assert set(tool["annotations"]) == {
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        }
    _, _, text = _forms(detailed)
    run = next(line for line in text.splitlines() if line.startswith("- run_command:"))
    assert "reach pane-command" in run
    assert "readOnlyHint=no" in run
