"""``capture_pane`` (inspect): a pane's screen or a range of its history, bounded.

Every read is bounded before tmux is asked: a range within the visible
screen is one read of at most ``max_lines + WINDOW_MARGIN`` rows; a taller
screen, and a range into history, is read in bounded windows from its bottom
by the one history reader (``tools.history``, issue 30.3). The result keeps
the last ``max_lines`` that fit ``max_chars``, counted as JSON (``inline``),
and says what cut it; a line longer than ``max_chars`` keeps its start and
its end, with run_command's marker between (``inline`` Rule 4), rather than being left out. The pane
resource (``resources``) reads the screen through it.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from tmuxmcp.capability.arguments import Arguments, conflict
from tmuxmcp.capability.params import LineNumber, PaneId, flag, local_int
from tmuxmcp.capability.results import Own, Terminal, TmuxId
from tmuxmcp.driver.argv import cmd
from tmuxmcp.errors import InvalidArguments
from tmuxmcp.panetext.inline import CUT_ROOM, DEFAULT_INLINE_CHARS, cut_line, line_cost, lines_cost
from tmuxmcp.panetext.windows import Budget, Chunk, PaneRange, WindowSizer
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.history import behind_guard, read, read_screen

MAX_CAPTURE_BYTES = 1024 * 1024
"""The largest ``max_chars``: the most a capture returns, counted as JSON (``inline``);
longer captures keep their last lines."""
MAX_CAPTURE_LINES = 100_000
DEFAULT_CAPTURE_LINES = 500
"""The default ``max_lines``: about 40 KB of 80-column text, a screenful of a model's context."""
WINDOW_MARGIN = 64
"""Rows read beyond ``max_lines`` in each window, to absorb blank rows at the bottom."""


class CapturePaneArgs(Arguments):
    """Arguments of capture_pane."""

    pane_id: PaneId
    start: LineNumber | None = None
    end: LineNumber | None = None
    max_lines: Annotated[
        int,
        local_int(
            "Most lines returned (the last); blank rows below the text are not returned "
            "or counted.",
            ge=1,
            le=MAX_CAPTURE_LINES,
        ),
    ] = DEFAULT_CAPTURE_LINES
    join_wrapped: Annotated[bool, flag("Join wrapped lines (tmux -J).")] = False
    include_escapes: Annotated[bool, flag("Keep colour and attribute escapes (tmux -e).")] = False
    max_chars: Annotated[
        int,
        local_int(
            "Most characters the returned text takes in the result's JSON (escapes counted);"
            " the last lines are kept, a longer one cut.",
            ge=1_000,
            le=MAX_CAPTURE_BYTES,
        ),
    ] = DEFAULT_INLINE_CHARS

    def __post_init__(self) -> None:
        if self.start is not None and self.end is not None and self.start > self.end:
            conflict(
                "`start`: start must not be greater than end (0 is the top visible row)",
                "start",
                "end",
            )
        if self.start is None and self.end is not None and self.end < 0:
            # tmux would read from end down to the top visible row, however far up end
            # is, outside the bounded history windows; refuse it like any end above start.
            conflict(
                "`end`: end must not be above start, which defaults to 0 (the top visible "
                "row); give start too to read scrollback",
                "end",
                "start",
            )


class CapturePaneResult(msgspec.Struct, frozen=True, kw_only=True):
    """Text captured from a pane, possibly truncated to the last lines."""

    pane_id: TmuxId
    lines: int
    captured_lines: int
    truncated: bool
    truncated_by: Own | None
    # Bulk last, so a head-only preview still shows the truncation (issue 18).
    text: Terminal

    def text_form(self) -> str:
        """Readable form: the captured text, with a note when truncated."""
        if not self.truncated:
            return self.text
        return (
            f"[truncated by {self.truncated_by}: last {self.lines} of "
            f"{self.captured_lines} lines]\n{self.text}"
        )


