"""Each method's params as a msgspec Struct, decoded from the request's params object.

Rule: a request's params are decoded once, by ``decode``, into the Struct
its method declares; anything that does not fit (a missing ``name``, a
``cursor`` that is not a string, ``arguments`` that are not an object) is
``-32602`` with the SDK's wording, before any handler runs. Members a method
does not know are ignored, as the SDK ignored them.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from tmuxmcp.protocol.codes import invalid_params


class Params(msgspec.Struct, frozen=True, kw_only=True):
    """Members every request's params may carry."""

    meta: dict[str, Any] | None = msgspec.field(default=None, name="_meta")

    @property
    def progress_token(self) -> str | int | None:
        """The token the client asked progress notifications for, if any."""
        token = (self.meta or {}).get("progressToken")
        if isinstance(token, bool) or not isinstance(token, str | int):
            return None
        return token


class NoParams(Params, frozen=True, kw_only=True):
    """``ping`` and ``server/discover``."""


class ClientInfo(msgspec.Struct, frozen=True):
    """Who the client says it is (only checked for shape)."""

    name: str
    version: str


class InitializeParams(Params, frozen=True, kw_only=True, rename="camel"):
    """``initialize``: the version the client asks for."""

    protocol_version: str
    capabilities: dict[str, Any]
    client_info: ClientInfo


class PageParams(Params, frozen=True, kw_only=True):
    """A list request: one page holds everything, so the cursor is checked and unused."""

    cursor: str | None = None


class CallToolParams(Params, frozen=True, kw_only=True):
    """``tools/call``."""

    name: str
    arguments: dict[str, Any] | None = None


class ReadResourceParams(Params, frozen=True, kw_only=True):
    """``resources/read``."""

    uri: str


class CancelledParams(msgspec.Struct, frozen=True, rename="camel"):
    """``notifications/cancelled``: which request the client gave up on."""

    request_id: int | str
    reason: str | None = None


P = TypeVar("P", bound=msgspec.Struct)


def decode(params: dict[str, Any] | None, shape: type[P]) -> P:
    """``params`` as ``shape``; an absent params object decodes as ``{}``."""
    try:
        return msgspec.convert({} if params is None else params, shape)
    except msgspec.ValidationError:
        raise invalid_params() from None
