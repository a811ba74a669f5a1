"""Collecting a run: reading its output from the pane while the script holds the shell.

The output is the screen between the prompt row (the ``scrollback.Mark``
taken just before typing, found again even after history trims) and the
cursor at the fence, read while the script still holds the shell back from
drawing its prompt. This module reads the rows; ``output`` (pure) decides
where the output starts in them and what is kept.

Rows the shell printed below the typed line before the command began (bash's
``PS0``, a prompt drawn after the line), which the read after ``S`` saw
(``redraw`` Rule 4), are no output: they are dropped from its start
(``_printed_first_dropped``).

Where it starts (issue 22.6/22.7): a mark not found by its fingerprint (a
command wrote over the rows above the prompt, or over the prompt row) is
still where it was when tmux's counters prove that no row left the top
(``_nothing_left_the_top``) and the typed line's text is still in its rows;
only then is the start said to be gone, and "cleared" only when the history
shrank. Where it ends: the cursor's row, or the last row written below it
when the screen there was blank at typing (a scroll region's reset homes
the cursor above the output's last lines).

A redrawn run (issue 31.3, ``redraw``) is read from the row below its shown
command, an absolute row known since the redraw (``_read_redrawn``): the end
frame's joined rows begin there where nothing scrolled since the redraw
(``_end_frame``), else they are read from there, so the typed line is not
searched for; the prompt row is
still found by the start mark, and checked to show the prompt and the shown
command, or the start is gone, as above.

Bounded reads (issue 13.2), whatever the pane's width: the end frame reads
``speculative_rows`` history rows, and a longer output is read a window at a
time from both ends (head and tail) until the run's byte budget is met; rows
between them are counted, not read. The end frame's rows are chosen from the
pane's width (``windows.rows_within``) so that one read holds at most about
``SPECULATIVE_BYTES`` (twice: physical and joined rows) as if every row were
full. A long output is read by the one history reader (``history.read``,
issue 30.3), its windows sized as every reader's (``windows.WindowSizer``,
issue 31.1): the first holds at most
``WINDOW_BYTES`` as if every row were full (``window_rows``: at most
``WINDOW_ROWS`` rows on a pane up to 261 columns wide, about 260 on one of
2,000), the next as many rows as the budget left holds at what the rows read
cost, within ``windows.GROWTH`` times that plan.

Before the shell is released, the input a command left unread in the pane's
terminal (a reply to a terminal query) is discarded when nobody can have
typed it (``pending``), from the facts the end frame reads anyway.

The end frame also gives the pane's ``pane_pid``, kept for the next run's
readiness check (``RunRegistry.pane_pid``): a hint, which the next typing
invocation's guard checks against tmux before it pastes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import msgspec
import trio

from tmuxmcp.driver.argv import cmd
from tmuxmcp.errors import TmuxCommandFailed
from tmuxmcp.panetext import windows
from tmuxmcp.panetext.scrollback import Frame, Mark, View, explain_gap, fingerprint
from tmuxmcp.runs import output, pending, redraw, registry, screen
from tmuxmcp.runs.output import HEAD_SHARE, Outcome
from tmuxmcp.runs.redraw import Redraw
from tmuxmcp.runs.screen import PathFrame
from tmuxmcp.runs.state import Run
from tmuxmcp.tools import history
from tmuxmcp.tools.context import ToolContext

WINDOW_ROWS = 2000
"""Rows of the first window of a long output at most, before any row is measured
(bounded reads: the head and the tail are read a window at a time until the run's
byte budget is met)."""
WINDOW_BYTES = 512 * 1024
"""Bytes one window of a long output is planned to hold at most: the first as if its
rows are full (ASCII, ``windows.rows_within(WINDOW_BYTES, width)`` rows, up to
``WINDOW_ROWS``), the next at what the rows read cost (``windows.WindowSizer``)."""
SPECULATIVE_ROWS = 200
"""History rows read with the end frame at most, enough for most outputs in one
invocation."""
SPECULATIVE_BYTES = 256 * 1024
"""Bytes those rows hold at most if they are full (read twice: physical and joined)."""
PROGRESS_BYTES = 4096
"""Bytes of a long output read for a progress line (``progress_line``), each second
of a waiting call and each poll of a task: its last line is all it needs."""
FENCE_WAIT = 2.0
"""Seconds to wait for tmux to draw the command's last output (the fence)."""


