"""Row positions in a pane's history that survive scrolling, trimming and clearing.

Pure: no IO. The waiting tools feed it ``View``s (one tmux invocation each)
and it says which rows are new.

Theory. tmux numbers a pane's rows from the oldest history row (0) down to
the bottom of the visible screen (``history_size + height - 1``); call that a
row's *absolute* number. Output scrolling a row into history does not change
its number. Numbers change only when rows leave the top:

* the history limit: when ``history_size`` reaches ``history_limit``, tmux
  drops the oldest ``limit / 10`` rows at once (grid.c
  ``grid_collect_history``), so every number falls by ``limit / 10``;
* ``clear-history``, and the ``E3`` sequence that ``clear`` sends, drop the
  whole history;
* a change of width reflows the history (rows merge and split).

tmux 3.3a has no counter of rows ever written, so a number alone cannot tell
these apart. Rules:

Rule 1: a ``Mark`` is a row number plus a fingerprint of the two rows just
  above it. To find it again, the fingerprint is looked for first where trims
  would have moved it (``row - k * limit/10``), then at the nearest row either
  way. Found: nothing after the mark was lost. Not found: continuity is broken
  and the caller reports a gap; it never silently skips or repeats rows.
Rule 2: rows in history never change; rows on the visible screen can (a
  program may redraw them). Only rows that are in history are final.
Rule 3: while the alternate screen is on, tmux adds no history (the grid's
  history flag is off) and the visible rows belong to the full-screen
  program; a change of screen is reported, not tracked through.
Rule 4: a mark's own row is live. It is the cursor's row when the mark is
  made, and the program that owns the terminal may redraw it in place (a
  pager erasing its ``:`` for the shell's prompt, a question erased after
  its answer, a progress line), so its text never finds the mark: the two
  rows above it do. Only a mark on the first row, with nothing real above
  it, also keeps the first characters of its own row (``head``: usually a
  prompt, which typing only extends) and is found only where that row still
  begins the same way. There a redraw and a clear (or a trim) cannot be told
  apart; either way every row counts again, and since no row lies above row
  0, nothing older than the mark can match. Limits of tmux 3.3a: a clear
  after which the same prompt is back in the top row before anything
  scrolled cannot be seen, a clear that leaves a mark on the second row
  under the same first row neither, and output that repeats the same rows
  exactly can make a trim look like no change.
Rule 5: the cells before a mark's column (a send cursor's: the prompt and
  what was typed before the input) are old only while they still hold what
  they held. The mark keeps the text written there (``prefix``); a row that
  no longer begins with it was redrawn after the mark, and all of it is new.
  Cells that were blank and hold text now were written after the mark too.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import unicodedata
from collections.abc import Iterator
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from tmuxmcp.errors import InvalidArguments

_KEY = secrets.token_bytes(32)
"""Keys every fingerprint and head hash, per tmuxmcp process: a cursor holds no
terminal text, and nobody without the key can test a guess of the rows against it."""
_KEY_ID = hashlib.blake2b(b"cursor key id", key=_KEY, digest_size=6).hexdigest()
_MAC_KEY = hashlib.blake2b(b"cursor mac", key=_KEY, digest_size=32).digest()
"""Authenticates whole cursors (CM-1): a cursor a caller edited or forged is refused
before any of its fields is used, whatever values it holds."""


def _hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), key=_KEY, digest_size=8).hexdigest()


FRAME_FIELDS = {
    "pane_id": "pane_id",
    "history_size": "history_size",
    "history_limit": "history_limit",
    "height": "pane_height",
    "width": "pane_width",
    "cursor_x": "cursor_x",
    "cursor_y": "cursor_y",
    "alternate": "alternate_on",
    "dead": "pane_dead",
    "pid": "pane_pid",
}
"""The tmux format variables read with every capture (``display-message``)."""


class Frame(msgspec.Struct, frozen=True, kw_only=True):
    """A pane's geometry at the instant of a capture."""

    pane_id: str
    history_size: int
    history_limit: int
    height: int
    width: int
    cursor_x: int
    cursor_y: int
    alternate: bool
    dead: bool
    pid: int = 0
    """The pane's process (for the activity hint; 0: unknown)."""


