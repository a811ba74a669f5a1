"""Waiting and searching (inspect): wait_for_text, search_panes, capture_since.

Every observation of a pane is ONE tmux invocation: ``display-message`` of a
nonce-framed record (history size and limit, size, cursor, screen, dead flag)
followed by ``capture-pane`` of the rows wanted, so the record and the rows
describe the same instant. Patterns are matched here (``matching``), never
passed to tmux; row positions are tracked by ``scrollback``.

Outcomes and errors, kept apart (ADR, bounded operations):

* ``matched``: the pattern was found; the match is reported.
* ``timeout``: the wait deadline (``timeout``) passed without a match. The
  last poll happens at the deadline.
* ``match-timeout``: one scan spent more than ``match_budget_ms`` matching.
  This is the matching budget, and only that.
* ``pane-gone``: the pane disappeared during the wait.
* ``pane-dead``: the pane's program exited (the pane stays because of
  ``remain-on-exit``); its final output was scanned first.
* a tmux client that does not answer within the server's tmux deadline
  (``--timeout``) is the error ``[tmux-timeout]`` (an ``isError`` result),
  never an outcome; a poll in flight when the wait deadline passes is allowed
  to finish, so the call can return up to one tmux invocation (normally a few
  milliseconds) after ``timeout``.

Echoed input (scope ``new``, the default). At the first poll the cursor's row
becomes the anchor, and the text already on it (usually the prompt) is
remembered. Only rows below the anchor, and on the anchor row only text added
after that remembered text, count as new. A command line the shell had echoed
before the call started sits above the cursor, so it cannot match. Keys sent
just before the call that the pane has not echoed yet (the shell was slow to
read them) would be echoed after the anchor and would count; normally the
echo is on screen long before the next call arrives. To be safe against it,
match text the command line does not contain (for example ``^DONE$`` rather
than ``DONE`` for ``echo DONE``). Output the program printed before the call
started does not count either: use scope ``screen`` for that. Scope
``screen`` matches the whole visible screen at every poll.

Reaction time: polling, gated by a hint. Each poll spawns a tmux client
(about 2-3 ms of wall time and 1-2 ms of CPU on the bench machine), so
polling every millisecond would burn most of a core, and polling slowly
makes the reaction slow. An event source was weighed: ``pipe-pane`` needs a
shell command (refused for caller data and a change of tmux state), and a
control-mode client (``%output``) attaches a client to a session, which
changes tmux state (sizes, ``client-attached`` hooks) for an observe-only
tool. Instead, ``activity.ActivityHint`` reads the tmux server's read-byte
counter every 2 ms from a worker thread (about 2 µs a read, no process): a poll runs as soon as the
server has read pane output, after a minimum gap that starts at 1 ms and
doubles while output keeps coming (cap 50 ms), and at least every 0.5 s as a
safety net. Without the hint (not Linux, another pid namespace) polling
backs off from 1 ms to 50 ms. bench/bench_wait.py measures both (2-core VM,
loaded): with the hint a median reaction of 6-8 ms (bare ``capture-pane`` in a
tight loop: 2-5 ms) for 2-3% of a core while waiting; polling alone, 35 ms for
8.5%. A busy neighbour pane keeps the hint firing and brings both to the
polling numbers. See bench/README.md.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from typing import Annotated, Literal

import msgspec
import trio
from msgspec import Meta

from tmuxmcp.capability.params import PaneId, SessionId, WindowId, closed, local_int, number, sink
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.errors import InvalidArguments, ObjectNotFound, TmuxCommandFailed
from tmuxmcp.sinks import Encoding, Sink
from tmuxmcp.sinks.target import IdKind, encode_id
from tmuxmcp.tools.activity import ActivityHint
from tmuxmcp.tools.context import Handler, ToolContext
from tmuxmcp.tools.matching import (
    MAX_PATTERN_CHARS,
    BudgetSpent,
    Hit,
    Matcher,
    Meter,
    excerpt,
)
from tmuxmcp.tools.query import list_records, typed_record
from tmuxmcp.tools.scrollback import (
    FRAME_FIELDS,
    MAX_CURSOR_CHARS,
    Frame,
    Gap,
    GapReason,
    Mark,
    View,
    decode_cursor,
    encode_cursor,
    explain_gap,
    locate,
    mark_at,
)

# -- bounds and timing -------------------------------------------------------------

DEFAULT_MATCH_BUDGET_MS = 250
MAX_MATCH_BUDGET_MS = 5000
DEFAULT_SCAN_BYTES = 1024 * 1024
MAX_SCAN_BYTES = 16 * 1024 * 1024
MAX_WAIT_S = 3600
MAX_RESULT_BYTES = 1024 * 1024

GAP_MIN = 0.001
"""Shortest time between two polls."""
GAP_CAP = 0.05
"""Longest time between two polls without the hint, or while the hint keeps firing."""
SAFETY_POLL = 0.5
"""With the hint, poll at least this often anyway (resizes, exits, clears)."""
QUIET = 0.05
"""Activity after this long without any counts as a fresh start: poll at once."""
PROGRESS_EVERY = 1.0
PAUSE_EVERY = 0.005
"""Let other tasks run after this much continuous matching."""


def _local(description: str) -> Meta:
    return Meta(description=description, extra=sink(Sink.LOCAL, Encoding.NONE))


Pattern = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=MAX_PATTERN_CHARS,
        description=(
            "Text to find in one screen row; with regex, an RE2 regular expression (no "
            "backreferences or lookaround). Matched by tmuxmcp, never passed to tmux."
        ),
        extra=sink(Sink.LOCAL, Encoding.NONE),
    ),
]
Regex = Annotated[bool, _local("Treat pattern as an RE2 regular expression.")]
MatchBudget = Annotated[
    int,
    local_int(
        "Milliseconds of matching allowed per scan; more ends the call with match-timeout.",
        ge=1,
        le=MAX_MATCH_BUDGET_MS,
    ),
]
ScanBytes = Annotated[
    int,
    local_int(
        "Bytes of captured text scanned per scan, keeping the newest rows.",
        ge=1024,
        le=MAX_SCAN_BYTES,
    ),
]


# -- one observation ---------------------------------------------------------------


async def observe(ctx: ToolContext, pane_id: str, back: int | None) -> View:
    """The pane's frame and rows from ``back`` history rows above the screen (None: all)."""
    frame = RecordFormat(list(FRAME_FIELDS.values()))
    out = await ctx.client.run(
        cmd("display-message", "-p", t=pane_id, args=[frame.template]),
        cmd("capture-pane", "-p", t=pane_id, S="-" if back is None else -back),
    )
    head, _, body = out.stdout.partition("\n")
    records = frame.parse(head)
    if len(records) != 1:
        raise TmuxCommandFailed("tmux returned a pane record tmuxmcp could not parse")
    found: Frame = typed_record(records[0], FRAME_FIELDS, Frame)
    rows = body.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    end = found.history_size + found.height
    return View(found, rows[-end:] if len(rows) > end else rows)


