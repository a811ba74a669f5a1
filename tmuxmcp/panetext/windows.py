"""A range of one pane's rows, read newest first in bounded windows (issue 13, item 2).

The readers that may reach deep into a pane's history (``search_panes``, and
the deep reads of the waiting tools) never ask tmux for the whole range at
once: a history can hold 500,000 rows of 2,000 columns. They ask for one
window of rows at a time, from the bottom of the range upwards, and stop as
soon as their caps are met. Pure bookkeeping here; the caller runs the
commands (``observation.window_commands``; several panes' windows may share
one invocation). ``capture_pane``
and a run's long output (``run.collect``) size their windows here too
(``WindowSizer``, issue 30.3): one sizing for every history reader.

Rule 1: a window's rows are planned from what rows cost, measured one way
  for every reader: ``inline.line_cost``, a row's length as a JSON string,
  which is at least the bytes ``capture-pane -p`` prints for it (its UTF-8
  and a newline), and the unit of ``max_chars`` and ``max_output_bytes``
  (``search_panes``' ``max_scan_bytes`` stays UTF-8 bytes, the unit its
  result reports; line_cost is never below it). Before
  any row of a range is read, a window holds ``rows_within(bytes_left,
  width)`` rows: as many as would fill what the caller may still take if
  every row were full (``width`` cells, 1 byte each in ASCII, and a newline),
  never fewer than ``MIN_WINDOW_ROWS``; or as many as the pane's rows cost at
  its last read predict (a hint, ``WindowSizer``'s ``prior``). Once rows are
  read, their average cost predicts the next window's (issue 31.1): 40-column
  rows on a 200-column pane are read five times as many at a time, so a
  typical capture is one window, one tmux invocation.
Rule 1a (the bound): a predicted window is never more than ``GROWTH`` times
  the rows that fill ``bytes_left`` if every row were full, nor more full
  rows than ``MAX_GROWN_BYTES`` hold unless the full-row plan is larger. A
  pane whose older rows are full after short ones (a pathological pane: wide
  rows, or many escape sequences) costs one window of at most about
  ``min(GROWTH * bytes_left, max(bytes_left, MAX_GROWN_BYTES)) +
  MIN_WINDOW_ROWS * (width + 1)`` bytes of ASCII (four times that for text
  made only of 4-byte characters), and its measured cost then shrinks the
  windows after it. Rows that cost more than a full row's
  width (escapes, wide characters) are read fewer at a time than the
  full-row plan once measured.
Rule 2: rows are numbered absolutely (0 is the oldest history row), as at the
  first read. Every window's invocation also reads ``history_size``, in the
  same tmux invocation as the rows, so rows that scrolled into history between
  two reads are accounted for: a relative range read after the history grew
  by ``d`` rows names rows ``d`` further down, those already read are dropped
  and the next window starts above the first row kept. No row is read twice
  or skipped while only output scrolls.
Rule 3: history that shrank between two reads (a trim at ``history-limit``,
  ``clear-history``, a pane made taller) renumbers the rows: the reader stops
  there (``broken``) rather than guess, and the caller reports what it read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tmuxmcp.panetext.inline import lines_cost

MIN_WINDOW_ROWS = 16
"""The smallest window: a small cap still reads a few rows per invocation."""
GROWTH = 4
"""How many times the full-row plan a window predicted from measured rows may span
(Rule 1a): the bound on a window of full rows met after short ones."""
MAX_GROWN_BYTES = 4 * 1024 * 1024
"""The most bytes of full rows a window predicted beyond its full-row plan may span
(Rule 1a): a large budget (a 16 MiB scan) is not multiplied."""
COST_SLICE_BYTES = 1024 * 1024
"""Rows counted in one encoding at most, as bytes of full rows (``WindowSizer.saw``)."""
MIN_ROW_COST = 2
"""What the cheapest row costs (an empty one: its two quotes, ``line_cost``)."""
MAX_STALLED_READS = 3
"""Reads in a row that found only rows already read (the pane scrolled a whole
window between two reads) before the reader gives up on the rest of the range."""

Window = tuple[int, int]
"""Absolute numbers of the first and last row asked for."""


def rows_within(byte_budget: int, width: int) -> int:
    """The rows of a window that holds at most about ``byte_budget`` bytes (Rule 1): as
    many rows of ``width`` cells as fill it if every row is full, never fewer than
    ``MIN_WINDOW_ROWS``."""
    return max(MIN_WINDOW_ROWS, -(-max(byte_budget, 0) // (max(1, width) + 1)))


def rows_cost(rows: Sequence[str]) -> int:
    """What ``rows`` take of a reader's budget (Rule 1): their ``line_cost`` together."""
    return lines_cost(rows)


