"""A window kept as tmux printed it gives what its split rows give (``windows`` Rule 5).

capture_pane's reading keeps a window's text unsplit (``PaneRange.unsplit``,
issue 31.1): its rows are counted, costed and stripped of blank rows at the
bottom from the text itself, and split only if a row must be looked at alone.
Every step must give exactly what the same steps give on the rows split from
the text, the general path, for any text a pane can print: long rows, blank
rows of every kind of whitespace, wide characters, control characters,
quotes and backslashes, with or without the final newline, found at any
offset of an invocation's output. Pure: no tmux.
"""

from __future__ import annotations

from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from tmuxmcp.panetext import windows
from tmuxmcp.panetext.inline import line_cost
from tmuxmcp.panetext.windows import Budget, Chunk, PaneRange, WindowSizer, split_rows

BLANK = st.sampled_from(["", " ", "   ", "\t", "\x0b \x0c", "\x1c\x1f", "\u3000", "\xa0 \u2028"])
"""Rows ``str.strip`` leaves nothing of (tmux trims spaces; other whitespace stays)."""
TEXT = st.text(
    st.one_of(
        st.sampled_from(['"', "\\", "\x1b", "\x00", "\r", "\x7f", "é", "界", "\U0001f600"]),
        st.characters(exclude_characters="\n", exclude_categories=["Cs"]),
    ),
    max_size=30,
)
ROW = st.one_of(BLANK, TEXT, st.builds(lambda row, n: row * n, TEXT, st.integers(1, 200)))
"""A row as ``capture-pane -p`` prints it: anything but a newline, some of it long."""


@st.composite
def printed(draw: st.DrawFn) -> tuple[str, int]:
    """An invocation's output: some lines before (the guard's, the history size), then
    rows, each ended by a newline but perhaps the last; and where the rows begin."""
    before = "".join(f"{line}\n" for line in draw(st.lists(TEXT, max_size=2)))
    rows = draw(st.lists(ROW, max_size=40))
    body = "\n".join(rows)
    ended: bool = draw(st.booleans())
    if rows and ended:
        body += "\n"
    return before + body, len(before)


def _general(start: int, out: str, begin: int) -> Chunk:
    """The rows as the reader held them before Rule 5: split at once."""
    return Chunk(start, split_rows(out[begin:]))


def _same(fast: Chunk, general: Chunk) -> None:
    assert (fast.start, fast.count) == (general.start, general.count)
    assert fast.text == general.text == "\n".join(general.rows)
    assert fast.rows == general.rows
    assert fast == general


@given(printed(), st.integers(-500, 500))
def test_a_printed_window_gives_the_rows_text_and_count_of_its_split_rows(
    case: tuple[str, int], start: int
) -> None:
    out, begin = case
    general = _general(start, out, begin)
    for split in (False, True):
        _same(Chunk.printed(start, out, begin=begin, split=split), general)


@given(printed(), st.integers(1, 300))
def test_a_printed_window_costs_what_its_rows_cost_in_one_slice_or_many(
    case: tuple[str, int], slice_chars: int
) -> None:
    """``Chunk.cost``: one encoding of the output less what is outside the rows, or
    slices cut at newlines; both the ``line_cost`` of the rows, one by one."""
    out, begin = case
    rows = split_rows(out[begin:])
    want = sum(line_cost(row) for row in rows)
    assert Chunk.printed(0, out, begin=begin, split=False).cost(16) == want
    with mock.patch.object(windows, "COST_SLICE_BYTES", slice_chars):
        assert Chunk.printed(0, out, begin=begin, split=False).cost(16) == want
        assert WindowSizer(80).saw(Chunk.printed(0, out, begin=begin)) == want
    assert WindowSizer(80).saw(rows) == want


@given(printed(), st.integers(-3, 45))
def test_blank_rows_heads_and_tails_of_a_printed_window_are_those_of_its_rows(
    case: tuple[str, int], count: int
) -> None:
    out, begin = case
    fast = Chunk.printed(7, out, begin=begin, split=False)
    general = _general(7, out, begin)
    _same(fast.above_blank(), general.above_blank())
    copied = Chunk.printed(7, out, begin=begin, split=False)
    assert copied.text == general.text  # the text copied out of the output first
    _same(copied.above_blank(), general.above_blank())
    _same(fast.head(count), general.head(count))
    _same(fast.tail(count), general.tail(count))
    _same(Chunk.printed(7, out, begin=begin, split=False).tail(count), general.tail(count))


@given(printed(), st.integers(1, 60), st.integers(0, 4000), st.booleans())
def test_a_budget_keeps_the_same_rows_of_a_printed_window(
    case: tuple[str, int], rows: int, chars: int, from_text: bool
) -> None:
    """``Budget.keep`` and ``spend`` as capture_pane's reading uses them (``from_text``,
    a row cap, ``past``) and as search's (a per-row cost): the same rows kept, the
    same counts, the same cost measured."""
    out, begin = case
    made: list[tuple[Budget, Budget]] = [
        (
            Budget(chars, rows=rows, past=True, from_text=from_text),
            Budget(chars, rows=rows, past=True, from_text=from_text),
        ),
        (Budget(chars, cost=windows.utf8_cost), Budget(chars, cost=windows.utf8_cost)),
    ]
    for fast_budget, general_budget in made:
        fast = fast_budget.keep(Chunk.printed(-9, out, begin=begin, split=False))
        general = general_budget.keep(_general(-9, out, begin))
        _same(fast, general)
        fast_budget.spend(fast.count, WindowSizer(80).saw(fast))
        general_budget.spend(general.count, WindowSizer(80).saw(general.rows))
        assert vars(fast_budget) == vars(general_budget)


@given(printed(), st.integers(-60, 0), st.integers(0, 60), st.booleans(), st.booleans())
def test_a_range_takes_the_same_rows_unsplit_as_split(
    case: tuple[str, int], top: int, rows: int, down: bool, track: bool
) -> None:
    """``PaneRange.take``: the rows of a window, cut to it, numbered, and the range
    moved on, the same whether it keeps the text unsplit (capture_pane) or not."""
    out, begin = case
    taken = []
    for unsplit in (True, False):
        if track:
            pane = PaneRange("%1", history_size=100, height=10, width=80, back=max(0, -top))
            pane.unsplit = unsplit
        else:
            pane = PaneRange.span(
                "%1", width=80, top=top, bottom=top + 60, base=0, down=down, unsplit=unsplit
            )
        for history_size in (100, 101):  # a second read of a tracked range is cut to it
            window = pane.window(rows * 81)
            chunk = pane.take(window, out, history_size if track else None, begin=begin)
            taken.append((chunk.start, chunk.rows, chunk.text, pane.top, pane.next_bottom))
    assert taken[:2] == taken[2:]


@given(st.lists(st.tuples(printed(), st.booleans()), max_size=4))
def test_printed_windows_joined_are_their_rows_one_after_the_other(
    cases: list[tuple[tuple[str, int], bool]],
) -> None:
    """``Chunk.joined``: a reading of several windows, their texts joined when none is
    split, their rows otherwise; empty windows add no row."""
    fast = [Chunk.printed(3, out, begin=begin, split=split) for (out, begin), split in cases]
    rows = [row for (out, begin), _ in cases for row in split_rows(out[begin:])]
    start = next((chunk.start for chunk in fast if chunk.count), 0)
    _same(Chunk.joined(fast), Chunk(start, rows))
    _same(Chunk.joined([_general(3, out, begin) for (out, begin), _ in cases]), Chunk(start, rows))
