"""The inspect toolset's listings: sessions, windows, panes (or one pane), paste buffers.

Each tool costs one tmux invocation (plus the identity probe that shares it).
Objects are addressed by id only; every target goes through the target sink.
The records and the tmux variables they are read from are ``panes.records``;
``capture_pane`` is ``tools.capture``, ``server_info`` ``tools.server_info``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tmuxmcp.capability.arguments import Arguments, not_together
from tmuxmcp.capability.params import PaneId, SessionId, WindowId
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.errors import ObjectNotFound
from tmuxmcp.panes.pane_reading import panes_with_state
from tmuxmcp.panes.records import (
    BUFFER_FIELDS,
    SESSION_FIELDS,
    WINDOW_FIELDS,
    BufferInfo,
    PaneWithState,
    SessionInfo,
    WindowInfo,
)
from tmuxmcp.panetext.render import record_lines
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.query import list_records, pane_listing


async def _list(
    ctx: ToolContext, command: Command, fields: dict[str, str], kind: type[msgspec.Struct]
) -> list[Any]:
    return await list_records(ctx, command, fields, kind)


# -- list_sessions ---------------------------------------------------------------


class ListSessionsArgs(Arguments):
    """list_sessions takes no arguments."""


class ListSessionsResult(msgspec.Struct, frozen=True):
    """Every session on the selected socket."""

    sessions: list[SessionInfo]

    def text_form(self) -> str:
        """Readable form."""
        return record_lines(self.sessions, "no sessions")


async def list_sessions(ctx: ToolContext, args: ListSessionsArgs) -> ListSessionsResult:
    """Handler for list_sessions."""
    sessions = await _list(ctx, cmd("list-sessions"), SESSION_FIELDS, SessionInfo)
    return ListSessionsResult(sessions)


# -- list_windows ----------------------------------------------------------------


class ListWindowsArgs(Arguments):
    """Arguments of list_windows."""

    session_id: SessionId | None = None


class ListWindowsResult(msgspec.Struct, frozen=True):
    """Windows of one session, or of every session."""

    windows: list[WindowInfo]

    def text_form(self) -> str:
        """Readable form."""
        return record_lines(self.windows, "no windows")


async def list_windows(ctx: ToolContext, args: ListWindowsArgs) -> ListWindowsResult:
    """Handler for list_windows."""
    if args.session_id is None:
        command = cmd("list-windows", "-a")
    else:
        command = cmd("list-windows", t=args.session_id)
    return ListWindowsResult(await _list(ctx, command, WINDOW_FIELDS, WindowInfo))


# -- list_panes ------------------------------------------------------------------


class ListPanesArgs(Arguments):
    """Arguments of list_panes: at most one of session_id, window_id and pane_id."""

    session_id: SessionId | None = None
    window_id: WindowId | None = None
    pane_id: PaneId | None = None

    def __post_init__(self) -> None:
        not_together(self, "session_id", "window_id", neither="every session")
        not_together(self, "session_id", "pane_id")
        not_together(self, "window_id", "pane_id")


class ListPanesResult(msgspec.Struct, frozen=True):
    """Panes of one window, one session, or every session; or the one pane asked for."""

    panes: list[PaneWithState]

    def text_form(self) -> str:
        """Readable form."""
        return record_lines(self.panes, "no panes")


async def list_panes(ctx: ToolContext, args: ListPanesArgs) -> ListPanesResult:
    """Handler for list_panes. With ``pane_id`` (issue 28.9: it absorbed ``get_pane_info``):
    one list-panes on the pane's window, filtered here; a pane tmux does not report is
    the caller's error."""
    pane_id = args.pane_id
    if pane_id is None:
        command = pane_listing(args.session_id, args.window_id)
        return ListPanesResult(await panes_with_state(ctx.client, ctx.kernel, command))
    panes = await panes_with_state(ctx.client, ctx.kernel, cmd("list-panes", t=pane_id))
    for pane in panes:
        if pane.pane_id == pane_id:
            return ListPanesResult([pane])
    raise ObjectNotFound(f"tmux did not report pane {pane_id}; list_panes returns current ids")


# -- list_buffers ----------------------------------------------------------------


class ListBuffersArgs(Arguments):
    """list_buffers takes no arguments."""


class ListBuffersResult(msgspec.Struct, frozen=True):
    """Every paste buffer on the server."""

    buffers: list[BufferInfo]

    def text_form(self) -> str:
        """Readable form."""
        return record_lines(self.buffers, "no buffers")


async def list_buffers(ctx: ToolContext, args: ListBuffersArgs) -> ListBuffersResult:
    """Handler for list_buffers."""
    return ListBuffersResult(await _list(ctx, cmd("list-buffers"), BUFFER_FIELDS, BufferInfo))
