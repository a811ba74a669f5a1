"""One observation of a pane, and the bounds shared by the waiting tools.

``observe`` reads a pane's frame (history size and limit, size, cursor, screen,
dead flag) and the rows wanted in ONE tmux invocation, so both describe the
same instant. ``scan`` matches rows cooperatively within a matching budget
(ADR, bounded operations): it pauses every few milliseconds so cancellation
stays prompt, and reports ``timed_out`` when the budget is spent, which the
tools report as ``match-timeout`` and never as a wait timeout. The parameter
types here carry their sink (``local``): patterns and limits never reach tmux.
"""

from __future__ import annotations

import time
from typing import Annotated

import msgspec
import trio
from msgspec import Meta

from tmuxmcp.capability.params import local_int, sink, switch
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.panes.activity import ActivityHint
from tmuxmcp.panetext.matching import (
    MAX_PATTERN_CHARS,
    BudgetSpent,
    Hit,
    Matcher,
    Meter,
)
from tmuxmcp.panetext.scrollback import (
    FRAME_FIELDS,
    MAX_CURSOR_CHARS,
    Frame,
    View,
    cells,
)
from tmuxmcp.panetext.typed_records import typed_record
from tmuxmcp.panetext.windows import Budget, Chunk, PaneRange, rows_within
from tmuxmcp.sinks import Encoding, Sink
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.history import read

# -- bounds and timing -------------------------------------------------------------

DEFAULT_MATCH_BUDGET_MS = 250
MAX_MATCH_BUDGET_MS = 5000
DEFAULT_SCAN_BYTES = 1024 * 1024
MAX_SCAN_BYTES = 16 * 1024 * 1024
MAX_WAIT_S = 3600
MAX_RESULT_BYTES = 1024 * 1024

WaitTimeout = Annotated[
    float,
    Meta(
        ge=0,
        le=MAX_WAIT_S,
        description="Seconds before outcome timeout.",
        extra=sink(Sink.LOCAL, Encoding.NONE),
    ),
]
"""The ``timeout`` of the waiting tools (wait_for_text)."""
WaitSeconds = Annotated[float, Meta(ge=0, le=MAX_WAIT_S, extra=sink(Sink.LOCAL, Encoding.NONE))]
"""The same ``timeout`` with no description, where the tool list has no room for one
(wait_for_state)."""

GAP_MIN = 0.001
"""Shortest time between two polls."""
GAP_CAP = 0.05
"""Longest time between two polls without the hint, or while the hint keeps firing."""
SAFETY_POLL = 0.5
"""With the hint, poll at least this often anyway (resizes, exits, clears)."""
SAFETY_MAX = 2.0
"""While looks find nothing new, the safety poll's gap doubles up to this (``Pacer.looked``)."""
QUIET = 0.05
"""Activity after this long without any counts as a fresh start: poll at once."""
PROGRESS_EVERY = 1.0
PAUSE_EVERY = 0.005
"""Let other tasks run after this much continuous matching."""


def cursor_param(description: str) -> Meta:
    """A cursor a tool returned (send_keys, capture_since), read by tmuxmcp alone."""
    return Meta(
        min_length=1,
        max_length=MAX_CURSOR_CHARS,
        pattern="^[A-Za-z0-9_-]+$",
        description=description,
        extra=sink(Sink.LOCAL, Encoding.NONE),
    )


Pattern = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=MAX_PATTERN_CHARS,
        description=("Text to find in one row; with regex, RE2 syntax. Never passed to tmux."),
        extra=sink(Sink.LOCAL, Encoding.NONE),
    ),
]
Regex = Annotated[bool, switch("Treat pattern as an RE2 regular expression.")]
MatchBudget = Annotated[
    int,
    local_int(
        "Matching ms per scan before match-timeout.",
        ge=1,
        le=MAX_MATCH_BUDGET_MS,
    ),
]
ScanBytes = Annotated[
    int,
    local_int(
        "Bytes scanned per scan (newest kept).",
        ge=1024,
        le=MAX_SCAN_BYTES,
    ),
]


# -- one observation ---------------------------------------------------------------


def observe_commands(pane_id: str, back: int | None) -> tuple[RecordFormat, list[Command]]:
    """The commands of one observation (see ``observe``), to run alone or before others."""
    frame = RecordFormat(list(FRAME_FIELDS.values()))
    return frame, [
        cmd("display-message", "-p", t=pane_id, args=[frame.template]),
        cmd("capture-pane", "-p", t=pane_id, S="-" if back is None else -back),
    ]


