"""The bounded matcher (tmuxmcp.panetext.matching): pure, no tmux."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tmuxmcp.errors import InvalidArguments
from tmuxmcp.panetext.matching import (
    MAX_PATTERN_CHARS,
    MAX_PROGRAM_SIZE,
    MAX_WINDOW,
    MIN_WINDOW,
    BudgetSpent,
    Hit,
    Matcher,
    Meter,
    excerpt,
)


def _hits(matcher: Matcher, lines: list[str], budget: float = 5.0) -> list[Hit]:
    return [e for e in matcher.scan(lines, budget=budget) if e is not None]


def test_literal_patterns_are_text_not_regex() -> None:
    matcher = Matcher("a.b(", regex=False)
    assert _hits(matcher, ["axb(", "xx a.b( yy", "a.b"]) == [Hit(1, 3, 7)]


def test_regex_patterns_report_the_first_match_of_each_line() -> None:
    matcher = Matcher(r"err(or)?\s+\d+", regex=True)
    hits = _hits(matcher, ["ok", "error 12 and err 3", "err  7"])
    assert hits == [Hit(1, 0, 8), Hit(2, 0, 6)]


def test_anchors_apply_to_each_line() -> None:
    matcher = Matcher("^DONE$", regex=True)
    assert _hits(matcher, ["echo DONE", "DONE", "DONE!"]) == [Hit(1, 0, 4)]


@pytest.mark.parametrize("pattern", ["(a", "(?<=a)b", r"(a)\1", "a{2000}"])
def test_invalid_or_unsupported_regexes_are_refused_without_echoing_them(pattern: str) -> None:
    with pytest.raises(InvalidArguments) as caught:
        Matcher(pattern, regex=True)
    assert "RE2" in caught.value.message or "instructions" in caught.value.message
    assert pattern not in caught.value.message


def test_pattern_length_is_bounded() -> None:
    Matcher("x" * MAX_PATTERN_CHARS, regex=False)
    with pytest.raises(InvalidArguments, match="longer than"):
        Matcher("x" * (MAX_PATTERN_CHARS + 1), regex=False)
    with pytest.raises(InvalidArguments, match="empty"):
        Matcher("", regex=True)


def test_a_pattern_that_compiles_too_large_is_refused_up_front() -> None:
    with pytest.raises(InvalidArguments, match=f"more than {MAX_PROGRAM_SIZE}"):
        Matcher(r"\p{L}{200}z", regex=True)


def test_the_window_shrinks_with_the_program_and_stays_within_its_bounds() -> None:
    assert Matcher("x", regex=False).window == MAX_WINDOW
    small = Matcher("abc", regex=True)
    large = Matcher("(.*a.*a.*a.*a.*a){40}", regex=True)
    assert small.window == MAX_WINDOW
    assert MIN_WINDOW <= large.window < small.window


def test_long_lines_are_searched_in_overlapping_windows_with_real_line_context() -> None:
    matcher = Matcher("(.*a.*a.*a.*a.*a){40}|needle", regex=True)
    window = matcher.window
    line = "x" * (window * 3 + window // 4) + "needle" + "y" * 10
    [hit] = _hits(matcher, [line])
    assert line[hit.start : hit.end] == "needle"
    # A window that starts mid-line is not the start of the line for ^.
    anchored = Matcher("^x{3}(.*a.*a.*a.*a.*a){40}|^needle", regex=True)
    assert anchored.window < len(line)
    assert _hits(anchored, ["z" * (anchored.window // 2) + "needle" + "z" * anchored.window]) == []


@pytest.mark.parametrize(
    ("pattern", "matching_lines"),
    [("(a+)+$", 256), ("(a+)+b", 0), ("(a|aa)+$", 256), ("(x+x+)+y", 0)],
)
def test_catastrophic_backtracking_patterns_are_linear(pattern: str, matching_lines: int) -> None:
    """(a+)+$ over a megabyte of a's: a backtracking engine would run for years; RE2
    finishes every line within the matcher's own budget (10 s of matching time, or
    ``BudgetSpent``), with the right answer. No wall clock is read here."""
    lines = ["a" * 4000] * 256
    hits = _hits(Matcher(pattern, regex=True), lines, budget=10.0)
    assert len(hits) == matching_lines


class _FakeClock:
    """Each reading advances by ``step`` seconds: every window costs ``step``."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_the_matching_budget_stops_a_scan_with_budget_spent() -> None:
    matcher = Matcher("never", regex=True)
    clock = _FakeClock(0.001)
    events: Iterator[Hit | None] = matcher.scan(["x"] * 100, budget=0.010, clock=clock)
    with pytest.raises(BudgetSpent) as spent:
        for _ in events:
            pass
    assert 0.010 < spent.value.spent < 0.020
    assert 0 < spent.value.lines_done < 100


class _PausedClock:
    """A clock that stands still while the matcher runs; the caller moves it on."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_time_paused_between_windows_is_not_charged() -> None:
    """A second of pause at every yield point, on a 50 ms budget: none of it is charged
    (the clock does not move while matching, so the meter must stay at zero)."""
    matcher = Matcher("never", regex=False)
    meter = Meter()
    clock = _PausedClock()
    for _ in matcher.scan(["x"] * 5, budget=0.05, meter=meter, clock=clock):
        clock.now += 1.0  # the caller pausing at a yield point
    assert clock.now >= 1.0, "the scan never yielded"
    assert meter.spent == 0.0


def test_a_slow_regex_exceeds_a_small_real_budget() -> None:
    import random

    rng = random.Random(7)
    rows = ["".join(rng.choice("ab") for _ in range(250)) for _ in range(80)]
    matcher = Matcher("[ab]*a[ab]{100}c", regex=True)
    with pytest.raises(BudgetSpent):
        for _ in matcher.scan(rows, budget=0.001):
            pass


def test_excerpt_keeps_the_match_in_view() -> None:
    line = "x" * 5000 + "MATCH" + "y" * 5000
    hit = Hit(0, 5000, 5005)
    cut = excerpt(line, hit)
    assert len(cut) == 1000
    assert "MATCH" in cut
    assert excerpt("short", Hit(0, 0, 1)) == "short"
