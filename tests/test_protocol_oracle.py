"""The SDK as the oracle (issue 19.2): what the server writes is what the SDK accepts.

``tests/wire_oracle.py`` checks each message against ``mcp_types``;
``tests/recording_stdio.py`` records every line a real server wrote;
``tests.support.serve`` applies both to every SDK-driven test. These tests
show the oracle can fail (a malformed message, fed to it directly and
written by a scripted server over real stdio), and drive the real server
with the SDK client in its stateless 2026-07-28 mode, the form Claude Code
speaks, beside the stateful handshake every other test uses.
"""

from __future__ import annotations

import json
import sys
import textwrap
from typing import Any

import pytest
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import PROTOCOL_VERSION_META_KEY

from tests.recording_stdio import recorded_stdio
from tests.support import PrivateTmux, server_params
from tests.wire_oracle import Conversation

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
INITIALIZED = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": "scripted", "version": "0"},
    },
}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "x"}}


def _conversation(*server: dict[str, Any] | bytes) -> Conversation:
    """A handshake and one ``tools/call`` sent, then ``server``'s lines."""
    conversation = Conversation()
    for message in (INITIALIZE, CALL):
        conversation.client_sent(message)
    for line in (INITIALIZED, *server):
        conversation.server_wrote(line if isinstance(line, bytes) else json.dumps(line).encode())
    return conversation


def _reasons(conversation: Conversation) -> list[str]:
    return [problem.reason for problem in conversation.problems()]


def test_a_well_formed_conversation_has_no_problems() -> None:
    """The baseline the failures below are told from: a valid result passes."""
    result = {"content": [{"type": "text", "text": "ok"}], "isError": False}
    conversation = _conversation({"jsonrpc": "2.0", "id": 2, "result": result})
    assert conversation.problems() == []
    conversation.assert_valid()


def test_a_tool_result_without_content_fails_with_the_message_and_the_reason() -> None:
    """Rule 2: ``CallToolResult`` requires ``content``; the failure quotes the line."""
    line = {"jsonrpc": "2.0", "id": 2, "result": {"structuredContent": {"a": 1}}}
    conversation = _conversation(line)
    (reason,) = _reasons(conversation)
    assert reason.startswith("the tools/call result at protocol 2025-11-25 is rejected")
    assert "content" in reason and "Field required" in reason
    with pytest.raises(AssertionError) as failure:
        conversation.assert_valid()
    assert '"structuredContent": {"a": 1}' in str(failure.value)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b"{not json", "not a JSON-RPC message the SDK can decode (Rule 1)"),
        (
            {"jsonrpc": "2.0", "id": 9, "result": {"content": []}},
            "answers id 9, which the client never sent (Rule 3)",
        ),
        (
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "no"}},
            "an error with id null",
        ),
        (
            {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602}},
            "not a JSON-RPC message the SDK can decode (Rule 1)",
        ),
        (
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}},
            "notification notifications/progress at protocol 2025-11-25 is rejected (Rule 4)",
        ),
        (
            {"jsonrpc": "2.0", "method": "notifications/made_up", "params": {}},
            "protocol 2025-11-25 defines no server notification notifications/made_up (Rule 4)",
        ),
        (
            {"jsonrpc": "2.0", "id": "s1", "method": "made/up", "params": {}},
            "protocol 2025-11-25 defines no server request made/up (Rule 4)",
        ),
        (
            {"jsonrpc": "2.0", "id": "s2", "method": "sampling/createMessage", "params": {}},
            "request sampling/createMessage at protocol 2025-11-25 is rejected (Rule 4)",
        ),
    ],
)
def test_each_rule_rejects_its_malformed_message(
    line: dict[str, Any] | bytes, expected: str
) -> None:
    (reason,) = _reasons(_conversation(line))
    assert reason.startswith(expected), reason


def test_a_second_answer_to_one_request_is_rejected() -> None:
    """Rule 5: a request is answered at most once."""
    answer = {"jsonrpc": "2.0", "id": 2, "result": {"content": []}}
    assert _reasons(_conversation(answer, answer)) == ["a second answer to request id 2 (Rule 5)"]