def parse_view(frame: RecordFormat, stdout: str) -> View:
    """The view in the output of ``observe_commands`` (commands after them print nothing)."""
    record, body = frame.parse_leading(stdout)
    found: Frame = typed_record(record, FRAME_FIELDS, Frame)
    rows = body.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    end = found.history_size + found.height
    return View(found, rows[-end:] if len(rows) > end else rows)


async def observe(ctx: ToolContext, pane_id: str, back: int | None) -> View:
    """The pane's frame and rows from ``back`` history rows above the screen (None: all)."""
    frame, commands = observe_commands(pane_id, back)
    return parse_view(frame, (await ctx.client.run(*commands)).stdout)


async def observe_bounded(
    ctx: ToolContext, pane_id: str, back: int | None, *, max_bytes: int, width: int
) -> tuple[View, bool]:
    """``observe``, reading at most about ``max_bytes`` of rows however far ``back`` reaches.

    The frame and the newest window are one invocation, as in ``observe``; the
    rest of the range is read newest first by the one history reader
    (``tools.history``), and reading stops once the rows held pass
    ``max_bytes``: older rows would be cut by the same cap before matching
    anyway. ``width`` plans the first window (the pane's width as last seen).
    Returns the view and whether it stops short of ``back`` because of the cap.
    """
    first = rows_within(max_bytes, width)
    view = await observe(ctx, pane_id, first if back is None else min(back, first))
    frame = view.frame
    wanted = 0 if back is None else max(0, frame.history_size - back)
    if view.top <= wanted:
        return view, False
    reader = PaneRange.above(
        pane_id, history_size=frame.history_size, width=frame.width, top=wanted, bottom=view.top - 1
    )
    # The newest window is the view's rows, read with the frame: they are kept and
    # predict what the older ones cost (windows Rule 1).
    reading = await read(ctx, reader, Budget(max_bytes), first=Chunk(view.top, view.rows))
    bounded = View(frame, reading.rows)
    return bounded, bounded.top > wanted


async def observe_history(
    ctx: ToolContext, pane_id: str, frame: Frame, top: int, bottom: int
) -> View | None:
    """History rows ``top`` to ``bottom`` (absolute, as ``frame`` numbers them), as a view.

    Read by the one history reader (``tools.history``), so rows that scroll
    into history meanwhile do not shift them; None if the history shrank
    between the reads (the numbering changed) or a row could not be read.
    The range is read whole: its budget is the most its rows can cost (four
    bytes a cell and the quotes, ``line_cost``), so only the range ends it.
    The view's frame is ``frame`` with its height set so that the view ends
    after ``bottom``: row numbers, ``relative`` and the marks made from it are
    those of ``frame``; its screen and cursor lie outside it.
    """
    reader = PaneRange.above(
        pane_id, history_size=frame.history_size, width=frame.width, top=top, bottom=bottom
    )
    most = (bottom - top + 1) * (4 * frame.width + 2)
    rows = (await read(ctx, reader, Budget(most))).rows
    if reader.broken or len(rows) != bottom - top + 1:
        return None
    return View(msgspec.structs.replace(frame, height=bottom + 1 - frame.history_size), rows)


def shown(view: View, row: int) -> str:
    """A row as it appears on screen: the cursor's row keeps the blanks before the cursor.

    capture-pane drops the spaces at the end of every row, so a prompt such as
    ``>>> `` reads as ``>>>``; the cursor sitting after it shows the space is
    there. Only the cursor's row is padded, up to the cursor's column (wide
    characters count two cells, combining marks none); other rows are as
    captured.
    """
    text = view.row(row)
    if row != view.cursor_row:
        return text
    return text + " " * max(0, view.frame.cursor_x - cells(text))


