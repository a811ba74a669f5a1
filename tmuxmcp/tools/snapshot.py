"""``snapshot``: an inspect aggregate of sessions, windows, panes and their screens.

Aggregate authority (ADR, aggregates; CM-3): the snapshot declares its nested
operations (list_sessions, list_windows, list_panes, capture_pane) in the
definition and performs only those left after the operator's exclusions
(``ToolContext.nested``). The rule for an excluded operation is simple and
strict: its level, and every level below it, is omitted, and the result says
which operations were left out. So ``--exclude-tools capture_pane`` gives a
snapshot with no pane content, and excluding ``list_windows`` gives sessions
only. Its effective authority never exceeds that set.

Cost: one tmux invocation for the structure and, when capture_pane is
allowed, one more for every pane's visible screen, separated by nonce markers
that pane programs cannot predict. Content is capped in total bytes.
"""

from __future__ import annotations

import msgspec

from tmuxmcp.capability.arguments import Arguments
from tmuxmcp.capability.params import SessionId
from tmuxmcp.capability.results import Name, Own, Process, Terminal, TmuxId, TmuxReport
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.driver.records import SectionMarker
from tmuxmcp.errors import ObjectNotFound
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.query import list_records

MAX_SNAPSHOT_CONTENT_BYTES = 1024 * 1024

LEVELS = ("list_sessions", "list_windows", "list_panes", "capture_pane")


class SnapshotPane(msgspec.Struct, kw_only=True):
    """A pane and, when capture_pane is allowed, its visible screen."""

    pane_id: TmuxId
    index: int
    active: bool
    width: int
    height: int
    title: Name
    current_command: Process
    current_path: Process
    content: Terminal | None = None


class SnapshotWindow(msgspec.Struct, kw_only=True):
    """A window and, when list_panes is allowed, its panes."""

    window_id: TmuxId
    index: int
    name: Name
    active: bool
    layout: TmuxReport
    panes: list[SnapshotPane] | None = None


class SnapshotSession(msgspec.Struct, kw_only=True):
    """A session and, when list_windows is allowed, its windows."""

    session_id: TmuxId
    name: Name
    windows: list[SnapshotWindow] | None = None


class SnapshotArgs(Arguments):
    """Arguments of snapshot."""

    session_id: SessionId | None = None


class SnapshotResult(msgspec.Struct, kw_only=True):
    """The tree, what was left out, and whether content was truncated."""

    omitted_operations: list[Own]
    content_truncated: bool
    # Bulk last, so a head-only preview still shows the truncation (issue 18).
    sessions: list[SnapshotSession]

    def text_form(self) -> str:
        """Readable form: an indented tree, screens fenced."""
        lines: list[str] = []
        if self.omitted_operations:
            lines.append(
                "omitted (excluded by the operator): " + ", ".join(self.omitted_operations)
            )
        for s in self.sessions:
            lines.append(f"session {s.session_id} {s.name!r}")
            for w in s.windows or []:
                lines.append(f"  window {w.window_id} #{w.index} {w.name!r}")
                for p in w.panes or []:
                    lines.append(f"    pane {p.pane_id} {p.width}x{p.height} {p.current_command!r}")
                    if p.content is not None:
                        lines.append("    ----- screen -----")
                        lines.extend("    " + row for row in p.content.split("\n"))
                        lines.append("    ------------------")
        if self.content_truncated:
            lines.append("[content truncated: byte cap reached]")
        return "\n".join(lines) or "no sessions"


