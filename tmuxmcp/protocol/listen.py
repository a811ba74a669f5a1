"""Telling the client that the resource list changed, the way each era defines it.

Where the shapes come from: the 2026-07-28 schema as the official SDK
generated it (``mcp_types`` 2.3.0, ``_v2026_07_28``: ``SubscriptionsListenRequest``,
``SubscriptionFilter``, ``SubscriptionsAcknowledgedNotification``,
``NotificationMetaObject``, ``SubscriptionsListenResult``; generated from
``schema/2026-07-28.json``), and the SDK's own server (``mcp.server.subscriptions``,
SEP-2575). In short:

* 2026-07-28: nothing is sent unasked. The client opens a stream with the
  request ``subscriptions/listen`` ``{"notifications": {"resourcesListChanged":
  true, ...}}``; the server's first message on it is
  ``notifications/subscriptions/acknowledged`` whose ``params.notifications``
  is the subset of the requested kinds it will honour (kinds it does not
  support are omitted), and every message of the stream carries
  ``_meta["io.modelcontextprotocol/subscriptionId"]``, the listen request's
  id. The request stays open; its result (``SubscriptionsListenResult``) is
  sent only when the server ends the stream, which tmuxmcp does only when
  the connection ends (dispatch Rule 4), where nothing more can be said, so
  it never sends one; a client ends a stream with ``notifications/cancelled``
  and gets nothing (dispatch Rule 1).
* the handshake era: the server declares ``resources.listChanged: true``
  and sends ``notifications/resources/list_changed`` (no params) unasked,
  once the handshake is done (``dispatch`` Rule 7: from the client's
  ``notifications/initialized`` on).

Rule 1: only what is asked, only what is served. A stream honours
  ``resourcesListChanged`` and nothing else (the tool list never changes, and
  there are no prompts or per-resource updates); asked for none of it, it
  is acknowledged with an empty filter and stays silent.
Rule 2: the acknowledgement is the stream's first message, and a change is
  never lost between the two: a listener is registered before its
  acknowledgement is put.
Rule 3: a change is a level, not an event. A stream whose previous
  ``list_changed`` is still unwritten gets no second one (``outbox`` Rule 3),
  so a client that does not read holds one line per stream at most.
Rule 4: bounded. At most ``MAX_LISTENERS`` streams at once per connection
  (each also counts as a request in flight for the outbox); one more waits
  up to ``FREE_WAIT_S`` for a place (a stream whose cancel was read first
  frees its place as it unwinds, which trio may schedule after the new
  request) and is then refused before any acknowledgement, saying so.
Rule 5: a stream ends with its request's task: cancelled by the client, or
  when the connection ends (dispatch Rule 4); it leaves nothing behind, its
  registration is removed in its ``finally``.
Rule 6: whoever watches for changes waits with ``wait_poked``: changes
  matter only while a stream that asked for them is open or a handshake-era
  connection is ready, so only then does the wait also end on a timeout;
  otherwise only a ``poke`` ends it. A stream's registration pokes, so the
  watcher looks at once (a change after its acknowledgement is never
  compared with a set read after that change); a ready handshake
  connection only wakes the watcher.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import msgspec
import trio

from tmuxmcp.protocol import messages, params
from tmuxmcp.protocol.codes import INTERNAL_ERROR, RpcError
from tmuxmcp.protocol.dispatch import Method, RequestContext
from tmuxmcp.protocol.results import Result

LISTEN: Final = "subscriptions/listen"
ACKNOWLEDGED: Final = "notifications/subscriptions/acknowledged"
LIST_CHANGED: Final = "notifications/resources/list_changed"
SUBSCRIPTION_ID_KEY: Final = "io.modelcontextprotocol/subscriptionId"
MAX_LISTENERS: Final = 8
"""Streams open at once on one connection (Rule 4); far below the outbox's bound."""
FREE_WAIT_S: Final = 1.0
"""How long one stream past the bound waits for a place before it is refused (Rule 4)."""


