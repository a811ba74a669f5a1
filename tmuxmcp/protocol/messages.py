"""JSON-RPC 2.0 messages as msgspec Structs: what a client sends, and every line the server writes.

Rule 1: an inbound line is decoded once, into ``Envelope``, by one typed
  decoder; ``classify`` turns it into exactly one of ``Request``,
  ``Notification`` or ``Reply`` (a client's answer to a server request: the
  server sends none, so replies are dropped), or ``None`` when it is not a
  JSON-RPC 2.0 message at all. A request's ``id`` is a string or an integer,
  never ``null``, a boolean or a float.
Rule 2: ``params`` stays a decoded JSON object until the method is known;
  each handler decodes it into its own params Struct (``methods``), so one
  method's shape never constrains another's.
Rule 3: every outgoing message is one ``Struct`` encoded once by one
  encoder, members in the order the SDK wrote them (``jsonrpc``, ``id``,
  then ``result`` or ``error``). A result already encoded (``msgspec.Raw``)
  is spliced in as it is, never parsed and encoded again, and so is an id
  kept as its bytes (``RawId``).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

WireId = int | str
"""An id as a client's line holds it, decoded."""


class RawId:
    """An id that cannot be held as its value, kept as the bytes the client sent.

    A string id with a lone UTF-16 surrogate (``"\\ud800"``) or bytes that are
    not UTF-8 would come back rewritten (to U+FFFD, so two such ids would be
    one), and an integer longer than Python converts cannot be held at all:
    each is answered with its own bytes, spliced into the response as they
    came (issue 27 N5). Two are the same id only if their bytes are.
    """

    __slots__ = ("token",)

    def __init__(self, token: bytes) -> None:
        self.token = token

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RawId) and other.token == self.token

    def __hash__(self) -> int:
        return hash((RawId, self.token))

    def __repr__(self) -> str:
        return f"RawId({self.token!r})"


RequestId = int | str | RawId
"""A request's id as the server holds it: its value, or its bytes (``RawId``)."""


class Envelope(msgspec.Struct, frozen=True):
    """Any JSON-RPC 2.0 object as it arrives: which members it has decides what it is."""

    jsonrpc: Literal["2.0"]
    id: WireId | msgspec.UnsetType | None = msgspec.UNSET
    method: str | msgspec.UnsetType = msgspec.UNSET
    params: dict[str, Any] | msgspec.UnsetType | None = msgspec.UNSET
    result: Any = msgspec.UNSET
    error: Any = msgspec.UNSET


class Request(msgspec.Struct, frozen=True):
    """A call that is answered: ``id`` is echoed in its response."""

    id: RequestId
    method: str
    params: dict[str, Any] | None = None


class Notification(msgspec.Struct, frozen=True):
    """A message that is never answered."""

    method: str
    params: dict[str, Any] | None = None


class Reply(msgspec.Struct, frozen=True):
    """A client's result or error for a request of the server's (never sent, so dropped)."""

    id: RequestId | None


Message = Request | Notification | Reply


def classify(envelope: Envelope) -> Message | None:
    """What an envelope is, or None when its members make no JSON-RPC message (Rule 1)."""
    params = None if envelope.params is msgspec.UNSET else envelope.params
    if isinstance(envelope.method, str):
        if envelope.id is msgspec.UNSET:
            return Notification(envelope.method, params)
        return None if envelope.id is None else Request(envelope.id, envelope.method, params)
    answers = (envelope.result is msgspec.UNSET) != (envelope.error is msgspec.UNSET)
    if not answers or envelope.params is not msgspec.UNSET or envelope.id is msgspec.UNSET:
        return None
    return Reply(envelope.id)


_DECODER = msgspec.json.Decoder(Envelope)


def decode(data: bytes | str) -> Message | None:
    """One line's message; raises ``msgspec.DecodeError`` or ``RecursionError`` if not JSON."""
    return classify(_DECODER.decode(data))


def from_builtins(value: Any) -> Message | None:
    """A message from JSON already parsed (``json.loads``); raises ``msgspec.ValidationError``."""
    return classify(msgspec.convert(value, Envelope))


# -- outgoing ------------------------------------------------------------------------


class ErrorObject(msgspec.Struct, frozen=True, omit_defaults=True):
    """A JSON-RPC error: ``data`` is left out unless given."""

    code: int
    message: str
    data: Any = msgspec.UNSET


class Response(msgspec.Struct, frozen=True, tag_field="jsonrpc", tag="2.0"):
    """A success response; ``result`` is a result Struct or ``msgspec.Raw``."""

    id: RequestId
    result: Any


class ErrorResponse(msgspec.Struct, frozen=True, tag_field="jsonrpc", tag="2.0"):
    """An error response; ``id`` is null when the request's id could not be read."""

    id: RequestId | None
    error: ErrorObject


class OutgoingNotification(
    msgspec.Struct, frozen=True, tag_field="jsonrpc", tag="2.0", omit_defaults=True
):
    """A notification from the server (progress, a list change); ``params`` left out
    when None (a handshake-era ``list_changed`` has none)."""

    method: str
    params: Any = None


Outgoing = Response | ErrorResponse | OutgoingNotification


def _raw_id(value: object) -> msgspec.Raw:
    if isinstance(value, RawId):
        return msgspec.Raw(value.token)
    raise NotImplementedError(f"cannot encode {type(value).__name__}")


_ENCODER = msgspec.json.Encoder(enc_hook=_raw_id)


def encode(message: Outgoing) -> bytes:
    """One outgoing message as one line's JSON (no newline)."""
    return _ENCODER.encode(message)


def error_response(
    request_id: RequestId | None, code: int, message: str, data: Any = msgspec.UNSET
) -> ErrorResponse:
    """The error that answers ``request_id``."""
    return ErrorResponse(request_id, ErrorObject(code, message, data))
