"""``protocol.listen`` driven in memory (pure logic: no tmux; issue 29.3).

Promises under test: a listen stream's first message is its acknowledgement,
which honours ``resourcesListChanged`` only, and every message of it carries
its ``subscriptionId``; a change is told only to streams that asked; a
handshake-era connection is told unasked, and only from
``notifications/initialized`` on; the watcher's wait ends on a timeout only
while someone would be told. Every message is checked by the SDK's models.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio
import trio.testing
from mcp_types import methods as sdk_methods

from tests.protocol.test_dispatch import DESCRIPTION, ENVELOPE, Peer, _initialize
from tmuxmcp.protocol.dispatch import Dispatcher
from tmuxmcp.protocol.listen import ACKNOWLEDGED, LIST_CHANGED, ListChanges, listen_methods
from tmuxmcp.protocol.messages import Message, Notification, Request

SUB = "io.modelcontextprotocol/subscriptionId"


@asynccontextmanager
async def listening(changes: ListChanges) -> AsyncIterator[Peer]:
    """A dispatcher serving ``subscriptions/listen`` with ``changes``."""
    send_inbound, receive_inbound = trio.open_memory_channel[Message](0)
    sent: list[dict[str, Any]] = []
    peer = Peer(send_inbound, sent)

    async def send(line: bytes) -> None:
        sent.append(json.loads(line))
        peer.note_arrival()
        await trio.lowlevel.checkpoint()

    dispatcher = Dispatcher(DESCRIPTION, listen_methods(changes), send, on_ready=changes.open_plain)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(dispatcher.serve, receive_inbound)
        async with send_inbound:
            yield peer


async def _wait_for(peer: Peer, count: int) -> None:
    with trio.fail_after(10):
        while len(peer.sent) < count:
            await trio.sleep(0.001)


def _listen(request_id: Any, notifications: dict[str, Any]) -> Request:
    return Request(
        request_id, "subscriptions/listen", {"_meta": ENVELOPE, "notifications": notifications}
    )


async def test_a_stream_is_acknowledged_first_and_told_only_what_it_asked() -> None:
    changes = ListChanges()
    async with listening(changes) as peer:
        await peer.inbound.send(
            _listen("a", {"resourcesListChanged": True, "promptsListChanged": True})
        )
        await peer.inbound.send(_listen("b", {"toolsListChanged": True}))
        await _wait_for(peer, 2)
        assert changes.wanted and changes.listeners == 2
        changes.changed()
        await _wait_for(peer, 3)
        await trio.testing.wait_all_tasks_blocked()
        first, second, told = peer.sent
        assert first["method"] == second["method"] == ACKNOWLEDGED
        acks = {m["params"]["_meta"][SUB]: m["params"]["notifications"] for m in (first, second)}
        assert acks == {"a": {"resourcesListChanged": True}, "b": {}}
        assert told == {"jsonrpc": "2.0", "method": LIST_CHANGED, "params": {"_meta": {SUB: "a"}}}
        assert len(peer.sent) == 3, "the stream that did not ask is told nothing"
        for message in peer.sent:
            sdk_methods.parse_server_notification(
                message["method"], "2026-07-28", message["params"]
            )
        await peer.inbound.send(Notification("notifications/cancelled", {"requestId": "a"}))
        await trio.testing.wait_all_tasks_blocked()
        assert changes.listeners == 1 and not changes.wanted


async def test_a_change_not_yet_written_is_not_said_twice() -> None:
    """Rule 3: a level; a second change while the first notice is unwritten adds none."""
    changes = ListChanges()
    async with listening(changes) as peer:
        await peer.inbound.send(_listen("a", {"resourcesListChanged": True}))
        await _wait_for(peer, 1)
        for _ in range(50):
            changes.changed()
            await trio.lowlevel.checkpoint()
        await trio.testing.wait_all_tasks_blocked()
        told = [m for m in peer.sent if m.get("method") == LIST_CHANGED]
        assert 1 <= len(told) < 50


async def test_a_handshake_connection_is_told_unasked_from_initialized_on() -> None:
    changes = ListChanges()
    async with listening(changes) as peer:
        await peer.ask(_initialize("2025-06-18"))
        changes.changed()  # before notifications/initialized: nobody to tell
        await trio.testing.wait_all_tasks_blocked()
        assert (changes.wanted, len(peer.sent)) == (False, 1)
        await peer.inbound.send(Notification("notifications/initialized", None))
        await trio.testing.wait_all_tasks_blocked()
        assert changes.wanted is True
        changes.changed()
        await _wait_for(peer, 2)
        assert peer.sent[-1] == {"jsonrpc": "2.0", "method": LIST_CHANGED}
        listen = await peer.ask(Request(9, "subscriptions/listen", {"notifications": {}}))
        assert listen["error"]["code"] == -32601


async def test_the_watcher_waits_on_a_timeout_only_while_someone_would_be_told() -> None:
    """Rule 6: nobody listening, only a poke ends the wait; then the period does."""
    changes = ListChanges()
    with trio.move_on_after(0.05) as idle:
        await changes.wait_poked(0.001)
    assert idle.cancelled_caught
    changes.poke()
    assert await changes.wait_poked(0.001) is True
    changes.open_plain(lambda line: None)
    with trio.fail_after(5):
        assert await changes.wait_poked(0.001) is False
        assert await changes.wait_poked(0.001) is False