async def _end_frame(
    ctx: ToolContext, pane: str, back: int, joined_from: int | None = None
) -> tuple[PathFrame, list[str], list[str]]:
    """The frame, and the physical and joined rows from ``back`` history rows up (the
    joined rows from screen row ``joined_from`` instead, where given: ``_joined_from``)."""
    fmt = screen.path_frame_format()
    sep = screen.separator()
    # A redrawn run's joined rows begin on its output's screen row where nothing
    # scrolled since the redraw. Not worked out by tmux from its own history size
    # with run-shell -C: run-shell is no observing command (``wait_for_command``
    # observes only, tests/test_hooks_per_tool.py), so a run that scrolled is read
    # again from its absolute row (``_read_redrawn``).
    joined_start = -back if joined_from is None else joined_from
    joined = cmd("capture-pane", "-p", "-J", t=pane, S=joined_start)
    out = await ctx.client.run(
        cmd("display-message", "-p", t=pane, args=[fmt.template]),
        cmd("display-message", "-p", t=pane, args=[sep]),
        cmd("capture-pane", "-p", t=pane, S=-back),
        cmd("display-message", "-p", t=pane, args=[sep]),
        joined,
    )
    parts = screen.split(out.stdout, sep)
    if len(parts) != 3:
        raise TmuxCommandFailed("tmux returned a capture tmuxmcp could not split")
    found = screen.frame_of(parts[0], fmt)
    frame = found.frame
    phys = screen.rows(parts[1])
    end = min(back, frame.history_size) + frame.height
    return found, phys[-end:], screen.rows(parts[2])


def _joined_from(run: Run) -> int | None:
    """For a redrawn run, the screen row its output starts on if nothing scrolled since
    the redraw (``_read_redrawn`` checks that it did not): the end frame's joined rows
    then hold the output and nothing above it."""
    if run.redraw is None:
        return None
    return run.redraw.first - run.redraw.history_size


def window_rows(width: int) -> int:
    """Rows of one window of a long output on a pane ``width`` cells wide."""
    return min(WINDOW_ROWS, windows.rows_within(WINDOW_BYTES, width))


def speculative_rows(run: Run) -> int:
    """History rows read with the end frame, for the width the pane had at typing."""
    width = run.mark.width if run.mark is not None else 0
    return min(SPECULATIVE_ROWS, windows.rows_within(SPECULATIVE_BYTES, width))