class _Line(msgspec.Struct, frozen=True):
    row: int
    """Absolute row number."""
    text: str
    """The whole row."""
    skip: int = 0
    """Characters at the start that do not count (text already there at the anchor)."""


def _cap_bytes(lines: list[_Line], limit: int) -> tuple[list[_Line], int]:
    """Keep the newest lines within ``limit`` bytes; return them and how many were dropped."""
    total = 0
    keep = 0
    for line in reversed(lines):
        total += len(line.text.encode("utf-8", "replace")) - line.skip + 1
        if total > limit:
            break
        keep += 1
    return lines[len(lines) - keep :], len(lines) - keep


class _Scan(msgspec.Struct):
    hits: list[tuple[_Line, Hit]]
    timed_out: bool
    scanned_bytes: int


async def _scan(
    matcher: Matcher, lines: list[_Line], *, budget: float, limit: int, meter: Meter
) -> _Scan:
    """Match ``lines`` cooperatively: pause every few ms so cancellation stays prompt."""
    texts = [line.text[line.skip :] for line in lines]
    hits: list[tuple[_Line, Hit]] = []
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
    return _Scan(hits, timed_out, scanned)


# -- wait_for_text -----------------------------------------------------------------


class WaitForTextArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Arguments of wait_for_text."""

    pane_id: PaneId
    pattern: Pattern
    regex: Regex = False
    timeout: Annotated[
        float,
        Meta(
            ge=0,
            le=MAX_WAIT_S,
            description="Seconds to wait before giving up with outcome timeout.",
            extra=sink(Sink.LOCAL, Encoding.NONE),
        ),
    ] = 30.0
    scope: Annotated[
        Literal["new", "screen"],
        closed(
            "new: only output that appears after the call starts (text already on the "
            "cursor's row and rows above it never match); screen: the whole visible screen.",
            Sink.LOCAL,
        ),
    ] = "new"
    match_budget_ms: MatchBudget = DEFAULT_MATCH_BUDGET_MS
    max_scan_bytes: ScanBytes = DEFAULT_SCAN_BYTES


class Match(msgspec.Struct, frozen=True, kw_only=True):
    """Where the pattern matched."""

    row: int
    """Row number as capture_pane counts it: 0 is the top visible row, negative is scrollback."""
    in_scrollback: bool
    column: int
    """Character offset of the match in ``line``'s row."""
    matched: str
    line: str
    """The row (cut to 1000 characters around the match)."""


