"""The 2026-07-28 era over real stdio: discovery, no handshake, per-request envelopes (issue 19.1).

Claude Code 2.1.332 speaks only this form (research/mcp-wire-clients.md):
``server/discover`` with a string id, then every request with the envelope
in ``params._meta``. The official SDK client's ``discover()`` opens the same
era. Effects are read back with bare tmux; result shapes are checked with
the SDK's own 2026-07-28 schema (``mcp_types.methods``), not with ours.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
from mcp import ClientSession
from mcp.client.stdio import stdio_client
from mcp_types import TextResourceContents
from mcp_types import methods as sdk_methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tests.process_support import alive
from tests.raw_client import RawClient
from tests.support import PrivateTmux, logged_pids, serve, server_params, stalling_tmux, structured

(MODERN,) = MODERN_PROTOCOL_VERSIONS


@asynccontextmanager
async def discovered(tmux: PrivateTmux, *args: str) -> AsyncIterator[ClientSession]:
    """An SDK client session that opened the 2026-07-28 era with ``server/discover``."""
    async with (
        stdio_client(server_params(tmux.env, *args)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.discover()
        yield session


async def test_a_2026_client_discovers_lists_calls_and_reads(private_tmux: PrivateTmux) -> None:
    """CM-3, CM-5: the same surface in both eras; calls and resources reach tmux."""
    async with serve(private_tmux, "--toolsets", "all") as session:
        handshake_names = [t.name for t in (await session.list_tools()).tools]
    ids = private_tmux.new_session("modern")
    private_tmux.bare("send-keys", "-t", ids["pane_id"], "-l", "echo from-the-pane")
    await private_tmux.wait_for_screen(ids["pane_id"], "from-the-pane")
    async with discovered(private_tmux, "--toolsets", "all") as session:
        assert [t.name for t in (await session.list_tools()).tools] == handshake_names
        sessions = structured(await session.call_tool("list_sessions", {}))["sessions"]
        assert [s["session_id"] for s in sessions] == [ids["session_id"]]
        uris = [r.uri for r in (await session.list_resources()).resources]
        # The pane index first, always listed (issue 29.3), then the pane.
        assert uris == ["tmux://panes", f"tmux://pane/{ids['pane_id'].removeprefix('%')}"]
        (read,) = (await session.read_resource(uris[1])).contents
        visible = private_tmux.bare("capture-pane", "-p", "-t", ids["pane_id"]).stdout
        assert isinstance(read, TextResourceContents)
        assert "from-the-pane" in read.text
        assert read.text.split() == visible.split()


ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.332"},
    "io.modelcontextprotocol/clientCapabilities": {
        "roots": {"listChanged": True},
        "elicitation": {"form": {}, "url": {}},
        "extensions": {"io.modelcontextprotocol/tasks": {}},
    },
}


def _request(request_id: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    meta = {**ENVELOPE, **(params or {}).pop("_meta", {})} if params else ENVELOPE
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**(params or {}), "_meta": meta},
    }


def test_claude_codes_opening_is_served_with_the_2026_shapes(private_tmux: PrivateTmux) -> None:
    """What Claude Code sends first, line for line: each result is one the SDK's
    2026-07-28 schema accepts unchanged, with ``resultType`` and the server's info."""
    with RawClient(private_tmux.env, initialize=False) as client:
        client.send(_request("server-discover-probe-1", "server/discover"))
        found = client.reply("server-discover-probe-1")["result"]
        client.send(_request(0, "resources/list"))
        client.send(_request(1, "tools/list"))
        client.send(
            _request(
                2,
                "tools/call",
                {
                    "name": "list_sessions",
                    "arguments": {},
                    "_meta": {"claudecode/toolUseId": "toolu_1", "progressToken": 7},
                },
            )
        )
        replies = client.replies({0, 1, 2})
        refused = client.request("initialize", {"protocolVersion": "2025-11-25"})
    assert found["supportedVersions"] == [MODERN]
    results = {
        "server/discover": found,
        "resources/list": replies[0]["result"],
        "tools/list": replies[1]["result"],
        "tools/call": replies[2]["result"],
    }
    for method, result in results.items():
        assert sdk_methods.serialize_server_result(method, MODERN, result) == result, method
        assert result["resultType"] == "complete", method
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "tmuxmcp"
    assert results["tools/call"]["isError"] is False
    assert results["tools/call"]["structuredContent"] == {"sessions": []}
    assert refused["error"]["code"] == -32022, "no handshake on a 2026-07-28 connection"


@pytest.mark.parametrize("era", ["handshake", "2026-07-28"])
async def test_a_cancelled_call_kills_its_tmux_child_in_either_era(
    private_tmux: PrivateTmux, era: str
) -> None:
    """Style rule 6: ``notifications/cancelled`` cancels the call; its tmux child is
    killed and reaped, and the server answers the next call."""
    wrapper, log, flag = stalling_tmux(private_tmux.directory)
    opened = serve if era == "handshake" else discovered
    async with opened(private_tmux, "--tmux", wrapper, "--timeout", "60") as session:
        before = len(logged_pids(log))
        with open(flag, "w"):
            pass

        async def call() -> None:
            await session.call_tool("list_sessions", {})
            pytest.fail("the call should have been cancelled")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(call)
            # Cancel once the call's tmux child runs (stalled), not after a guessed
            # time: on a loaded machine it may not have started yet (issue 27.4).
            with trio.fail_after(10):
                while len(logged_pids(log)) == before:
                    await trio.sleep(0.02)
            nursery.cancel_scope.cancel()
        os.unlink(flag)
        pid = logged_pids(log)[before]
        with trio.fail_after(10):
            while alive(pid):
                await trio.sleep(0.05)
        assert not (await session.call_tool("list_sessions", {})).is_error