class WindowSizer:
    """The rows of the next window of one range, from what its rows cost (Rule 1).

    ``prior``: what a row of this pane cost on average at its last read (a
    hint: it only plans the first window, within the bound of Rule 1a).
    ``least``: the fewest rows a window spans (``MIN_WINDOW_ROWS``).
    """

    def __init__(self, width: int, *, prior: float | None = None, least: int = MIN_WINDOW_ROWS):
        self.width = max(1, width)
        self.prior = prior
        self.least = least
        """The fewest rows of a window (a caller that adds its own margin asks for 1)."""
        self.rows_read = 0
        self.cost_read = 0

    @property
    def per_row(self) -> float | None:
        """The average cost of a row read so far, else the prior (None: nothing known)."""
        if self.rows_read:
            return max(MIN_ROW_COST, self.cost_read / self.rows_read)
        return self.prior

    def rows(self, bytes_left: int, *, window_bytes: int | None = None) -> int:
        """Rows of the next window for a caller that may still take ``bytes_left``.

        ``window_bytes``: the most one window is planned to hold if its rows are
        full (``bytes_left`` by default); a measured window is at most ``GROWTH``
        times that plan (Rule 1a), and at least ``least`` rows.
        """
        budget = bytes_left if window_bytes is None else window_bytes
        plan = max(self.least, -(-max(budget, 0) // (self.width + 1)))
        per_row = self.per_row
        if per_row is None:
            return plan
        predicted = -(-max(bytes_left, 0) // max(MIN_ROW_COST, math.ceil(per_row)))
        most = max(plan, rows_within(MAX_GROWN_BYTES, self.width))
        return max(self.least, min(predicted, GROWTH * plan, most))

    def saw(self, rows: Sequence[str]) -> int:
        """Count ``rows`` as read; their cost (``rows_cost``).

        Counted a slice of about ``COST_SLICE_BYTES`` of full rows at a time: the
        cost of joined rows is the sum of theirs, and one encoding of a whole
        16 MiB window would hold twice its size again while it is counted.
        """
        step = max(MIN_WINDOW_ROWS, COST_SLICE_BYTES // (self.width + 1))
        cost = sum(rows_cost(rows[at : at + step]) for at in range(0, len(rows), step))
        self.rows_read += len(rows)
        self.cost_read += cost
        return cost


def split_rows(body: str) -> list[str]:
    """``capture-pane -p`` output as rows (the final newline ends the last row)."""
    rows = body.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    return rows


class PaneRange:
    """The rows of one pane from ``back`` history rows above the screen down to its bottom."""

    def __init__(self, pane_id: str, *, history_size: int, height: int, width: int, back: int):
        self.pane_id = pane_id
        self.width = max(1, width)
        self.sizer = WindowSizer(self.width)
        self.base = history_size
        """``history_size`` at the last read: relative row numbers are absolute minus this."""
        self.origin: int | None = None
        """``history_size`` at the first read: where relative row 0 was then."""
        self.top = history_size - min(max(back, 0), history_size)
        self.next_bottom = history_size + height - 1
        """The lowest row not read yet (absolute)."""
        self.broken = False
        self._stalled = 0

    @classmethod
    def above(
        cls, pane_id: str, *, history_size: int, width: int, top: int, bottom: int
    ) -> PaneRange:
        """The rows ``top`` to ``bottom`` above a read whose ``history_size`` numbers them."""
        reader = cls(pane_id, history_size=history_size, height=0, width=width, back=0)
        reader.top, reader.next_bottom, reader.origin = top, bottom, history_size
        return reader

    @property
    def done(self) -> bool:
        """Nothing more to read: the range is read to its top, or the numbering broke."""
        return self.broken or self.next_bottom < self.top

    def window(self, bytes_left: int) -> Window:
        """The next window to read, for a caller that may still take ``bytes_left`` bytes."""
        rows = self.sizer.rows(bytes_left)
        return max(self.top, self.next_bottom - rows + 1), self.next_bottom

    def take(self, window: Window, values: list[str], body: str) -> list[tuple[int, str]]:
        """The new rows of a read of ``window``, top to bottom, as (absolute row, text)."""
        if len(values) != 1 or not values[0].isdigit():
            self.broken = True
            return []
        now = int(values[0])
        shift = now - self.base
        if shift < 0:  # Rule 3
            self.broken = True
            return []
        first, last = window
        # tmux starts a range that reaches above the oldest row at the oldest row.
        start = max(0, first + shift)
        rows = [(start + offset, text) for offset, text in enumerate(split_rows(body))]
        if self.origin is None:
            # The first read defines the numbering: every row it gave is new,
            # including rows printed since the range was planned.
            self.origin = now
        else:
            rows = [(row, text) for row, text in rows if row <= last]  # Rule 2
        self.base = now
        self.sizer.saw([text for _, text in rows])
        if rows:
            self.next_bottom = rows[0][0] - 1
            self._stalled = 0
        else:
            self._stalled += 1
            self.broken = self._stalled >= MAX_STALLED_READS
        return rows

    def relative(self, row: int) -> int:
        """An absolute row as capture-pane numbered it at the first read (0: top visible row)."""
        return row - (self.base if self.origin is None else self.origin)
