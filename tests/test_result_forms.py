"""Each client gets a large result whole, in every form its version has (issue 31.1).

Clients read one form or the other: Claude Code, Codex, VS Code and Copilot
CLI give the model only ``structuredContent`` when there is one; Kimi Code,
Open WebUI and clients older than 2025-06-18 read only the text block. So a
large result is never shortened in either form (``server.tool_result``): the
SDK client, which checks ``structuredContent`` against the tool's output
schema, gets every line of a 10,000-line capture there and in the text
block. A client that negotiated a version before structured output
(2025-03-26) gets the text block alone, whole, and no output schemas
(``protocol.versions.for_version``): a second copy it would never read is
half of the line.
"""

from __future__ import annotations

import msgspec

from tests.bounds_support import fill_and_wait
from tests.raw_client import RawClient
from tests.support import PrivateTmux, serve, structured
from tmuxmcp.protocol.results import CallToolResult, ListToolsResult, TextContent, Tool
from tmuxmcp.protocol.versions import HANDSHAKE_VERSIONS, STRUCTURED_SINCE, for_version
from tmuxmcp.tools.capture import MAX_CAPTURE_BYTES

LINES = 10_000
ROW = "line %g lorem ipsum dolor sit amet"


def test_before_structured_output_a_result_is_its_text_block_and_a_tool_has_no_schema() -> None:
    result = CallToolResult(
        content=[TextContent("line 1\nline 2")],
        structured_content=msgspec.Raw(b'{"text":"line 1\\nline 2"}'),
        is_error=False,
    )
    tools = ListToolsResult(
        tools=[
            Tool(
                name="t",
                title="T",
                description="d",
                input_schema={"type": "object"},
                output_schema={"type": "object"},
            )
        ]
    )
    for version in HANDSHAKE_VERSIONS:
        shaped = for_version(result, version)
        listed = for_version(tools, version)
        assert isinstance(shaped, CallToolResult) and isinstance(listed, ListToolsResult)
        assert shaped.content == result.content
        if version < STRUCTURED_SINCE:
            assert shaped.structured_content is msgspec.UNSET, version
            assert listed.tools[0].output_schema is None, version
        else:
            assert shaped is result and listed is tools, version


def _pane_of_rows(tmux: PrivateTmux) -> str:
    tmux.new_session("seed")
    tmux.bare("set-option", "-g", "history-limit", "30000")
    pane = tmux.new_session("rows", "tmuxmcp", "-x", "200", "-y", "50", "sh")["pane_id"]
    tmux.bare("resize-window", "-t", pane, "-x", "200", "-y", "50")
    return pane


def _bare_rows(tmux: PrivateTmux, pane: str) -> list[str]:
    bare = tmux.bare("capture-pane", "-p", "-t", pane, "-S", str(-LINES)).stdout
    rows = bare.rstrip("\n").split("\n")
    while rows and not rows[-1].strip():
        rows.pop()
    return rows


ARGS = {"start": -LINES, "max_lines": LINES + 50, "max_chars": MAX_CAPTURE_BYTES}


async def test_a_client_reading_only_the_text_gets_every_line_of_a_large_capture(
    private_tmux: PrivateTmux,
) -> None:
    """A 2025-03-26 client knows no structuredContent: the text block is all it reads."""
    pane = _pane_of_rows(private_tmux)
    await fill_and_wait(private_tmux, pane, f"seq -f '{ROW}' 1 12000")
    rows = _bare_rows(private_tmux, pane)
    with RawClient(private_tmux.env, initialize=False) as client:
        opened = client.request(
            "initialize",
            {
                "protocolVersion": "2025-03-26",
                "capabilities": {},
                "clientInfo": {"name": "content-only", "version": "0"},
            },
        )
        assert opened["result"]["protocolVersion"] == "2025-03-26"
        client.notify("notifications/initialized")
        listed = client.request("tools/list", {})["result"]["tools"]
        result = client.call("capture_pane", {"pane_id": pane, **ARGS})
    assert [t["name"] for t in listed if "outputSchema" in t] == []
    assert result["isError"] is False
    assert "structuredContent" not in result  # the half of the line it would not read
    text = "\n".join(block["text"] for block in result["content"] if block["type"] == "text")
    assert text == "\n".join(rows)
    assert len(rows) >= LINES - 50


async def test_the_sdk_client_checks_a_large_capture_and_both_forms_hold_every_line(
    private_tmux: PrivateTmux,
) -> None:
    """The SDK client validates structuredContent against the output schema (it raises
    on a mismatch) and the text block holds the same lines."""
    pane = _pane_of_rows(private_tmux)
    await fill_and_wait(private_tmux, pane, f"seq -f '{ROW}' 1 12000")
    rows = _bare_rows(private_tmux, pane)
    async with serve(private_tmux) as session:
        await session.list_tools()  # the client keeps the output schemas it checks against
        result = await session.call_tool("capture_pane", {"pane_id": pane, **ARGS})
    got = structured(result)
    assert got["truncated"] is False
    assert got["text"] == "\n".join(rows)
    (block,) = result.content
    assert block.type == "text" and block.text == got["text"]
