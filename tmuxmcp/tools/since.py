"""``capture_since`` (inspect): the rows a pane printed since an opaque cursor.

Row positions are tracked by ``scrollback``; lines lost to the history limit,
a clear, a screen switch or a resize are reported as a gap, never skipped
silently. Every call that has a complete row after its cursor returns at
least one and moves the cursor past it: a row longer than ``max_chars`` by
itself comes alone, cut to its start and end with run_command's marker
between (``inline`` Rule 4), and ``lines_cut`` says so; a client that follows
the cursor gets every row once and reaches the end.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

import msgspec
import trio

from tmuxmcp.capability.arguments import Arguments
from tmuxmcp.capability.params import PaneId, local_int
from tmuxmcp.capability.results import Own, Terminal, TmuxId
from tmuxmcp.driver.argv import Command
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.panetext.inline import DEFAULT_INLINE_CHARS, cut_line, line_cost
from tmuxmcp.panetext.scrollback import (
    Frame,
    Gap,
    GapReason,
    Mark,
    View,
    decode_cursor,
    encode_cursor,
    explain_gap,
    locate,
    locate_at,
    mark_at,
)
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.observation import (
    MAX_RESULT_BYTES,
    cursor_param,
    observe,
    observe_commands,
    observe_history,
    parse_view,
)

# -- capture_since -----------------------------------------------------------------

DEFAULT_SINCE_CHARS = DEFAULT_INLINE_CHARS
"""The default ``max_chars``: with the other fields the result's JSON stays under
the 40,000 characters a client keeps inline (issue 18.2). Rows are counted by
``line_cost``, their length as JSON strings, so any text is bounded."""


class CaptureSinceArgs(Arguments):
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
    max_chars: Annotated[
        int,
        local_int(
            "Most characters the returned lines and partial row take in the result's JSON"
            " (escapes counted); rows past it wait behind the cursor; a longer row comes cut.",
            ge=1_000,
            le=MAX_RESULT_BYTES,
        ),
    ] = DEFAULT_SINCE_CHARS


class CaptureSinceResult(msgspec.Struct, frozen=True, kw_only=True):
    """Complete rows that appeared since the cursor, and where to continue."""

    pane_id: TmuxId
    more: bool
    """More complete rows wait after the returned ones (max_lines or max_chars)."""
    gap: GapReason | None
    """Set when the cursor's position could not be found again; lines may be missing."""
    lines_lost: int
    """Rows gone before they could be returned: exact (0) without a gap, a lower bound with."""
    lines_cut: int
    """Rows of ``lines`` longer than ``max_chars`` by themselves, so returned cut: their
    start, a marker saying how many characters were cut, and their end, joined by newlines.
    0 or 1: such a row is returned alone, as ``lines[0]``."""
    first_row: int | None
    """Row number of ``lines[0]`` as capture_pane counts it (negative: scrollback)."""
    cursor: Own
    partial_omitted: bool
    """The partial row did not fit ``max_chars`` after the lines: it is returned empty
    (it comes again once complete)."""
    # Bulk last, so a head-only preview still shows more/gap (issue 18).
    lines: list[Terminal]
    partial: Terminal
    """The cursor's row: not complete yet, so it is returned again once it is."""

    def text_form(self) -> str:
        """Readable form: a status line, then the lines, then the partial row."""
        head = f"lines={len(self.lines)} more={'yes' if self.more else 'no'}"
        if self.gap is not None:
            head += f" gap={self.gap} lines_lost>={self.lines_lost}"
        if self.lines_cut:
            head += f" lines_cut={self.lines_cut}"
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


# -- cursors for send_keys ---------------------------------------------------------


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


SINCE_SLACK = 1024
"""History rows the near read reaches above where the cursor's row was when it was made
(output since may have pushed it further up), within ``near_rows``."""
NEAR_SLACK = 64
"""The near read reaches at most ``max_lines`` + this many history rows up."""


MAX_TRIM_POSITIONS = 12
"""Most places ``_far`` reads: history never holds more than ``history_limit`` rows,
so at most 10 trims of ``limit / 10`` fit below a real mark, plus where it was."""