class View(msgspec.Struct, frozen=True):
    """One observation: a frame and the rows captured with it, from ``top`` down."""

    frame: Frame
    rows: list[str]

    @property
    def end(self) -> int:
        """Absolute number one past the last captured row (the screen bottom)."""
        return self.frame.history_size + self.frame.height

    @property
    def top(self) -> int:
        """Absolute number of ``rows[0]``."""
        return self.end - len(self.rows)

    @property
    def screen_top(self) -> int:
        """Absolute number of the first visible row."""
        return self.frame.history_size

    @property
    def cursor_row(self) -> int:
        """Absolute number of the cursor's row."""
        return self.frame.history_size + self.frame.cursor_y

    def row(self, absolute: int) -> str:
        """The text of a captured row."""
        return self.rows[absolute - self.top]

    def relative(self, absolute: int) -> int:
        """The row's number as capture-pane counts it: 0 is the top visible row."""
        return absolute - self.frame.history_size


def cells(text: str) -> int:
    """Terminal cells ``text`` takes (an estimate: East Asian wide and full-width are two)."""
    count = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        count += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return count


_BEFORE_START = "\x00start"


def fingerprint(view: View, row: int) -> str | None:
    """A short hash of the two rows above ``row``; None if they were not captured."""
    if row > view.end:
        return None
    above: list[str] = []
    for r in (row - 2, row - 1):
        if r < 0:
            above.append(_BEFORE_START)
        elif r >= view.top:
            above.append(view.row(r))
        else:
            return None
    return _hash("\n".join(above))


HEAD_CHARS = 16


def chars_in(text: str, columns: int) -> int:
    """How many characters of ``text`` fill its first ``columns`` cells."""
    used = 0
    for index, ch in enumerate(text):
        if used >= columns:
            return index
        used += cells(ch)
    return len(text)


MAX_ROWS = 2**31 - 1
"""tmux's largest ``history-limit`` (INT_MAX): no real row number or history size is above it."""
MAX_CELLS = 10_000
"""tmux's largest pane width and height (``WINDOW_MAXIMUM``)."""

_Rows = Annotated[int, Meta(ge=0, le=MAX_ROWS + MAX_CELLS)]
_Cells = Annotated[int, Meta(ge=0, le=MAX_CELLS)]


class Mark(msgspec.Struct, frozen=True, array_like=True):
    """A row position that can be found again after rows leave the top.

    The bounds are those of a real tmux pane; they are checked when a mark is
    decoded from a cursor (a Struct's constructor does not check them).
    """

    row: _Rows
    fingerprint: Annotated[str, Meta(pattern="^[0-9a-f]{16}$")]
    history_size: Annotated[int, Meta(ge=0, le=MAX_ROWS)]
    width: Annotated[int, Meta(ge=1, le=MAX_CELLS)]
    alternate: bool
    head: Annotated[str, Meta(max_length=4 * HEAD_CHARS)] = ""
    """For a mark on the first row (nothing real above it): how its own row began
    (Rule 4; in a cursor, as ``<characters>:<hash>``, see ``head_hashed``)."""
    column: _Cells = 0
    """Cells of the mark's row that were already there (send cursors: the cursor column)."""
    head_hashed: bool = False
    """``head`` and ``prefix`` are keyed hashes: set by ``encode_cursor``, so a cursor
    carries no terminal text; marks kept in memory hold the text itself."""
    prefix: Annotated[str, Meta(max_length=4 * HEAD_CHARS)] = ""
    """The text written before ``column`` on the mark's row, trailing blanks left out
    (Rule 5); hashed in a cursor, as ``head`` is."""


def _head(text: str) -> str:
    return f"{len(text)}:{_hash(text)}"


def mark_at(view: View, row: int, column: int = 0) -> Mark:
    """A mark before ``row`` (which must be captured with its two rows above), after
    ``column`` cells of it."""
    found = fingerprint(view, row)
    if found is None:
        raise ValueError("the rows above a mark must be captured")
    frame = view.frame
    text = view.row(row) if view.top <= row < view.end else ""
    head = text[:HEAD_CHARS] if row == 0 else ""  # Rule 4: only the first row
    prefix = text[: chars_in(text, column)].rstrip(" ")  # Rule 5
    return Mark(
        row, found, frame.history_size, frame.width, frame.alternate, head, column, False, prefix
    )