class SubscriptionFilter(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """What a stream asks for; kinds this server never sends are read and not honoured."""

    resources_list_changed: bool | None = None
    tools_list_changed: bool | None = None
    prompts_list_changed: bool | None = None
    resource_subscriptions: list[str] | None = None


class ListenParams(params.Params, frozen=True, kw_only=True):
    """``subscriptions/listen``."""

    notifications: SubscriptionFilter


class _Stream:
    """One open listen stream: whether it asked for list changes, and a wake-up."""

    def __init__(self, wants_changes: bool) -> None:
        self.wants_changes = wants_changes
        self.changed = trio.Event()


class ListChanges:
    """One connection's resource-list changes and who is told of them (module docstring)."""

    def __init__(self, max_listeners: int = MAX_LISTENERS) -> None:
        self._max = max_listeners
        self._streams: dict[int, _Stream] = {}
        self._plain: Callable[[bytes], None] | None = None
        self._wake = trio.Event()
        self._poked = False
        self._listed: frozenset[str] | None = None
        self._freed = trio.Event()

    @property
    def listeners(self) -> int:
        """Streams open now."""
        return len(self._streams)

    @property
    def wanted(self) -> bool:
        """Whether anyone would be told of a change now (Rule 6)."""
        return self._plain is not None or any(s.wants_changes for s in self._streams.values())

    def poke(self) -> None:
        """Something may have changed the list (a call that starts or ends panes ended):
        whoever watches looks now."""
        self._poked = True
        self._wake.set()

    def listed(self, uris: frozenset[str]) -> None:
        """The client was just given these resource URIs (``resources/list``): whoever
        watches looks now, and tells a change against them (``take_listed``)."""
        self._listed = uris
        self.poke()

    def take_listed(self) -> frozenset[str] | None:
        """The URIs the client was last given, once (None: no listing since the last take)."""
        listed, self._listed = self._listed, None
        return listed

    async def wait_poked(self, period: float) -> bool:
        """Whether poked; else it returned after ``period`` seconds while someone would
        be told of a change, or when someone came to be (Rule 6). While nobody would,
        only a poke or a newcomer ends the wait."""
        with trio.move_on_after(period if self.wanted else float("inf")):
            await self._wake.wait()
        self._wake = trio.Event()
        poked, self._poked = self._poked, False
        return poked

    def open_plain(self, put: Callable[[bytes], None]) -> None:
        """The handshake-era connection is ready: changes go out unasked through ``put``."""
        self._plain = put
        self._wake.set()  # polls start; the set read at start is the baseline

    def changed(self) -> None:
        """The resource list changed: tell every stream that asked, and a ready
        handshake-era connection."""
        if self._plain is not None:
            self._plain(messages.encode(messages.OutgoingNotification(LIST_CHANGED, None)))
        for stream in self._streams.values():
            if stream.wants_changes:
                stream.changed.set()

    async def serve(self, ctx: RequestContext, p: ListenParams) -> Result:
        """One listen stream, until it is cancelled (Rules 1, 2, 3, 5)."""
        if len(self._streams) >= self._max:
            # A stream whose cancel was read before this request may not have
            # unwound yet: its place is free within moments (Rule 4).
            with trio.move_on_after(FREE_WAIT_S):
                while len(self._streams) >= self._max:
                    await self._freed.wait()
        if len(self._streams) >= self._max:
            raise RpcError(
                INTERNAL_ERROR,
                f"Subscription limit reached: at most {self._max} subscriptions/listen "
                "streams are open at once on one connection; cancel one "
                "(notifications/cancelled with its request id) before opening another",
            )
        meta: dict[str, Any] = {SUBSCRIPTION_ID_KEY: ctx.request_id}
        wants = p.notifications.resources_list_changed is True
        honoured: dict[str, Any] = {"resourcesListChanged": True} if wants else {}
        stream = _Stream(wants)
        key = id(stream)
        self._streams[key] = stream
        try:
            if wants:
                self.poke()  # look now: a change from here on is this stream's (Rule 2)
            ctx.notify(
                messages.encode(
                    messages.OutgoingNotification(
                        ACKNOWLEDGED, {"notifications": honoured, "_meta": meta}
                    )
                )
            )
            note = messages.encode(messages.OutgoingNotification(LIST_CHANGED, {"_meta": meta}))
            while True:
                await stream.changed.wait()
                stream.changed = trio.Event()
                ctx.notify(note, replaceable=True)
        finally:
            del self._streams[key]
            self._freed.set()
            self._freed = trio.Event()


def listen_methods(changes: ListChanges) -> dict[str, Method]:
    """The ``subscriptions/listen`` row: a 2026-07-28 request only."""
    return {LISTEN: Method(params=ListenParams, handler=changes.serve, handshake=False)}
