"""The MCP results the server sends, as msgspec Structs named and spelled as on the wire.

Rule 1: one shape for every protocol version. A handshake-era client
  (2024-11-05 to 2025-11-25) gets the 2025-11-25 shapes, as the SDK sent
  them (older clients ignore members they do not know); a 2026-07-28 request
  gets the same Struct with its era's members filled in by ``versions.stamp``
  (``resultType``, ``_meta`` server info, and for cacheable results
  ``cacheScope`` and ``ttlMs``). Members left ``UNSET`` are not written.
Rule 2: ``isError`` is always written on a tool result, as the SDK did.
Rule 3: ``CallToolResult.structured_content`` is the result's JSON bytes as
  encoded once (``msgspec.Raw``); the text content is made from the same
  bytes or from the result's own text form, never by a second encoding of
  the result (issue 19.3).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

UNSET = msgspec.UNSET
Unset = msgspec.UnsetType


class Result(msgspec.Struct, kw_only=True, omit_defaults=True, rename="camel"):
    """Members every result may carry; the 2026-07-28 era fills them (``versions.stamp``)."""

    result_type: str | Unset = UNSET
    meta: dict[str, Any] | Unset = msgspec.field(default=UNSET, name="_meta")


class CacheableResult(Result, kw_only=True, omit_defaults=True, rename="camel"):
    """A result a 2026-07-28 client may cache (``ttlMs`` 0: not for reuse, as the SDK sent)."""

    cache_scope: Literal["private", "public"] | Unset = UNSET
    ttl_ms: int | Unset = UNSET


class EmptyResult(Result, kw_only=True, omit_defaults=True, rename="camel"):
    """The answer to ``ping``."""


class Implementation(msgspec.Struct, frozen=True, kw_only=True):
    """Who the server is."""

    name: str
    title: str
    version: str


class ListChanged(msgspec.Struct, frozen=True, rename="camel"):
    """A capability whose list never changes while the server runs."""

    list_changed: bool = False


class ResourcesCapability(msgspec.Struct, frozen=True, rename="camel"):
    """Resources: listed and read, never subscribed to."""

    subscribe: bool = False
    list_changed: bool = False


class ServerCapabilities(msgspec.Struct, frozen=True, omit_defaults=True):
    """What the server serves; ``resources`` only when the surface serves one;
    ``extensions`` only in ``server/discover`` (2026-07-28 declares extensions there)."""

    tools: ListChanged = msgspec.field(default_factory=ListChanged)
    resources: ResourcesCapability | None = None
    extensions: dict[str, dict[str, Any]] | None = None


class InitializeResult(Result, kw_only=True, omit_defaults=True, rename="camel"):
    """The handshake's answer: the negotiated version and the server's description."""

    protocol_version: str
    capabilities: ServerCapabilities
    server_info: Implementation
    instructions: str


class DiscoverResult(CacheableResult, kw_only=True, omit_defaults=True, rename="camel"):
    """2026-07-28 ``server/discover``: the versions served and the server's description."""

    supported_versions: list[str]
    capabilities: ServerCapabilities
    instructions: str


class Tool(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, rename="camel"):
    """One advertised tool."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None


class ListToolsResult(CacheableResult, kw_only=True, omit_defaults=True, rename="camel"):
    """Every tool of the frozen surface, in one page."""

    tools: list[Tool]


class TextContent(msgspec.Struct, frozen=True, tag_field="type", tag="text"):
    """A text content block."""

    text: str


class CallToolResult(Result, kw_only=True, omit_defaults=True, rename="camel"):
    """A tool's answer: text content, its structured form (Rule 3), and whether it failed."""

    content: list[TextContent]
    structured_content: msgspec.Raw | Unset = UNSET
    is_error: bool


class ResourceTemplate(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """A family of resources addressed by one URI template."""

    name: str
    title: str
    uri_template: str
    description: str
    mime_type: str


class ListResourceTemplatesResult(
    CacheableResult, kw_only=True, omit_defaults=True, rename="camel"
):
    """Every resource template, in one page."""

    resource_templates: list[ResourceTemplate]


class Resource(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """One concrete resource."""

    uri: str
    name: str
    title: str
    description: str
    mime_type: str


class ListResourcesResult(CacheableResult, kw_only=True, omit_defaults=True, rename="camel"):
    """Every resource there is now, in one page."""

    resources: list[Resource]


class TextResourceContents(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """A resource's text."""

    uri: str
    mime_type: str
    text: str


class ReadResourceResult(CacheableResult, kw_only=True, omit_defaults=True, rename="camel"):
    """What ``resources/read`` returns."""

    contents: list[TextResourceContents]


class ProgressParams(msgspec.Struct, frozen=True, omit_defaults=True, rename="camel"):
    """``notifications/progress``: how far a call is, for the token its request carried."""

    progress_token: str | int
    progress: float
    total: float | None = None
    message: str | None = None
