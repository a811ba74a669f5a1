"""``protocol.dispatch`` and ``protocol.session``, driven in memory (pure logic: no tmux).

Promises under test (issue 19.1): the era is decided by the first request
and never revised; the handshake negotiates as the SDK's server did (the
SDK's own version lists are the oracle); every result we build is one the
SDK's schema accepts unchanged, in both eras; a cancelled request is never
answered and its task is cancelled; an exception or an unencodable result
is ``-32603`` without its text; progress goes out for a request with a
token only; the end of input cancels what still runs.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import mcp_types
import msgspec
import pytest
import trio
from mcp_types import methods as sdk_methods
from mcp_types.version import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    MODERN_PROTOCOL_VERSIONS,
)

from tmuxmcp.protocol import params, wire
from tmuxmcp.protocol.dispatch import (
    Description,
    Dispatcher,
    Method,
    OutputClosed,
    RequestContext,
)
from tmuxmcp.protocol.messages import Message, Notification, RawId, Request
from tmuxmcp.protocol.results import (
    CallToolResult,
    EmptyResult,
    Implementation,
    ListToolsResult,
    ResourcesCapability,
    Result,
    ServerCapabilities,
    TextContent,
    Tool,
)
from tmuxmcp.protocol.session import TRANSITIONS, Event, Session, State

DESCRIPTION = Description(
    info=Implementation(name="probe", title="Probe", version="1"),
    instructions="be careful",
    capabilities=ServerCapabilities(resources=ResourcesCapability()),
)
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
}
TOOL = Tool(
    name="echo",
    title="Echo",
    description="echo",
    input_schema={"type": "object"},
    annotations={"readOnlyHint": True},
)


def _initialize(version: str, request_id: int = 1) -> Request:
    return Request(
        request_id,
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    )


class Peer:
    """The client side of one in-memory connection."""

    def __init__(
        self, inbound: trio.MemorySendChannel[Message], sent: list[dict[str, Any]]
    ) -> None:
        self.inbound = inbound
        self.sent = sent
        self._arrived = trio.Event()

    def note_arrival(self) -> None:
        self._arrived.set()
        self._arrived = trio.Event()

    async def reply(self, request_id: Any) -> dict[str, Any]:
        """Wait for the answer to ``request_id``."""
        with trio.fail_after(10):
            while True:
                for message in self.sent:
                    if message.get("id") == request_id and "method" not in message:
                        return message
                await self._arrived.wait()

    async def ask(self, request: Request) -> dict[str, Any]:
        await self.inbound.send(request)
        return await self.reply(request.id)


@asynccontextmanager
async def connection(methods: dict[str, Method] | None = None) -> AsyncIterator[Peer]:
    """A dispatcher serving ``methods``; the input ends when the block does."""
    send_inbound, receive_inbound = trio.open_memory_channel[Message](0)
    sent: list[dict[str, Any]] = []
    peer = Peer(send_inbound, sent)

    async def send(line: bytes) -> None:
        sent.append(json.loads(line))
        peer.note_arrival()
        await trio.lowlevel.checkpoint()

    dispatcher = Dispatcher(DESCRIPTION, methods or {}, send)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(dispatcher.serve, receive_inbound)
        async with send_inbound:
            yield peer


def _method(handler: Callable[[RequestContext, Any], Awaitable[Result]]) -> Method:
    return Method(params=params.PageParams, handler=handler)


async def _listed(ctx: RequestContext, p: params.PageParams) -> Result:
    return ListToolsResult(tools=[TOOL])


# -- the era ----------------------------------------------------------------------------


def test_every_state_answers_every_event() -> None:
    """The transitions table is total, and an era once decided is never left."""
    assert set(TRANSITIONS) == set(State)
    for state, row in TRANSITIONS.items():
        assert set(row) == set(Event), state
    for settled in (State.READY, State.MODERN):
        assert set(TRANSITIONS[settled].values()) == {settled}


@pytest.mark.parametrize(
    ("method", "meta", "state"),
    [
        ("initialize", None, State.READY),
        ("initialize", ENVELOPE, State.READY),  # initialize never opens 2026-07-28
        ("tools/list", ENVELOPE, State.MODERN),
        ("tools/list", None, State.HANDSHAKE),
        ("ping", {"progressToken": 1}, State.HANDSHAKE),
    ],
)
def test_the_first_request_decides_the_era(
    method: str, meta: dict[str, Any] | None, state: State
) -> None:
    session = Session()
    admission = session.admit(method, None if meta is None else {"_meta": meta})
    if admission.pending:
        session.settle(accepted=True)
    assert session.state is state


async def test_the_handshake_negotiates_as_the_sdk_server() -> None:
    """Each handshake version is echoed; any other gets the SDK's latest handshake version."""
    asked = [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS, "1999-01-01"]
    for version in asked:
        async with connection() as peer:
            reply = await peer.ask(_initialize(version))
        expected = version if version in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
        assert reply["result"]["protocolVersion"] == expected, version


