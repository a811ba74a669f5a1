"""Requests to handlers: one task per request, one writer, cancellation by request id.

Theory: the reader hands the dispatcher every inbound item in order. A
request is admitted by the connection's ``Session`` (era, gate), matched to
its ``Method`` and its params decoded before anything runs, all while the
next line waits, so pipelined requests see the state the previous ones left.
Then its handler runs in its own task, so a ``ping`` is answered while a
long call runs (style rule 15).

Rule 1: every request is answered exactly once, by a result or an error,
  unless the client cancelled it (``notifications/cancelled``): then its task
  is cancelled (a tmux child it runs is killed and reaped by the driver) and
  nothing is sent for it, as the SDK 2.x server did.
Rule 2: a handler's ``RpcError`` is its error response; any other exception
  is logged and answered ``-32603`` with a fixed message.
Rule 3: a result is encoded once, into the response line (``messages``); a
  result the encoder refuses is logged and answered ``-32603``. Before that
  it is shaped for the connection's era: stamped for 2026-07-28, cut to what
  the negotiated handshake version defines otherwise (``versions``).
Rule 4: when the input ends, requests still running are cancelled, the
  lines already put are written, and ``serve`` returns; when the output ends
  (``send`` raises ``OutputClosed``: nobody reads any more), ``serve``
  cancels everything and returns at once.
Rule 6: what the connection holds for the client is bounded (issue 27 N3):
  every line goes out through one ``Outbox``, which counts the requests in
  flight (by their lines' bytes, as ``Arrival`` gives them) and the lines
  not yet written; past its bounds the reader stops reading until the
  client reads. A ``notifications/cancelled`` read while under the bounds
  cancels its request at once.
Rule 7: what the server sends unasked in the handshake era (a list change,
  ``listen``) is put only once the client said ``notifications/initialized``
  on a handshake-era connection whose gate is open: ``on_ready`` is handed
  the way to put it then, and never on a 2026-07-28 connection, where
  nothing goes out unasked.
Rule 5: the table of methods is data: each ``Method`` names its params
  Struct and its handler, and whether it is served before the handshake or
  in each era. ``initialize``, ``server/discover`` and ``ping`` are the
  protocol's own; the server adds its tools and resources, and the Tasks
  extension's ``tasks/*`` rows (``tasks``) when it serves the extension.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable, Awaitable, Callable, Mapping
from typing import Any

import msgspec
import trio

from tmuxmcp.protocol import messages, params
from tmuxmcp.protocol.codes import (
    INTERNAL_ERROR,
    INTERNAL_ERROR_MESSAGE,
    RpcError,
    invalid_params,
    method_not_found,
)
from tmuxmcp.protocol.outbox import Outbox
from tmuxmcp.protocol.results import (
    DiscoverResult,
    EmptyResult,
    Implementation,
    InitializeResult,
    ProgressParams,
    Result,
    ServerCapabilities,
)
from tmuxmcp.protocol.session import Admission, Event, Session, State
from tmuxmcp.protocol.versions import MODERN_VERSIONS, for_version, negotiate, stamp

log = logging.getLogger("tmuxmcp")

Send = Callable[[bytes], Awaitable[None]]
"""The transport's writer of one line: whole, even under cancellation."""


Inbound = messages.Message | messages.ErrorResponse
"""What the reader hands the dispatcher: a message, or the error that answers a bad line."""


class Arrival(msgspec.Struct, frozen=True):
    """An inbound item with the bytes of the line it came from, which its request holds
    while it runs (Rule 6)."""

    item: Inbound
    size: int


class OutputClosed(Exception):
    """You get this from a ``Send`` whose reader is gone: nothing sent can arrive."""


