"""``wait_for_text`` (inspect): wait until a pane shows a pattern, with honest timeouts.

search_panes (``search``) and capture_since (``since``) share the observation
and matching machinery in ``observation``.

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
started does not count either: use ``since`` or scope ``screen`` for that.
Scope ``screen`` matches the whole visible screen at every poll.

Send, then wait (``since``). send_keys returns a cursor read in
the same tmux invocation just before the input was delivered. With ``since``
the anchor is that cursor instead of the first poll: rows below its row, and
on its row the text after its column, count, including text that appeared
before this call began; the echo of the sent input counts too (it comes
after the cursor), so match the reply, not the input. A row redrawn after
the cursor (a pager's ``:`` erased for the shell's prompt) counts whole
(``scrollback`` Rules 4 and 5). A cursor is a row
position (``scrollback``, Rule 1): when it cannot be found again (the history
was trimmed past it, cleared, the screen switched or the width changed) the
wait reports ``gap`` and everything the pane still holds counts.

Prompts. capture-pane drops spaces at the end of each row; the cursor's row
is matched with the blanks before the cursor added back
(``observation.shown``), so ``'>>> '`` and ``'$ '`` match a prompt waiting
for input. Other rows are matched as captured.

Reaction time: polling, gated by a hint. Each poll spawns a tmux client
(about 2-3 ms of wall time and 1-2 ms of CPU on the bench machine), so
polling every millisecond would burn most of a core, and polling slowly
makes the reaction slow. An event source was weighed: ``pipe-pane`` needs a
shell command (refused for caller data and a change of tmux state), and a
control-mode client (``%output``) attaches a client to a session, which
changes tmux state (sizes, ``client-attached`` hooks) for an observe-only
tool. Instead, ``activity.ActivityHint`` reads, every 2 ms from a worker
thread, the bytes written by the pane's processes and the tmux server's
read-byte counter (a few µs a read, no process): a poll runs as soon as the
pane's processes have written, after a minimum gap that starts at 1 ms and
doubles while the pane's output keeps coming (cap 50 ms); output the pane's
processes did not write (the terminal's echo, a neighbour pane) polls at
once after a quiet spell and at most every 50 ms otherwise; and at least
every 0.5 s as a safety net. A quiet pane costs the thread almost nothing: it
sleeps on the pane's terminal's doorbell (inotify, ``driver.doorbell``,
stirred too by the input this process sends) and reads the counters every
20 ms for the echo of other clients' input, instead of every 2 ms. Without the
hint (not Linux, another pid namespace) polling backs off from 1 ms to 50 ms. bench/bench_wait.py
measures both (2-core VM, shared): with the hint a median reaction of about
5-6 ms, also with a busy neighbour pane (bare ``capture-pane`` in a tight
loop: 2-4 ms), for 2-3% of a core while waiting on a quiet socket; polling
alone, about 25 ms for 5-7%. See bench/README.md.
"""

from __future__ import annotations

import contextlib
from typing import Annotated, Literal

import msgspec
import trio

from tmuxmcp.capability.arguments import Arguments, conflict
from tmuxmcp.capability.params import PaneId, closed
from tmuxmcp.capability.results import TmuxId
from tmuxmcp.errors import ObjectNotFound
from tmuxmcp.panes.activity import ActivityHint
from tmuxmcp.panetext.matches import Match
from tmuxmcp.panetext.matching import (
    Hit,
    Matcher,
    Meter,
)
from tmuxmcp.panetext.scrollback import (
    Gap,
    GapReason,
    Mark,
    View,
    decode_cursor,
    explain_gap,
    locate,
    mark_at,
    unchanged_chars,
)
from tmuxmcp.sinks import Sink
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.observation import (
    DEFAULT_MATCH_BUDGET_MS,
    DEFAULT_SCAN_BYTES,
    PROGRESS_EVERY,
    MatchBudget,
    Pacer,
    Pattern,
    Regex,
    ScanBytes,
    ScanLine,
    WaitTimeout,
    cap_bytes,
    cursor_param,
    observe_bounded,
    scan,
    shown,
)

SINCE_SLACK = 1024
"""Extra history rows the first capture after a since cursor reaches back (output may
have scrolled the cursor's row up between the send and the wait)."""

# -- wait_for_text -----------------------------------------------------------------