def _begins_with(mark: Mark, kept: str, text: str, most: int) -> bool:
    """Whether ``text`` begins with ``kept``, the mark's ``head`` or ``prefix``."""
    if not mark.head_hashed:
        return text.startswith(kept)
    count, _, _ = kept.partition(":")
    if not count.isdigit() or int(count) > most:
        return False
    return len(text) >= int(count) and _head(text[: int(count)]) == kept


def _same_head(mark: Mark, view: View, at: int) -> bool:
    if at >= view.end:
        return False
    return _begins_with(mark, mark.head, view.row(at), HEAD_CHARS)


def unchanged_chars(mark: Mark, text: str) -> int:
    """Characters at the start of ``text``, the mark's row now, that were there before the
    mark's column when it was made (Rule 5): none once the row was redrawn.

    Blank cells before the column stay old while they are blank; text in them now
    was written after the mark.
    """
    if not mark.column:
        return 0
    if mark.head_hashed:
        count = mark.prefix.partition(":")[0]
        kept = int(count) if mark.prefix and count.isdigit() else 0
    else:
        kept = len(mark.prefix)
    if mark.prefix and not _begins_with(mark, mark.prefix, text, MAX_CELLS):
        return 0
    used = cells(text[:kept])
    while kept < len(text) and used < mark.column and text[kept] == " ":
        kept += 1
        used += 1
    return kept


