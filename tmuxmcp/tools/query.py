"""Reading tmux objects as typed records for a tool: one framed ``-F`` query per call.

Shared by every toolset: the records are read with the call's client by
``panes.listing`` (templates from constant field maps, converted to the
record Struct's field types), so handlers never parse tmux text themselves.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.panes.listing import read_records
from tmuxmcp.tools.context import ToolContext


def pane_listing(session_id: str | None, window_id: str | None) -> Command:
    """``list-panes`` of one window, one session, or (neither given) every pane.

    The argument Structs that take both ids refuse both at once
    (``capability.arguments``, Rule 4); here a window id wins.
    """
    if window_id is not None:
        return cmd("list-panes", t=window_id)
    if session_id is not None:
        return cmd("list-panes", "-s", t=session_id)
    return cmd("list-panes", "-a")


async def list_records(
    ctx: ToolContext,
    command: Command,
    fields: dict[str, str],
    kind: type[msgspec.Struct],
    *,
    before: tuple[Command, ...] = (),
) -> list[Any]:
    """Run ``before`` then ``command -F`` with the call's client; the records as ``kind``
    (``panes.listing.read_records``: an empty server lists no pane for ``-a``)."""
    return await read_records(ctx.client, command, fields, kind, before=before)
