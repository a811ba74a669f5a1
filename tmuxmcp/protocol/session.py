"""The connection's era, as one state and one transitions table (the h11 way).

A stdio connection serves one era, decided by the client's first request
(research/mcp-sdk-2.md, section 3): ``initialize``, or any request without
the 2026-07-28 envelope, opens the handshake era; a request carrying the
envelope opens the 2026-07-28 era. The decision is never revised.

Rule 1: in the handshake era the gate opens with ``initialize`` or a
  ``notifications/initialized``; before that only ``ping`` (and methods the
  server does not serve, answered ``-32601``) get anything but ``-32602``.
Rule 2: each era refuses the other's claim: an enveloped request on a
  handshake connection gets ``-32600``; ``initialize`` on a 2026-07-28
  connection gets ``-32022`` naming the versions served.
Rule 3: the dispatcher feeds events (``observe``) and asks (``admit``); it
  never sets the state itself. An ``initialize`` opens the gate only once its
  params decoded (``settle``): a malformed one decides the era like any
  plain request and leaves the gate as it was, as the SDK's server did.
Rule 4: a handshake-era request is served at the version the last accepted
  ``initialize`` negotiated (``versions.for_version`` shapes its result), and
  at ``LATEST_HANDSHAKE`` on a connection that never sent one.
"""

from __future__ import annotations

import enum
from typing import Any, Final

import msgspec

from tmuxmcp.protocol.codes import INVALID_REQUEST, UNSUPPORTED_PROTOCOL_VERSION, RpcError
from tmuxmcp.protocol.versions import (
    LATEST_HANDSHAKE,
    MODERN_VERSIONS,
    envelope_version,
    has_envelope,
)


class State(enum.Enum):
    OPENING = "opening"
    """No request yet."""
    OPENING_INITIALIZED = "opening-initialized"
    """No request yet, but a ``notifications/initialized`` came."""
    HANDSHAKE = "handshake"
    """Handshake era, gate closed: ``initialize`` has not come."""
    READY = "ready"
    """Handshake era, gate open."""
    MODERN = "modern"
    """2026-07-28 era: every request carries its envelope."""


class Event(enum.Enum):
    INITIALIZE = "initialize"
    INITIALIZED = "notifications/initialized"
    ENVELOPED = "enveloped-request"
    PLAIN = "plain-request"


S, E = State, Event
TRANSITIONS: Final[dict[State, dict[Event, State]]] = {
    S.OPENING: {
        E.INITIALIZE: S.READY,
        E.INITIALIZED: S.OPENING_INITIALIZED,
        E.ENVELOPED: S.MODERN,
        E.PLAIN: S.HANDSHAKE,
    },
    S.OPENING_INITIALIZED: {
        E.INITIALIZE: S.READY,
        E.INITIALIZED: S.OPENING_INITIALIZED,
        E.ENVELOPED: S.MODERN,
        E.PLAIN: S.READY,
    },
    S.HANDSHAKE: {
        E.INITIALIZE: S.READY,
        E.INITIALIZED: S.READY,
        E.ENVELOPED: S.HANDSHAKE,
        E.PLAIN: S.HANDSHAKE,
    },
    S.READY: {e: S.READY for e in Event},
    S.MODERN: {e: S.MODERN for e in Event},
}
"""Every state answers every event: a missing pair is a bug the table test catches."""

HANDSHAKE_ERA: Final = frozenset({S.HANDSHAKE, S.READY})


class Admission(msgspec.Struct, frozen=True):
    """How one admitted request is served."""

    modern: bool
    """True on a 2026-07-28 connection: results are stamped (``versions.stamp``)."""
    gate_open: bool
    """False in the handshake era before ``initialize``: only ``ping`` is served."""
    pending: bool = False
    """An ``initialize`` whose event waits for ``Session.settle``."""
    version: str = LATEST_HANDSHAKE
    """In the handshake era, the version ``initialize`` negotiated (Rule 4)."""


def event_of(method: str, params: dict[str, Any] | None) -> Event:
    """The event a request is."""
    if method == "initialize":
        return E.INITIALIZE
    return E.ENVELOPED if has_envelope(params) else E.PLAIN


class Session:
    """One connection's era; see the module docstring."""

    def __init__(self) -> None:
        self.state = S.OPENING
        self.version = LATEST_HANDSHAKE
        """The handshake version negotiated (Rule 4)."""

    def observe(self, event: Event) -> State:
        """Move to the state ``event`` leads to; the new state."""
        self.state = TRANSITIONS[self.state][event]
        return self.state

    def admit(self, method: str, params: dict[str, Any] | None) -> Admission:
        """Feed one request's event; how to serve it, or ``RpcError`` refusing it (Rule 2).

        An ``initialize`` outside the 2026-07-28 era is admitted pending: its
        event is fed by ``settle``, once its params are known to decode.
        """
        event = event_of(method, params)
        if event is E.INITIALIZE and self.state is not S.MODERN:
            return Admission(modern=False, gate_open=True, pending=True)
        state = self.observe(event)
        if state is S.MODERN:
            if event is E.INITIALIZE:
                requested = (params or {}).get("protocolVersion")
                data: dict[str, Any] = {"supported": list(MODERN_VERSIONS)}
                if isinstance(requested, str):
                    data["requested"] = requested
                raise RpcError(
                    UNSUPPORTED_PROTOCOL_VERSION,
                    "connection is serving the 2026-07-28 protocol; "
                    "the initialize handshake is not accepted",
                    data,
                )
            envelope_version(params)
            return Admission(modern=True, gate_open=True)
        if event is E.ENVELOPED:
            raise RpcError(
                INVALID_REQUEST,
                "this connection serves the handshake protocol era; "
                "requests carrying the 2026-07-28 envelope are not accepted on it",
            )
        return Admission(modern=False, gate_open=state is S.READY, version=self.version)

    def settle(self, accepted: bool, version: str = LATEST_HANDSHAKE) -> State:
        """Feed a pending ``initialize``'s event: it opens the gate only if ``accepted``,
        and the connection is then served at ``version``, the one it negotiated (Rule 4)."""
        if accepted:
            self.version = version
        return self.observe(E.INITIALIZE if accepted else E.PLAIN)
