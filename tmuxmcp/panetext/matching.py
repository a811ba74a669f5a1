"""Bounded text matching: the pure core of wait_for_text and search_panes.

The ADR's rule (bounded operations): a tool that claims bounded matching
bounds both its input size and its matching execution time, and never reports
a capture or transport deadline as a matching timeout. This module owns the
matching half of that promise; it does no IO and never sees tmux.

Rule 1: patterns are data. A pattern is matched here, by tmuxmcp, and never
  passed to tmux (its sink is ``local``).
Rule 2: literal patterns use ``str.find``; regular expressions use RE2
  (``google-re2``), whose cost is linear in the input: no pattern can make it
  backtrack. ``(a+)+$`` over a megabyte of ``a`` takes about a millisecond.
Rule 3: linear is not cheap. RE2's cost per input character grows with the
  compiled program (measured worst on this project's machine: about 18 ns per
  character per instruction, when the DFA gives up and the NFA runs; a
  23-character pattern such as ``(.*a.*a.*a.*a.*a){1000}`` compiles to 47,000
  instructions). So a pattern is refused up front when it is longer than
  ``MAX_PATTERN_CHARS`` or compiles to more than ``MAX_PROGRAM_SIZE``
  instructions, and RE2 never gets more than one *window* of text per call:
  ``WINDOW_WORK // program size`` characters, at least ``MIN_WINDOW`` and at
  most ``MAX_WINDOW``. One call therefore costs at most about
  ``MIN_WINDOW * MAX_PROGRAM_SIZE`` (about 5 million) instruction-characters,
  well under 100 ms even at the worst rate measured.
Rule 4: the clock is read after every window and every line. Matching time
  (time spent inside this module, not time paused between windows) is charged
  to the caller's budget; when it is spent, the scan stops with
  ``BudgetSpent``. A scan can overrun its budget by at most one window.
Rule 5: a match lies within one line (one screen row). A line longer than its
  window is searched in windows that overlap by half, with RE2 told where the
  real line starts and ends, so ``^``, ``$`` and ``\\b`` keep their meaning;
  a match longer than half a window can be missed in such a line.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec
import re2  # type: ignore[import-untyped]

from tmuxmcp.errors import InvalidArguments

MAX_PATTERN_CHARS = 1024
MAX_PROGRAM_SIZE = 20_000
"""RE2 program instructions; a larger compiled pattern is refused."""
RE2_MAX_MEM = 8 * 1024 * 1024
"""RE2's memory budget for the compiled program and its DFA cache."""
WINDOW_WORK = 2_000_000
"""Program instructions times characters that one RE2 call may be given."""
MIN_WINDOW = 256
MAX_WINDOW = 65_536

Clock = Callable[[], float]


class Hit(msgspec.Struct, frozen=True):
    """A match: the index of its line in the scanned sequence and its span."""

    line: int
    start: int
    end: int


class Meter:
    """Matching time spent so far, in seconds (time paused between windows excluded)."""

    def __init__(self) -> None:
        self.spent = 0.0


class BudgetSpent(Exception):
    """Matching time exceeded the budget (an outcome, not a tmuxmcp error)."""

    def __init__(self, spent: float, lines_done: int) -> None:
        super().__init__(f"matching budget spent after {spent:.3f} s")
        self.spent = spent
        self.lines_done = lines_done


def _options() -> Any:
    options = re2.Options()
    options.max_mem = RE2_MAX_MEM
    options.log_errors = False  # RE2 would otherwise log to our stderr
    options.never_capture = True  # groups are not reported; submatches cost extra
    return options


def _error_kind(exc: Exception) -> str:
    """RE2's error kind without the pattern text it quotes (errors carry no payloads)."""
    text = str(exc)
    if text.startswith(("b'", 'b"')):
        text = text[2:-1]
    kind = text.split(":", 1)[0].strip()
    return kind[:80] if kind.isprintable() else "invalid pattern"


class Matcher:
    """A compiled pattern: literal text, or an RE2 regular expression."""

    def __init__(self, pattern: str, *, regex: bool) -> None:
        if not pattern:
            raise InvalidArguments("`pattern` must not be empty")
        if len(pattern) > MAX_PATTERN_CHARS:
            raise InvalidArguments(f"`pattern` is longer than {MAX_PATTERN_CHARS} characters")
        self.pattern = pattern
        self.regex = regex
        self._re: Any = None
        self.window = MAX_WINDOW
        if regex:
            try:
                self._re = re2.compile(pattern, _options())
            except re2.error as exc:
                raise InvalidArguments(
                    f"`pattern` is not a valid RE2 regular expression ({_error_kind(exc)}); "
                    "RE2 has no backreferences or lookaround"
                ) from None
            size = int(self._re.programsize)
            if size > MAX_PROGRAM_SIZE:
                raise InvalidArguments(
                    f"`pattern` compiles to {size} RE2 instructions, more than "
                    f"{MAX_PROGRAM_SIZE}; use fewer or smaller counted repetitions"
                )
            self.window = max(MIN_WINDOW, min(MAX_WINDOW, WINDOW_WORK // max(size, 1)))

    def _search(self, line: str, pos: int, endpos: int) -> tuple[int, int] | None:
        if self._re is None:
            at = line.find(self.pattern, pos, endpos)
            return None if at < 0 else (at, at + len(self.pattern))
        found = self._re.search(line, pos, endpos)
        return None if found is None else (int(found.start()), int(found.end()))

    def _windows(self, line: str) -> Iterator[tuple[int, int]]:
        if len(line) <= self.window:
            yield 0, len(line)
            return
        step = self.window // 2
        start = 0
        while True:
            end = min(len(line), start + self.window)
            yield start, end
            if end == len(line):
                return
            start += step

    def scan(
        self,
        lines: Sequence[str],
        *,
        budget: float,
        meter: Meter | None = None,
        clock: Clock = time.perf_counter,
    ) -> Iterator[Hit | None]:
        """Yield each line's first match, and ``None`` after every window.

        ``None`` is a point where the caller may pause (time paused is not
        charged). Raises ``BudgetSpent`` once this scan's matching time
        exceeds ``budget`` seconds; the lines before ``lines_done`` were fully
        scanned. ``meter`` accumulates matching time across scans.
        """
        meter = meter if meter is not None else Meter()
        spent = 0.0
        began = clock()
        for index, line in enumerate(lines):
            for pos, endpos in self._windows(line):
                found = self._search(line, pos, endpos)
                now = clock()
                spent += now - began
                meter.spent += now - began
                if found is not None:
                    if spent > budget:
                        raise BudgetSpent(spent, index)
                    yield Hit(index, found[0], found[1])
                    began = clock()
                    break
                if spent > budget:
                    raise BudgetSpent(spent, index)
                yield None
                began = clock()


EXCERPT_CHARS = 1000
"""The most characters ``excerpt`` keeps by default (a row can be 10,000 cells wide)."""


def excerpt(line: str, hit: Hit, width: int = EXCERPT_CHARS) -> str:
    """``line`` cut to at most ``width`` characters around the match."""
    if len(line) <= width:
        return line
    start = max(0, min(hit.start - width // 4, len(line) - width))
    return line[start : start + width]
