"""The records the inspect tools return: sessions, windows, panes, paste buffers.

Each record is a Struct and a table from its fields to the tmux format
variables they are read from (``panes.listing`` reads them, nonce-framed,
because names, titles, paths and command names are set by pane programs).
The pane record is defined once: ``PaneRecord`` is what every pane carries,
in ``list_panes`` (``PaneInfo`` adds where it is and its
process and screen state) and in ``snapshot`` (which adds its screen).
"""

from __future__ import annotations

import msgspec

from tmuxmcp.capability.results import Name, Process, TmuxId, TmuxReport, UtcTime
from tmuxmcp.panes.pane_state import PaneState


class SessionInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A tmux session."""

    session_id: TmuxId
    name: Name
    windows: int
    attached_clients: int
    # Issue 31.4: tmux reports epoch seconds, which a model or a person reads
    # badly; one typed readable value costs fewer tokens than the epoch and a
    # readable copy side by side. (A comment, not a docstring: the docstring
    # is the output schema's description, in every tools/list.)
    created: UtcTime


class WindowInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A tmux window."""

    session_id: TmuxId
    window_id: TmuxId
    index: int
    name: Name
    active: bool
    panes: int
    width: int
    height: int
    layout: TmuxReport
    zoomed: bool


class PaneRecord(msgspec.Struct, frozen=True, kw_only=True):
    """What every pane record says (``list_panes``, ``snapshot``).

    ``title``, ``current_command`` and ``current_path`` are set by pane programs.
    """

    pane_id: TmuxId
    index: int
    active: bool
    width: int
    height: int
    title: Name
    current_command: Process
    current_path: Process


class PaneInfo(PaneRecord, frozen=True, kw_only=True):
    """A tmux pane. ``title``, ``current_command`` and ``current_path`` are set by pane programs.

    The pane record (``PaneRecord``), then where the pane is and its process
    and screen state.
    """

    session_id: TmuxId
    window_id: TmuxId
    pid: int | None
    dead: bool
    in_mode: bool
    alternate_screen: bool
    cursor_x: int
    cursor_y: int
    history_size: int
    history_limit: int
    tty: TmuxReport
    """The pane's terminal device (``/dev/pts/N``); a dead pane's may be another's now."""


class PaneWithState(PaneInfo, frozen=True, kw_only=True):
    """A tmux pane and what it is waiting for (``state``, issue 28.1): ``list_panes``, for
    every pane or one."""

    state: PaneState


class BufferInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A paste buffer: its name and size only, never its content."""

    name: Name
    size: int


SESSION_FIELDS = {
    "session_id": "session_id",
    "name": "session_name",
    "windows": "session_windows",
    "attached_clients": "session_attached",
    "created": "session_created",
}
WINDOW_FIELDS = {
    "session_id": "session_id",
    "window_id": "window_id",
    "index": "window_index",
    "name": "window_name",
    "active": "window_active",
    "panes": "window_panes",
    "width": "window_width",
    "height": "window_height",
    "layout": "window_layout",
    "zoomed": "window_zoomed_flag",
}
PANE_RECORD_FIELDS = {
    "pane_id": "pane_id",
    "index": "pane_index",
    "active": "pane_active",
    "width": "pane_width",
    "height": "pane_height",
    "title": "pane_title",
    "current_command": "pane_current_command",
    "current_path": "pane_current_path",
}
"""``PaneRecord``'s fields and the tmux format variables they are read from."""
PANE_FIELDS = {
    **PANE_RECORD_FIELDS,
    "session_id": "session_id",
    "window_id": "window_id",
    "pid": "pane_pid",
    "dead": "pane_dead",
    "in_mode": "pane_in_mode",
    "alternate_screen": "alternate_on",
    "cursor_x": "cursor_x",
    "cursor_y": "cursor_y",
    "history_size": "history_size",
    "history_limit": "history_limit",
    "tty": "pane_tty",
}
BUFFER_FIELDS = {"name": "buffer_name", "size": "buffer_size"}