def test_a_stateless_result_is_checked_at_the_version_its_request_named() -> None:
    """Rule 2: a 2026-07-28 ``tools/call`` result needs its ``resultType``; 2025-11-25 not."""
    meta = {PROTOCOL_VERSION_META_KEY: "2026-07-28"}
    conversation = Conversation()
    conversation.client_sent(
        {"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {"name": "x", "_meta": meta}}
    )
    result = {"content": [{"type": "text", "text": "ok"}], "isError": False}
    conversation.server_wrote(json.dumps({"jsonrpc": "2.0", "id": 0, "result": result}).encode())
    (reason,) = _reasons(conversation)
    assert reason.startswith("the tools/call result at protocol 2026-07-28 is rejected"), reason
    assert "resultType" in reason


def test_a_method_the_version_does_not_list_is_checked_by_its_version_free_model() -> None:
    """Rule 2, as the SDK client does it: ping is not in the 2026-07-28 schema, so its
    result is checked by the version-free ``EmptyResult``; a method the SDK knows in no
    form has no model at all."""
    meta = {"_meta": {PROTOCOL_VERSION_META_KEY: "2026-07-28"}}
    conversation = Conversation()
    for request_id, method in ((0, "ping"), (1, "made/up")):
        conversation.client_sent(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": meta}
        )
        answer = {"jsonrpc": "2.0", "id": request_id, "result": {}}
        conversation.server_wrote(json.dumps(answer).encode())
    assert _reasons(conversation) == ["the SDK has no result model for made/up (Rule 2)"]


# A server that answers initialize and tools/list well, then sends a progress
# notification without its progressToken before it answers tools/call: the
# SDK client only logs such a notification and drops it, and the call
# succeeds, so only the oracle makes it a failure.
SCRIPTED_SERVER = textwrap.dedent(
    """
    import json, sys
    for line in sys.stdin:
        request = json.loads(line)
        if "id" not in request:
            continue
        if request["method"] == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "scripted", "version": "0"}}
        elif request["method"] == "tools/list":
            result = {"tools": []}
        else:
            print(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                              "params": {"progress": 1}}), flush=True)
            result = {"content": [{"type": "text", "text": "done"}], "isError": False}
        print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}), flush=True)
    """
)


async def test_the_recorder_sees_what_a_real_server_process_wrote() -> None:
    """A message the client swallows still fails the conversation it was written in."""
    conversation = Conversation()
    params = StdioServerParameters(command=sys.executable, args=["-c", SCRIPTED_SERVER])
    async with (
        recorded_stdio(params, conversation) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        result = await session.call_tool("anything", {})
        assert not result.is_error
    (problem,) = conversation.problems()
    assert problem.reason.startswith("notification notifications/progress at protocol 2025-11-25")
    assert b'"progress": 1' in problem.line
    with pytest.raises(AssertionError, match="progressToken"):
        conversation.assert_valid()


async def test_the_stateless_sdk_client_gets_only_messages_the_sdk_accepts(
    private_tmux: PrivateTmux,
) -> None:
    """The SDK client in ``mode="auto"`` speaks 2026-07-28 (``server/discover``, ``_meta``
    on every request): tools, an error result, resources, all validated at that version."""
    pane = private_tmux.new_session("s")["pane_id"]
    conversation = Conversation()
    transport = recorded_stdio(server_params(private_tmux.env), conversation)
    async with Client(transport, mode="auto") as client:
        tools = await client.list_tools()
        assert "capture_pane" in {tool.name for tool in tools.tools}
        listed = await client.call_tool("list_panes", {})
        assert not listed.is_error
        assert pane in json.dumps(listed.structured_content)
        captured = await client.call_tool("capture_pane", {"pane_id": pane})
        assert not captured.is_error
        refused = await client.call_tool("capture_pane", {"pane_id": "nope"})
        assert refused.is_error
        resources = await client.list_resources()
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == ["tmux://pane/{n}"]
        uri = f"tmux://pane/{pane.removeprefix('%')}"
        assert uri in {str(r.uri) for r in resources.resources}
        read = await client.read_resource(uri)
        assert len(read.contents) == 1
    conversation.assert_valid()
    versions = {
        message["method"]: message.get("params", {}).get("_meta", {}).get(PROTOCOL_VERSION_META_KEY)
        for message in conversation.sent
        if "method" in message
    }
    assert versions["server/discover"] == versions["tools/call"] == "2026-07-28", versions
    assert "initialize" not in versions
    # Every request got its answer, and each was checked.
    assert len(conversation.received) >= sum(1 for m in conversation.sent if "id" in m)


async def test_the_sdk_transport_and_the_recording_one_give_the_client_the_same_answers(
    private_tmux: PrivateTmux,
) -> None:
    """The recorder changes nothing the client sees: the SDK's own ``stdio_client`` and
    ``recorded_stdio`` get the same initialize result, tool list and call result."""
    pane = private_tmux.new_session("same")["pane_id"]
    params = server_params(private_tmux.env)
    seen = []
    for transport in (stdio_client(params), recorded_stdio(params, Conversation())):
        async with transport as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            panes = await session.call_tool("list_panes", {})
        assert pane in json.dumps(panes.structured_content)
        seen.append((init.model_dump(), tools.model_dump(), panes.structured_content))
    assert seen[0] == seen[1]
