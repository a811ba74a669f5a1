"""Protocol versions: those served, the handshake's negotiation, the 2026-07-28 envelope.

Two eras share one stdio connection (research/mcp-wire-clients.md):

* the handshake era (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25):
  ``initialize`` names a version; the server echoes it when it is one of
  these, else answers ``LATEST_HANDSHAKE`` (as the SDK did, also for a client
  that asks for 2026-07-28 in ``initialize``);
* the 2026-07-28 era: no handshake; every request carries the envelope in
  ``params._meta`` (protocol version, client capabilities, client info),
  checked by ``envelope_version`` in the SDK's order, with the SDK's
  messages; results carry ``resultType`` and the server's info in ``_meta``
  (``stamp``).

Rule: the result Structs have one shape; ``stamp`` (the 2026-07-28 era) and
``for_version`` (a handshake version) are the only places where the era
changes what a result holds.

Rule (issue 31.1): every client gets each result whole in every form its
version defines. Structured output (a tool's ``outputSchema``, a result's
``structuredContent``) came with 2025-06-18; a client that negotiated an
older version reads the text block alone, so it gets the text block alone,
whole, and neither the schemas nor a second copy of the result it would
not read. From 2025-06-18 on, both forms carry the whole result: clients
read one or the other (``server.tool_result``).
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from tmuxmcp.protocol.codes import INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION, RpcError
from tmuxmcp.protocol.results import (
    UNSET,
    CacheableResult,
    CallToolResult,
    Implementation,
    ListToolsResult,
    Result,
)

HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE: Final = "2025-11-25"
MODERN_VERSIONS: Final = ("2026-07-28",)
STRUCTURED_SINCE: Final = "2025-06-18"
"""The first version with structured output: ``outputSchema`` and ``structuredContent``."""

PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY: Final = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"


def negotiate(requested: str) -> str:
    """The handshake version answered to a client that asked for ``requested``."""
    return requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE


def meta_of(params: dict[str, Any] | None) -> dict[str, Any] | None:
    """A request's ``_meta`` object, or None when it has none (or not an object)."""
    meta = (params or {}).get("_meta")
    return meta if isinstance(meta, dict) else None


def has_envelope(params: dict[str, Any] | None) -> bool:
    """Whether a request claims the 2026-07-28 era: its ``_meta`` names a protocol version.

    The version key alone decides (a handshake-era ``_meta`` holds a
    ``progressToken``, never this reserved key), so a half-built envelope is
    answered by ``envelope_version`` with what it lacks.
    """
    meta = meta_of(params)
    return meta is not None and PROTOCOL_VERSION_KEY in meta


def envelope_version(params: dict[str, Any] | None) -> str:
    """The 2026-07-28 request's protocol version; raises ``RpcError`` naming what is wrong."""
    meta = meta_of(params)
    if meta is None:
        raise RpcError(
            INVALID_PARAMS,
            "params._meta must be an object carrying the required "
            f"{PROTOCOL_VERSION_KEY!r} and {CLIENT_CAPABILITIES_KEY!r} envelope keys",
        )
    missing = [key for key in (PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY) if key not in meta]
    if missing:
        raise RpcError(
            INVALID_PARAMS,
            f"params._meta is missing the required envelope key(s): {', '.join(missing)}",
        )
    version = meta[PROTOCOL_VERSION_KEY]
    if not isinstance(version, str):
        raise RpcError(INVALID_PARAMS, "the protocol-version envelope value must be a string")
    if version not in MODERN_VERSIONS:
        raise RpcError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            {"supported": list(MODERN_VERSIONS), "requested": version},
        )
    return version


def stamp(result: Result, server: Implementation) -> Result:
    """``result`` as a 2026-07-28 request gets it: ``resultType``, server info, cache hints.

    A result that already names its type (a future task handle) keeps it.
    """
    changes: dict[str, Any] = {
        "meta": {**(result.meta or {}), SERVER_INFO_KEY: server},
    }
    if result.result_type is msgspec.UNSET:
        changes["result_type"] = "complete"
    if isinstance(result, CacheableResult):
        if result.cache_scope is msgspec.UNSET:
            changes["cache_scope"] = "private"
        if result.ttl_ms is msgspec.UNSET:
            changes["ttl_ms"] = 0
    return msgspec.structs.replace(result, **changes)


def for_version(result: Result, version: str) -> Result:
    """``result`` as a handshake-era client of ``version`` gets it (module docstring).

    Before ``STRUCTURED_SINCE`` a tool result keeps its text block alone, and
    the tool list its tools without output schemas; versions are dates, so
    they compare as strings. Anything else is left as it is.
    """
    if version >= STRUCTURED_SINCE:
        return result
    if isinstance(result, CallToolResult) and result.structured_content is not UNSET:
        return msgspec.structs.replace(result, structured_content=UNSET)
    if isinstance(result, ListToolsResult):
        tools = [msgspec.structs.replace(tool, output_schema=None) for tool in result.tools]
        return msgspec.structs.replace(result, tools=tools)
    return result