def _cap(
    lines: list[str], max_lines: int | None, budget: int | None = None
) -> tuple[list[str], str | None]:
    """The last ``max_lines`` of ``lines`` whose ``line_cost`` fits ``budget``, and what cut.

    ``budget`` defaults to ``MAX_CAPTURE_BYTES``. A line longer than the whole
    budget, which no range could return whole, is cut rather than dropped when
    the lines after it leave ``CUT_ROOM`` (``inline`` Rule 4): it is kept as
    one line whose text is its start, the marker and its end, joined by
    newlines, so it costs what the three would and counts as one line.
    """
    budget = MAX_CAPTURE_BYTES if budget is None else budget
    by: str | None = None
    if max_lines is not None and len(lines) > max_lines:
        lines, by = lines[-max_lines:], "max_lines"
    if lines_cost(lines) > budget:
        keep = 0
        left = budget
        for line in reversed(lines):
            cost = line_cost(line)
            if cost > left:
                break
            left -= cost
            keep += 1
        kept = lines[len(lines) - keep :]
        stopped = lines[len(lines) - keep - 1]  # the line that did not fit
        if line_cost(stopped) > budget and left >= CUT_ROOM:
            kept = ["\n".join(cut_line(stopped, left)), *kept]
        lines, by = kept, "max_chars"
    return lines, by


def _cost_of_lines(raw: str) -> int:
    """The ``line_cost`` of every line of ``raw`` together, from one encoding of it.

    Each line costs its escaped characters plus 2; in ``raw`` encoded whole
    each newline is 2 (``\\n``) and the quotes are 2, so the sum is the
    encoding's length, less 2 when ``raw`` ends with a newline.
    """
    if raw == "":
        return 0
    return len(msgspec.json.encode(raw)) - (2 if raw.endswith("\n") else 0)


def _captured(
    raw: str, max_lines: int | None, budget: int | None = None
) -> tuple[str, int, int, str | None]:
    """tmux's output as (text, lines kept, lines captured, truncated by)."""
    budget = MAX_CAPTURE_BYTES if budget is None else budget
    # Lines are the pieces of raw.split("\n") less a final empty one.
    count = raw.count("\n") + (0 if raw == "" or raw.endswith("\n") else 1)
    if (max_lines is None or count <= max_lines) and _cost_of_lines(raw) <= budget:
        # Nothing is cut. Splitting 10,000 lines and measuring each cost more
        # than the rest of the call; the text is the output less its final
        # newline, exactly what joining the lines gives.
        return (raw[:-1] if raw.endswith("\n") else raw), count, count, None
    lines = raw.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    kept, by = _cap(lines, max_lines, budget)
    return "\n".join(kept), len(kept), len(lines), by


def _history_text(rows: Chunk, cost: int | None, budget: int) -> tuple[str, int, str | None]:
    """The rows read from history as (text, lines kept, truncated by), within ``budget``.

    ``cost`` is what the rows cost as counted while reading them: when it fits,
    nothing is cut and the text is their join, without counting them again
    (a second encoding and count of 10,000 rows was a tenth of a capture's
    Python time), nor splitting and joining them (``windows`` Rule 5: one
    window's text is tmux's output itself); otherwise ``_captured`` cuts them.
    """
    if cost is not None and cost <= budget:
        return rows.text, rows.count, None
    text, kept, _, by = _captured(rows.text, None, budget)
    return text, kept, by


def _geometry(text: str, pane_id: str, fields: int) -> list[int]:
    """The ``fields`` integers of a probe's line, or the error naming the pane."""
    frame = text.split()
    if len(frame) != fields or not all(part.isdigit() for part in frame):
        raise InvalidArguments(f"tmux did not report the geometry of pane {pane_id}")
    return [int(part) for part in frame]


def _span(
    args: CapturePaneArgs, *, width: int, height: int, top: int, prior: float | None
) -> PaneRange:
    """The range of a capture into history, in its own numbers (0: the top visible row),
    read from its bottom up in windows of ``WINDOW_MARGIN`` rows beyond the plan."""
    bottom = min(height - 1 if args.end is None else args.end, height - 1)
    return PaneRange.span(
        args.pane_id,
        width=width,
        top=top,
        bottom=bottom,
        base=0,
        joined=args.join_wrapped,
        escapes=args.include_escapes,
        margin=WINDOW_MARGIN,
        sizer=WindowSizer(width, prior=prior, least=1),
        unsplit=True,
    )


