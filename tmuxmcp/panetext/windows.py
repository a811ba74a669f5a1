"""A range of one pane's rows, read in bounded windows: the one history reader's plans.

The readers that may reach deep into a pane's history never ask tmux for the
whole range at once: a history can hold 500,000 rows of 2,000 columns. They
ask for one window of rows at a time and stop as soon as their budget is
met. Every such reader is the one loop of ``tools.history`` (issue 30.3):
``capture_pane``, a run's long output (``run.collect``), the deep reads of
the waiting tools (``observation``) and ``search_panes``. This module is its
pure half: the range and its next window (``PaneRange``), their sizing
(``WindowSizer``) and what the reading may still take (``Budget``); the
loop runs the commands (several panes' first windows may share one
invocation).

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
Rule 2: rows of a tracked range (``track``, search's and the waits') are
  numbered absolutely (0 is the oldest history row), as at the first read.
  Every window's invocation also reads ``history_size``, in the
  same tmux invocation as the rows, so rows that scrolled into history between
  two reads are accounted for: a relative range read after the history grew
  by ``d`` rows names rows ``d`` further down, those already read are dropped
  and the next window starts above the first row kept. No row is read twice
  or skipped while only output scrolls. A range whose pane cannot move under
  it (a run's, its shell held) or that a caller numbers itself
  (capture_pane's, as it always has) reads no history size (``track`` off):
  its windows follow each other in its own numbers.
Rule 3: history that shrank between two reads (a trim at ``history-limit``,
  ``clear-history``, a pane made taller) renumbers the rows: the reader stops
  there (``broken``) rather than guess, and the caller reports what it read.
Rule 4: one way of counting a budget. What a reading has taken is the
  ``line_cost`` of the rows it kept, measured once as they are read
  (``WindowSizer.saw``); ``Budget`` says when it stops: at ``chars``, or
  just past it where a result must tell that a cap cut it (capture_pane),
  at a row cap, and with the blank rows below the text left out. A result's
  own unit (search_panes' UTF-8 ``max_scan_bytes``) is a per-row ``cost``
  given to the budget, which keeps a window's newest rows that fit.
Rule 5: one text, split only when a row is looked at alone (issue 31.1). A
  window's rows are held as tmux printed them (``Chunk``: the text, found in
  the invocation's output by offset, and its row count) until a reader asks
  for them one by one. A reading that returns its rows as one text
  (capture_pane's, ``PaneRange.unsplit``) and keeps a window whole neither
  splits it nor joins it again: blank rows at its bottom are found from the
  end of the text, its cost is one encoding of the text (Rule 4's count,
  the same number), and its text is copied out of tmux's output once. Every
  step gives what it gives on the rows split from the text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import msgspec

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

    def saw(self, rows: Sequence[str] | Chunk) -> int:
        """Count ``rows`` as read; their cost (``rows_cost``).

        Counted a slice of about ``COST_SLICE_BYTES`` of full rows at a time: the
        cost of joined rows is the sum of theirs, and one encoding of a whole
        16 MiB window would hold twice its size again while it is counted. A
        ``Chunk`` read from tmux is counted from its text (``Chunk.cost``).
        """
        step = max(MIN_WINDOW_ROWS, COST_SLICE_BYTES // (self.width + 1))
        cost = rows.cost(step) if isinstance(rows, Chunk) else _sliced_cost(rows, step)
        self.rows_read += len(rows)
        self.cost_read += cost
        return cost


def split_rows(body: str) -> list[str]:
    """``capture-pane -p`` output as rows (the final newline ends the last row)."""
    rows = body.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    return rows


def _sliced_cost(rows: Sequence[str], step: int) -> int:
    """``rows_cost`` of ``rows``, counted ``step`` rows at a time."""
    return sum(rows_cost(rows[at : at + step]) for at in range(0, len(rows), step))


def _escaped(text: str) -> int:
    """The characters ``text`` takes inside a JSON string (its encoding less the quotes)."""
    return len(msgspec.json.encode(text)) - 2


def _text_cost(body: str, begin: int, end: int) -> int:
    """``rows_cost`` of the rows joined in ``body[begin:end]`` (at least one row).

    A string's JSON escapes are per character, so the rows cost the encoding of
    the whole of ``body`` less what lies outside them: no copy of the rows. A
    ``body`` longer than ``COST_SLICE_BYTES`` is counted a slice of about that
    many characters at a time, each cut at a newline (joined rows cost the sum
    of theirs), so its encoding is never held whole.
    """
    if len(body) <= COST_SLICE_BYTES:
        return len(msgspec.json.encode(body)) - _escaped(body[:begin]) - _escaped(body[end:])
    cost = 0
    at = begin
    while True:
        cut = body.find("\n", at + COST_SLICE_BYTES, end) if at + COST_SLICE_BYTES < end else -1
        stop = end if cut < 0 else cut
        cost += len(msgspec.json.encode(body[at:stop]))
        if cut < 0:
            return cost
        at = cut + 1


class Chunk:
    """The rows one window gave, top to bottom, and the number of the first.

    Held as tmux printed them (Rule 5): ``text`` and ``count`` without a split,
    ``rows`` split once when asked for; or built from rows (``Chunk(start,
    rows)``). Every form gives the same ``rows``, ``text``, ``count`` and
    ``cost`` as the rows split from its text (``tests/panetext/test_window_text.py``).
    """

    __slots__ = ("_begin", "_body", "_end", "_rows", "count", "start")

    def __init__(self, start: int, rows: list[str]) -> None:
        self.start = start
        self._rows: list[str] | None = rows
        self._body: str | None = None
        self._begin = self._end = 0
        self.count = len(rows)
        """How many rows."""

    @classmethod
    def printed(cls, start: int, body: str, *, begin: int = 0, split: bool = True) -> Chunk:
        """The rows of ``capture-pane -p`` output ``body[begin:]`` (``split_rows``):
        split now (``split``), or only when asked for (Rule 5)."""
        end = len(body) - 1 if body.endswith("\n") and len(body) > begin else len(body)
        ended = end < len(body)  # the last row has its newline
        if split:
            rows = body[begin:end].split("\n") if end > begin or ended else []
            chunk = cls._unsplit(start, body, begin, end, len(rows))
            chunk._rows = rows
            return chunk
        count = body.count("\n", begin) + (0 if ended or end == begin else 1)
        return cls._unsplit(start, body, begin, end, count)

    @classmethod
    def joined(cls, chunks: Sequence[Chunk]) -> Chunk:
        """The rows of ``chunks``, one after the other, numbered from the first's: their
        texts joined when none is split yet, else their rows."""
        chunks = [chunk for chunk in chunks if chunk.count]
        if len(chunks) == 1:
            return chunks[0]
        start = chunks[0].start if chunks else 0
        if any(chunk._rows is not None for chunk in chunks):
            return cls(start, [row for chunk in chunks for row in chunk.rows])
        text = "\n".join(chunk.text for chunk in chunks)
        return cls._unsplit(start, text, 0, len(text), sum(chunk.count for chunk in chunks))

    @classmethod
    def _unsplit(cls, start: int, body: str, begin: int, end: int, count: int) -> Chunk:
        """The ``count`` rows joined in ``body[begin:end]``, not split."""
        chunk = cls.__new__(cls)
        chunk.start, chunk.count, chunk._rows = start, count, None
        chunk._body, chunk._begin, chunk._end = body, begin, end
        return chunk

    @property
    def rows(self) -> list[str]:
        """The rows, top to bottom."""
        if self._rows is None:
            self._rows = self.text.split("\n") if self.count else []
        return self._rows

    @property
    def text(self) -> str:
        """The rows joined by newlines (``"\\n".join(rows)``), copied out of tmux's output
        once."""
        if self._body is None:
            assert self._rows is not None
            self._body = "\n".join(self._rows)
            self._begin, self._end = 0, len(self._body)
        elif self._begin or self._end < len(self._body):
            self._body = self._body[self._begin : self._end]
            self._begin, self._end = 0, len(self._body)
        return self._body

    def __len__(self) -> int:
        return self.count

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Chunk):
            return NotImplemented
        return (self.start, self.count, self.rows) == (other.start, other.count, other.rows)

    __hash__ = None  # type: ignore[assignment]  # mutable caches; equal by value

    def __repr__(self) -> str:
        return f"Chunk({self.start!r}, {self.rows!r})"

    def head(self, count: int) -> Chunk:
        """The first ``count`` rows (all if fewer)."""
        return self if count >= self.count else Chunk(self.start, self.rows[: max(0, count)])

    def tail(self, count: int) -> Chunk:
        """The last ``count`` rows (all if fewer), numbered as they were."""
        if count >= self.count:
            return self
        keep = max(0, count)
        return Chunk(self.start + self.count - keep, self.rows[self.count - keep :])

    def above_blank(self) -> Chunk:
        """The rows down to the last one with text: blank rows (``str.strip`` leaves
        nothing) at the bottom dropped."""
        if self._rows is not None:
            end = len(self._rows)
            while end and _blank(self._rows[end - 1]):
                end -= 1
            return self if end == len(self._rows) else Chunk(self.start, self._rows[:end])
        assert self._body is not None
        body, end, count = self._body, self._end, self.count
        while count:
            newline = body.rfind("\n", self._begin, end)
            if body[max(newline + 1, self._begin) : end].strip():
                break
            count -= 1
            end = max(newline, self._begin)
        return (
            self
            if count == self.count
            else Chunk._unsplit(self.start, body, self._begin, end, count)
        )

    def cost(self, slice_rows: int) -> int:
        """What the rows cost together (``rows_cost``), counted ``slice_rows`` rows, or
        about ``COST_SLICE_BYTES`` characters of the text, at a time (``WindowSizer.saw``)."""
        if self._body is None:
            assert self._rows is not None
            return _sliced_cost(self._rows, slice_rows)
        if not self.count:
            return 0
        return _text_cost(self._body, self._begin, self._end)


class PaneRange:
    """The rows of one pane still to read, and how the next window of them is planned.

    Rows are numbered as the first read numbers them (Rule 2: ``base`` is the
    ``history_size`` they are relative to), or, with ``track`` off, as the
    caller numbered them (``base`` fixed: a pane whose shell is held, a range
    in capture_pane's own numbers), and a window then reads no history size.
    ``down``: read oldest first (a run's head); newest first otherwise.
    ``joined`` and ``escapes``: tmux's ``-J`` and ``-e``. ``margin``: rows a
    window reads beyond its plan (blank rows at a capture's bottom).
    ``first_rows``: the first window's rows before any is measured (else
    ``WindowSizer``'s plan); ``window_bytes``: the full-row plan's most bytes
    (Rule 1a). A head and a tail of one range share one ``sizer``.
    ``unsplit``: the caller takes the rows as one text (capture_pane), so a
    window is split into rows only if a row must be looked at alone (Rule 5).
    """

    def __init__(self, pane_id: str, *, history_size: int, height: int, width: int, back: int):
        self.pane_id = pane_id
        self.width = max(1, width)
        self.sizer = WindowSizer(self.width)
        self.base = history_size
        """``history_size`` at the last read: relative row numbers are absolute minus this."""
        self.origin: int | None = None
        """``history_size`` at the first read: where relative row 0 was then."""
        self.top = history_size - min(max(back, 0), history_size)
        """The highest row not read yet, or the top of the range (absolute)."""
        self.next_bottom = history_size + height - 1
        """The lowest row not read yet (absolute)."""
        self.broken = False
        self.track = True
        self.down = False
        self.joined = False
        self.escapes = False
        self.margin = 0
        self.first_rows: int | None = None
        self.window_bytes: int | None = None
        self.unsplit = False
        self._stalled = 0

    @classmethod
    def above(
        cls, pane_id: str, *, history_size: int, width: int, top: int, bottom: int
    ) -> PaneRange:
        """The rows ``top`` to ``bottom`` above a read whose ``history_size`` numbers them."""
        reader = cls(pane_id, history_size=history_size, height=0, width=width, back=0)
        reader.top, reader.next_bottom, reader.origin = top, bottom, history_size
        return reader

    @classmethod
    def span(
        cls,
        pane_id: str,
        *,
        width: int,
        top: int,
        bottom: int,
        base: int,
        down: bool = False,
        joined: bool = False,
        escapes: bool = False,
        margin: int = 0,
        sizer: WindowSizer | None = None,
        first_rows: int | None = None,
        window_bytes: int | None = None,
        unsplit: bool = False,
    ) -> PaneRange:
        """Rows ``top`` to ``bottom`` in the caller's numbers (row ``base`` is tmux's row 0),
        read without tracking the history size (``track`` off)."""
        reader = cls(pane_id, history_size=base, height=0, width=width, back=0)
        reader.top, reader.next_bottom, reader.origin = top, bottom, base
        reader.track, reader.down, reader.joined, reader.escapes = False, down, joined, escapes
        reader.margin, reader.first_rows, reader.window_bytes = margin, first_rows, window_bytes
        reader.unsplit = unsplit
        if sizer is not None:
            reader.sizer = sizer
        return reader

    @property
    def flags(self) -> list[str]:
        """``capture-pane``'s flags for a window of this range."""
        return ["-p", *(["-J"] if self.joined else []), *(["-e"] if self.escapes else [])]

    @property
    def done(self) -> bool:
        """Nothing more to read: the range is read to its end, or the numbering broke."""
        return self.broken or self.next_bottom < self.top

    def window(self, bytes_left: int, rows_left: int | None = None) -> Window:
        """The next window to read, for a caller that may still take ``bytes_left`` bytes
        and ``rows_left`` rows (then ``margin`` more)."""
        if self.first_rows is not None and not self.sizer.rows_read:
            rows = self.first_rows
        else:
            rows = self.sizer.rows(bytes_left, window_bytes=self.window_bytes)
        if rows_left is not None:
            rows = min(rows_left, rows)
        rows += self.margin
        if self.down:
            return self.top, min(self.next_bottom, self.top + rows - 1)
        return max(self.top, self.next_bottom - rows + 1), self.next_bottom

    def clamp(self, history_size: int) -> None:
        """A range in capture_pane's numbers (0: the top visible row) starts no higher
        than the history's oldest row, which tmux starts a range above it at."""
        self.top = max(self.top, self.base - history_size)

    def take(
        self, window: Window, body: str, history_size: int | None = None, *, begin: int = 0
    ) -> Chunk:
        """The new rows of a read of ``window`` (``body[begin:]``), top to bottom;
        ``history_size``, read in the same invocation, when ``track`` is on (None there:
        tmux did not say)."""
        first, last = window
        if not self.track:
            # tmux starts a range that reaches above the oldest row at the oldest row.
            start = max(first, self.top)
            chunk = Chunk.printed(start, body, begin=begin, split=not self.unsplit)
            chunk = chunk.head(last - start + 1)
            if self.down:
                self.top = last + 1
            else:
                self.next_bottom = start - 1
            return chunk
        if history_size is None:
            self.broken = True
            return Chunk(first, [])
        shift = history_size - self.base
        if shift < 0:  # Rule 3
            self.broken = True
            return Chunk(first, [])
        start = max(0, first + shift)
        chunk = Chunk.printed(start, body, begin=begin, split=not self.unsplit)
        if self.origin is None:
            # The first read defines the numbering: every row it gave is new,
            # including rows printed since the range was planned.
            self.origin = history_size
        else:
            chunk = chunk.head(last - start + 1)  # Rule 2
        self.base = history_size
        if chunk.count:
            self.next_bottom = start - 1
            self._stalled = 0
        else:
            self._stalled += 1
            self.broken = self._stalled >= MAX_STALLED_READS
        return chunk

    def relative(self, row: int) -> int:
        """An absolute row as capture-pane numbered it at the first read (0: top visible row)."""
        return row - (self.base if self.origin is None else self.origin)


def first_windows(ranges: Sequence[PaneRange], bytes_left: int) -> list[tuple[int, Window]]:
    """The first windows of ``ranges`` (from the first on) that fit ``bytes_left``
    together, each planned as if its rows were full (Rule 1): (index, window)."""
    reads: list[tuple[int, Window]] = []
    left = bytes_left
    for index, pane in enumerate(ranges):
        if reads and left <= 0:
            break
        window = pane.window(left)
        reads.append((index, window))
        left -= (window[1] - window[0] + 1) * (pane.width + 1)
    return reads


def _blank(row: str) -> bool:
    return not row.strip()


def utf8_cost(row: str) -> int:
    """A row's UTF-8 bytes and a newline: ``search_panes``' ``max_scan_bytes`` unit."""
    return len(row.encode("utf-8", "replace")) + 1


class Budget:
    """What one reading may still take, and when it stops (Rule 4).

    ``chars``: the budget, counted by ``line_cost`` as the rows are measured
    (``WindowSizer.saw``), or by ``cost`` when given (a per-row unit a result
    reports: search's UTF-8 bytes), which then keeps the newest rows of a
    window that fit and no others (``cut``). ``rows``: the most rows kept.
    ``past``: go on while the rows kept cost at most ``chars``, so a capture
    reads the row that tells it a cap cut it; else stop once they cost
    ``chars``. ``from_text``: blank rows at the bottom are not kept nor
    counted until a row with text is met (capture_pane's ``max_lines``).
    """

    def __init__(
        self,
        chars: int,
        *,
        rows: int | None = None,
        past: bool = False,
        from_text: bool = False,
        cost: Callable[[str], int] | None = None,
    ) -> None:
        self.chars = chars
        self.rows = rows
        self.past = past
        self.cost = cost
        self.text_seen = not from_text
        self.last_text: int | None = None
        """The number of the last row with text (``from_text``), once met."""
        self.held = 0
        self.kept = 0
        self.cut = False

    @property
    def left(self) -> int:
        """What may still be taken, in the budget's unit."""
        return self.chars - self.held

    @property
    def rows_left(self) -> int | None:
        return None if self.rows is None else self.rows - self.kept

    @property
    def open(self) -> bool:
        """Whether the reading goes on."""
        if self.cut or (self.rows is not None and self.kept >= self.rows):
            return False
        if self.cost is not None:
            return True  # a per-row cost stops at the row that does not fit (``cut``)
        return self.held <= self.chars if self.past else self.held < self.chars

    def keep(self, chunk: Chunk) -> Chunk:
        """The rows of ``chunk`` kept: blank rows below the text dropped, the newest that
        fit a per-row ``cost`` kept."""
        if not self.text_seen:
            chunk = chunk.above_blank()
            if chunk.count:
                self.text_seen = True
                self.last_text = chunk.start + chunk.count - 1
        if self.cost is not None:
            keep = 0
            for row in reversed(chunk.rows):
                cost = self.cost(row)
                if cost > self.chars - self.held:
                    self.cut = True
                    break
                self.held += cost
                keep += 1
            chunk = chunk.tail(keep)
        return chunk

    def spend(self, rows: int, cost: int) -> None:
        """Count ``rows`` kept that cost ``cost`` (``line_cost``, unless ``cost`` counts)."""
        self.kept += rows
        if self.cost is None:
            self.held += cost
