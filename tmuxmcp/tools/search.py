"""``search_panes`` (inspect): find a pattern across panes, capped and bounded.

Each pane in scope is read newest row first in bounded windows by the one
history reader (``tools.history``, issue 30.3): the first windows of as many
panes as the byte cap can fill share one tmux invocation, a deeper range gets
more windows, and reading stops once ``max_scan_bytes`` is spent or
``max_matches`` + 1 rows matched. The matches returned are the first that fit
``max_chars``, counted as JSON (``inline``), so a default result stays inline
(issue 18.2); a first match over it alone comes with its texts narrowed
around the match, not left out. So one call holds at most ``max_scan_bytes``
of rows plus one batch of windows planned to fill it (issue 13, item 2).
Matching runs here (``observation.scan``), never in tmux.
"""

from __future__ import annotations

import functools
from typing import Annotated, Literal

import msgspec

from tmuxmcp.capability.arguments import Arguments, not_together
from tmuxmcp.capability.params import SessionId, WindowId, local_int, number
from tmuxmcp.capability.results import TmuxId
from tmuxmcp.panetext.inline import DEFAULT_INLINE_CHARS, record_cost
from tmuxmcp.panetext.matches import Match
from tmuxmcp.panetext.matching import (
    EXCERPT_CHARS,
    Hit,
    Matcher,
    Meter,
)
from tmuxmcp.panetext.windows import Budget, Chunk, PaneRange, first_windows, utf8_cost
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.history import read, read_windows
from tmuxmcp.tools.observation import (
    DEFAULT_MATCH_BUDGET_MS,
    DEFAULT_SCAN_BYTES,
    MAX_RESULT_BYTES,
    MatchBudget,
    Pattern,
    Regex,
    ScanBytes,
    ScanLine,
    scan,
)
from tmuxmcp.tools.query import list_records, pane_listing

# -- search_panes ------------------------------------------------------------------


class SearchPanesArgs(Arguments):
    """Arguments of search_panes: at most one of session_id and window_id."""

    pattern: Pattern
    regex: Regex = False
    session_id: SessionId | None = None
    window_id: WindowId | None = None
    max_matches: Annotated[int, local_int("Most matching rows returned.", ge=1, le=1000)] = 100
    scrollback: Annotated[
        int,
        number("Scrollback rows searched per pane.", ge=0, le=100_000),
    ] = 1000
    match_budget_ms: MatchBudget = DEFAULT_MATCH_BUDGET_MS
    max_scan_bytes: ScanBytes = DEFAULT_SCAN_BYTES
    max_chars: Annotated[
        int,
        local_int(
            "Most characters the returned matches take in the result's JSON (escapes"
            " counted); the first in pane and row order are kept.",
            ge=1_000,
            le=MAX_RESULT_BYTES,
        ),
    ] = DEFAULT_INLINE_CHARS

    def __post_init__(self) -> None:
        not_together(self, "session_id", "window_id", neither="every pane")


class PaneMatch(Match, frozen=True, kw_only=True):
    """A matching row, and the pane it is in."""

    pane_id: TmuxId
    session_id: TmuxId
    window_id: TmuxId


Truncation = Literal["max_matches", "max_chars", "max_scan_bytes"]
"""Which cap left matches out: of the returned ones (``max_chars``, counted as
JSON; also when the first match alone was over it and its texts were narrowed
to fit), of the rows that matched (``max_matches``), or of the rows read."""


class SearchPanesResult(msgspec.Struct, frozen=True, kw_only=True):
    """Matching rows, first match per row, in pane order then row order."""

    outcome: Literal["complete", "match-timeout"]
    panes_searched: int
    truncated: bool
    truncated_by: Truncation | None
    scanned_bytes: int
    match_ms: float
    # Bulk last, so a head-only preview still shows the truncation (issue 18).
    matches: list[PaneMatch]

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
    history_size: int
    height: int
    width: int


_PANE_REF = {
    "pane_id": "pane_id",
    "session_id": "session_id",
    "window_id": "window_id",
    "history_size": "history_size",
    "height": "pane_height",
    "width": "pane_width",
}