async def _history_rows(
    ctx: ToolContext, pane_id: str, args: CapturePaneArgs
) -> tuple[Chunk, int, int | None]:
    """The last rows of a range reaching into history, read by the one history reader.

    Windows of at most ``max_lines + WINDOW_MARGIN`` rows are read from the
    bottom of the range upwards (``history.read``), only as far as needed to
    fill ``max_lines`` with rows above the last non-blank one, and no further
    once the rows kept cost more than ``max_chars`` (the result keeps no
    more): a window is also at most the rows that the characters still
    wanted hold at what rows cost (``windows.WindowSizer``: measured as they
    are read, before that the pane's last capture, else as if every row were
    full; never more than ``windows.GROWTH`` times the full-row plan). So one
    call holds at most ``max_lines + WINDOW_MARGIN`` rows, and about
    ``max_chars`` plus one window, however long and wide the history. The
    pane's geometry comes from a probe, or with the first window when the
    pane's last seen geometry still holds (``history.behind_guard``).
    Returns the rows kept (trailing blank rows dropped), how many rows the
    range holds down to its last non-blank row, and what the rows kept cost
    (``line_cost``, as counted while reading; None when ``max_lines`` cut them).
    """
    assert args.start is not None
    budget = Budget(args.max_chars, rows=args.max_lines, past=True, from_text=True)
    prior = ctx.geometry.row_cost(pane_id)
    first: Chunk | None = None
    span: PaneRange | None = None
    known = ctx.geometry.get(pane_id)
    if known is not None:
        width, height = known
        span = _span(args, width=width, height=height, top=args.start, prior=prior)
        first = await behind_guard(ctx, span, budget, height)
        if first is None:  # the pane's geometry changed: nothing was read
            ctx.geometry.forget(pane_id)
            span, prior = None, None
    if span is None:
        probe = await ctx.client.run(
            cmd(
                "display-message",
                "-p",
                t=pane_id,
                args=["#{history_size} #{pane_height} #{pane_width}"],
            )
        )
        history, height, width = _geometry(probe.stdout, pane_id, 3)
        ctx.geometry.remember(pane_id, width, height)
        span = _span(args, width=width, height=height, top=max(args.start, -history), prior=prior)
    reading = await read(ctx, span, budget, first=first)
    ctx.geometry.remember_row_cost(pane_id, span.sizer.per_row)
    if budget.last_text is None:
        return Chunk(0, []), 0, 0
    in_range = budget.last_text - span.top + 1  # the top as tmux clamped it
    if budget.kept > args.max_lines:
        return reading.kept.tail(args.max_lines), in_range, None
    return reading.kept, in_range, budget.held


async def capture_pane(ctx: ToolContext, args: CapturePaneArgs) -> CapturePaneResult:
    """Handler for capture_pane.

    A range within the visible screen is one read of at most ``max_lines +
    WINDOW_MARGIN`` rows, with the pane's height; a taller screen, and a
    range into history, is read in bounded windows from its bottom
    (``_history_rows``). Either way blank rows below the last text are
    dropped before ``max_lines`` counts.
    """
    pane_id = args.pane_id
    if args.start is not None and args.start < 0:
        history, in_range, cost = await _history_rows(ctx, pane_id, args)
        text, kept, by = _history_text(history, cost, args.max_chars)
        if by is None and kept < in_range:
            by = "max_lines"
        captured = in_range
    else:
        # One read of at most one window from the top of the range, with the
        # pane's height: a screen can be 10,000 rows (tmux's largest window).
        first = args.start or 0
        window_end = first + args.max_lines + WINDOW_MARGIN - 1
        end = window_end if args.end is None else min(args.end, window_end)
        flags = [
            "-p",
            *(["-J"] if args.join_wrapped else []),
            *(["-e"] if args.include_escapes else []),
        ]
        height, rows = await read_screen(ctx, pane_id, flags, first, end)
        bottom = height - 1 if args.end is None else min(args.end, height - 1)
        if bottom > end:  # a range taller than one window: from its bottom up, bounded
            history, captured, cost = await _history_rows(
                ctx, pane_id, msgspec.structs.replace(args, start=first)
            )
            text, kept, by = _history_text(history, cost, args.max_chars)
            if by is None and kept < captured:
                by = "max_lines"
        else:
            while rows and not rows[-1].strip():
                rows.pop()
            text, kept, captured, by = _captured("\n".join(rows), args.max_lines, args.max_chars)
    return CapturePaneResult(
        pane_id=pane_id,
        text=text,
        lines=kept,
        captured_lines=captured,
        truncated=by is not None,
        truncated_by=by,
    )
