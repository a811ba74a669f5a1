"""The JSON-RPC error codes MCP uses, and the one exception that becomes an error response.

Rule 1: a handler that refuses a request raises ``RpcError``; the dispatcher
  writes it as the error object of that request's response, with its code,
  message and (when given) data, and nothing else. Any other exception is a
  bug: it is logged and answered ``INTERNAL_ERROR`` with a fixed message, so
  no exception text reaches the wire.
Rule 2: the messages below are the ones the official SDK's server sent for
  the same faults (research/mcp-sdk-2.md, section 1.3), so a client that keys
  off them sees no change.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
"""2026-07-28: the request's protocol version is not one the server serves."""

INVALID_PARAMS_MESSAGE: Final = "Invalid request parameters"
METHOD_NOT_FOUND_MESSAGE: Final = "Method not found"
INTERNAL_ERROR_MESSAGE: Final = "Internal server error"


class RpcError(Exception):
    """You get this when a request is refused: it becomes that request's error response."""

    def __init__(self, code: int, message: str, data: Any = msgspec.UNSET) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def invalid_params(data: Any = "") -> RpcError:
    """Params that do not decode to the method's declared shape (the SDK's wording)."""
    return RpcError(INVALID_PARAMS, INVALID_PARAMS_MESSAGE, data)


def method_not_found(method: str) -> RpcError:
    """A method this server does not serve, on this connection (``data`` names it)."""
    return RpcError(METHOD_NOT_FOUND, METHOD_NOT_FOUND_MESSAGE, method)