WaitOutcome = Literal["matched", "timeout", "match-timeout", "pane-gone", "pane-dead"]


class WaitForTextResult(msgspec.Struct, frozen=True, kw_only=True):
    """How a wait ended."""

    outcome: WaitOutcome
    pane_id: str
    elapsed_ms: float
    match: Match | None
    polls: int
    watch: Literal["activity-hint", "polling"]
    scanned_bytes: int
    match_ms: float
    lines_not_scanned: int
    """Rows of a burst beyond max_scan_bytes that were skipped (oldest first)."""
    gap: GapReason | None
    """Why some output could not be checked, if it happened (see capture_since)."""

    def text_form(self) -> str:
        """Readable form."""
        head = f"outcome={self.outcome} pane={self.pane_id} elapsed_ms={self.elapsed_ms:.1f}"
        if self.gap is not None:
            head += f" gap={self.gap}"
        if self.lines_not_scanned:
            head += f" lines_not_scanned={self.lines_not_scanned}"
        if self.match is None:
            return head
        where = "scrollback" if self.match.in_scrollback else "screen"
        return f"{head} row={self.match.row} ({where})\n{self.match.line}"


class _NewRows:
    """Which rows of each view are still to be matched (scope new or screen)."""

    def __init__(self, view: View, scope: str) -> None:
        self.scope = scope
        anchor = view.cursor_row
        self.before = {r: view.row(r) for r in range(anchor, view.end)}
        """Text of the anchor row and the rows below it at the start: it does not count."""
        self.moved = 0
        """How far row numbers have moved up since the start (trims, clears)."""
        self.mark = mark_at(view, anchor)
        self.alternate = view.frame.alternate
        self.history = view.frame.history_size
        self.grown = 0
        self.seen: tuple[int, list[str]] | None = None
        self.gap: Gap | None = None
        self.changed = False

    def back(self) -> int:
        """History rows above the screen to capture next: back to the mark, plus slack."""
        return max(0, self.history - self.mark.row + 2) + max(16, 2 * self.grown)

    def _unseen(self, start: int, lines: list[_Line]) -> list[_Line]:
        texts = [line.text for line in lines]
        self.changed = self.seen != (start, texts)
        if not self.changed:
            return []
        self.seen = (start, texts)
        return lines

    def _line(self, view: View, row: int) -> _Line:
        text = view.row(row)
        old = self.before.get(row + self.moved, "")
        return _Line(row, text, len(old) if old and text.startswith(old) else 0)

    def take(self, view: View) -> list[_Line] | None:
        """The rows to match in ``view``; None when a view of the whole history is needed."""
        frame = view.frame
        top = frame.history_size
        if self.scope == "screen" or frame.alternate != self.alternate:
            return self._unseen(top, [_Line(r, view.row(r)) for r in range(top, view.end)])
        at = locate(self.mark, view)
        if at is None:
            if view.top > 0:
                return None
            self.gap = explain_gap(self.mark, view)
            self.before, at = {}, 0  # continuity is lost: everything retained is new
        else:
            self.moved += self.mark.row - at
        self.grown = max(0, top - self.history)
        self.history = top
        settled = [self._line(view, r) for r in range(at, top)]
        first = max(at, top)
        screen = self._unseen(first, [self._line(view, r) for r in range(first, view.end)])
        self.mark = mark_at(view, first)
        return settled + screen


def _match(view: View, line: _Line, hit: Hit) -> Match:
    return Match(
        row=view.relative(line.row),
        in_scrollback=line.row < view.screen_top,
        column=hit.start,
        matched=excerpt(line.text[hit.start : hit.end], Hit(0, 0, 0)),
        line=excerpt(line.text, hit),
    )