class _Search:
    """One search_panes call: panes in order, each read newest first, until a cap is met.

    The byte cap (``max_scan_bytes``) is shared by all panes in listing order
    and spent newest row first, so what it cuts off is the oldest rows of the
    last pane reached and every pane after it. Matching runs on each window as
    it arrives, so reading stops once ``max_matches`` + 1 rows matched (the +1
    tells a full result from a truncated one).
    """

    def __init__(
        self, ctx: ToolContext, args: SearchPanesArgs, matcher: Matcher, panes: list[_PaneRef]
    ) -> None:
        self.ctx, self.args, self.matcher, self.panes = ctx, args, matcher, panes
        self.meter = Meter()
        self.ranges = [
            PaneRange(
                p.pane_id,
                history_size=p.history_size,
                height=p.height,
                width=p.width,
                back=args.scrollback,
            )
            for p in panes
        ]
        self.budget = Budget(args.max_scan_bytes, cost=utf8_cost)
        """The byte cap, counted in the result's unit (UTF-8, ``windows`` Rule 4)."""
        self.hits: list[tuple[int, ScanLine, Hit]] = []
        self.timed_out = False
        self.scanned = 0
        self.searched = 0

    def _over(self) -> bool:
        return self.budget.cut or self.timed_out or len(self.hits) > self.args.max_matches

    async def _scan(self, index: int, pane: PaneRange, chunk: Chunk) -> bool:
        """Match the rows the byte cap kept of a window (the newest first); whether the
        search goes on."""
        start, rows = chunk.start, chunk.rows
        lines = [ScanLine(pane.relative(start + at), rows[at]) for at in reversed(range(len(rows)))]
        budget = self.args.match_budget_ms / 1000 - self.meter.spent
        if not lines:
            return not self._over()
        if budget <= 0:
            self.timed_out = True
            return False
        limit = self.args.max_matches + 1 - len(self.hits)
        found = await scan(self.matcher, lines, budget=budget, limit=limit, meter=self.meter)
        self.scanned += found.scanned_bytes
        self.timed_out = found.timed_out
        self.hits += [(index, line, hit) for line, hit in found.hits]
        return not self._over()

    async def run(self) -> None:
        """Read and match until every pane is read or a cap is met: each pane by the one
        history reader (``tools.history``), the first windows of the panes after it that
        fit what is left of the cap read in one invocation with its own."""
        first_reads: dict[int, Chunk | None] = {}
        for index, pane in enumerate(self.ranges):
            if index not in first_reads:
                batch = [
                    (at + index, window)
                    for at, window in first_windows(self.ranges[index:], self.budget.left)
                ]
                chunks = await read_windows(self.ctx, [(self.ranges[i], w) for i, w in batch])
                first_reads = {i: chunk for (i, _), chunk in zip(batch, chunks, strict=True)}
            first = first_reads.pop(index, None)
            if first is None:
                continue  # the pane closed since the listing
            self.searched += 1
            scan_rows = functools.partial(self._scan, index, pane)
            await read(self.ctx, pane, self.budget, first=first, each=scan_rows, gone=True)
            if self._over():
                return

    def _match(self, index: int, line: ScanLine, hit: Hit, width: int = EXCERPT_CHARS) -> PaneMatch:
        """The match ``hit`` in ``line`` of pane ``index``, its texts cut to ``width``."""
        pane = self.panes[index]
        return PaneMatch.found(
            line.row,
            line.text,
            hit,
            width=width,
            pane_id=pane.pane_id,
            session_id=pane.session_id,
            window_id=pane.window_id,
        )

    def _narrowed(self, index: int, line: ScanLine, hit: Hit, budget: int) -> PaneMatch:
        """The match with its texts cut to the widest excerpt whose record fits ``budget``.

        A record with empty texts takes a few hundred characters, under the
        smallest ``max_chars`` (1,000), so some width fits; the cost grows with it.
        """
        low, high = 0, EXCERPT_CHARS
        while low < high:
            mid = (low + high + 1) // 2
            if record_cost(self._match(index, line, hit, mid)) <= budget:
                low = mid
            else:
                high = mid - 1
        return self._match(index, line, hit, low)

    def result(self) -> SearchPanesResult:
        """The matches in pane order then row order, and which cap cut the search short."""
        by_matches = len(self.hits) > self.args.max_matches
        kept = sorted(self.hits[: self.args.max_matches], key=lambda h: (h[0], h[1].row))
        matches: list[PaneMatch] = []
        left = self.args.max_chars
        by_chars = False
        for index, line, hit in kept:
            match = self._match(index, line, hit)
            if not matches and record_cost(match) > left:
                # The first match alone is over max_chars (a row of quotes or of
                # four-byte characters): narrowed, it comes rather than nothing.
                match = self._narrowed(index, line, hit, left)
                by_chars = True
            left -= record_cost(match)
            if left < 0:
                by_chars = True
                break
            matches.append(match)
        truncated_by: Truncation | None = None
        if by_chars:
            truncated_by = "max_chars"
        elif by_matches:
            truncated_by = "max_matches"
        elif self.budget.cut:
            truncated_by = "max_scan_bytes"
        return SearchPanesResult(
            outcome="match-timeout" if self.timed_out else "complete",
            matches=matches,
            panes_searched=self.searched,
            truncated=truncated_by is not None,
            truncated_by=truncated_by,
            scanned_bytes=self.scanned,
            match_ms=round(self.meter.spent * 1000, 3),
        )


async def search_panes(ctx: ToolContext, args: SearchPanesArgs) -> SearchPanesResult:
    """Handler for search_panes."""
    matcher = Matcher(args.pattern, regex=args.regex)  # a bad pattern is refused before any read
    command = pane_listing(args.session_id, args.window_id)
    panes: list[_PaneRef] = await list_records(ctx, command, _PANE_REF, _PaneRef)
    search = _Search(ctx, args, matcher, panes)
    await search.run()
    return search.result()
