"""The whole server in memory: protocol, method table and runtime, on the fake tmux.

The fast tier's end-to-end path (issue 30.2). A ``MemorySession`` writes
JSON-RPC lines as a client would; each goes through ``wire.triage`` (the
framing the stdio transport applies) to the dispatcher ``serve_stdio``
serves with (``server.connection``: the protocol's ``Dispatcher``, the era,
the server's description and method table, one task per request, the one
writer), and the tools run on a runtime whose runner is
``driver.fake.FakeTmux``. Only the descriptors are left out: ``serve_stdio``
hands the same dispatcher the lines of fd 0 instead of a memory channel.
Every line the server writes is recorded, and ``tests/wire_oracle.py``
checks it against the SDK's models when the session ends, as ``serve`` does
for a real connection.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import trio

from tests.raw_client import initialize_params
from tests.wire_oracle import Conversation
from tmuxmcp import server
from tmuxmcp.protocol.dispatch import Arrival
from tmuxmcp.protocol.tasks import TaskStore
from tmuxmcp.protocol.wire import triage
from tmuxmcp.runtime import Runtime


class MemorySession:
    """One client's connection to an in-memory server."""

    def __init__(self, inbound: trio.MemorySendChannel[Arrival], answers: Conversation) -> None:
        self._inbound = inbound
        self._next_id = 0
        self.conversation = answers
        self.written: list[dict[str, Any]] = []
        self._arrived = trio.Event()

    async def server_wrote(self, line: bytes) -> None:
        self.conversation.server_wrote(line)
        self.written.append(json.loads(line))
        self._arrived.set()
        self._arrived = trio.Event()
        await trio.lowlevel.checkpoint()

    async def send(self, message: dict[str, Any]) -> None:
        """Write ``message`` as one line; a line the wire answers itself is answered."""
        self.conversation.client_sent(message)
        line = json.dumps(message).encode()
        triaged = triage(line)
        assert triaged is not None
        await self._inbound.send(Arrival(triaged, len(line)))

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request and wait (at most 10 s) for the message that answers it."""
        self._next_id += 1
        request_id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        with trio.fail_after(10):
            while True:
                for written in self.written:
                    if written.get("id") == request_id and "method" not in written:
                        return written
                await self._arrived.wait()

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """``tools/call``'s result (fails on a JSON-RPC error)."""
        answer = await self.request("tools/call", {"name": name, "arguments": arguments})
        assert "result" in answer, answer
        result = answer["result"]
        assert isinstance(result, dict)
        return result


@contextlib.asynccontextmanager
async def memory_session(
    served: Runtime, *, handshake: bool = True
) -> AsyncIterator[MemorySession]:
    """Serve ``served`` over memory channels for one client; with ``handshake``, the
    ``initialize`` exchange is done first. On leaving, the input ends, the server
    stops, and every line it wrote must be one the SDK accepts."""
    send_inbound, receive_inbound = trio.open_memory_channel[Arrival](0)
    session = MemorySession(send_inbound, Conversation())
    tasks = TaskStore(ttl_ms=round(served.config.task_ttl * 1000))
    dispatcher = server.connection(served, tasks, session.server_wrote)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(dispatcher.serve, receive_inbound)
        async with send_inbound:
            if handshake:
                answer = await session.request("initialize", initialize_params("memory"))
                assert "result" in answer, answer
                await session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            yield session
    session.conversation.assert_valid()
