"""What a tool handler receives besides its arguments."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from tmuxmcp.driver.binding import ServerFacts
from tmuxmcp.driver.client import TmuxClient


class ToolContext(msgspec.Struct, frozen=True, kw_only=True):
    """Process-wide state shared by every call; fixed at startup."""

    client: TmuxClient
    facts: ServerFacts
    published: dict[str, Any]
    """The published surface (CM-7), as ``server_info`` reports it."""
    nested: dict[str, tuple[str, ...]]
    """Effective nested operations of each served aggregate."""
    self_pane: str | None = None
    """The pane tmuxmcp itself runs in, when that pane is on the bound server."""


Handler = Callable[[ToolContext, Any], Awaitable[msgspec.Struct]]
