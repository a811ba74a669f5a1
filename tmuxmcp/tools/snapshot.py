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
that pane programs cannot predict.

Budget (issue 18.2): the tree and its screens together take at most
``max_chars`` characters of JSON (``inline``), so a default result stays
inline. The structure is spent first, in listing order: once the next
session, window or pane record does not fit, it and every record after it are
left out (``tree_truncated``, ``records_omitted``). Screens are then read, in
pane order, from what is left, and never more than
``MAX_SNAPSHOT_CONTENT_BYTES`` of them (``content_truncated``).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from tmuxmcp.capability.arguments import Arguments
from tmuxmcp.capability.params import SessionId, local_int
from tmuxmcp.capability.results import Name, Own, Process, Terminal, TmuxId, TmuxReport
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.driver.records import SectionMarker
from tmuxmcp.errors import ObjectNotFound
from tmuxmcp.panes.records import PANE_RECORD_FIELDS, PaneRecord
from tmuxmcp.panetext.inline import DEFAULT_INLINE_CHARS, line_cost, record_cost
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.query import list_records

MAX_SNAPSHOT_CONTENT_BYTES = 1024 * 1024
"""The most screen content one call reads, whatever ``max_chars`` allows (issue 13.2)."""
MAX_SNAPSHOT_CHARS = 4 * 1024 * 1024
"""The largest ``max_chars``: room for the tree of a few thousand panes and the content."""

LEVELS = ("list_sessions", "list_windows", "list_panes", "capture_pane")


class SnapshotPane(PaneRecord, frozen=True, kw_only=True):
    """The pane record and, when capture_pane is allowed, its visible screen."""

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
    max_chars: Annotated[
        int,
        local_int(
            "Most characters the tree and its screens take in the result's JSON (escapes"
            " counted); records past it are left out, in listing order.",
            ge=1_000,
            le=MAX_SNAPSHOT_CHARS,
        ),
    ] = DEFAULT_INLINE_CHARS


class SnapshotResult(msgspec.Struct, kw_only=True):
    """The tree, what was left out, and whether content was truncated."""

    omitted_operations: list[Own]
    content_truncated: bool
    """A screen was not returned: not read or cut by the budget, or its pane left out."""
    tree_truncated: bool
    """Sessions, windows or panes past ``max_chars`` were left out of the tree."""
    records_omitted: int
    """How many session, window and pane records were left out."""
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
        if self.tree_truncated:
            lines.append(f"[tree truncated by max_chars: {self.records_omitted} records omitted]")
        if self.content_truncated:
            lines.append("[content truncated: some screens not read, max_chars reached]")
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
_PANE = tuple(PANE_RECORD_FIELDS.values())


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


class _Tree:
    """The tree built from the listing's rows, within a budget of JSON characters.

    Records are added in listing order while each one's ``record_cost`` fits
    what is left; the first that does not ends the tree, and every new record
    of the rows after it is counted as omitted, so the tree is a prefix of the
    listing.
    """

    def __init__(self, depth: int, budget: int) -> None:
        self.depth, self.left = depth, budget
        self.sessions: dict[str, SnapshotSession] = {}
        self.windows: dict[str, SnapshotWindow] = {}
        self.full = False
        self.omitted = 0
        self._seen: set[str] = set()

    def _take(self, record: msgspec.Struct, key: str, *, under: bool = True) -> bool:
        """Whether ``record`` goes in the tree: its parent did (``under``) and it fits.

        A record that does not is counted as omitted, once (``key``).
        """
        if under and not self.full:
            cost = record_cost(record)
            if cost <= self.left:
                self.left -= cost
                return True
            self.full = True
        if key not in self._seen:
            self._seen.add(key)
            self.omitted += 1
        return False

    def add(self, row: _Row) -> None:
        """The records of one listing row not in the tree yet."""
        s = self.sessions.get(row.session_id)
        if s is None and row.session_id not in self._seen:
            record = SnapshotSession(
                session_id=row.session_id,
                name=row.session_name,
                windows=[] if self.depth >= 2 else None,
            )
            if self._take(record, row.session_id):
                s = self.sessions[row.session_id] = record
        if self.depth < 2:
            return
        w = self.windows.get(row.window_id)
        if w is None and row.window_id not in self._seen:
            window = SnapshotWindow(
                window_id=row.window_id,
                index=row.window_index,
                name=row.window_name,
                active=row.window_active,
                layout=row.window_layout,
                panes=[] if self.depth >= 3 else None,
            )
            if self._take(window, row.window_id, under=s is not None):
                assert s is not None and s.windows is not None
                s.windows.append(window)
                w = self.windows[row.window_id] = window
        if self.depth < 3:
            return
        pane = SnapshotPane(
            **{name: getattr(row, variable) for name, variable in PANE_RECORD_FIELDS.items()}
        )
        if self._take(pane, row.pane_id, under=w is not None):
            assert w is not None and w.panes is not None
            w.panes.append(pane)