def _candidates(mark: Mark, view: View) -> Iterator[int]:
    trim = max(1, view.frame.history_limit // 10)
    # History that shrank was trimmed or cleared: the mark cannot be where it was.
    at = mark.row if view.frame.history_size >= mark.history_size else mark.row - trim
    if at > view.end:  # a mark beyond the captured rows (or a forged cursor): skip ahead
        at -= -(-(at - view.end) // trim) * trim
    seen: set[int] = set()
    while at >= max(0, view.top):
        seen.add(at)
        yield at
        at -= trim
    # Then every captured row up to the mark's own, nearest first. Never a later
    # row: rows only ever move up (trims and clears), so a later match is
    # another copy of the same text, and resuming there would skip rows.
    rest = sorted(range(view.top, min(view.end, mark.row) + 1), key=lambda r: mark.row - r)
    yield from (at for at in rest if at not in seen)


def locate_at(mark: Mark, view: View, at: int) -> bool:
    """Whether ``mark`` is at row ``at`` of ``view`` (its fingerprint, and its head if any)."""
    if mark.alternate != view.frame.alternate or fingerprint(view, at) != mark.fingerprint:
        return False
    # A head that differs: the top rows were replaced (trimmed or cleared) under the mark.
    return not mark.head or _same_head(mark, view, at)


def locate(mark: Mark, view: View) -> int | None:
    """Where ``mark`` is now (Rule 1), or None when it cannot be found in ``view``."""
    if mark.alternate != view.frame.alternate:
        return None
    for at in _candidates(mark, view):
        if locate_at(mark, view, at):
            return at
    return None


GapReason = Literal["history-limit", "history-cleared", "screen-switched", "reflowed"]


class Gap(msgspec.Struct, frozen=True):
    """Why continuity broke, and a lower bound on the rows lost."""

    reason: GapReason
    lines_lost: int
    """Rows written after the mark and gone before they were read: at least this many."""


def explain_gap(mark: Mark, view: View) -> Gap:
    """Why ``mark`` was not found in ``view``, which reaches the top of the history."""
    frame = view.frame
    if mark.alternate != frame.alternate:
        return Gap("screen-switched", 0)
    if mark.width != frame.width:
        return Gap("reflowed", 0)
    trim = max(1, frame.history_limit // 10)
    if frame.history_size >= frame.history_limit - trim:
        # A trim leaves at least limit - trim rows, and only whole trims
        # remove rows: at least those that reach the mark's fingerprint rows;
        # of them, the rows from the mark's own on are the lines lost.
        return Gap("history-limit", max(0, trimmed_at_least(mark.row, trim) - mark.row))
    # Below limit - trim rows, history only shrinks by clearing.
    return Gap("history-cleared", 0)


def trimmed_at_least(mark_row: int, trim: int) -> int:
    """Rows certainly trimmed from the top of the history when a mark at ``mark_row`` can
    no longer be found, tmux trimming ``trim`` rows at a time.

    A mark is found by the two rows above it (``fingerprint``; above row 2, the
    start of the history and the row's own beginning stand in): it is lost once
    the upper one goes, so once ``max(1, mark_row - 1)`` rows went, and no whole
    number of trims removes fewer. How many more went, no counter of tmux tells:
    it keeps the history's size, not the rows ever written, so this is a lower
    bound (and the mark's own row may be left, at the very top).
    """
    trim = max(1, trim)
    return (max(0, mark_row - 2) // trim + 1) * trim


# -- opaque cursors ----------------------------------------------------------------


class _Cursor(msgspec.Struct, frozen=True, array_like=True):
    version: int
    server_pid: Annotated[int, Meta(ge=1)]
    server_start: Annotated[int, Meta(ge=0)]
    pane_id: Annotated[str, Meta(pattern="^%[0-9]{1,10}$")]
    mark: Mark
    key_id: str = ""
    """Which tmuxmcp process's key made the mark's hashes and the cursor's tag."""


CURSOR_VERSION = 4
"""4: the text before the column kept (hashed, ``Mark.prefix``); 3: the cursor carries a
tag (HMAC-SHA256) over all of it; 2: top-row heads hashed."""
MAX_CURSOR_CHARS = 256
_TAG_BYTES = 16
_START_OVER = "call the tool without it to start over"


def _tag(payload: bytes) -> bytes:
    return hmac.digest(_MAC_KEY, payload, "sha256")[:_TAG_BYTES]


def encode_cursor(server: tuple[int, int], pane_id: str, mark: Mark) -> str:
    """An opaque cursor: base64url of a tag, then the mark, the pane and the server's identity.

    The tag is keyed per tmuxmcp process and covers every byte after it, so
    only a cursor this process made decodes (CM-1): the row numbers, widths and
    columns a handler loops over are never a caller's choice.
    """
    if (mark.head or mark.prefix) and not mark.head_hashed:
        mark = msgspec.structs.replace(
            mark,
            head=_head(mark.head) if mark.head else "",
            prefix=_head(mark.prefix) if mark.prefix else "",
            head_hashed=True,
        )
    cursor = _Cursor(CURSOR_VERSION, server[0], server[1], pane_id, mark, _KEY_ID)
    payload = msgspec.msgpack.encode(cursor)
    return base64.urlsafe_b64encode(_tag(payload) + payload).decode("ascii").rstrip("=")


def _untrusted_key_id(payload: bytes) -> str | None:
    """The key id a payload claims, only to say why its tag does not match."""
    try:
        fields = msgspec.msgpack.decode(payload)
    except msgspec.DecodeError:
        return None
    if isinstance(fields, list) and len(fields) == 6 and isinstance(fields[5], str):
        return fields[5]
    return None


def decode_cursor(text: str, server: tuple[int, int], pane_id: str, param: str = "cursor") -> Mark:
    """The mark in ``text``; refuses a cursor this process did not make, and one of
    another pane, server or version.

    The tag is checked before anything in the cursor is decoded into a mark;
    the decode then checks every field's range (``Mark``) as a second line.
    """
    not_ours = (
        f"`{param}` is not a cursor this tmuxmcp process returned (from capture_since, "
        f"send_keys), or it was edited; {_START_OVER}"
    )
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError:
        raise InvalidArguments(not_ours) from None
    tag, payload = raw[:_TAG_BYTES], raw[_TAG_BYTES:]
    if len(tag) < _TAG_BYTES or not hmac.compare_digest(tag, _tag(payload)):
        claimed = _untrusted_key_id(payload)
        if claimed is not None and claimed != _KEY_ID:
            raise InvalidArguments(
                f"`{param}` comes from another tmuxmcp process (it was restarted); {_START_OVER}"
            )
        raise InvalidArguments(not_ours)
    try:
        cursor = msgspec.msgpack.decode(payload, type=_Cursor)
    except msgspec.DecodeError:
        # A tag of this process on values out of range: never minted, refused all the same.
        raise InvalidArguments(not_ours) from None
    if cursor.version != CURSOR_VERSION or cursor.key_id != _KEY_ID:
        raise InvalidArguments(not_ours)
    if (cursor.server_pid, cursor.server_start) != server:
        raise InvalidArguments(
            f"`{param}` belongs to another tmux server (it was restarted); {_START_OVER}"
        )
    if cursor.pane_id != pane_id:
        raise InvalidArguments(
            f"`{param}` belongs to another pane; use it with the pane it came from"
        )
    return cursor.mark