class _Pacer:
    """When to poll next: a gap that adapts, gated by the activity hint when there is one."""

    def __init__(self, hint: ActivityHint | None, now: float) -> None:
        self.hint = hint
        self.gap = GAP_MIN
        self.last_poll = now
        self.activity = now

    def _active(self, now: float) -> bool:
        """Note activity at ``now``; True if it ends a quiet spell."""
        quiet = now - self.activity >= QUIET
        self.activity = now
        return quiet

    def pane_changed(self, now: float) -> None:
        """Without the hint, a poll that found the pane changed is the activity signal."""
        if self.hint is None and self._active(now):
            self.gap = GAP_MIN

    async def wait(self, deadline: float) -> None:
        """Sleep until the next poll is due."""
        if self.hint is None:
            await trio.sleep_until(min(self.last_poll + self.gap, deadline))
            self.gap = min(self.gap * 2, GAP_CAP)
        else:
            await self._wait_for_hint(self.hint, deadline)
            self.hint.changed()  # output read from here on triggers the next poll
        self.last_poll = trio.current_time()

    async def _wait_for_hint(self, hint: ActivityHint, deadline: float) -> None:
        now = trio.current_time()
        age = await hint.watch(min(self.last_poll + SAFETY_POLL, deadline) - now, first_change=True)
        if age is not None:
            if self._active(trio.current_time() - age):
                self.gap = GAP_MIN  # output after a quiet spell: poll at once
                return
            # Output keeps coming: wait out the gap, still noting activity.
            now = trio.current_time()
            age = await hint.watch(
                min(self.last_poll + self.gap, deadline) - now, first_change=False
            )
            if age is not None:
                self._active(trio.current_time() - age)
        self.gap = min(self.gap * 2, GAP_CAP)


class _Wait:
    """One wait_for_text call: poll, match the new rows, decide the outcome."""

    def __init__(
        self, ctx: ToolContext, args: WaitForTextArgs, pane: str, hint: ActivityHint | None
    ) -> None:
        self.ctx, self.args, self.pane = ctx, args, pane
        self.matcher = Matcher(args.pattern, regex=args.regex)
        self.began = trio.current_time()
        self.deadline = self.began + args.timeout
        self.pacer = _Pacer(hint, self.began)
        self.watch: Literal["activity-hint", "polling"] = (
            "polling" if hint is None else "activity-hint"
        )
        self.meter = Meter()
        self.scanned = self.skipped = self.polls = 0
        self.rows: _NewRows | None = None

    async def _observe(self, back: int | None) -> View:
        self.polls += 1
        return await observe(self.ctx, self.pane, back)

    def _result(self, outcome: WaitOutcome, match: Match | None = None) -> WaitForTextResult:
        gap = None if self.rows is None or self.rows.gap is None else self.rows.gap.reason
        return WaitForTextResult(
            outcome=outcome,
            pane_id=self.pane,
            elapsed_ms=round((trio.current_time() - self.began) * 1000, 1),
            match=match,
            polls=self.polls,
            watch=self.watch,
            scanned_bytes=self.scanned,
            match_ms=round(self.meter.spent * 1000, 3),
            lines_not_scanned=self.skipped,
            gap=gap,
        )

    async def _check(self, rows: _NewRows, view: View) -> WaitForTextResult | None:
        """Match what is new in ``view``; a result if the wait is over."""
        lines = rows.take(view)
        if lines is None:
            view = await self._observe(None)
            lines = rows.take(view) or []
        lines, dropped = _cap_bytes(lines, self.args.max_scan_bytes)
        self.skipped += dropped
        if lines:
            budget = self.args.match_budget_ms / 1000
            found = await _scan(self.matcher, lines, budget=budget, limit=1, meter=self.meter)
            self.scanned += found.scanned_bytes
            if found.hits:
                line, hit = found.hits[0]
                return self._result("matched", _match(view, line, hit))
            if found.timed_out:
                return self._result("match-timeout")
        if view.frame.dead:
            return self._result("pane-dead")
        return None

    async def run(self) -> WaitForTextResult:
        """Poll until an outcome."""
        view = await self._observe(back=2)  # a missing pane is the caller's error
        rows = self.rows = _NewRows(view, self.args.scope)
        next_progress = self.began + PROGRESS_EVERY
        while True:
            done = await self._check(rows, view)
            if done is not None:
                return done
            now = trio.current_time()
            if now >= self.deadline:
                return self._result("timeout")
            if now >= next_progress:
                next_progress = now + PROGRESS_EVERY
                await self.ctx.progress(round(now - self.began, 3), self.args.timeout, "waiting")
            if rows.changed:
                self.pacer.pane_changed(now)
            # Wake for the deadline (a last poll) and for the next progress report.
            await self.pacer.wait(min(self.deadline, next_progress))
            try:
                view = await self._observe(rows.back())
            except ObjectNotFound:
                return self._result("pane-gone")