class RequestContext:
    """What a handler knows of its request: its id, its era, and a way to report progress."""

    def __init__(
        self,
        request_id: messages.RequestId,
        admission: Admission,
        token: str | int | None,
        outbox: Outbox,
    ) -> None:
        self.request_id = request_id
        self.admission = admission
        self.progress_token = token
        self._outbox = outbox

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        """Put ``notifications/progress`` for this request (a no-op without a token).

        It never waits for the client: an unwritten one of this request is
        replaced (``outbox`` Rule 3).
        """
        if self.progress_token is None:
            return
        note = messages.OutgoingNotification(
            "notifications/progress",
            ProgressParams(self.progress_token, progress, total, message),
        )
        self._outbox.put_progress(self, messages.encode(note))
        await trio.lowlevel.checkpoint()

    def notify(self, line: bytes, *, replaceable: bool = False) -> None:
        """Put a notification of this request's own (a listen stream's, ``listen``).

        A ``replaceable`` one takes the place of this request's previous
        replaceable one while that is still unwritten (``outbox`` Rule 3): a
        level such as "the list changed" need not be said twice.
        """
        if replaceable:
            self._outbox.put_progress((self, "notify"), line)
        else:
            self._outbox.put(line)


Handler = Callable[[RequestContext, Any], Awaitable[Result]]


class Method(msgspec.Struct, frozen=True, kw_only=True):
    """One row of the method table (Rule 5)."""

    params: type[params.Params]
    handler: Handler
    before_handshake: bool = False
    """Served in the handshake era before ``initialize`` (only ``ping``)."""
    handshake: bool = True
    """Served on a handshake-era connection."""
    modern: bool = True
    """Served on a 2026-07-28 connection."""


class Description(msgspec.Struct, frozen=True, kw_only=True):
    """What the server says of itself in ``initialize`` and ``server/discover``."""

    info: Implementation
    instructions: str
    capabilities: ServerCapabilities
    extensions: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    """The extensions served, declared in ``server/discover`` only (2026-07-28)."""


def core_methods(description: Description) -> dict[str, Method]:
    """The protocol's own rows: the handshake, discovery and ping."""

    async def initialize(ctx: RequestContext, p: params.InitializeParams) -> Result:
        return InitializeResult(
            protocol_version=negotiate(p.protocol_version),
            capabilities=description.capabilities,
            server_info=description.info,
            instructions=description.instructions,
        )

    async def discover(ctx: RequestContext, p: params.NoParams) -> Result:
        capabilities = description.capabilities
        if description.extensions:
            capabilities = msgspec.structs.replace(
                capabilities, extensions=dict(description.extensions)
            )
        return DiscoverResult(
            supported_versions=list(MODERN_VERSIONS),
            capabilities=capabilities,
            instructions=description.instructions,
        )

    async def ping(ctx: RequestContext, p: params.NoParams) -> Result:
        return EmptyResult()

    return {
        "initialize": Method(params=params.InitializeParams, handler=initialize, modern=False),
        "server/discover": Method(params=params.NoParams, handler=discover, handshake=False),
        # 2026-07-28 has no ping: the SDK answered it -32601 there.
        "ping": Method(params=params.NoParams, handler=ping, before_handshake=True, modern=False),
    }