async def test_results_are_what_the_sdk_schema_accepts_in_each_era() -> None:
    """Each result, sieved by the SDK's schema for its version, comes back unchanged:
    nothing missing, nothing misspelled, nothing the version does not define."""
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        async with connection({"tools/list": _method(_listed)}) as peer:
            init = (await peer.ask(_initialize(version)))["result"]
            listed = (await peer.ask(Request(2, "tools/list")))["result"]
            pong = (await peer.ask(Request(3, "ping")))["result"]
        served = init["protocolVersion"]
        for method, result in (("initialize", init), ("tools/list", listed), ("ping", pong)):
            assert sdk_methods.serialize_server_result(method, served, result) == result, method
    (modern,) = MODERN_PROTOCOL_VERSIONS
    async with connection({"tools/list": _method(_listed)}) as peer:
        found = (await peer.ask(Request(1, "server/discover", {"_meta": ENVELOPE})))["result"]
        listed = (await peer.ask(Request(2, "tools/list", {"_meta": ENVELOPE})))["result"]
    for method, result in (("server/discover", found), ("tools/list", listed)):
        assert sdk_methods.serialize_server_result(method, modern, result) == result, method
        assert result["resultType"] == "complete"
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "probe"
    assert found["supportedVersions"] == list(MODERN_PROTOCOL_VERSIONS)


async def test_a_tool_result_has_each_form_the_negotiated_version_defines() -> None:
    """Before 2025-06-18 (no structured output) a tool result is its text block alone and
    a tool has no output schema; from 2025-06-18 on both forms go out whole (issue 31.1)."""
    shaped_tool = msgspec.structs.replace(TOOL, output_schema={"type": "object"})

    async def listed(ctx: RequestContext, p: params.PageParams) -> Result:
        return ListToolsResult(tools=[shaped_tool])

    async def called(ctx: RequestContext, p: params.CallToolParams) -> Result:
        return CallToolResult(
            content=[TextContent("line 1\nline 2")],
            structured_content=msgspec.Raw(b'{"text":"line 1\\nline 2"}'),
            is_error=False,
        )

    methods = {
        "tools/list": _method(listed),
        "tools/call": Method(params=params.CallToolParams, handler=called),
    }
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        async with connection(methods) as peer:
            await peer.ask(_initialize(version))
            tools = (await peer.ask(Request(2, "tools/list")))["result"]["tools"]
            result = (await peer.ask(Request(3, "tools/call", {"name": "echo"})))["result"]
        assert result["content"] == [{"type": "text", "text": "line 1\nline 2"}], version
        structured = version >= "2025-06-18"
        assert ("structuredContent" in result) is structured, version
        assert ("outputSchema" in tools[0]) is structured, version
        if structured:
            assert result["structuredContent"] == {"text": "line 1\nline 2"}


async def test_the_gate_and_unknown_methods() -> None:
    """Before ``initialize`` only ping is served; an unknown method is -32601 naming it."""
    async with connection({"tools/list": _method(_listed)}) as peer:
        early = await peer.ask(Request(1, "tools/list"))
        assert early["error"]["code"] == mcp_types.INVALID_PARAMS
        assert (await peer.ask(Request(2, "ping")))["result"] == {}
        unknown = await peer.ask(Request(3, "prompts/list"))
        assert unknown["error"] == {
            "code": mcp_types.METHOD_NOT_FOUND,
            "message": "Method not found",
            "data": "prompts/list",
        }
        await peer.inbound.send(Notification("notifications/initialized"))
        assert (await peer.ask(Request(4, "tools/list")))["result"]["tools"][0]["name"] == "echo"
        bad = await peer.ask(Request(5, "tools/list", {"cursor": 5}))
        assert bad["error"]["code"] == mcp_types.INVALID_PARAMS


