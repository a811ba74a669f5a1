"""``inline.lines_cost`` is the sum of ``line_cost`` over the lines (inline Rule 1).

capture_pane counts a window of rows with one encoding (``lines_cost``); the
budget it keeps is the one counted line by line, for any text a row can hold:
quotes, backslashes, control characters, non-ASCII, empty rows. A line cut
to a budget (``cut_line``, Rule 4) stays within it.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tmuxmcp.panetext.inline import cut_line, line_cost, lines_cost

ROW = st.text(st.characters(exclude_characters="\n", exclude_categories=["Cs"]))


@given(st.lists(ROW, max_size=40))
def test_lines_cost_is_the_sum_of_each_line_cost(rows: list[str]) -> None:
    assert lines_cost(rows) == sum(line_cost(row) for row in rows)


def test_lines_cost_of_escaped_rows_counts_each_escape() -> None:
    # '"' and '\\' take 2, ESC 6, 'é' its 2 UTF-8 bytes; each row 2 more.
    assert lines_cost(['a"b', "\\", "\x1b[0m", "", "é"]) == (4 + 2) + (2 + 2) + (6 + 3 + 2) + 2 + (
        2 + 2
    )


@given(ROW, st.integers(min_value=128, max_value=4000))
def test_a_cut_line_keeps_its_start_and_end_within_the_budget(row: str, budget: int) -> None:
    """``cut_line`` (inline Rule 4): start, marker, end; together within ``budget``,
    and the marker counts the characters between the two ends."""
    start, marker, end = cut_line(row, budget)
    assert lines_cost([start, marker, end]) <= budget
    assert row.startswith(start) and row.endswith(end)
    cut = len(row) - len(start) - len(end)
    assert cut >= 0
    assert marker == f"[... {cut:,} of this line's {len(row):,} characters cut ...]"