class Dispatcher:
    """Serves one connection: see the module docstring."""

    def __init__(
        self,
        description: Description,
        methods: Mapping[str, Method],
        send: Send,
        *,
        on_ready: Callable[[Callable[[bytes], None]], None] | None = None,
    ) -> None:
        """``on_ready``, if given, is called once, at a handshake-era connection's
        ``notifications/initialized``, with a function that puts a line: what the
        server sends unasked in that era goes through it (``listen``, Rule 7)."""
        self._on_ready = on_ready
        self._methods = {**core_methods(description), **methods}
        self._info = description.info
        self._outbox = Outbox(send)
        self._session = Session()
        self._running: dict[messages.RequestId, trio.CancelScope] = {}
        self._serving = trio.CancelScope()

    async def serve(self, inbound: AsyncIterable[Inbound | Arrival]) -> None:
        """Serve every item until the input or the output ends (Rule 4)."""
        with self._serving:
            async with trio.open_nursery() as writer:
                writer.start_soon(self._drain)
                async with trio.open_nursery() as requests:
                    items = aiter(inbound)
                    while True:
                        # Past the bounds, the next line stays unread (Rule 6).
                        await self._outbox.wait_room()
                        try:
                            arrived = await anext(items)
                        except StopAsyncIteration:
                            break
                        if isinstance(arrived, Arrival):
                            await self._item(requests, arrived.item, arrived.size)
                        else:
                            await self._item(requests, arrived, 0)
                    requests.cancel_scope.cancel()
                await self._outbox.wait_empty()
                writer.cancel_scope.cancel()

    async def _drain(self) -> None:
        """The one writer; when nobody reads any more, stop serving (Rule 4)."""
        try:
            await self._outbox.drain()
        except OutputClosed:
            self._serving.cancel()

    async def _item(self, nursery: trio.Nursery, item: Inbound, size: int) -> None:
        match item:
            case messages.ErrorResponse():
                self._outbox.put(messages.encode(item))
            case messages.Request():
                await self._request(nursery, item, size)
            case messages.Notification():
                self._notification(item)
            case messages.Reply():
                pass  # the server sends no requests: nothing waits for a reply

    async def _request(self, nursery: trio.Nursery, request: messages.Request, size: int) -> None:
        try:
            admission = self._session.admit(request.method, request.params)
            method = self._methods.get(request.method)
            if method is None or not (method.modern if admission.modern else method.handshake):
                raise method_not_found(request.method)
            if not (admission.gate_open or method.before_handshake):
                raise invalid_params()
            try:
                decoded = params.decode(request.params, method.params)
            except RpcError:
                if admission.pending:
                    self._session.settle(accepted=False)
                raise
            if admission.pending:
                assert isinstance(decoded, params.InitializeParams)  # only initialize is pending
                self._session.settle(accepted=True, version=negotiate(decoded.protocol_version))
        except RpcError as refused:
            self._outbox.put(_refusal(request.id, refused))
            return
        ctx = RequestContext(request.id, admission, decoded.progress_token, self._outbox)
        # Held from here until its task ends: its line's bytes, then its answer's (Rule 6).
        self._outbox.hold(size)
        if request.method == "initialize":
            # Run to its answer before the next line is read: a pipelined request sees
            # the open gate.
            await self._run(ctx, method, decoded, size)
        else:
            nursery.start_soon(self._run, ctx, method, decoded, size)

    async def _run(
        self, ctx: RequestContext, method: Method, decoded: params.Params, size: int
    ) -> None:
        try:
            with trio.CancelScope() as scope:
                self._running[ctx.request_id] = scope
                try:
                    line = await self._answer(ctx, method, decoded)
                finally:
                    if self._running.get(ctx.request_id) is scope:
                        del self._running[ctx.request_id]
                self._outbox.put(line)
        finally:
            self._outbox.release(size)

    async def _answer(self, ctx: RequestContext, method: Method, decoded: params.Params) -> bytes:
        try:
            result = await method.handler(ctx, decoded)
            if ctx.admission.modern:
                result = stamp(result, self._info)
            else:
                result = for_version(result, ctx.admission.version)
            return messages.encode(messages.Response(ctx.request_id, result))
        except RpcError as refused:
            return _refusal(ctx.request_id, refused)
        except Exception:
            log.exception("unexpected error serving request %r", ctx.request_id)
            return messages.encode(
                messages.error_response(ctx.request_id, INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE)
            )

    def _check_ready(self) -> None:
        """Call ``on_ready`` once, at the handshake era's ``notifications/initialized``
        (Rule 7): the lifecycle's end, so nothing unasked precedes ``initialize``'s answer."""
        if self._on_ready is not None and self._session.state is State.READY:
            on_ready, self._on_ready = self._on_ready, None
            on_ready(self._outbox.put)

    def _notification(self, note: messages.Notification) -> None:
        if note.method == "notifications/initialized":
            self._session.observe(Event.INITIALIZED)
            self._check_ready()
        elif note.method == "notifications/cancelled":
            named = (note.params or {}).get("requestId")
            if isinstance(named, messages.RawId):
                request_id: messages.RequestId = named  # an id held as its bytes (wire)
            else:
                try:
                    cancelled = msgspec.convert(note.params or {}, params.CancelledParams)
                except msgspec.ValidationError:
                    return  # a malformed notification cannot be answered; it changes nothing
                request_id = cancelled.request_id
            scope = self._running.get(request_id)
            if scope is not None:
                scope.cancel()


def _refusal(request_id: messages.RequestId, refused: RpcError) -> bytes:
    return messages.encode(
        messages.error_response(request_id, refused.code, refused.message, refused.data)
    )