def _candidates(mark: Mark, frame: Frame) -> Iterator[int]:
    """Where the mark can be now: where it was, or moved up by whole history trims."""
    trim = max(1, frame.history_limit // 10)
    at = mark.row
    while at >= 0:
        yield at
        at -= trim


def _head_ok(mark: Mark, view: View, at: int) -> bool:
    if not mark.head:
        return True
    return view.top <= at < view.end and view.row(at).startswith(mark.head)


async def _locate(ctx: ToolContext, run: Run, frame: Frame, view: View) -> int | None:
    """Where the prompt row is now (Rule 1 of ``scrollback``), or None when it is gone."""
    mark = run.mark
    assert mark is not None
    if mark.alternate != frame.alternate or mark.width != frame.width:
        return None
    far: list[int] = []
    for at in _candidates(mark, frame):
        if view.top + 2 <= at <= view.end or (at < 2 and view.top == 0):
            if fingerprint(view, at) == mark.fingerprint and _head_ok(mark, view, at):
                return at
        elif at < view.top + 2:
            far.append(at)
    far = far[:12]
    if not far:
        return None
    h = frame.history_size
    spans = [(max(r - 2, 0), r) for r in far]
    chunks = await history.read_spans(ctx, run.pane, h, spans, screen.separator())
    for r, rows in zip(far, chunks, strict=False):
        small = View(msgspec.structs.replace(frame, history_size=r + 1, height=0), rows)
        if fingerprint(small, r) == mark.fingerprint and _head_ok(mark, small, r):
            return r
    return None


async def _read_long(
    ctx: ToolContext, run: Run, frame: Frame, first: int, last: int, *, budget: int
) -> tuple[list[str], list[str], int]:
    """Head and tail of rows ``first``..``last``, read by the one history reader until
    the budget is met.

    Returns the head, the tail, and the number of rows between them that were
    not read. Rows are counted as ``output.shape`` counts them (``line_cost``,
    the one way every history reader counts, ``windows`` Rule 4): the tail is
    read newest first until it holds the whole ``budget`` (the tail keeps what
    the head leaves of it), then the head oldest first until it holds its
    share, never into the tail. Joined rows, in the end frame's numbers (the
    shell is held: nothing scrolls, ``track`` off). The first window is
    ``window_rows``; the next are sized by ``windows.WindowSizer`` from what
    the rows read so far cost (the head's from the tail's), within
    ``windows.GROWTH`` times ``WINDOW_BYTES`` of full rows, so a long output
    of short lines takes few invocations and one of full wide rows still
    reads at most one window beyond what the budget needs at each end.
    """
    h = frame.history_size
    tail = windows.PaneRange.span(
        run.pane,
        width=frame.width,
        top=first,
        bottom=last,
        base=h,
        joined=True,
        first_rows=window_rows(frame.width),
        window_bytes=WINDOW_BYTES,
    )
    tail_rows = (await history.read(ctx, tail, windows.Budget(budget))).rows
    head = windows.PaneRange.span(
        run.pane,
        width=frame.width,
        top=first,
        bottom=tail.next_bottom,
        base=h,
        down=True,
        joined=True,
        sizer=tail.sizer,
        first_rows=window_rows(frame.width),
        window_bytes=WINDOW_BYTES,
    )
    head_rows = (await history.read(ctx, head, windows.Budget(budget // HEAD_SHARE))).rows
    return head_rows, tail_rows, max(0, head.next_bottom - head.top + 1)


async def _wait_for_fence(ctx: ToolContext, run: Run) -> tuple[PathFrame, list[str], list[str]]:
    deadline = trio.current_time() + FENCE_WAIT
    delay = 0.001
    while True:
        found = await _end_frame(ctx, run.pane, speculative_rows(run), _joined_from(run))
        if found[0].path == run.fence or trio.current_time() >= deadline:
            return found
        await trio.sleep(delay)
        delay = min(delay * 2, 0.05)


async def collect(ctx: ToolContext, run: Run) -> Outcome:
    """Read the output once tmux has drawn all of it; the shell is still held."""
    found, phys, joined = await _wait_for_fence(ctx, run)
    if found.frame.pane_id == run.pane and not found.frame.dead:
        registry.of(ctx.runs).saw_pane_pid(run.pane, found.frame.pid)
        if run.shell_pid is not None:
            # Before the release (pending Rule 1): a reply to a terminal query the
            # command left unread would be typed ahead of the next run's line.
            typed_at = time.time() - (trio.current_time() - run.began)
            discarded = pending.discard_replies(found.input, run.shell_pid, typed_at)
            if not discarded and pending.input_may_wait_unseen(
                found.input, run.files.shell, typed_at
            ):
                registry.of(ctx.runs).input_may_wait(run.pane, run.shell_pid)
    return await _read_output(ctx, run, found, phys, joined)


async def peek(ctx: ToolContext, run: Run, budget: int | None = None) -> Outcome:
    """The output so far of a run still going (for a timed-out call); ``budget``, bytes
    to read of a long output (the run's own by default)."""
    found = await _end_frame(ctx, run.pane, speculative_rows(run), _joined_from(run))
    return await _read_output(ctx, run, *found, budget=budget)


async def left(ctx: ToolContext, run: Run) -> Outcome:
    """The rows of a run whose shell left the script (``state`` Rule 5), read with the
    shell at its prompt, before anything is typed after it: from the run's start up to
    the cursor at that prompt, as captured (``output.left_outcome`` takes the prompt
    off, Rule 5). No status yet."""
    found, phys, joined = await _end_frame(ctx, run.pane, speculative_rows(run), _joined_from(run))
    return await _read_output(ctx, run, found, phys, joined, at_prompt=True)


PROMPT_BACK = 4
"""History rows read with the screen for the prompt drawn after a status probe (its
typed line is on the last rows, unless the prompt is nearly as tall as the pane)."""


async def prompt_after(ctx: ToolContext, probe: Run) -> list[str] | None:
    """The rows of the prompt the shell drew after ``probe``'s typed line, joined (the
    last one up to the cursor), read with the shell back at it; None when that line
    is not found. The prompt as the shell draws it on rows of its own: what a left
    run's output ends with (``output`` Rule 5)."""
    mark = probe.mark
    if mark is None:
        return None
    found, _, joined = await _end_frame(ctx, probe.pane, PROMPT_BACK)
    frame = found.frame
    at = output.typed_index(joined, probe.typed)
    if at is None:
        return None
    typed = output.TypedLine(
        text=probe.typed, shell=probe.shell, column=mark.column, width=mark.width
    )
    below = frame.height - 1 - frame.cursor_y
    return output.below_typed_line(joined, at, below, typed, frame.width) or None


async def progress_line(ctx: ToolContext, run: Run) -> str:
    """What a running command is doing, for progress and a task's ``statusMessage``
    (issue 27 N7): the last non-blank line of its output so far, read as the result
    reads it (``peek``), or the command's own text while it has printed nothing. Never
    the pane's last row, which until the command prints is the line tmuxmcp typed,
    with its private run directory's paths. A long output is read only as far as
    ``PROGRESS_BYTES`` needs: one window at each end at most."""
    outcome = await peek(ctx, run, PROGRESS_BYTES)
    for line in reversed(outcome.head + outcome.tail):
        if line.strip():
            return line.rstrip()
    return " ".join(run.command.split())


def _nothing_left_the_top(mark: Mark, frame: Frame) -> bool:
    """Whether tmux's counters prove that no row left the top since ``mark`` was taken.

    Rows leave only by a trim, which leaves at least ``limit - limit/10`` rows of
    history, or by a clear, which empties it; the history only grows otherwise.
    A history no smaller than at the mark and still below what a trim leaves
    had neither, unless a clear was followed by as many rows as it removed:
    the typed line's own text, which no clear leaves, then tells (``_read_output``).
    """
    trim = max(1, frame.history_limit // 10)
    return (
        mark.alternate == frame.alternate
        and mark.width == frame.width
        and mark.history_size <= frame.history_size < frame.history_limit - trim
    )


def _end_y(run: Run, frame: Frame, view: View) -> int:
    """The last screen row of the output (relative; -1 when it ends above the screen).

    The cursor's row, unless the cursor is at the start of a blank row; or, when
    the screen below the prompt was blank at typing, the last row written, if the
    command moved the cursor above it (a scroll region's reset homes the cursor).
    """
    end_row = frame.history_size + frame.cursor_y
    cursor_text = view.row(end_row) if view.top <= end_row < view.end else ""
    end_y = frame.cursor_y if frame.cursor_x > 0 or cursor_text.strip() else frame.cursor_y - 1
    if run.at_typing.clear_below:
        screen_rows = view.rows[-frame.height :] if frame.height else []
        written = [y for y, row in enumerate(screen_rows) if row.strip()]
        if written and written[-1] > end_y:
            end_y = written[-1]
    return end_y


async def _read_output(
    ctx: ToolContext,
    run: Run,
    found: PathFrame,
    phys: list[str],
    joined: list[str],
    *,
    at_prompt: bool = False,
    budget: int | None = None,
) -> Outcome:
    """The output in the rows read; ``at_prompt``: the shell has drawn its prompt
    after it (``left``): the rows up to the cursor, as captured (the prompt is still
    to be taken off: ``output.left_outcome``)."""
    if run.redraw is not None:
        return await _read_redrawn(
            ctx, run, found, phys, joined, shown=run.redraw, at_prompt=at_prompt, budget=budget
        )
    frame = found.frame
    mark = run.mark
    assert mark is not None
    typed = output.TypedLine(text=run.typed, shell=run.shell, column=mark.column, width=mark.width)
    view = View(frame, phys)
    end_y = frame.cursor_y if at_prompt else _end_y(run, frame, view)
    last = frame.history_size + end_y
    start = await _locate(ctx, run, frame, view)
    # The rows above the prompt, or the prompt row itself, changed (a command
    # that moved the cursor up wrote there): when the counters prove no row
    # left the top, the start is where it was, if the typed line is still there.
    by_counters = start is None and _nothing_left_the_top(mark, frame)
    # Found by the counters while the rows just above it differ from what they
    # were: the command wrote there, above its typed line.
    above_changed = False
    if by_counters:
        start = mark.row
        now = fingerprint(view, mark.row) if mark.row >= view.top + 2 else None
        above_changed = now is not None and now != mark.fingerprint
    lines_lost: int | None = 0
    gap_reason: str | None = None
    omitted = 0
    typed_at = (
        output.typed_index(joined, run.typed) if start is not None and start >= view.top else None
    )
    prompt = run.at_typing.prompt
    if typed_at is not None:
        # All of it was in the first capture: drop the rows below the output.
        below = frame.height - 1 - end_y
        head, _ = _printed_first_dropped(
            run, output.below_typed_line(joined, typed_at, below, typed, frame.width), []
        )
        head = output.written_over(joined[typed_at], run.typed, prompt) + head
        tail: list[str] = []
    elif by_counters and start is not None and start >= view.top:
        # The typed line is gone from its rows: cleared or written over.
        start, gap_reason, lines_lost = None, "overwritten", None
        head, tail, omitted = await _read_long(
            ctx, run, frame, 0, last, budget=budget or run.budget
        )
    else:
        if start is None:
            gap = explain_gap(mark, View(frame, []))
            trim = max(1, frame.history_limit // 10)
            lines_lost = (
                output.lost_at_least(mark.row, typed, trim)
                if gap.reason == "history-limit"
                else None
            )
            gap_reason = gap.reason
            first = 0
        else:
            first = start
        head, tail, omitted = await _read_long(
            ctx, run, frame, first, last, budget=budget or run.budget
        )
        if start is not None:
            both = head + tail if not omitted else head
            at = output.typed_index(both[:64], run.typed)
            over = output.written_over(both[at], run.typed, prompt) if at is not None else []
            head, tail = output.after_start(head, tail, omitted, typed, frame.width)
            head, tail = _with_over(over, *_printed_first_dropped(run, head, tail))
    head, tail = output.without_verbose_echo(head, tail, run.typed)
    return _outcome(
        run,
        frame,
        head,
        tail,
        omitted=omitted,
        lines_lost=lines_lost,
        start=start,
        gap_reason=gap_reason,
        above_changed=above_changed,
        at_prompt=at_prompt,
    )


def _with_over(over: list[str], head: list[str], tail: list[str]) -> tuple[list[str], list[str]]:
    """``head`` and ``tail`` after what the command wrote over its prompt row (its first
    line, ``output.written_over``), which leads the head, or the tail when only it holds
    rows."""
    if not over:
        return head, tail
    return (over + head, tail) if head or not tail else (head, over + tail)


def _outcome(
    run: Run,
    frame: Frame,
    head: list[str],
    tail: list[str],
    *,
    omitted: int,
    lines_lost: int | None,
    start: int | None,
    gap_reason: str | None,
    above_changed: bool,
    at_prompt: bool,
) -> Outcome:
    """The ``Outcome`` of the rows read, typed or redrawn: ``start``, the prompt row found
    again (None: gone); the output is said to start above it where the cursor ended
    above it or the rows just above it changed."""
    if not at_prompt:
        # Kept for a left run: zsh's PROMPT_SP mark is told by its padding (Rule 5).
        head, tail = [line.rstrip() for line in head], [line.rstrip() for line in tail]
    return Outcome(
        exit_status=run.status,
        head=head,
        tail=tail,
        lines_omitted=omitted,
        lines_lost=lines_lost,
        start_lost=start is None,
        gap_reason=gap_reason,
        above_start=start is not None
        and (above_changed or frame.history_size + frame.cursor_y < start),
    )


def _printed_first_dropped(
    run: Run, head: list[str], tail: list[str]
) -> tuple[list[str], list[str]]:
    """The rows below the typed line, less what the shell printed there before the
    command began (``redraw`` Rule 4), where the read after ``S`` saw it."""
    before = run.before
    if before is None:
        return head, tail
    return output.without_printed_first(head, tail, before.rows, before.partial)


async def _read_redrawn(
    ctx: ToolContext,
    run: Run,
    found: PathFrame,
    phys: list[str],
    joined: list[str],
    *,
    shown: Redraw,
    at_prompt: bool,
    budget: int | None,
) -> Outcome:
    """``_read_output`` for a run whose typed line was replaced by its shown command
    (``redraw``): the output starts ``shown.rows`` below the prompt row, found again
    by the start mark, an absolute position; nothing is searched for by its text.

    The end frame's joined rows begin at that row when the history is as the redraw
    left it and the prompt row is where it was (``_joined_from``): then they are
    the output, less the rows below its end. Otherwise the rows are read from it
    (``_read_long``). Where the prompt row is not found, or its rows no longer show
    the prompt and the shown command, the start is gone, as for a typed line gone.
    """
    frame = found.frame
    mark = run.mark
    assert mark is not None
    view = View(frame, phys)
    end_y = frame.cursor_y if at_prompt else _end_y(run, frame, view)
    last = frame.history_size + end_y
    start, above_changed, over = await _redrawn_start(ctx, run, frame, view, shown)
    lines_lost: int | None = 0
    gap_reason: str | None = None
    omitted = 0
    tail: list[str] = []
    if start is None:
        gap = explain_gap(mark, View(frame, []))
        gap_reason = "overwritten" if _nothing_left_the_top(mark, frame) else gap.reason
        lines_lost = None
        if gap_reason == "history-limit":
            typed = output.TypedLine(
                text=shown.shown, shell=run.shell, column=mark.column, width=mark.width
            )
            lines_lost = output.lost_at_least(mark.row, typed, max(1, frame.history_limit // 10))
        head, tail, omitted = await _read_long(
            ctx, run, frame, 0, last, budget=budget or run.budget
        )
        first = 0
    else:
        first = start + shown.rows
        scrolled = _scrolled_rows(view, first, last, shown, start)
        if first > last:
            head = []
        elif scrolled is not None:
            below = frame.height - 1 - end_y
            rows = joined[: len(joined) - below] if below else list(joined)
            head = scrolled + (rows if last >= first + len(scrolled) else [])
        else:
            head, tail, omitted = await _read_long(
                ctx, run, frame, first, last, budget=budget or run.budget
            )
        head, tail = _with_over(over, head, tail)
    return _outcome(
        run,
        frame,
        head,
        tail,
        omitted=omitted,
        lines_lost=lines_lost,
        start=start,
        gap_reason=gap_reason,
        above_changed=above_changed,
        at_prompt=at_prompt,
    )


def _scrolled_rows(
    view: View, first: int, last: int, shown: Redraw, start: int | None
) -> list[str] | None:
    """The output's rows the end frame's joined rows miss, or None where they cannot be
    proved whole lines (the output is then read again from its first row).

    The joined rows begin at the screen row the output's first row had at the redraw
    (``_joined_from``); where the output scrolled the screen ``k`` rows since, they
    begin ``k`` rows into it (every run at the bottom of the pane). Those first
    ``k`` rows are in the physical rows read: each is a whole line, as joined, if it
    is narrower than a row less one cell, as a line wraps only from a row filled to
    its last cell (or to the one before, a wide character moved to the next row):
    ``_short_of_a_wrap``.
    Only where the prompt row is where the redraw left it (no history trimmed or
    cleared: the absolute rows are as numbered then)."""
    if start != shown.prompt_row or view.frame.history_size < shown.history_size:
        return None
    count = min(view.frame.history_size - shown.history_size, max(0, last - first + 1))
    if count and not view.top <= first <= first + count - 1 < view.end:
        return None
    rows = [view.row(at) for at in range(first, first + count)]
    if any(not _short_of_a_wrap(row, view.frame.width) for row in rows):
        return None
    return rows


def _short_of_a_wrap(row: str, width: int) -> bool:
    """Whether ``row`` (as captured, trailing blanks off) surely ends short of the
    cells a row wraps from (``width - 1``): counted exactly for printable ASCII, and
    as if every other character took two cells, so no estimate of a character's
    width decides. A tab, which tmux 3.6 captures as one character however many
    cells it spans, decides nothing either."""
    if "\t" in row:
        return False
    size = len(row) if row.isascii() else 2 * len(row)
    return size < width - 1


async def _redrawn_start(
    ctx: ToolContext, run: Run, frame: Frame, view: View, shown: Redraw
) -> tuple[int | None, bool, list[str]]:
    """Where a redrawn run's prompt row is now (None: gone), whether the rows just above
    it changed, and what the command wrote over the prompt row (its first line).

    Found by the start mark (``_locate``); else lower down, where a scroll region
    that starts at the top row pushed rows into the history under the rows below
    it (the mark's fingerprint and the prompt and shown command's own rows, at or
    below where the prompt row was); else, as for a typed line, where it was
    when the counters prove no row left the top. In every case its own rows
    must still show the prompt and the shown command, but for what a command
    that moved the cursor up to the prompt row wrote over its start.
    """
    mark = run.mark
    assert mark is not None
    prompt = run.at_typing.prompt
    expected = redraw.shown_rows(shown, prompt, frame.width)

    def shows(at: int) -> bool:
        return all(
            not view.top <= at + index < view.end or view.row(at + index).rstrip() == row
            for index, row in enumerate(expected)
        )

    start = await _locate(ctx, run, frame, view)
    above_changed = False
    if start is None:
        start = next(
            (
                at
                for at in range(max(mark.row, view.top + 2), view.end)
                if fingerprint(view, at) == mark.fingerprint and shows(at)
            ),
            None,
        )
    if start is None and _nothing_left_the_top(mark, frame):
        start = mark.row
        now = fingerprint(view, mark.row) if mark.row >= view.top + 2 else None
        above_changed = now is not None and now != mark.fingerprint
    over: list[str] = []
    if start is not None and view.top <= start < view.end:
        row = view.row(start).rstrip()
        if row != expected[0]:
            # A command that moved the cursor up to the prompt row wrote over it
            # (a scroll region's home, ``tput cup 0 0``): what differs from the row
            # the redraw left is its first line, even where it reached past the
            # prompt into the shown command (dash's ``# ``).
            over = output.written_over_shown(row, expected[0])
            if not over:
                return None, False, []
    if start is not None and not all(
        not view.top <= start + index < view.end or view.row(start + index).rstrip() == row
        for index, row in enumerate(expected[1:], 1)
    ):
        return None, False, []
    return start, above_changed, over
