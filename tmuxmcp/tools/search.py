"""``search_panes`` (inspect): find a pattern across panes, capped and bounded.

Each pane in scope is read newest row first in bounded windows
(``panetext.windows``): the first windows of as many panes as the byte cap can
fill share one tmux invocation, a deeper range gets more windows, and reading
stops once ``max_scan_bytes`` is spent or ``max_matches`` + 1 rows matched.
The matches returned are the first that fit ``max_chars``, counted as JSON
(``inline``), so a default result stays inline (issue 18.2); a first match
over it alone comes with its texts narrowed around the match, not left out.
So one call holds at most ``max_scan_bytes`` of rows plus one batch of
windows planned to fill it (issue 13, item 2). Matching runs here
(``observation.scan``), never in tmux.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from tmuxmcp.capability.arguments import Arguments, not_together
from tmuxmcp.capability.params import SessionId, WindowId, local_int, number
from tmuxmcp.capability.results import TmuxId
from tmuxmcp.driver.records import SectionMarker
from tmuxmcp.errors import ObjectNotFound
from tmuxmcp.panetext.inline import DEFAULT_INLINE_CHARS, record_cost
from tmuxmcp.panetext.matches import Match
from tmuxmcp.panetext.matching import (
    EXCERPT_CHARS,
    Hit,
    Matcher,
    Meter,
)
from tmuxmcp.panetext.windows import PaneRange, Window
from tmuxmcp.tools.context import ToolContext
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
    window_commands,
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


Rows = list[tuple[int, str]]


async def _read(
    ctx: ToolContext, reads: list[tuple[int, PaneRange, Window]]
) -> dict[int, Rows | None]:
    """One window of each pane in ``reads``, in as few invocations as tmux's size limit
    allows: index -> rows (None: gone).

    A pane that closed since the listing stops the whole invocation (tmux
    drops the rest of a command list after an error), so the panes are then
    read one by one and only the missing one is skipped.
    """
    marker = SectionMarker()
    groups = [window_commands(pane, marker, index, window) for index, pane, window in reads]
    try:
        out = await ctx.client.run_groups(groups)
    except ObjectNotFound:
        if len(reads) == 1:
            return {reads[0][0]: None}
        found: dict[int, Rows | None] = {}
        for one in reads:
            found.update(await _read(ctx, [one]))
        return found
    sections = marker.split(out.stdout)
    rows: dict[int, Rows | None] = {}
    for index, pane, window in reads:
        values, body = sections.get(index, ([], ""))
        rows[index] = pane.take(window, values, body)
    return rows


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
        self.bytes_left = args.max_scan_bytes
        self.hits: list[tuple[int, ScanLine, Hit]] = []
        self.by_bytes = self.timed_out = False
        self.scanned = 0
        self.searched = 0

    def _batch(self, first: int) -> list[tuple[int, PaneRange, Window]]:
        """First windows of pane ``first`` and the panes after it that fit what is left.

        Each window is planned as if its rows were full (Rule 1 of ``windows``),
        so the batch asks for about ``bytes_left`` bytes in all.
        """
        reads: list[tuple[int, PaneRange, Window]] = []
        left = self.bytes_left
        for index in range(first, len(self.ranges)):
            pane = self.ranges[index]
            if reads and left <= 0:
                break
            window = pane.window(left)
            reads.append((index, pane, window))
            left -= (window[1] - window[0] + 1) * (pane.width + 1)
        return reads

    def _over(self) -> bool:
        return self.by_bytes or self.timed_out or len(self.hits) > self.args.max_matches

    async def _scan(self, index: int, pane: PaneRange, rows: Rows) -> None:
        """Spend the byte cap on ``rows`` newest first, then match them."""
        lines: list[ScanLine] = []
        for row, text in reversed(rows):
            cost = len(text.encode("utf-8", "replace")) + 1
            if cost > self.bytes_left:
                self.by_bytes = True
                break
            self.bytes_left -= cost
            lines.append(ScanLine(pane.relative(row), text))
        budget = self.args.match_budget_ms / 1000 - self.meter.spent
        if not lines:
            return
        if budget <= 0:
            self.timed_out = True
            return
        limit = self.args.max_matches + 1 - len(self.hits)
        found = await scan(self.matcher, lines, budget=budget, limit=limit, meter=self.meter)
        self.scanned += found.scanned_bytes
        self.timed_out = found.timed_out
        self.hits += [(index, line, hit) for line, hit in found.hits]

    async def run(self) -> None:
        """Read and match until every pane is read or a cap is met."""
        first_reads: dict[int, Rows | None] = {}
        for index, pane in enumerate(self.ranges):
            if index not in first_reads:
                first_reads = await _read(self.ctx, self._batch(index))
            rows = first_reads.pop(index, None)
            if rows is None:
                continue  # the pane closed since the listing
            self.searched += 1
            while True:
                await self._scan(index, pane, rows)
                if self._over() or pane.done:
                    break
                got = await _read(self.ctx, [(index, pane, pane.window(self.bytes_left))])
                more = got[index]
                if more is None:
                    break  # the pane closed: what was read of it stands
                rows = more
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
        elif self.by_bytes:
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