class Pacer:
    """When to poll next: a gap that adapts, gated by the activity hint when there is one."""

    def __init__(self, hint: ActivityHint | None, now: float) -> None:
        self.hint = hint
        self.gap = GAP_MIN
        self.last_poll = now
        self.activity = now
        self.safety = SAFETY_POLL
        """Seconds between two safety polls with the hint (``looked``)."""

    def _active(self, now: float) -> bool:
        """Note activity at ``now``; True if it ends a quiet spell."""
        quiet = now - self.activity >= QUIET
        self.activity = now
        return quiet

    def pane_changed(self, now: float) -> None:
        """Without the hint, a poll that found the pane changed is the activity signal."""
        if self.hint is None and self._active(now):
            self.gap = GAP_MIN

    def looked(self, changed: bool) -> None:
        """After a look: while looks find nothing new the safety gap doubles, up to
        ``SAFETY_MAX`` (a quiet pane costs a tmux client every 2 s, not two a second;
        what the hint sees still wakes a look at once); a change brings it back to
        ``SAFETY_POLL``."""
        self.safety = SAFETY_POLL if changed else min(self.safety * 2, SAFETY_MAX)

    def follow(self, pane_pid: int) -> None:
        """Let the hint follow the pane's processes (each observation reports the pid)."""
        if self.hint is not None and pane_pid > 0:
            self.hint.follow(pane_pid)

    async def wait(self, deadline: float) -> bool:
        """Sleep until the next poll is due; whether it is due for what the pane did (the
        hint saw output; without the hint, every poll is), not only for a time."""
        if self.hint is None:
            await trio.sleep_until(min(self.last_poll + self.gap, deadline))
            self.gap = min(self.gap * 2, GAP_CAP)
            seen = True
        else:
            seen = await self._wait_for_hint(self.hint, deadline)
            self.hint.settle()  # output from here on triggers the next poll
        self.last_poll = trio.current_time()
        return seen

    async def _wait_for_hint(self, hint: ActivityHint, deadline: float) -> bool:
        now = trio.current_time()
        seen = await hint.watch(
            min(self.last_poll + self.safety, deadline) - now, first_change=True
        )
        if seen is None:
            self.gap = min(self.gap * 2, GAP_CAP)
            return False
        if not seen.pane:
            return True  # output the pane's processes did not write (echo): poll at once
        if self._active(trio.current_time() - seen.age):
            self.gap = GAP_MIN  # output after a quiet spell: poll at once
            return True
        # Output keeps coming: wait out the gap, still noting activity.
        now = trio.current_time()
        more = await hint.watch(min(self.last_poll + self.gap, deadline) - now, first_change=False)
        if more is not None and more.pane:
            self._active(trio.current_time() - more.age)
        self.gap = min(self.gap * 2, GAP_CAP)
        return True


class ScanLine(msgspec.Struct, frozen=True):
    row: int
    """Absolute row number."""
    text: str
    """The whole row."""
    skip: int = 0
    """Characters at the start that do not count (text already there at the anchor)."""


def cap_bytes(lines: list[ScanLine], limit: int) -> tuple[list[ScanLine], int]:
    """Keep the newest lines within ``limit`` bytes; return them and how many were dropped."""
    total = 0
    keep = 0
    for line in reversed(lines):
        total += len(line.text.encode("utf-8", "replace")) - line.skip + 1
        if total > limit:
            break
        keep += 1
    return lines[len(lines) - keep :], len(lines) - keep


class ScanResult(msgspec.Struct):
    hits: list[tuple[ScanLine, Hit]]
    timed_out: bool
    scanned_bytes: int


async def scan(
    matcher: Matcher, lines: list[ScanLine], *, budget: float, limit: int, meter: Meter
) -> ScanResult:
    """Match ``lines`` cooperatively: pause every few ms so cancellation stays prompt."""
    texts = [line.text[line.skip :] for line in lines]
    hits: list[tuple[ScanLine, Hit]] = []
    pause_at = time.perf_counter() + PAUSE_EVERY
    done = len(lines)
    timed_out = False
    try:
        for event in matcher.scan(texts, budget=budget, meter=meter):
            if event is None:
                if time.perf_counter() >= pause_at:
                    await trio.lowlevel.checkpoint()
                    pause_at = time.perf_counter() + PAUSE_EVERY
                continue
            line = lines[event.line]
            hits.append((line, Hit(event.line, event.start + line.skip, event.end + line.skip)))
            if len(hits) >= limit:
                done = event.line + 1
                break
    except BudgetSpent as spent:
        timed_out, done = True, spent.lines_done
    scanned = sum(len(t.encode("utf-8", "replace")) + 1 for t in texts[:done])
    return ScanResult(hits, timed_out, scanned)