async def wait_for_text(ctx: ToolContext, args: WaitForTextArgs) -> WaitForTextResult:
    """Handler for wait_for_text."""
    pane = encode_id(args.pane_id, IdKind.PANE, "pane_id")
    bound = ctx.client.bound
    hint = None if bound is None else ActivityHint.open(bound.pid, bound.start_time)
    with hint if hint is not None else contextlib.nullcontext():
        return await _Wait(ctx, args, pane, hint).run()


# -- search_panes ------------------------------------------------------------------


class SearchPanesArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Arguments of search_panes: at most one of session_id and window_id."""

    pattern: Pattern
    regex: Regex = False
    session_id: SessionId | None = None
    window_id: WindowId | None = None
    max_matches: Annotated[
        int, local_int("Return at most this many matching rows.", ge=1, le=1000)
    ] = 100
    scrollback: Annotated[
        int,
        number("Also search this many scrollback rows above each screen.", ge=0, le=100_000),
    ] = 1000
    match_budget_ms: MatchBudget = DEFAULT_MATCH_BUDGET_MS
    max_scan_bytes: ScanBytes = DEFAULT_SCAN_BYTES


class PaneMatch(msgspec.Struct, frozen=True, kw_only=True):
    """A matching row."""

    pane_id: str
    session_id: str
    window_id: str
    row: int
    in_scrollback: bool
    column: int
    matched: str
    line: str


class SearchPanesResult(msgspec.Struct, frozen=True, kw_only=True):
    """Matching rows, first match per row, in pane order then row order."""

    outcome: Literal["complete", "match-timeout"]
    matches: list[PaneMatch]
    panes_searched: int
    truncated: bool
    truncated_by: Literal["max_matches", "max_scan_bytes"] | None
    scanned_bytes: int
    match_ms: float

    def text_form(self) -> str:
        """Readable form: one ``pane:row: line`` per match."""
        lines = [
            f"outcome={self.outcome} matches={len(self.matches)} panes={self.panes_searched}"
            + (f" truncated_by={self.truncated_by}" if self.truncated else "")
        ]
        lines += [f"{m.pane_id}:{m.row}: {m.line}" for m in self.matches]
        return "\n".join(lines)


class _PaneRef(msgspec.Struct, frozen=True, kw_only=True):
    pane_id: str
    session_id: str
    window_id: str


_PANE_REF = {"pane_id": "pane_id", "session_id": "session_id", "window_id": "window_id"}


def _listing(args: SearchPanesArgs) -> Command:
    if args.session_id is not None and args.window_id is not None:
        raise InvalidArguments("give session_id or window_id, not both")
    if args.window_id is not None:
        return cmd("list-panes", t=encode_id(args.window_id, IdKind.WINDOW, "window_id"))
    if args.session_id is not None:
        return cmd("list-panes", "-s", t=encode_id(args.session_id, IdKind.SESSION, "session_id"))
    return cmd("list-panes", "-a")


async def _capture_all(
    ctx: ToolContext, panes: list[_PaneRef], scrollback: int
) -> dict[int, tuple[int, list[str]]]:
    """Every pane's rows in one invocation: index -> (relative row of the first, rows)."""
    nonce = secrets.token_hex(8)
    commands: list[Command] = []
    for index, pane in enumerate(panes):
        marker = f"\x1e{nonce}:{index}:#{{history_size}}"
        commands.append(cmd("display-message", "-p", t=pane.pane_id, args=[marker]))
        commands.append(cmd("capture-pane", "-p", t=pane.pane_id, S=-scrollback))
    out = await ctx.client.run(*commands)
    captured: dict[int, tuple[int, list[str]]] = {}
    for piece in out.stdout.split(f"\x1e{nonce}:")[1:]:
        head, _, body = piece.partition("\n")
        index_text, _, history_text = head.partition(":")
        if not (index_text.isdigit() and history_text.isdigit()):
            continue
        rows = body.split("\n")
        if rows and rows[-1] == "":
            rows.pop()
        captured[int(index_text)] = (-min(scrollback, int(history_text)), rows)
    return captured


