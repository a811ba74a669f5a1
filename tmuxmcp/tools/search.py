"""``search_panes`` (inspect): find a pattern across panes, capped and bounded.

All panes in scope are captured in one tmux invocation; matching runs here
(``observation.scan``), never in tmux.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from tmuxmcp.capability.params import SessionId, WindowId, local_int, number
from tmuxmcp.capability.results import Terminal, TmuxId
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.driver.records import SectionMarker
from tmuxmcp.errors import ObjectNotFound
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.matching import (
    Hit,
    Matcher,
    Meter,
    excerpt,
)
from tmuxmcp.tools.observation import (
    DEFAULT_MATCH_BUDGET_MS,
    DEFAULT_SCAN_BYTES,
    MatchBudget,
    Pattern,
    Regex,
    ScanBytes,
    ScanLine,
    scan,
)
from tmuxmcp.tools.query import list_records, pane_listing

# -- search_panes ------------------------------------------------------------------


class SearchPanesArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
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


class PaneMatch(msgspec.Struct, frozen=True, kw_only=True):
    """A matching row."""

    pane_id: TmuxId
    session_id: TmuxId
    window_id: TmuxId
    row: int
    in_scrollback: bool
    column: int
    matched: Terminal
    line: Terminal


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


async def _capture_all(
    ctx: ToolContext, panes: list[_PaneRef], scrollback: int
) -> dict[int, tuple[int, list[str]]]:
    """Every pane's rows in one invocation: index -> (relative row of the first, rows)."""
    marker = SectionMarker()
    commands: list[Command] = []
    for index, pane in enumerate(panes):
        line = marker.line(index, "history_size")
        commands.append(cmd("display-message", "-p", t=pane.pane_id, args=[line]))
        commands.append(cmd("capture-pane", "-p", t=pane.pane_id, S=-scrollback))
    out = await ctx.client.run(*commands)
    captured: dict[int, tuple[int, list[str]]] = {}
    for index, (values, body) in marker.split(out.stdout).items():
        if len(values) != 1 or not values[0].isdigit():
            continue
        history_text = values[0]
        rows = body.split("\n")
        if rows and rows[-1] == "":
            rows.pop()
        captured[index] = (-min(scrollback, int(history_text)), rows)
    return captured


async def search_panes(ctx: ToolContext, args: SearchPanesArgs) -> SearchPanesResult:
    """Handler for search_panes."""
    matcher = Matcher(args.pattern, regex=args.regex)
    command = pane_listing(args.session_id, args.window_id, neither="every pane")
    for attempt in range(2):
        panes: list[_PaneRef] = await list_records(ctx, command, _PANE_REF, _PaneRef)
        try:
            captured = await _capture_all(ctx, panes, args.scrollback) if panes else {}
        except ObjectNotFound:
            if attempt == 0:
                continue  # a pane closed between the two invocations: list again
            raise
        break
    lines: list[ScanLine] = []
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
            lines.append(ScanLine(first + offset, text))
            owner.append(index)
        if by_bytes:
            break
    meter = Meter()
    found = await scan(
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
