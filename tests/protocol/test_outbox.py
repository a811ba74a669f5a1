"""``protocol.outbox`` and the dispatcher's reading, driven in memory (no tmux).

Promises under test (issue 27 N3): a client that does not read stops the
server's reading once it holds ``MAX_HELD`` items or ``MAX_HELD_BYTES``
bytes for it, and everything goes out, in the order it was put, once the
client reads again; progress to a slow reader keeps only the latest note
of each request and never overtakes its answer; a ``notifications/cancelled``
read while the output is blocked still cancels its call. The real process
under the same flood is ``tests/test_backpressure.py``.
"""

from __future__ import annotations

import json
from typing import Any

import trio
import trio.testing

from tmuxmcp.protocol import params
from tmuxmcp.protocol.dispatch import Arrival, Description, Dispatcher, Method, RequestContext
from tmuxmcp.protocol.messages import Notification, Request
from tmuxmcp.protocol.outbox import MAX_HELD, MAX_HELD_BYTES, Outbox
from tmuxmcp.protocol.results import Implementation, Result, ServerCapabilities

DESCRIPTION = Description(
    info=Implementation(name="probe", title="Probe", version="1"),
    instructions="",
    capabilities=ServerCapabilities(),
)
INITIALIZE = Request(
    1,
    "initialize",
    {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
)


class BlockedReader:
    """A client's output that nobody reads until ``read_again``."""

    def __init__(self) -> None:
        self.written: list[dict[str, Any]] = []
        self.reading = trio.Event()
        self._arrived = trio.Event()

    async def send(self, line: bytes) -> None:
        await self.reading.wait()
        self.written.append(json.loads(line))
        self._arrived.set()
        self._arrived = trio.Event()

    async def wait_written(self, count: int) -> None:
        while len(self.written) < count:
            await self._arrived.wait()

    def read_again(self) -> None:
        self.reading.set()


async def test_lines_go_out_in_the_order_they_were_put_and_progress_keeps_the_latest() -> None:
    """Rules 1 and 3: one writer in order; an unwritten progress note is replaced in its
    place, so a slow reader holds one per request, and none follows its answer."""
    reader = BlockedReader()
    outbox = Outbox(reader.send)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(outbox.drain)
        outbox.put(b'{"n":1}')
        await trio.testing.wait_all_tasks_blocked()  # the writer holds line 1, unread
        for step in range(1, 1001):
            outbox.put_progress("call", b'{"progress":%d}' % step)
        outbox.put(b'{"n":2}')
        outbox.put_progress("call", b'{"progress":1001}')  # behind the answer? never: see below
        outbox.put(b'{"n":3}')
        assert outbox.held == (4, len(b'{"n":1}{"progress":1001}{"n":2}{"n":3}'))
        reader.read_again()
        await outbox.wait_empty()
        nursery.cancel_scope.cancel()
    assert reader.written == [{"n": 1}, {"progress": 1001}, {"n": 2}, {"n": 3}]
    assert outbox.held == (0, 0)


async def test_progress_put_while_one_is_being_written_goes_behind_it() -> None:
    reader = BlockedReader()
    outbox = Outbox(reader.send)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(outbox.drain)
        outbox.put_progress("call", b'{"progress":1}')
        await trio.testing.wait_all_tasks_blocked()  # being written
        outbox.put_progress("call", b'{"progress":2}')
        outbox.put_progress("call", b'{"progress":3}')
        reader.read_again()
        await outbox.wait_empty()
        nursery.cancel_scope.cancel()
    assert reader.written == [{"progress": 1}, {"progress": 3}]


class Pings:
    """``initialize``, then ``count`` pings (or endless) from id ``first``, each of
    ``size`` bytes; counts what the dispatcher has taken."""

    def __init__(self, first: int, count: int | None = None, size: int = 0, method: str = "ping"):
        self._next = first
        self._end = None if count is None else first + count
        self._size = size
        self._method = method
        self._started = False
        self.taken = 0

    def __aiter__(self) -> Pings:
        return self

    async def __anext__(self) -> Arrival:
        await trio.lowlevel.checkpoint()
        self.taken += 1
        if not self._started:
            self._started = True
            return Arrival(INITIALIZE, 100)
        if self._end is not None and self._next >= self._end:
            raise StopAsyncIteration
        self._next += 1
        return Arrival(Request(self._next - 1, self._method), self._size)


async def test_a_client_that_does_not_read_stops_the_reading_and_then_gets_everything() -> None:
    """Rule 6 of dispatch (N3): with the output unread, the dispatcher takes at most
    ``MAX_HELD`` + 1 items from an endless stream of pings, then waits; once the
    client reads, every answer comes."""
    reader = BlockedReader()
    inbound = Pings(2, 999)
    dispatcher = Dispatcher(DESCRIPTION, {}, reader.send)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(dispatcher.serve, inbound)
            await trio.testing.wait_all_tasks_blocked()
            assert 0 < inbound.taken <= MAX_HELD + 1
            stalled_at = inbound.taken
            await trio.testing.wait_all_tasks_blocked()
            assert inbound.taken == stalled_at, "the reader waits for the client"
            reader.read_again()
            await reader.wait_written(1000)
    ids = [message["id"] for message in reader.written]
    assert sorted(ids) == list(range(1, 1001)), "every answer, none dropped"


async def test_large_requests_are_held_by_their_bytes() -> None:
    """Requests in flight count by their lines' bytes: a slow call of a long line each,
    and the reader stops once they reach ``MAX_HELD_BYTES``, well before ``MAX_HELD``."""
    size = 4 * 1024 * 1024
    started = 0

    async def slow(ctx: RequestContext, p: params.PageParams) -> Result:
        nonlocal started
        started += 1
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    reader = BlockedReader()
    reader.read_again()
    table = {"slow": Method(params=params.PageParams, handler=slow)}
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                Dispatcher(DESCRIPTION, table, reader.send).serve, Pings(2, 98, size, "slow")
            )
            await trio.testing.wait_all_tasks_blocked()
            assert started == MAX_HELD_BYTES // size
            nursery.cancel_scope.cancel()


async def test_a_cancel_is_read_and_acted_on_while_the_output_is_unread() -> None:
    """Under the bounds the reader goes on reading though nothing is read from the
    output: ``notifications/cancelled`` still cancels a call in flight."""
    cancelled = trio.Event()

    async def slow(ctx: RequestContext, p: params.PageParams) -> Result:
        try:
            await trio.sleep_forever()
        finally:
            cancelled.set()
        raise AssertionError("unreachable")

    send_inbound, receive_inbound = trio.open_memory_channel[Any](0)
    reader = BlockedReader()
    table = {"slow": Method(params=params.PageParams, handler=slow)}
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(Dispatcher(DESCRIPTION, table, reader.send).serve, receive_inbound)
            await send_inbound.send(INITIALIZE)
            await send_inbound.send(Notification("notifications/initialized"))
            await send_inbound.send(Request(2, "slow"))
            for n in range(3, MAX_HELD // 2):
                await send_inbound.send(Request(n, "ping"))
            await send_inbound.send(Notification("notifications/cancelled", {"requestId": 2}))
            await cancelled.wait()
            reader.read_again()
            await send_inbound.aclose()
    ids = [message["id"] for message in reader.written]
    assert 2 not in ids, "a cancelled call is not answered"
    assert sorted(ids) == [1, *range(3, MAX_HELD // 2)]