class WaitForTextArgs(Arguments):
    """Arguments of wait_for_text."""

    pane_id: PaneId
    pattern: Pattern
    regex: Regex = False
    timeout: WaitTimeout = 30.0
    scope: Annotated[
        Literal["new", "screen"],
        closed(
            "new: only output after the call starts (or after since); screen: the whole screen.",
            Sink.LOCAL,
        ),
    ] = "new"
    since: (
        Annotated[
            str,
            cursor_param(
                "Cursor from send_keys or capture_since (scope new): only text after "
                "it counts, even text printed before this call. If its place is gone, all text "
                "counts and gap says why."
            ),
        ]
        | None
    ) = None
    match_budget_ms: MatchBudget = DEFAULT_MATCH_BUDGET_MS
    max_scan_bytes: ScanBytes = DEFAULT_SCAN_BYTES

    def __post_init__(self) -> None:
        if self.since is not None and self.scope != "new":
            conflict(
                "`since` applies to scope new; leave scope out or omit since", "since", "scope"
            )


WaitOutcome = Literal["matched", "timeout", "match-timeout", "pane-gone", "pane-dead"]


class WaitForTextResult(msgspec.Struct, frozen=True, kw_only=True):
    """How a wait ended."""

    outcome: WaitOutcome
    pane_id: TmuxId
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

    def __init__(self, mark: Mark, scope: str, before: dict[int, str], slack: int) -> None:
        self.scope = scope
        self.before = before
        """Text of the anchor row and the rows below it at the start: it does not count."""
        self.moved = 0
        """How far row numbers have moved up since the start (trims, clears)."""
        self.mark = mark
        self.since: Mark | None = mark if mark.column else None
        """A since cursor with a column: its row (numbered as at the start) keeps what was
        written before the column, while it still shows it (``scrollback`` Rule 5)."""
        self.alternate = mark.alternate
        self.history = mark.history_size
        self.grown = 0
        self.slack = slack
        self.seen: tuple[int, list[str]] | None = None
        self.gap: Gap | None = None
        self.changed = False
        self.unread = 0
        """Rows between the mark and a view cut short by the byte cap, not read at all."""

    @classmethod
    def at_start(cls, view: View, scope: str) -> _NewRows:
        """From the call's first view: the cursor's row is the anchor (scope new)."""
        anchor = view.cursor_row
        before = {r: shown(view, r) for r in range(anchor, view.end)}
        return cls(mark_at(view, anchor), scope, before, 0)

    @classmethod
    def after(cls, mark: Mark) -> _NewRows:
        """From a since cursor: everything after its row and column is new."""
        return cls(mark, "new", {}, SINCE_SLACK)

    def back(self) -> int:
        """History rows above the screen to capture next: back to the mark, plus slack."""
        slack = max(16, 2 * self.grown, self.slack)
        self.slack = 0  # only the first capture after a since cursor needs the extra rows
        return max(0, self.history - self.mark.row + 2) + slack

    def _unseen(self, start: int, lines: list[ScanLine]) -> list[ScanLine]:
        texts = [line.text for line in lines]
        self.changed = self.seen != (start, texts)
        if not self.changed:
            return []
        self.seen = (start, texts)
        return lines

    def _line(self, view: View, row: int) -> ScanLine:
        text = shown(view, row)
        original = row + self.moved
        if self.since is not None and original == self.since.row:
            return ScanLine(row, text, unchanged_chars(self.since, text))
        old = self.before.get(original, "")
        # The old text may have been padded as the cursor's row (``shown``) and lost
        # its blanks once the cursor left it: they still do not count.
        skip = min(len(old), len(text)) if old and text.startswith(old.rstrip(" ")) else 0
        return ScanLine(row, text, skip)

    def take(self, view: View, cut: bool = False) -> list[ScanLine] | None:
        """The rows to match in ``view``; None when a view of the whole history is needed.

        ``cut``: the view stops short of where it was asked to reach, because
        the rows since the mark are more than the byte cap lets one scan hold
        (``observe_bounded``). A mark not found in it lies above it, or is
        gone; either way every row read is new, and the rows above are
        counted as not scanned.
        """
        frame = view.frame
        top = frame.history_size
        if self.scope == "screen" or frame.alternate != self.alternate:
            return self._unseen(top, [ScanLine(r, shown(view, r)) for r in range(top, view.end)])
        at = locate(self.mark, view)
        if at is None and cut:
            self.unread += max(0, view.top - self.mark.row)
            at = view.top
        elif at is None:
            if view.top > 0:
                return None
            self.gap = explain_gap(self.mark, view)
            self.before, at = {}, 0  # continuity is lost: everything retained is new
            self.since = None
        else:
            self.moved += self.mark.row - at
        self.grown = max(0, top - self.history)
        self.history = top
        settled = [self._line(view, r) for r in range(at, top)]
        first = max(at, top)
        screen = self._unseen(first, [self._line(view, r) for r in range(first, view.end)])
        self.mark = mark_at(view, first)
        return settled + screen


def _match(view: View, line: ScanLine, hit: Hit) -> Match:
    return Match.found(view.relative(line.row), line.text, hit)


