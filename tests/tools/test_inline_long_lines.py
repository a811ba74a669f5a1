"""One line longer than the inline budget: cut, never dropped, and read past once.

Issue 22.4 cut such a line in run_command's output; the capture tools and
the pane resource lost it. capture_pane kept the last lines that fit
``max_chars`` and stopped at the long line, so a pane whose last line was a
100,000-character JSON blob or base64 line came back empty. capture_since
stopped before a row longer than ``max_chars`` and returned the same cursor
with ``more`` set, for ever: a client that follows the cursor never ended.
Now such a line keeps its start and its end with run_command's marker
between (``inline.cut_line``), the result says it was cut, and following
capture_since's cursor returns every row once and ends. search_panes
excerpts a row to 1,000 characters, which a small ``max_chars`` can still
not hold: its first match is narrowed rather than left out. (snapshot reads
a screen whole or not at all, and says so: no line of it is cut.) Real tmux
on the private socket, real MCP client over stdio.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import trio
from mcp import ClientSession

from tests.support import PrivateTmux, serve, structured
from tmuxmcp.panetext.inline import INLINE_LIMIT

_MARKER = re.compile(r"\[\.\.\. ([0-9,]+) of this line's ([0-9,]+) characters cut \.\.\.\]")
WIDE = "\U0001d400"
"""MATHEMATICAL BOLD CAPITAL A: one cell, four UTF-8 bytes, so a row of 10,000 of them
(tmux's widest pane) costs 40,002 characters as JSON, over the default budget."""
_PRINT_WIDE_ROW = (
    "awk 'BEGIN { for (i = 0; i < 10000; i++) printf \"\\360\\235\\220\\200\" }'; echo"
)


def _json(content: dict[str, Any]) -> str:
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"))


def _pane(tmux: PrivateTmux, name: str, columns: int, rows: int) -> str:
    """A pane of ``columns`` x ``rows`` running sh; its id."""
    size = ["-x", str(columns), "-y", str(rows)]
    pane = tmux.new_session(name, "tmuxmcp", *size, "sh")["pane_id"]
    tmux.bare("resize-window", "-t", pane, *size)
    return pane


async def _typed(tmux: PrivateTmux, pane: str, command: str) -> None:
    """Type ``command`` and wait until it printed DONE."""
    await tmux.wait_for_prompt(pane)
    tmux.bare("send-keys", "-t", pane, f"{command}; echo DO''NE", "Enter")
    await tmux.wait_for_screen(pane, "\nDONE\n")


def _cut(text: str, char: str, length: int) -> None:
    """``text`` is a line of ``length`` copies of ``char`` cut by ``inline.cut_line``:
    its start, the marker, its end, each on its own line, the counts adding up."""
    parts = text.split("\n")
    assert len(parts) == 3, f"not a cut line: {text[:200]!r}"
    start, marker, end = parts
    found = _MARKER.fullmatch(marker)
    assert found is not None, marker
    cut, of = (int(group.replace(",", "")) for group in found.groups())
    assert of == length
    assert start and end, "both ends are kept"
    assert start == char * len(start) and end == char * len(end)
    assert len(start) + cut + len(end) == length
    assert len(end) > len(start), "the end keeps the larger share"


@pytest.mark.parametrize("after", ["echo DONE after it", "the line last"])
async def test_capture_pane_cuts_a_line_longer_than_its_budget(
    private_tmux: PrivateTmux, after: str
) -> None:
    """Before: the 100,000-character joined line was dropped: with DONE and the
    prompt after it only those came back; as the pane's last line, empty text."""
    pane = _pane(private_tmux, "long", 2000, 80)
    line = "head -c 100000 /dev/zero | tr '\\0' x"
    await private_tmux.wait_for_prompt(pane)
    if after == "the line last":
        # cat holds the cursor on the row below the line: nothing after it but blanks.
        private_tmux.bare("send-keys", "-t", pane, f"clear; {line}; cat", "Enter")
        with trio.fail_after(10):
            while private_tmux.pane_command(pane) != "cat" or "x" * 100_000 not in (
                private_tmux.bare("capture-pane", "-p", "-J", "-t", pane).stdout
            ):
                await trio.sleep(0.02)
    else:
        await _typed(private_tmux, pane, f"clear; {line}; echo")
    async with serve(private_tmux) as session:
        got = structured(
            await session.call_tool("capture_pane", {"pane_id": pane, "join_wrapped": True})
        )
    assert len(_json(got)) <= INLINE_LIMIT
    assert got["truncated"] is True
    assert got["truncated_by"] == "max_chars"
    parts = got["text"].split("\n")
    _cut("\n".join(parts[:3]), "x", 100_000)
    rest = parts[3:]
    if after == "the line last":
        assert rest == []
        assert got["lines"] == got["captured_lines"] == 1
    else:
        assert rest[0] == "DONE" and rest[1].strip() in ("$", "#"), rest  # the prompt
        assert got["lines"] == got["captured_lines"] == 1 + len(rest), "the cut line counts once"


async def test_pane_resource_and_capture_pane_cut_a_screen_row_over_the_budget(
    private_tmux: PrivateTmux,
) -> None:
    """A row of 10,000 four-byte characters, with no joining: before, capture_pane
    with its defaults and the pane resource showed the rows below it only."""
    pane = _pane(private_tmux, "row", 10_000, 20)
    await _typed(private_tmux, pane, f"clear; {_PRINT_WIDE_ROW}")
    async with serve(private_tmux) as session:
        got = structured(await session.call_tool("capture_pane", {"pane_id": pane}))
        read = await session.read_resource(f"tmux://pane/{pane[1:]}")
    assert len(_json(got)) <= INLINE_LIMIT
    assert got["truncated_by"] == "max_chars"
    parts = got["text"].split("\n")
    _cut("\n".join(parts[:3]), WIDE, 10_000)
    assert parts[3] == "DONE"
    (content,) = read.contents
    text = getattr(content, "text", "")
    assert len(json.dumps(text, ensure_ascii=False)) <= INLINE_LIMIT
    head, _, screen = text.partition("\n")
    assert head.startswith("[truncated by max_chars: "), head
    assert screen == got["text"]


MAX_CALLS = 40
"""More calls than any of these follows needs: a loop that does not end fails."""


async def _follow(
    session: ClientSession, pane: str, cursor: str, **args: int
) -> list[dict[str, Any]]:
    """capture_since from ``cursor`` on until ``more`` is false, at most ``MAX_CALLS``."""
    results: list[dict[str, Any]] = []
    for _ in range(MAX_CALLS):
        got = structured(
            await session.call_tool("capture_since", {"pane_id": pane, "cursor": cursor, **args})
        )
        results.append(got)
        if not got["more"]:
            return results
        cursor = got["cursor"]
    raise AssertionError(f"capture_since did not end in {MAX_CALLS} calls: {results[-2:]}")


@pytest.mark.parametrize(
    ("printed", "char", "rows", "length", "budget"),
    [
        # The default budget: one row of 10,000 four-byte characters (40,002 as JSON).
        (_PRINT_WIDE_ROW, WIDE, 1, 10_000, {}),
        # A 100,000-character line is ten full rows of 10,000, each over 5,000.
        ("head -c 100000 /dev/zero | tr '\\0' x; echo", "x", 10, 10_000, {"max_chars": 5000}),
    ],
    ids=["wide-row-default-budget", "long-line-small-budget"],
)
async def test_following_capture_since_returns_a_row_over_the_budget_cut_once(
    private_tmux: PrivateTmux,
    printed: str,
    char: str,
    rows: int,
    length: int,
    budget: dict[str, int],
) -> None:
    """Before: the call that reached the long row returned no lines, the same cursor
    and ``more`` true, every time: the follow never ended."""
    pane = _pane(private_tmux, "since", 10_000, 30)
    async with serve(private_tmux) as session:
        await private_tmux.wait_for_prompt(pane)
        first = structured(await session.call_tool("capture_since", {"pane_id": pane}))
        await _typed(private_tmux, pane, f"echo before; {printed}; echo after")
        results = await _follow(session, pane, first["cursor"], **budget)
    lines = [line for got in results for line in got["lines"]]
    assert lines[0].endswith("echo after; echo DO''NE"), "the typed line first"
    assert len(lines) == 4 + rows, "every row once"
    assert (lines[1], lines[-2], lines[-1]) == ("before", "after", "DONE")
    for row in lines[2 : 2 + rows]:
        _cut(row, char, length)
    assert sum(got["lines_cut"] for got in results) == rows
    for got in results:
        assert got["gap"] is None
        assert got["lines_cut"] == sum("characters cut ...]" in line for line in got["lines"])
        if not budget:
            assert len(_json(got)) <= INLINE_LIMIT


async def test_search_panes_narrows_a_first_match_over_a_small_budget(
    private_tmux: PrivateTmux,
) -> None:
    """Before: the one matching row, excerpted to 1,000 four-byte characters (over
    4,000 as JSON), did not fit ``max_chars`` 1,000, so no match came back at all."""
    pane = _pane(private_tmux, "search", 10_000, 20)
    await _typed(private_tmux, pane, f"clear; {_PRINT_WIDE_ROW}")
    async with serve(private_tmux) as session:
        got = structured(
            await session.call_tool("search_panes", {"pattern": WIDE, "max_chars": 1000})
        )
    assert got["truncated"] is True
    assert got["truncated_by"] == "max_chars"
    (match,) = got["matches"]
    assert len(_json(match)) + 1 <= 1000
    assert (match["pane_id"], match["row"], match["column"]) == (pane, 0, 0)
    assert match["matched"] == WIDE
    assert match["line"] and match["line"] == WIDE * len(match["line"])