async def test_a_malformed_initialize_leaves_the_gate_closed() -> None:
    """As the SDK's server: -32602, the handshake era decided, the gate still closed."""
    async with connection({"tools/list": _method(_listed)}) as peer:
        bad = await peer.ask(Request(1, "initialize", {"protocolVersion": 20251125}))
        assert bad["error"]["code"] == mcp_types.INVALID_PARAMS
        early = await peer.ask(Request(2, "tools/list"))
        assert early["error"]["code"] == mcp_types.INVALID_PARAMS
        await peer.ask(_initialize("2025-11-25", 3))
        assert (await peer.ask(Request(4, "tools/list")))["result"]["tools"][0]["name"] == "echo"


async def test_each_era_refuses_the_others_claim() -> None:
    async with connection({"tools/list": _method(_listed)}) as peer:
        await peer.ask(_initialize("2025-06-18"))
        enveloped = await peer.ask(Request(2, "tools/list", {"_meta": ENVELOPE}))
        assert enveloped["error"]["code"] == mcp_types.INVALID_REQUEST
    async with connection({"tools/list": _method(_listed)}) as peer:
        await peer.ask(Request("probe", "server/discover", {"_meta": ENVELOPE}))
        late = await peer.ask(_initialize("2025-11-25", 2))
        assert late["error"]["code"] == mcp_types.UNSUPPORTED_PROTOCOL_VERSION
        assert late["error"]["data"]["supported"] == list(MODERN_PROTOCOL_VERSIONS)
        bare = await peer.ask(Request(3, "tools/list"))
        assert bare["error"]["code"] == mcp_types.INVALID_PARAMS
        assert "params._meta" in bare["error"]["message"]
        wrong = {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
        other = await peer.ask(Request(4, "tools/list", {"_meta": wrong}))
        assert other["error"]["code"] == mcp_types.UNSUPPORTED_PROTOCOL_VERSION
        assert other["error"]["data"]["requested"] == "2099-01-01"


# -- running requests ---------------------------------------------------------------------


async def test_a_cancelled_request_is_never_answered_and_its_task_is_cancelled() -> None:
    started, ended, outcome = trio.Event(), trio.Event(), []

    async def forever(ctx: RequestContext, p: params.PageParams) -> Result:
        started.set()
        try:
            await trio.sleep_forever()
        except trio.Cancelled:
            outcome.append("cancelled")
            raise
        finally:
            ended.set()
        raise AssertionError("unreachable")

    async with connection({"slow": _method(forever)}) as peer:
        await peer.ask(_initialize("2025-11-25"))
        await peer.inbound.send(Request(7, "slow"))
        with trio.fail_after(10):
            await started.wait()
        await peer.inbound.send(Notification("notifications/cancelled", {"requestId": 7}))
        assert (await peer.ask(Request(8, "ping")))["result"] == {}, "served meanwhile"
        with trio.fail_after(10):
            await ended.wait()
    assert outcome == ["cancelled"]
    assert [m for m in peer.sent if m.get("id") == 7] == []


async def test_the_end_of_input_cancels_what_still_runs() -> None:
    started, outcome = trio.Event(), []

    async def forever(ctx: RequestContext, p: params.PageParams) -> Result:
        started.set()
        try:
            await trio.sleep_forever()
        finally:
            outcome.append("ended")
        raise AssertionError("unreachable")

    with trio.fail_after(10):
        async with connection({"slow": _method(forever)}) as peer:
            await peer.ask(_initialize("2025-11-25"))
            await peer.inbound.send(Request(2, "slow"))
            await started.wait()
    assert outcome == ["ended"]


async def test_a_cancel_names_an_id_held_as_bytes_by_its_bytes() -> None:
    """Issue 27 N5: ids with lone surrogates are told apart by their bytes; a cancel of
    ``"\\ud800"`` (its requestId scrubbed to U+FFFD elsewhere in the line) cancels that
    request, not the one whose id is a real U+FFFD, nor ``"\\udfff"``."""
    started: list[Any] = []
    ended: list[Any] = []
    all_started = trio.Event()

    async def forever(ctx: RequestContext, p: params.PageParams) -> Result:
        started.append(ctx.request_id)
        if len(started) == 3:
            all_started.set()
        try:
            await trio.sleep_forever()
        finally:
            ended.append(ctx.request_id)
        raise AssertionError("unreachable")

    lone, other = (
        wire.triage(rb'{"jsonrpc":"2.0","id":"\ud800","method":"slow"}'),
        wire.triage(rb'{"jsonrpc":"2.0","id":"\udfff","method":"slow"}'),
    )
    cancel = wire.triage(
        rb'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"\ud800"}}'
    )
    assert isinstance(lone, Request) and isinstance(other, Request)
    assert isinstance(cancel, Notification)
    async with connection({"slow": _method(forever)}) as peer:
        await peer.ask(_initialize("2025-11-25"))
        for request in (lone, other, Request("\ufffd", "slow")):
            await peer.inbound.send(request)
        with trio.fail_after(10):
            await all_started.wait()
        await peer.inbound.send(cancel)
        assert (await peer.ask(Request(8, "ping")))["result"] == {}
        with trio.fail_after(10):
            while not ended:
                await trio.sleep(0)
        assert ended == [RawId(rb'"\ud800"')]
    assert RawId(rb'"\ud800"') != RawId(rb'"\udfff"')


async def test_an_output_nobody_reads_ends_serving() -> None:
    """Rule 4: once ``send`` raises ``OutputClosed`` the dispatcher stops, and what
    still runs is cancelled; ``serve`` returns instead of raising."""
    started, ended = trio.Event(), trio.Event()

    async def forever(ctx: RequestContext, p: params.PageParams) -> Result:
        started.set()
        try:
            await trio.sleep_forever()
        finally:
            ended.set()
        raise AssertionError("unreachable")

    async def send(line: bytes) -> None:
        if b'"id":2' in line:
            raise OutputClosed
        await trio.lowlevel.checkpoint()

    send_inbound, receive_inbound = trio.open_memory_channel[Message](0)
    dispatcher = Dispatcher(DESCRIPTION, {"slow": _method(forever)}, send)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(dispatcher.serve, receive_inbound)
            await send_inbound.send(_initialize("2025-11-25"))
            await send_inbound.send(Request(1, "slow"))
            await started.wait()
            await send_inbound.send(Request(2, "ping"))  # its answer finds the output closed
            await ended.wait()
    assert ended.is_set()


async def test_an_exception_or_an_unencodable_result_is_an_internal_error_without_text() -> None:
    async def broken(ctx: RequestContext, p: params.PageParams) -> Result:
        raise RuntimeError("secret detail")

    async def unencodable(ctx: RequestContext, p: params.PageParams) -> Result:
        return EmptyResult(meta={"text": "a\ud800b"})

    table = {"broken": _method(broken), "unencodable": _method(unencodable)}
    async with connection(table) as peer:
        await peer.ask(_initialize("2025-11-25"))
        for request_id, method in enumerate(table, start=2):
            reply = await peer.ask(Request(request_id, method))
            assert reply["error"] == {
                "code": mcp_types.INTERNAL_ERROR,
                "message": "Internal server error",
            }
        assert (await peer.ask(Request(9, "ping")))["result"] == {}
    assert "secret" not in json.dumps(peer.sent)


async def test_progress_goes_out_only_for_a_request_with_a_token() -> None:
    async def reporting(ctx: RequestContext, p: params.PageParams) -> Result:
        await ctx.progress(1.0, 2.0, "half")
        return EmptyResult()

    async with connection({"work": _method(reporting)}) as peer:
        await peer.ask(_initialize("2025-11-25"))
        await peer.ask(Request(2, "work", {"_meta": {"progressToken": "tok"}}))
        await peer.ask(Request(3, "work"))
    notes = [m for m in peer.sent if m.get("method") == "notifications/progress"]
    assert notes == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "tok", "progress": 1.0, "total": 2.0, "message": "half"},
        }
    ]
    mcp_types.ProgressNotification.model_validate(notes[0])