class _Wait:
    """One wait_for_text call: poll, match the new rows, decide the outcome."""

    def __init__(
        self,
        ctx: ToolContext,
        args: WaitForTextArgs,
        pane: str,
        hint: ActivityHint | None,
        since: Mark | None,
    ) -> None:
        self.ctx, self.args, self.pane, self.since = ctx, args, pane, since
        self.matcher = Matcher(args.pattern, regex=args.regex)
        self.began = trio.current_time()
        self.deadline = self.began + args.timeout
        self.pacer = Pacer(hint, self.began)
        self.watch: Literal["activity-hint", "polling"] = (
            "polling" if hint is None else "activity-hint"
        )
        self.meter = Meter()
        self.scanned = self.skipped = self.polls = 0
        self.rows: _NewRows | None = None
        self.width = 80
        """The pane's width as last seen: plans the first window of the next read."""
        self.cut = False
        """The last view stopped short of the rows asked for, at the byte cap."""
        self.seen = ""
        """The last non-blank new row matched, for an MCP Task's status (issue 29.2)."""
        self.looked_at = self.began

    async def _observe(self, back: int | None) -> View:
        self.polls += 1
        self.looked_at = trio.current_time()
        view, self.cut = await observe_bounded(
            self.ctx, self.pane, back, max_bytes=self.args.max_scan_bytes, width=self.width
        )
        self.width = view.frame.width
        self.pacer.follow(view.frame.pid)
        return view

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

    def _doing(self) -> str:
        """The progress message: ``waiting``; for an MCP Task's status, what the wait
        looks for and the last new row it saw (issue 29.2)."""
        if not self.ctx.in_task:
            return "waiting"
        wanted = self.args.pattern if len(self.args.pattern) <= 40 else self.args.pattern[:39] + "…"
        return (
            f"waiting for {wanted!r}; last new row: {self.seen}"
            if self.seen
            else f"waiting for {wanted!r}; no new row yet"
        )

    async def _check(self, rows: _NewRows, view: View) -> WaitForTextResult | None:
        """Match what is new in ``view``; a result if the wait is over."""
        lines = rows.take(view, self.cut)
        if lines is None:
            view = await self._observe(None)
            lines = rows.take(view, self.cut) or []
        lines, dropped = cap_bytes(lines, self.args.max_scan_bytes)
        self.skipped += dropped + rows.unread
        rows.unread = 0
        if lines:
            self.seen = next(
                (ln.text[ln.skip :] for ln in reversed(lines) if ln.text[ln.skip :].strip()),
                self.seen,
            )
            budget = self.args.match_budget_ms / 1000
            found = await scan(self.matcher, lines, budget=budget, limit=1, meter=self.meter)
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
        if self.since is None:
            view = await self._observe(back=2)  # a missing pane is the caller's error
            rows = self.rows = _NewRows.at_start(view, self.args.scope)
        else:
            rows = self.rows = _NewRows.after(self.since)
            view = await self._observe(rows.back())
        next_progress = self.began + PROGRESS_EVERY
        if self.ctx.in_task:  # a task's status says what it waits for from its start
            await self.ctx.progress(0.0, self.args.timeout, self._doing())
        looked = True
        while True:
            if looked:
                done = await self._check(rows, view)
                if done is not None:
                    return done
                self.pacer.looked(rows.changed)
            now = trio.current_time()
            if now >= self.deadline:
                return self._result("timeout")
            if now >= next_progress:
                next_progress = now + PROGRESS_EVERY
                await self.ctx.progress(
                    round(now - self.began, 3), self.args.timeout, self._doing()
                )
            if looked and rows.changed:
                self.pacer.pane_changed(now)
            # Wake for the deadline (a last poll) and for the next progress report; a
            # report alone is no reason to look.
            woke = await self.pacer.wait(min(self.deadline, next_progress))
            now = trio.current_time()
            looked = woke or now >= self.deadline or now >= self.looked_at + self.pacer.safety
            if not looked:
                continue
            try:
                view = await self._observe(rows.back())
            except ObjectNotFound:
                return self._result("pane-gone")


async def wait_for_text(ctx: ToolContext, args: WaitForTextArgs) -> WaitForTextResult:
    """Handler for wait_for_text."""
    pane = args.pane_id
    bound = ctx.client.bound
    since = None
    if args.since is not None:
        if bound is None:
            raise RuntimeError("wait_for_text before the client was bound")
        since = decode_cursor(args.since, (bound.pid, bound.start_time), pane, "since")
    hint = None if bound is None else ActivityHint.open(bound.pid, bound.start_time)
    with hint if hint is not None else contextlib.nullcontext():
        return await _Wait(ctx, args, pane, hint, since).run()