class _Row(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the listing; names and process text typed as in the result, so
    the records reader bounds them the same way."""

    session_id: str
    session_name: Name
    window_id: str = ""
    window_index: int = 0
    window_name: Name = ""
    window_active: bool = False
    window_layout: str = ""
    pane_id: str = ""
    pane_index: int = 0
    pane_active: bool = False
    pane_width: int = 0
    pane_height: int = 0
    pane_title: Name = ""
    pane_current_command: Process = ""
    pane_current_path: Process = ""


_SESSION = ("session_id", "session_name")
_WINDOW = ("window_id", "window_index", "window_name", "window_active", "window_layout")
_PANE = (
    "pane_id",
    "pane_index",
    "pane_active",
    "pane_width",
    "pane_height",
    "pane_title",
    "pane_current_command",
    "pane_current_path",
)


def _listing(depth: int, session: str | None) -> tuple[Command, tuple[str, ...]]:
    """The one tmux listing that covers the allowed depth."""
    fields: tuple[str, ...]
    if depth >= 3:
        fields = _SESSION + _WINDOW + _PANE
        command = cmd("list-panes", "-a") if session is None else cmd("list-panes", "-s", t=session)
    elif depth == 2:
        fields = _SESSION + _WINDOW
        command = cmd("list-windows", "-a") if session is None else cmd("list-windows", t=session)
    else:
        fields = _SESSION
        command = cmd("list-sessions")
    return command, fields


def _tree(rows: list[_Row], depth: int, session: str | None) -> list[SnapshotSession]:
    sessions: dict[str, SnapshotSession] = {}
    windows: dict[str, SnapshotWindow] = {}
    for row in rows:
        if session is not None and row.session_id != session:
            continue
        s = sessions.setdefault(
            row.session_id,
            SnapshotSession(
                session_id=row.session_id,
                name=row.session_name,
                windows=[] if depth >= 2 else None,
            ),
        )
        if depth < 2:
            continue
        if row.window_id not in windows:
            windows[row.window_id] = SnapshotWindow(
                window_id=row.window_id,
                index=row.window_index,
                name=row.window_name,
                active=row.window_active,
                layout=row.window_layout,
                panes=[] if depth >= 3 else None,
            )
            assert s.windows is not None
            s.windows.append(windows[row.window_id])
        if depth < 3:
            continue
        panes = windows[row.window_id].panes
        assert panes is not None
        panes.append(
            SnapshotPane(
                pane_id=row.pane_id,
                index=row.pane_index,
                active=row.pane_active,
                width=row.pane_width,
                height=row.pane_height,
                title=row.pane_title,
                current_command=row.pane_current_command,
                current_path=row.pane_current_path,
            )
        )
    return list(sessions.values())


def _screens_to_read(panes: list[SnapshotPane]) -> tuple[list[int], bool]:
    """The panes whose screens fit the content budget by their size, and whether any did not.

    Decided from each screen's cells before anything is read (issue 13.2): a
    screen of more cells than the budget has left is not captured, so one call
    reads at most the budget's worth of cells (times the bytes of a cell).
    """
    left = MAX_SNAPSHOT_CONTENT_BYTES
    chosen: list[int] = []
    for index, pane in enumerate(panes):
        cells = pane.width * pane.height + pane.height  # and a newline per row
        if cells > left:
            continue
        left -= cells
        chosen.append(index)
    return chosen, len(chosen) < len(panes)


async def _fill_content(ctx: ToolContext, panes: list[SnapshotPane]) -> bool:
    """Capture the visible screens that fit the budget (as few invocations as tmux's size
    limit allows); True if truncated."""
    chosen, truncated = _screens_to_read(panes)
    if not chosen:
        return truncated
    marker = SectionMarker()
    groups = [
        [
            cmd("display-message", "-p", args=[marker.line(index)]),
            cmd("capture-pane", "-p", t=panes[index].pane_id),
        ]
        for index in chosen
    ]
    out = await ctx.client.run_groups(groups)
    budget = MAX_SNAPSHOT_CONTENT_BYTES
    for index, (_, body) in sorted(marker.split(out.stdout).items()):
        if index >= len(panes):
            continue
        text = body.removesuffix("\n")
        size = len(text.encode("utf-8"))
        if size > budget:
            truncated = True
            continue
        budget -= size
        panes[index].content = text
    return truncated


async def snapshot(ctx: ToolContext, args: SnapshotArgs) -> SnapshotResult:
    """Handler for snapshot."""
    allowed = ctx.nested.get("snapshot", LEVELS)
    depth = 0
    for level in LEVELS:
        if level not in allowed:
            break
        depth += 1
    # Everything not performed: the excluded operation and every level below it.
    omitted = list(LEVELS[depth:])
    session = args.session_id
    if depth == 0:
        return SnapshotResult(sessions=[], omitted_operations=omitted, content_truncated=False)
    command, fields = _listing(depth, session)
    for attempt in range(2):
        rows = await list_records(ctx, command, {f: f for f in fields}, _Row)
        tree = _tree(rows, depth, session)
        if depth < 4:
            return SnapshotResult(
                sessions=tree, omitted_operations=omitted, content_truncated=False
            )
        panes = [p for s in tree for w in s.windows or [] for p in w.panes or []]
        try:
            truncated = await _fill_content(ctx, panes)
        except ObjectNotFound:
            if attempt == 0:
                continue  # a pane closed between the two invocations: list again
            raise
        return SnapshotResult(
            sessions=tree, omitted_operations=omitted, content_truncated=truncated
        )
    raise AssertionError("unreachable")
