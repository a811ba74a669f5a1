"""The one window sizing of the history readers (``panetext.windows`` Rules 1-4, 31.1, 30.3).

Pure: rows in, rows of the next window out. The readers (capture, a run's
output, search, the waiting tools) are checked against tmux in their own
bounds tests; here the arithmetic that all of them share.
"""

from __future__ import annotations

from tmuxmcp.panetext.geometry import PaneGeometry
from tmuxmcp.panetext.inline import line_cost
from tmuxmcp.panetext.windows import (
    COST_SLICE_BYTES,
    GROWTH,
    MAX_GROWN_BYTES,
    MIN_WINDOW_ROWS,
    Budget,
    Chunk,
    PaneRange,
    WindowSizer,
    rows_cost,
    rows_within,
    utf8_cost,
)

MIB = 1024 * 1024


def test_before_any_row_is_read_a_window_is_planned_as_if_rows_were_full() -> None:
    sizer = WindowSizer(200)
    assert sizer.rows(MIB) == rows_within(MIB, 200) == 5217
    assert WindowSizer(2000).rows(100) == MIN_WINDOW_ROWS
    assert WindowSizer(2000, least=1).rows(100) == 1


def test_measured_short_rows_predict_a_longer_window_within_the_growth_bound() -> None:
    sizer = WindowSizer(200)
    short = [f"line {n} lorem ipsum dolor sit amet" for n in range(5000)]
    cost = sizer.saw(short)
    assert cost == sum(line_cost(row) for row in short) == rows_cost(short)
    left = MIB - cost
    per_row = -(-cost // len(short))
    # About five times the full-row plan; at most GROWTH times it (Rule 1a).
    assert sizer.rows(left) == GROWTH * rows_within(left, 200) < -(-left // per_row)
    half = WindowSizer(200)
    half.saw(["y" * 98] * 50)  # rows of half the width: twice the plan, as predicted
    assert half.rows(300_000) == 3000 > 2 * rows_within(300_000, 200)
    empty = WindowSizer(2000)
    empty.saw([""] * 100)  # blank rows predict the most: the bound holds
    assert empty.rows(MIB) == rows_within(GROWTH * MIB, 2000)
    # A large budget is not multiplied: past MAX_GROWN_BYTES, the full-row plan holds.
    assert empty.rows(16 * MIB) == rows_within(16 * MIB, 2000)
    assert empty.rows(2 * MIB) == rows_within(MAX_GROWN_BYTES, 2000)


def test_full_or_costlier_rows_are_never_read_more_at_a_time_than_planned() -> None:
    full = WindowSizer(80)
    full.saw(["x" * 80] * 100)
    assert full.rows(50_000) <= rows_within(50_000, 80)
    escaped = WindowSizer(80)
    escaped.saw(["\x1b[31mx\x1b[0m" * 8] * 100)  # escapes cost 6 each in JSON
    assert escaped.rows(50_000) < rows_within(50_000, 80)


def test_a_prior_plans_the_first_window_and_a_measurement_replaces_it() -> None:
    sizer = WindowSizer(200, prior=100.0)
    assert sizer.rows(400_000) == 4000
    assert WindowSizer(200, prior=2.0).rows(MIB) == GROWTH * rows_within(MIB, 200)
    sizer.saw(["x" * 198] * 10)
    assert sizer.per_row == 200
    assert sizer.rows(400_000) == 2000


def test_a_pane_range_plans_from_the_rows_measured() -> None:
    reader = PaneRange("%1", history_size=10_000, height=10, width=200, back=10_000)
    first = reader.window(MIB)
    assert first[1] - first[0] + 1 == rows_within(MIB, 200)
    body = "".join(f"{n}\n" for n in range(first[1] - first[0] + 1))
    chunk = reader.take(first, body, 10_000)
    assert chunk.start == first[0] and len(chunk.rows) == first[1] - first[0] + 1
    reader.sizer.saw(chunk.rows)  # the reader's loop measures what it keeps (Rule 4)
    second = reader.window(MIB)
    assert second[1] - second[0] + 1 == min(
        second[1] - reader.top + 1, GROWTH * rows_within(MIB, 200)
    )
    assert second[0] == reader.top == 0


def test_the_row_cost_is_remembered_with_the_geometry_and_forgotten_with_it() -> None:
    table = PaneGeometry()
    table.remember_row_cost("%1", 40.0)
    assert table.row_cost("%1") is None  # no geometry, no hint
    table.remember("%1", 200, 50)
    table.remember_row_cost("%1", 40.0)
    assert table.row_cost("%1") == 40.0
    table.forget("%1")
    assert table.row_cost("%1") is None
    table.remember("%1", 200, 50)
    assert table.row_cost("%1") is None


def test_rows_are_counted_in_slices_to_the_same_cost() -> None:
    """A wide window is counted a slice at a time (no second copy of all of it held);
    the cost is the one a single encoding gives."""
    rows = ["x" * 2000, "", 'a "quoted" \\ row', "\x1b[1m\u00e9"] * 400
    sizer = WindowSizer(2000)
    assert sizer.saw(rows) == rows_cost(rows) == sum(line_cost(row) for row in rows)
    assert sizer.rows_read == len(rows) > COST_SLICE_BYTES // 2001


def test_a_budget_keeps_no_blank_rows_below_the_text_and_stops_past_its_chars() -> None:
    """Rule 4: capture_pane's budget (``from_text``, ``past``, a row cap)."""
    budget = Budget(10, rows=5, past=True, from_text=True)
    assert budget.keep(Chunk(-3, ["", " ", ""])) == Chunk(-3, [])
    assert not budget.text_seen  # blank rows only: none kept, none counted
    kept = budget.keep(Chunk(-8, ["a", "", "bb", ""]))
    assert kept == Chunk(-8, ["a", "", "bb"]) and budget.last_text == -6
    budget.spend(len(kept.rows), rows_cost(kept.rows))
    assert (budget.held, budget.kept, budget.rows_left) == (9, 3, 2)
    budget.spend(1, 1)
    assert budget.held == budget.chars and budget.open  # past: one row more tells the cut
    exact = Budget(10)
    exact.spend(2, 10)
    assert not exact.open


def test_a_budget_with_a_row_cost_keeps_the_newest_rows_that_fit() -> None:
    """Rule 4: search's UTF-8 bytes, counted as the rows are kept; the row that does
    not fit ends the reading."""
    budget = Budget(10, cost=utf8_cost)
    assert budget.keep(Chunk(0, ["é", "abc"])) == Chunk(0, ["é", "abc"])
    assert (budget.held, budget.open) == (7, True)
    assert budget.keep(Chunk(-2, ["xxxxx", "yy"])) == Chunk(-1, ["yy"])
    assert budget.cut and not budget.open


def test_a_span_is_read_in_its_own_numbers_up_or_down() -> None:
    """Rule 3's ranges with ``track`` off: windows follow each other in the caller's
    numbers, a head oldest first, a tail newest first, with no history size read."""
    tail = PaneRange.span("%1", width=80, top=0, bottom=99, base=50, first_rows=30)
    assert tail.flags == ["-p"] and not tail.track
    window = tail.window(MIB)
    assert window == (70, 99)
    chunk = tail.take(window, "".join(f"{n}\n" for n in range(30)))
    assert chunk == Chunk(70, [str(n) for n in range(30)]) and tail.next_bottom == 69
    head = PaneRange.span(
        "%1", width=80, top=0, bottom=tail.next_bottom, base=50, down=True, joined=True,
        sizer=tail.sizer, first_rows=30,
    )  # fmt: skip
    assert head.flags == ["-p", "-J"]
    tail.sizer.saw(chunk.rows)
    window = head.window(100)
    assert window == (0, 100 // 4 - 1)  # at the 4 characters the tail's rows cost
    head.take(window, "a\nb\n")  # joined rows: fewer lines than rows
    assert (head.top, head.done) == (25, False)


def test_a_capture_range_starts_no_higher_than_the_history() -> None:
    """A window planned before the history size is known reaches above the oldest row;
    tmux starts it there, and its rows are numbered from there."""
    span = PaneRange.span("%1", width=80, top=-5000, bottom=23, base=0, margin=64)
    window = span.window(36_000, 5000)
    assert window[0] < -300
    span.clamp(300)
    chunk = span.take(window, "".join(f"{n}\n" for n in range(324)))
    assert chunk.start == -300 and len(chunk.rows) == 324 and span.done
