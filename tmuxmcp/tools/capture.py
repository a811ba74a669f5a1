"""``capture_pane`` (inspect): a pane's screen or a range of its history, bounded.

Every read is bounded before tmux is asked: a range within the visible
screen is one read of at most ``max_lines + WINDOW_MARGIN`` rows; a taller
screen, and a range into history, is read in bounded windows from its bottom
(``_history_rows``). The result keeps the last ``max_lines`` that fit
``max_chars``, counted as JSON (``inline``), and says what cut it; a line
longer than ``max_chars`` keeps its start and its end, with run_command's
marker between (``inline`` Rule 4), rather than being left out. The pane
resource (``resources``) reads the screen through it.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from tmuxmcp.capability.arguments import Arguments, conflict
from tmuxmcp.capability.params import LineNumber, PaneId, flag, local_int
from tmuxmcp.capability.results import Own, Terminal, TmuxId
from tmuxmcp.driver.argv import cmd
from tmuxmcp.driver.guards import GuardRefused, Refusal, geometry_guard_name, guard
from tmuxmcp.errors import InvalidArguments
from tmuxmcp.panetext.inline import CUT_ROOM, DEFAULT_INLINE_CHARS, cut_line, line_cost, lines_cost
from tmuxmcp.panetext.windows import WindowSizer
from tmuxmcp.tools.context import ToolContext

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


def _history_text(rows: list[str], cost: int | None, budget: int) -> tuple[str, int, str | None]:
    """The rows read from history as (text, lines kept, truncated by), within ``budget``.

    ``cost`` is what the rows cost as counted while reading them: when it fits,
    nothing is cut and the text is their join, without counting them again
    (a second encoding and count of 10,000 rows was a tenth of a capture's
    Python time); otherwise ``_captured`` cuts them.
    """
    if cost is not None and cost <= budget:
        return "\n".join(rows), len(rows), None
    text, kept, _, by = _captured("\n".join(rows), None, budget)
    return text, kept, by


def _rows(raw: str) -> list[str]:
    rows = raw.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    return rows


def _blank(row: str) -> bool:
    return not row.strip()


def _geometry(text: str, pane_id: str, fields: int) -> list[int]:
    """The ``fields`` integers of a probe's line, or the error naming the pane."""
    frame = text.split()
    if len(frame) != fields or not all(part.isdigit() for part in frame):
        raise InvalidArguments(f"tmux did not report the geometry of pane {pane_id}")
    return [int(part) for part in frame]


def _window_top(top: int, bottom: int, rows_wanted: int) -> int:
    return max(top, bottom - rows_wanted - WINDOW_MARGIN + 1)


async def _hinted_first_window(
    ctx: ToolContext, pane_id: str, flags: list[str], args: CapturePaneArgs
) -> tuple[int, int, int, str] | None:
    """The first window read with the probe, from the remembered geometry (``geometry``).

    Returns ``(history size, height, width, the window's output)``, or ``None``
    when no geometry is remembered or the pane's differs (the guard refused:
    nothing was read). The window is the one ``_history_rows`` plans first
    (the same ``WindowSizer``, from the row cost remembered with the geometry):
    its top is planned from ``start``, and tmux's clamp of ``-S`` to the top
    of the history gives what ``max(start, -history)`` would.
    """
    known = ctx.geometry.get(pane_id)
    if known is None:
        return None
    width, height = known
    assert args.start is not None
    bottom = min(height - 1 if args.end is None else args.end, height - 1)
    sizer = WindowSizer(width, prior=ctx.geometry.row_cost(pane_id), least=1)
    rows_wanted = min(args.max_lines, sizer.rows(args.max_chars))
    try:
        out = await ctx.client.run(
            guard(geometry_guard_name(ctx.client.marker, pane_id, width, height), pane_id),
            cmd("display-message", "-p", t=pane_id, args=["#{history_size}"]),
            cmd(
                "capture-pane",
                *flags,
                t=pane_id,
                S=_window_top(args.start, bottom, rows_wanted),
                E=bottom,
            ),
        )
    except GuardRefused as refused:
        if refused.refusal is not Refusal.GEOMETRY_CHANGED:
            raise
        ctx.geometry.forget(pane_id)
        return None
    _, _, rest = out.stdout.partition("\n")  # the guard's option value
    history_text, _, body = rest.partition("\n")
    (history,) = _geometry(history_text, pane_id, 1)
    return history, height, width, body