def _tree(rows: list[_Row], depth: int, session: str | None, budget: int) -> _Tree:
    tree = _Tree(depth, budget)
    for row in rows:
        if session is None or row.session_id == session:
            tree.add(row)
    return tree


def _screens_to_read(panes: list[SnapshotPane], budget: int) -> tuple[list[int], bool]:
    """The panes whose screens fit ``budget`` by their size, and whether any did not.

    Decided from each screen's cells before anything is read (issue 13.2): a
    screen of more cells than the budget has left is not captured, so one call
    reads at most the budget's worth of cells (times the bytes of a cell).
    A cell costs at least one character of JSON, so no screen that could fit
    is skipped.
    """
    left = budget
    chosen: list[int] = []
    for index, pane in enumerate(panes):
        cells = pane.width * pane.height + pane.height  # and a newline per row
        if cells > left:
            continue
        left -= cells
        chosen.append(index)
    return chosen, len(chosen) < len(panes)


async def _screens(
    ctx: ToolContext, panes: list[SnapshotPane], left: int
) -> tuple[dict[int, str], bool]:
    """The visible screens that fit ``left`` characters of JSON and the content cap, by
    index in ``panes`` (as few invocations as tmux's size limit allows); True if truncated."""
    budget = min(left, MAX_SNAPSHOT_CONTENT_BYTES)
    chosen, truncated = _screens_to_read(panes, budget)
    screens: dict[int, str] = {}
    if not chosen:
        return screens, truncated
    marker = SectionMarker()
    groups = [
        [
            cmd("display-message", "-p", args=[marker.line(index)]),
            cmd("capture-pane", "-p", t=panes[index].pane_id),
        ]
        for index in chosen
    ]
    out = await ctx.client.run_groups(groups)
    for index, (_, body) in sorted(marker.split(out.stdout).items()):
        if index >= len(panes):
            continue
        text = body.removesuffix("\n")
        # The record was counted with ``null`` in its place.
        size = line_cost(text)
        if size > budget:
            truncated = True
            continue
        budget -= size
        screens[index] = text
    return screens, truncated


def _with_screens(sessions: list[SnapshotSession], screens: dict[int, str]) -> None:
    """Put each screen in its pane, numbered as ``_screens`` numbers them (tree order)."""
    index = 0
    for window in (w for s in sessions for w in s.windows or []):
        if window.panes is None:
            continue
        filled = []
        for pane in window.panes:
            screen = screens.get(index)
            filled.append(pane if screen is None else msgspec.structs.replace(pane, content=screen))
            index += 1
        window.panes = filled


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
        return _result([], omitted, _Tree(0, args.max_chars), content_truncated=False)
    command, fields = _listing(depth, session)
    for attempt in range(2):
        rows = await list_records(ctx, command, {f: f for f in fields}, _Row)
        tree = _tree(rows, depth, session, args.max_chars)
        sessions = list(tree.sessions.values())
        if depth < 4:
            return _result(sessions, omitted, tree, content_truncated=False)
        panes = [p for s in sessions for w in s.windows or [] for p in w.panes or []]
        try:
            screens, truncated = await _screens(ctx, panes, tree.left)
        except ObjectNotFound:
            if attempt == 0:
                continue  # a pane closed between the two invocations: list again
            raise
        _with_screens(sessions, screens)
        # Panes left out of the tree have no screen returned either.
        return _result(sessions, omitted, tree, content_truncated=truncated or tree.full)
    raise AssertionError("unreachable")


def _result(
    sessions: list[SnapshotSession], omitted: list[str], tree: _Tree, *, content_truncated: bool
) -> SnapshotResult:
    return SnapshotResult(
        omitted_operations=omitted,
        content_truncated=content_truncated,
        tree_truncated=tree.full,
        records_omitted=tree.omitted,
        sessions=sessions,
    )
