"""``capture_since`` (inspect): the rows a pane printed since an opaque cursor.

Row positions are tracked by ``scrollback``; lines lost to the history limit,
a clear, a screen switch or a resize are reported as a gap, never skipped
silently.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from tmuxmcp.capability.params import PaneId, local_int
from tmuxmcp.capability.results import Own, Terminal, TmuxId
from tmuxmcp.driver.argv import Command
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.observation import (
    MAX_RESULT_BYTES,
    cursor_param,
    observe,
    observe_commands,
    parse_view,
)
from tmuxmcp.tools.scrollback import (
    Gap,
    GapReason,
    Mark,
    decode_cursor,
    encode_cursor,
    explain_gap,
    locate,
    mark_at,
)

# -- capture_since -----------------------------------------------------------------


class CaptureSinceArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Arguments of capture_since."""

    pane_id: PaneId
    cursor: (
        Annotated[
            str, cursor_param("Cursor from the last capture_since of this pane; omit to start.")
        ]
        | None
    ) = None
    max_lines: Annotated[
        int,
        local_int(
            "Most rows returned; the cursor points after them.",
            ge=1,
            le=10_000,
        ),
    ] = 1000


class CaptureSinceResult(msgspec.Struct, frozen=True, kw_only=True):
    """Complete rows that appeared since the cursor, and where to continue."""

    pane_id: TmuxId
    lines: list[Terminal]
    first_row: int | None
    """Row number of ``lines[0]`` as capture_pane counts it (negative: scrollback)."""
    partial: Terminal
    """The cursor's row: not complete yet, so it is returned again once it is."""
    cursor: Own
    more: bool
    """More complete rows wait after the returned ones (max_lines or the byte cap)."""
    gap: GapReason | None
    """Set when the cursor's position could not be found again; lines may be missing."""
    lines_lost: int
    """Rows gone before they could be returned: exact (0) without a gap, a lower bound with."""

    def text_form(self) -> str:
        """Readable form: a status line, then the lines, then the partial row."""
        head = f"lines={len(self.lines)} more={'yes' if self.more else 'no'}"
        if self.gap is not None:
            head += f" gap={self.gap} lines_lost>={self.lines_lost}"
        body = [head, *self.lines]
        if self.partial:
            body.append(f"[partial] {self.partial}")
        body.append(f"[cursor] {self.cursor}")
        return "\n".join(body)


def _server_of(ctx: ToolContext) -> tuple[int, int]:
    bound = ctx.client.bound
    if bound is None:
        raise RuntimeError("capture_since before the client was bound")
    return bound.pid, bound.start_time


# -- cursors for send_text and send_keys ---------------------------------------------


def cursor_commands(pane: str) -> tuple[RecordFormat, list[Command]]:
    """Commands that read a cursor, to run in the same invocation just before input.

    tmux runs one invocation's commands in order, so the cursor describes the
    pane at an instant before the input was delivered: whatever the program
    prints in response comes after it. (Output the program printed on its own
    between the cursor and the input also comes after it.)
    """
    return observe_commands(pane, back=2)


def cursor_from(ctx: ToolContext, pane: str, frame: RecordFormat, stdout: str) -> str:
    """The cursor at the pane's cursor position, from the output of ``cursor_commands``.

    It marks the cursor's row and column: for capture_since it is the cursor's
    row; for wait_for_text ``since`` the text after the column on that row and
    every row below it.
    """
    view = parse_view(frame, stdout)
    mark = mark_at(view, view.cursor_row, view.frame.cursor_x)
    return encode_cursor(_server_of(ctx), pane, mark)


async def capture_since(ctx: ToolContext, args: CaptureSinceArgs) -> CaptureSinceResult:
    """Handler for capture_since."""
    pane = args.pane_id
    server = _server_of(ctx)
    gap: Gap | None = None
    if args.cursor is None:
        view = await observe(ctx, pane, back=2)
        start = view.screen_top
    else:
        mark: Mark = decode_cursor(args.cursor, server, pane)
        view = await observe(ctx, pane, back=max(0, mark.history_size - mark.row + 2) + 1024)
        at = locate(mark, view)
        if at is None and view.top > 0:
            view = await observe(ctx, pane, back=None)
            at = locate(mark, view)
        if at is None:
            gap = explain_gap(mark, view)
            at = view.screen_top if gap.reason == "screen-switched" else view.top
        start = at
    end = max(start, view.cursor_row)
    lines: list[str] = []
    size = 0
    for r in range(start, end):
        text = view.row(r)
        size += len(text.encode("utf-8", "replace")) + 1
        if len(lines) >= args.max_lines or size > MAX_RESULT_BYTES:
            break
        lines.append(text)
    following = start + len(lines)
    cursor_row = min(view.cursor_row, view.end - 1)
    return CaptureSinceResult(
        pane_id=pane,
        lines=lines,
        first_row=view.relative(start) if lines else None,
        partial=view.row(cursor_row) if cursor_row >= view.top else "",
        cursor=encode_cursor(server, pane, mark_at(view, following)),
        more=following < end,
        gap=None if gap is None else gap.reason,
        lines_lost=0 if gap is None else gap.lines_lost,
    )