def _trim_positions(mark: Mark, frame: Frame) -> Iterator[int]:
    """Where history trims can have moved the mark's row (Rule 1's first step).

    Only rows the history holds now, at most ``MAX_TRIM_POSITIONS`` of them:
    a row beyond the history is skipped in one step, not walked trim by trim,
    so no mark makes the search longer than a real one (issue 18 R1).
    """
    trim = max(1, frame.history_limit // 10)
    at = mark.row if frame.history_size >= mark.history_size else mark.row - trim
    last = frame.history_size - 1
    if at > last:
        at -= -(-(at - last) // trim) * trim
    for _ in range(MAX_TRIM_POSITIONS):
        if at < 0:
            return
        yield at
        at -= trim


async def _far(
    ctx: ToolContext, pane: str, mark: Mark, near: View, rows: int
) -> tuple[View, int, Gap | None]:
    """A mark above the near read: a window of ``rows`` rows after it, and where it is.

    Only the few places history trims can have moved the mark to are read,
    each a window of the mark's two rows above and ``rows`` rows below, so the
    call holds one window however far up the mark is. Not found there: the
    gap, and a window from the top of the history.
    """
    frame = near.frame
    if mark.alternate == frame.alternate and mark.width == frame.width:
        for at in _trim_positions(mark, frame):
            await trio.lowlevel.checkpoint()  # a read can be skipped: yield regardless
            window = await observe_history(
                ctx, pane, frame, max(0, at - 2), min(at + rows, frame.history_size - 1)
            )
            if window is not None and locate_at(mark, window, at):
                return window, at, None
    gap = explain_gap(mark, View(frame, []))
    window = await observe_history(ctx, pane, frame, 0, min(rows, frame.history_size - 1))
    if window is None:  # the history changed under the reads: start from the screen
        return near, near.screen_top, gap
    return window, 0, gap


async def capture_since(ctx: ToolContext, args: CaptureSinceArgs) -> CaptureSinceResult:
    """Handler for capture_since.

    Reads are bounded by what the result can hold, not by how far back the
    cursor is: ``wanted`` is ``max_lines``, or fewer rows if that many full
    rows of the cursor's width would pass ``MAX_RESULT_BYTES``. The near read
    reaches at most ``wanted`` + ``NEAR_SLACK`` history rows up; a cursor
    above that is looked for by ``_far`` in windows of ``wanted`` rows.
    """
    pane = args.pane_id
    server = _server_of(ctx)
    gap: Gap | None = None
    if args.cursor is None:
        view = await observe(ctx, pane, back=2)
        start = view.screen_top
        screen = view
    else:
        mark: Mark = decode_cursor(args.cursor, server, pane)
        # No more rows than the result can hold: max_lines, and max_chars of full rows.
        wanted = min(args.max_lines, -(-args.max_chars // (mark.width + 1)))
        near_rows = wanted + NEAR_SLACK
        distance = max(0, mark.history_size - mark.row + 2) + SINCE_SLACK
        view = await observe(ctx, pane, back=min(distance, near_rows))
        screen = view
        at = locate(mark, view)
        if at is None and view.top > 0 and view.frame.alternate == mark.alternate:
            view, at, gap = await _far(ctx, pane, mark, view, wanted + 1)
        elif at is None:
            gap = explain_gap(mark, view)
            at = view.screen_top if gap.reason == "screen-switched" else view.top
        start = at
    cursor_row = min(screen.cursor_row, screen.end - 1)
    end = max(start, screen.cursor_row)
    lines: list[str] = []
    size = 0
    cut = 0
    for r in range(start, min(end, view.end)):
        if len(lines) >= args.max_lines:
            break
        text = view.row(r)
        cost = line_cost(text)
        if size + cost > args.max_chars:
            if not lines:
                # A row over the whole budget would never fit: left behind the
                # cursor, every call would return the same cursor (a client
                # following it loops for ever). It comes alone, cut.
                text = "\n".join(cut_line(text, args.max_chars))
                lines.append(text)
                size += line_cost(text)
                cut = 1
            break
        lines.append(text)
        size += cost
    following = start + len(lines)
    # The partial row is counted in the budget too, after the lines: complete
    # rows are what the cursor moves past, the partial row comes again.
    partial = screen.row(cursor_row) if cursor_row >= screen.top else ""
    partial_omitted = size + line_cost(partial) > args.max_chars
    # The mark needs the two rows above ``following``: ``view`` holds them, up to
    # and including its end (the screen may not, when ``view`` is a far window).
    return CaptureSinceResult(
        pane_id=pane,
        lines=lines,
        first_row=view.relative(start) if lines else None,
        partial="" if partial_omitted else partial,
        partial_omitted=partial_omitted,
        cursor=encode_cursor(server, pane, mark_at(view, following)),
        more=following < end,
        gap=None if gap is None else gap.reason,
        lines_lost=0 if gap is None else gap.lines_lost,
        lines_cut=cut,
    )