async def _history_rows(
    ctx: ToolContext, pane_id: str, flags: list[str], args: CapturePaneArgs
) -> tuple[list[str], int, int | None]:
    """The last rows of a range reaching into history, read in bounded windows.

    Windows of at most ``max_lines + WINDOW_MARGIN`` rows are read from the
    bottom of the range upwards, only as far as needed to fill ``max_lines``
    with rows above the last non-blank one, and no further once the rows kept
    cost ``max_chars`` (the result keeps no more): a window is also at most
    the rows that the characters still wanted hold at what rows cost
    (``windows.WindowSizer``: measured as they are read, before that the
    pane's last capture, else as if every row were full; never more than
    ``windows.GROWTH`` times the full-row plan). So one call holds at most
    ``max_lines + WINDOW_MARGIN`` rows, and about ``max_chars`` plus one
    window, however long and wide the history. The pane's geometry comes
    from a probe, or with the first window when the pane's last seen
    geometry still holds (``_hinted_first_window``).
    Returns the rows kept (trailing blank rows dropped), how many rows the
    range holds down to its last non-blank row, and what the rows kept cost
    (``line_cost``, as counted while reading; None when ``max_lines`` cut them).
    """
    hinted = await _hinted_first_window(ctx, pane_id, flags, args)
    pending: str | None = None
    if hinted is None:
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
    else:
        history, height, width, pending = hinted
    assert args.start is not None
    top = max(args.start, -history)
    bottom = min(height - 1 if args.end is None else args.end, height - 1)
    sizer = WindowSizer(width, prior=ctx.geometry.row_cost(pane_id), least=1)
    kept: list[str] = []
    last_text: int | None = None  # the relative number of the last non-blank row
    window_bottom = bottom
    held = 0  # the line_cost of the rows kept
    while window_bottom >= top and len(kept) < args.max_lines and held <= args.max_chars:
        rows_wanted = min(args.max_lines - len(kept), sizer.rows(args.max_chars - held))
        window_top = _window_top(top, window_bottom, rows_wanted)
        if pending is None:
            out = await ctx.client.run(
                cmd("capture-pane", *flags, t=pane_id, S=window_top, E=window_bottom)
            )
            stdout = out.stdout
        else:  # the first window, already read with the probe
            stdout, pending = pending, None
        rows = _rows(stdout)[: window_bottom - window_top + 1]
        if last_text is None:
            while rows and _blank(rows[-1]):
                rows.pop()
            if rows:
                last_text = window_top + len(rows) - 1
        kept = rows + kept
        held += sizer.saw(rows)
        window_bottom = window_top - 1
    ctx.geometry.remember_row_cost(pane_id, sizer.per_row)
    if last_text is None:
        return [], 0, 0
    if len(kept) > args.max_lines:
        return kept[-args.max_lines :], last_text - top + 1, None
    return kept, last_text - top + 1, held


async def capture_pane(ctx: ToolContext, args: CapturePaneArgs) -> CapturePaneResult:
    """Handler for capture_pane.

    A range within the visible screen is one read of at most ``max_lines +
    WINDOW_MARGIN`` rows, with the pane's height; a taller screen, and a
    range into history, is read in bounded windows from its bottom
    (``_history_rows``). Either way blank rows below the last text are
    dropped before ``max_lines`` counts.
    """
    pane_id = args.pane_id
    flags = ["-p"]
    if args.join_wrapped:
        flags.append("-J")
    if args.include_escapes:
        flags.append("-e")
    if args.start is not None and args.start < 0:
        rows, in_range, cost = await _history_rows(ctx, pane_id, flags, args)
        text, kept, by = _history_text(rows, cost, args.max_chars)
        if by is None and kept < in_range:
            by = "max_lines"
        captured = in_range
    else:
        # One read of at most one window from the top of the range, with the
        # pane's height: a screen can be 10,000 rows (tmux's largest window).
        first = args.start or 0
        window_end = first + args.max_lines + WINDOW_MARGIN - 1
        end = window_end if args.end is None else min(args.end, window_end)
        out = await ctx.client.run(
            cmd("display-message", "-p", t=pane_id, args=["#{pane_height}"]),
            cmd("capture-pane", *flags, t=pane_id, S=first, E=end),
        )
        height_text, _, body = out.stdout.partition("\n")
        if not height_text.isdigit():
            raise InvalidArguments(f"tmux did not report the geometry of pane {pane_id}")
        bottom = int(height_text) - 1 if args.end is None else min(args.end, int(height_text) - 1)
        if bottom > end:  # a range taller than one window: from its bottom up, bounded
            rows, captured, cost = await _history_rows(
                ctx, pane_id, flags, msgspec.structs.replace(args, start=first)
            )
            text, kept, by = _history_text(rows, cost, args.max_chars)
            if by is None and kept < captured:
                by = "max_lines"
        else:
            rows = _rows(body)
            while rows and _blank(rows[-1]):
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
