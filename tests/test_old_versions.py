"""Raw handshakes at every protocol version the server accepts (issue 19.2).

The SDK clients of today all ask for 2025-11-25; clients built on older SDKs
ask for older versions, and the spec has the server answer a version it
does not support with the latest one it does. Each test speaks raw JSON-RPC
(``tests.raw_client``), so the version asked for is exactly the one named,
and hands every line the server wrote to the SDK's models
(``tests.wire_oracle``): for each handshake version the SDK checks with its
2025-11-25 wire shapes, the one schema era it has for them.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

import tmuxmcp
from tests.raw_client import RawClient
from tests.support import PrivateTmux
from tests.wire_oracle import Conversation
from tmuxmcp.protocol.versions import STRUCTURED_SINCE

OLDER = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


class Session:
    """A raw client whose traffic both ways is recorded for the oracle."""

    def __init__(self, client: RawClient, conversation: Conversation) -> None:
        self.client = client
        self.conversation = conversation
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        self.conversation.client_sent(message)
        self.client.send(message)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.client.reply(self.next_id)


def _initialize(session: Session, version: str) -> dict[str, Any]:
    reply = session.request(
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": f"client-of-{version}", "version": "0"},
        },
    )
    assert "result" in reply, reply
    session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    result: dict[str, Any] = reply["result"]
    return result


def test_the_server_accepts_the_versions_the_sdk_can_hand_shake() -> None:
    """The versions tested here are the SDK's whole handshake list, none left out."""
    assert OLDER == HANDSHAKE_PROTOCOL_VERSIONS


@pytest.mark.parametrize("version", OLDER)
def test_a_handshake_at_each_version_lists_and_calls_tools(
    private_tmux: PrivateTmux, version: str
) -> None:
    """initialize at ``version`` gets it back, with tools and resources and serverInfo; then
    tools/list and tools/call, every message accepted by the SDK at that version."""
    ids = private_tmux.new_session("old")
    conversation = Conversation()
    with RawClient(private_tmux.env, initialize=False, on_line=conversation.server_wrote) as client:
        session = Session(client, conversation)
        result = _initialize(session, version)
        assert result["protocolVersion"] == version
        assert {"tools", "resources"} <= set(result["capabilities"]), result["capabilities"]
        assert result["serverInfo"]["name"] == "tmuxmcp"
        assert result["serverInfo"]["version"] == tmuxmcp.__version__
        listed = session.request("tools/list")["result"]["tools"]
        assert "list_sessions" in {tool["name"] for tool in listed}
        called = session.request("tools/call", {"name": "list_sessions", "arguments": {}})
        assert called["result"]["isError"] is False, called
        if version >= STRUCTURED_SINCE:
            sessions = called["result"]["structuredContent"]["sessions"]
            assert [s["session_id"] for s in sessions] == [ids["session_id"]]
            assert all("outputSchema" in tool for tool in listed)
        else:
            # Before structured output the text block is the result, whole (issue 31.1).
            assert "structuredContent" not in called["result"]
            assert ids["session_id"] in called["result"]["content"][0]["text"]
            assert not any("outputSchema" in tool for tool in listed)
    assert len(conversation.received) == 3
    conversation.assert_valid()


@pytest.mark.parametrize("asked", ["1999-01-01", "2026-07-28", "not-a-date"])
def test_an_unsupported_version_is_answered_with_the_latest_the_server_supports(
    private_tmux: PrivateTmux, asked: str
) -> None:
    """The spec's negotiation: a version the handshake does not know is answered with the
    server's latest handshake version (2026-07-28 has no handshake at all), and the
    session then works at that version."""
    conversation = Conversation()
    with RawClient(private_tmux.env, initialize=False, on_line=conversation.server_wrote) as client:
        session = Session(client, conversation)
        result = _initialize(session, asked)
        assert result["protocolVersion"] == LATEST_HANDSHAKE_VERSION
        assert "tools" in session.request("tools/list")["result"]
    conversation.assert_valid()
