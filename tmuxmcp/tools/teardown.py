"""The teardown toolset: delete sessions, windows, panes, scrollback and buffers.

No tool here, or anywhere, kills the tmux server: socket-wide termination
stays an operator action (``tmux -L tmuxmcp kill-server``), because it may
destroy sessions the caller does not own (ADR, shutdown behaviour). The one
server tmuxmcp ends is its own, at exit and only when it holds nothing
(``driver.tenancy``): no tool does that either.

Self-teardown guard: when tmuxmcp itself runs in a pane of the bound server,
``kill_pane``, ``kill_window`` and ``kill_session`` refuse to remove that pane
or the window or session that holds it (checked at call time: panes move).
The guard protects against these direct teardown tools only. It does not stop
an equivalent command typed into a pane, or any other tmux client on the
socket, and tmuxmcp does not claim to own the objects on a shared socket; it
acts only on the ids it is given.

Zoom guard: tmux 3.4's server crashes when ``kill-session`` destroys a
zoomed window (``window_destroy`` unzooms it and queues a
``window-layout-changed`` notification for a window about to be freed; fixed
in 3.5 by tmux commit 6c0067c10, GitHub issue 3860). Measured: it ended the
3.4 server every time; 3.2a, 3.3a, 3.5a, 3.6 and 3.7c survive, and
``kill-window`` unzooms before it unlinks (``server_kill_window``), so it is
safe on 3.4 too. On 3.4 ``kill_session`` therefore runs, in the same tmux
invocation and just before the kill, a ``show-options`` whose option name
tmux expands in the session's context: the marker if none of its windows is
zoomed, else ``Refusal.WINDOW_ZOOMED``, which fails and drops the kill
(``driver.guards``, the gate's mechanism). The caller is told to unzoom first.
"""

from __future__ import annotations

import msgspec

from tmuxmcp.capability.arguments import Arguments
from tmuxmcp.capability.params import BufferName, PaneId, SessionId, WindowId
from tmuxmcp.capability.results import Echo, Own
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.driver.buffers import delete_buffer_commands
from tmuxmcp.driver.guards import GuardRefused, Refusal, guard, refuse_if
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.driver.versions import version_tuple
from tmuxmcp.errors import SelfTeardownRefused, ZoomedTeardownRefused
from tmuxmcp.panes.listing import with_format
from tmuxmcp.sinks.target import IdKind
from tmuxmcp.tools.context import ToolContext


class Deleted(msgspec.Struct, frozen=True, kw_only=True):
    """What was deleted."""

    id: Echo
    deleted: Own

    def text_form(self) -> str:
        """Readable form."""
        return f"deleted {self.deleted} {self.id}"


async def refuse_self_teardown(ctx: ToolContext, kind: IdKind, target: str) -> None:
    """Raise if ``target`` is, or holds, the pane tmuxmcp runs in."""
    own = ctx.self_pane
    if own is None:
        return
    if kind is IdKind.PANE:
        holder = own
    else:
        frame = RecordFormat(["pane_id", "window_id", "session_id"])
        out = await ctx.client.run(with_format(cmd("list-panes", t=own), frame))
        mine = [r for r in frame.parse(out.stdout) if r["pane_id"] == own]
        if not mine:
            return
        holder = mine[0]["window_id" if kind is IdKind.WINDOW else "session_id"]
    if holder == target:
        raise SelfTeardownRefused(
            f"{target} is (or holds) pane {own}, where tmuxmcp itself runs; "
            "this guard covers teardown tools only"
        )


ZOOM_CRASH = (3, 4)
"""The tmux release whose server crashes destroying a zoomed window (zoom guard)."""


def zoom_guard(marker: str, session: str) -> Command:
    """The zoom guard for ``kill-session`` of ``session`` (an id).

    Expanded in the session's context, over every window of it (``#{W:...}``).
    Built from constants, the marker and an id: no caller text.
    """
    if not marker.startswith("@tmuxmcp_") or not session.startswith("$"):
        raise ValueError("zoom_guard takes tmuxmcp's marker and a session id")
    any_zoomed = "#{m:*1*,#{W:#{window_zoomed_flag}}}"
    return guard(refuse_if(any_zoomed, Refusal.WINDOW_ZOOMED, marker), session)


async def _kill(ctx: ToolContext, kind: IdKind, target: str) -> Deleted:
    """``kill-session``, ``kill-window`` or ``kill-pane`` of one id, after the self guard
    (and for a session on tmux 3.4 the zoom guard, in the same invocation)."""
    await refuse_self_teardown(ctx, kind, target)
    kill = cmd(f"kill-{kind.value}", t=target)
    if kind is not IdKind.SESSION or version_tuple(ctx.facts.version) != ZOOM_CRASH:
        await ctx.client.run(kill)
        return Deleted(id=target, deleted=kind.value)
    try:
        await ctx.client.run(zoom_guard(ctx.client.marker, target), kill)
    except GuardRefused as refused:
        if refused.refusal is not Refusal.WINDOW_ZOOMED:
            raise
        raise ZoomedTeardownRefused(
            f"a window of session {target} is zoomed, and tmux 3.4 crashes its whole server "
            "when kill-session destroys a zoomed window (fixed in tmux 3.5); nothing was "
            "killed; unzoom it first (resize_pane with zoom) or kill its windows with "
            "kill_window, then call again"
        ) from None
    return Deleted(id=target, deleted=kind.value)


class KillSessionArgs(Arguments):
    """Arguments of kill_session."""

    session_id: SessionId


async def kill_session(ctx: ToolContext, args: KillSessionArgs) -> Deleted:
    """Handler for kill_session."""
    return await _kill(ctx, IdKind.SESSION, args.session_id)


class KillWindowArgs(Arguments):
    """Arguments of kill_window."""

    window_id: WindowId


async def kill_window(ctx: ToolContext, args: KillWindowArgs) -> Deleted:
    """Handler for kill_window (killing a session's last window ends that session)."""
    return await _kill(ctx, IdKind.WINDOW, args.window_id)


class KillPaneArgs(Arguments):
    """Arguments of kill_pane."""

    pane_id: PaneId


async def kill_pane(ctx: ToolContext, args: KillPaneArgs) -> Deleted:
    """Handler for kill_pane (killing a window's last pane ends that window)."""
    return await _kill(ctx, IdKind.PANE, args.pane_id)


class ClearHistoryArgs(Arguments):
    """Arguments of clear_history."""

    pane_id: PaneId


async def clear_history(ctx: ToolContext, args: ClearHistoryArgs) -> Deleted:
    """Handler for clear_history: drops the pane's scrollback (not its visible screen)."""
    await ctx.client.run(cmd("clear-history", t=args.pane_id))
    return Deleted(id=args.pane_id, deleted="scrollback of pane")


class DeleteBufferArgs(Arguments):
    """Arguments of delete_buffer."""

    buffer: BufferName


async def delete_buffer(ctx: ToolContext, args: DeleteBufferArgs) -> Deleted:
    """Handler for delete_buffer."""
    await ctx.client.run(*delete_buffer_commands(args.buffer))
    return Deleted(id=args.buffer, deleted="buffer")