async def search_panes(ctx: ToolContext, args: SearchPanesArgs) -> SearchPanesResult:
    """Handler for search_panes."""
    matcher = Matcher(args.pattern, regex=args.regex)
    command = _listing(args)
    for attempt in range(2):
        panes: list[_PaneRef] = await list_records(ctx, command, _PANE_REF, _PaneRef)
        try:
            captured = await _capture_all(ctx, panes, args.scrollback) if panes else {}
        except ObjectNotFound:
            if attempt == 0:
                continue  # a pane closed between the two invocations: list again
            raise
        break
    lines: list[_Line] = []
    owner: list[int] = []
    budget_left = args.max_scan_bytes
    by_bytes = False
    for index in range(len(panes)):
        first, rows = captured.get(index, (0, []))
        for offset, text in enumerate(rows):
            budget_left -= len(text.encode("utf-8", "replace")) + 1
            if budget_left < 0:
                by_bytes = True
                break
            lines.append(_Line(first + offset, text))
            owner.append(index)
        if by_bytes:
            break
    meter = Meter()
    found = await _scan(
        matcher,
        lines,
        budget=args.match_budget_ms / 1000,
        limit=args.max_matches + 1,
        meter=meter,
    )
    by_matches = len(found.hits) > args.max_matches
    matches = []
    index_of = {id(line): i for i, line in enumerate(lines)}
    for line, hit in found.hits[: args.max_matches]:
        pane = panes[owner[index_of[id(line)]]]
        matches.append(
            PaneMatch(
                pane_id=pane.pane_id,
                session_id=pane.session_id,
                window_id=pane.window_id,
                row=line.row,
                in_scrollback=line.row < 0,
                column=hit.start,
                matched=excerpt(line.text[hit.start : hit.end], Hit(0, 0, 0)),
                line=excerpt(line.text, hit),
            )
        )
    truncated_by: Literal["max_matches", "max_scan_bytes"] | None = None
    if by_matches:
        truncated_by = "max_matches"
    elif by_bytes:
        truncated_by = "max_scan_bytes"
    return SearchPanesResult(
        outcome="match-timeout" if found.timed_out else "complete",
        matches=matches,
        panes_searched=len(panes),
        truncated=truncated_by is not None,
        truncated_by=truncated_by,
        scanned_bytes=found.scanned_bytes,
        match_ms=round(meter.spent * 1000, 3),
    )


# -- capture_since -----------------------------------------------------------------


class CaptureSinceArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Arguments of capture_since."""

    pane_id: PaneId
    cursor: (
        Annotated[
            str,
            Meta(
                min_length=1,
                max_length=MAX_CURSOR_CHARS,
                pattern="^[A-Za-z0-9_-]+$",
                description=(
                    "The cursor a previous capture_since returned for this pane; omit it to "
                    "start at the top of the visible screen."
                ),
                extra=sink(Sink.LOCAL, Encoding.NONE),
            ),
        ]
        | None
    ) = None
    max_lines: Annotated[
        int,
        local_int(
            "Return at most this many lines; the cursor then points after them.",
            ge=1,
            le=10_000,
        ),
    ] = 1000


class CaptureSinceResult(msgspec.Struct, frozen=True, kw_only=True):
    """Complete rows that appeared since the cursor, and where to continue."""

    pane_id: str
    lines: list[str]
    first_row: int | None
    """Row number of ``lines[0]`` as capture_pane counts it (negative: scrollback)."""
    partial: str
    """The cursor's row: not complete yet, so it is returned again once it is."""
    cursor: str
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


async def capture_since(ctx: ToolContext, args: CaptureSinceArgs) -> CaptureSinceResult:
    """Handler for capture_since."""
    pane = encode_id(args.pane_id, IdKind.PANE, "pane_id")
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


HANDLERS: dict[str, Handler] = {
    "wait_for_text": wait_for_text,
    "search_panes": search_panes,
    "capture_since": capture_since,
}
