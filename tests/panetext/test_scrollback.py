"""Row positions that survive trims and clears (tmuxmcp.panetext.scrollback): pure, no tmux."""

from __future__ import annotations

import base64

import msgspec
import pytest

from tmuxmcp.errors import InvalidArguments
from tmuxmcp.panetext.scrollback import (
    Frame,
    Mark,
    View,
    decode_cursor,
    encode_cursor,
    explain_gap,
    locate,
    mark_at,
    unchanged_chars,
)

HEIGHT = 4


def _view(rows: list[str], *, limit: int = 100, width: int = 80, alternate: bool = False) -> View:
    """A view of a pane whose whole history and screen are ``rows``."""
    history = len(rows) - HEIGHT
    frame = Frame(
        pane_id="%1",
        history_size=history,
        history_limit=limit,
        height=HEIGHT,
        width=width,
        cursor_x=0,
        cursor_y=HEIGHT - 1,
        alternate=alternate,
        dead=False,
    )
    return View(frame, rows)


def _lines(first: int, last: int) -> list[str]:
    return [f"line {n}" for n in range(first, last + 1)]


def test_a_mark_stays_put_while_output_scrolls() -> None:
    before = _view(_lines(1, 50))
    mark = mark_at(before, 30)
    after = _view(_lines(1, 80))
    assert locate(mark, after) == 30
    assert after.row(30) == "line 31"


def test_a_trim_moves_the_mark_by_whole_tenths_of_the_limit() -> None:
    before = _view(_lines(1, 95), limit=100)
    mark = mark_at(before, 60)  # before "line 61"
    # tmux dropped the oldest 10 rows twice: "line 21" is now row 0.
    after = _view(_lines(21, 110), limit=100)
    at = locate(mark, after)
    assert at == 40
    assert after.row(at) == "line 61"


def test_a_partial_view_locates_the_mark_when_it_covers_it() -> None:
    full = _lines(1, 200)
    mark = mark_at(_view(full[:150]), 140)
    frame = _view(full).frame
    partial = View(frame, full[-70:])  # rows 130..199
    assert partial.top == 130
    assert locate(mark, partial) == 140
    too_short = View(frame, full[-30:])
    assert locate(mark, too_short) is None


def test_rows_trimmed_past_the_mark_are_reported_as_a_history_limit_gap() -> None:
    mark = mark_at(_view(_lines(1, 95), limit=100), 60)
    after = _view(_lines(301, 395), limit=100)
    assert locate(mark, after) is None
    gap = explain_gap(mark, after)
    assert gap.reason == "history-limit"
    # Lost once row 58 goes: six trims of 10 reach it, and leave rows 60.. possibly.
    assert gap.lines_lost == 0


@pytest.mark.parametrize(
    ("row", "lost"),
    [(0, 200), (1, 199), (2, 198), (162, 38), (200, 0), (201, 0), (202, 198), (450, 150)],
)
def test_a_history_limit_gap_counts_only_rows_certainly_trimmed_after_the_mark(
    row: int, lost: int
) -> None:
    """Trims of 200 rows (limit 2000): the mark is lost once the upper of its two
    fingerprint rows goes, so a mark at row 201 can be lost with its own row kept
    (0 lost); the count was ceil(row / 200) * 200 - row, which said 199 there: a
    loss that need not have happened."""
    frame = Frame(
        pane_id="%1",
        history_size=1900,
        history_limit=2000,
        height=HEIGHT,
        width=80,
        cursor_x=0,
        cursor_y=HEIGHT - 1,
        alternate=False,
        dead=False,
    )
    mark = Mark(row, "0" * 16, 1800, 80, False)
    gap = explain_gap(mark, View(frame, []))
    assert (gap.reason, gap.lines_lost) == ("history-limit", lost)


def test_a_cleared_history_is_reported_as_such() -> None:
    mark = mark_at(_view(_lines(1, 60), limit=100), 40)
    after = _view(["new 1", "new 2", "new 3", "new 4", "new 5"], limit=100)
    assert locate(mark, after) is None
    assert explain_gap(mark, after).reason == "history-cleared"


def test_clear_history_keeps_screen_rows_and_the_mark_on_them() -> None:
    rows = _lines(1, 60)
    mark = mark_at(_view(rows), 58)  # on the screen (rows 56..59)
    after = _view(rows[-HEIGHT:])  # history dropped, screen kept
    at = locate(mark, after)
    assert at is not None
    assert after.row(at) == "line 59"


def test_a_screen_switch_or_a_reflow_is_a_gap_of_its_own() -> None:
    rows = _lines(1, 60)
    mark = mark_at(_view(rows), 40)
    assert locate(mark, _view(rows, alternate=True)) is None
    assert explain_gap(mark, _view(rows, alternate=True)).reason == "screen-switched"
    narrow = _view(_lines(1, 20), width=40)
    assert explain_gap(mark, narrow).reason == "reflowed"


def test_cursors_round_trip_and_refuse_other_panes_servers_and_garbage() -> None:
    mark = mark_at(_view(_lines(1, 60)), 40)
    cursor = encode_cursor((123, 456), "%1", mark)
    assert cursor.isascii() and "=" not in cursor and len(cursor) < 120
    assert decode_cursor(cursor, (123, 456), "%1") == mark
    with pytest.raises(InvalidArguments, match="another pane"):
        decode_cursor(cursor, (123, 456), "%2")
    with pytest.raises(InvalidArguments, match="another tmux server"):
        decode_cursor(cursor, (123, 999), "%1")
    for garbage in ("AAAA", "!!", cursor[:-5], ""):
        with pytest.raises(InvalidArguments, match="not a cursor"):
            decode_cursor(garbage, (123, 456), "%1")


def test_a_mark_in_the_top_rows_notices_that_they_were_replaced() -> None:
    """Nothing real above row 0: the row's own beginning tells a trim from no change."""
    fresh = _view(["$ ", "", "", ""])
    mark = mark_at(fresh, 0)
    typed = _view(["$ seq 1 1000", "1", "2", "3"])
    assert locate(mark, typed) == 0
    trimmed = _view([str(n) for n in range(901, 1001)] + ["$ "], limit=100)
    assert locate(mark, trimmed) is None
    assert explain_gap(mark, trimmed).reason == "history-limit"


def test_a_mark_whose_own_row_is_redrawn_is_still_found_below_the_first_row() -> None:
    """Rule 4 (issue 28.3): the second row's text is live, so it never finds its mark."""
    asking = _view(["$ ./ask", ":", "", ""])
    mark = mark_at(asking, 1, column=1)
    answered = _view(["$ ./ask", "$", "", ""])
    assert locate(mark, answered) == 1
    assert locate(decode_cursor(encode_cursor((1, 2), "%1", mark), (1, 2), "%1"), answered) == 1
    cleared = _view(["$", "", "", ""])  # the first row changed too: continuity is lost
    assert locate(mark, cleared) is None


def test_the_cells_before_a_column_are_old_only_while_they_hold_what_they_held() -> None:
    """Rule 5 (issue 28.3), for marks in memory and decoded from cursors alike."""
    prompt = _view(["1", "2", "$", ""])
    typed = mark_at(prompt, 2, column=2)  # after "$ ", the blank a capture drops
    pager = mark_at(_view(["1", "2", ":", ""]), 2, column=1)
    blank = mark_at(_view(["1", "2", "", ""]), 2, column=3)
    cases = [
        (typed, "$ echo hi", 2),  # the prompt and its blank
        (typed, "$", 1),
        (pager, "$ ", 0),  # the ':' was erased: all of the row is new
        (pager, ":x", 1),
        (blank, "   x", 3),  # still blank before the column
        (blank, "abc", 0),  # written where it was blank
        (mark_at(prompt, 2), "$ echo", 0),  # no column: nothing kept
    ]
    for mark, now, kept in cases:
        carried = decode_cursor(encode_cursor((1, 2), "%1", mark), (1, 2), "%1")
        assert carried.head_hashed or not mark.prefix  # a cursor carries no text
        assert unchanged_chars(mark, now) == kept, (mark, now)
        assert unchanged_chars(carried, now) == kept, (carried, now)


def test_a_forged_far_away_mark_is_not_searched_for_row_by_row() -> None:
    view = _view(_lines(1, 60), limit=1)  # one-row trims: the worst case
    mark = mark_at(view, 40)
    forged = type(mark)(10**15, mark.fingerprint, 0, 80, False)
    assert locate(forged, view) == 40  # found quickly by the nearest-first search


def test_a_cursor_carries_no_terminal_text_and_no_testable_hash_of_it() -> None:
    """send_keys declares metadata outputs: their cursors must not leak rows."""
    import base64
    import hashlib

    rows = ["PIN 4711 secret", "second row", "", ""]
    view = _view(rows)
    for row in (0, 1, 2):
        cursor = encode_cursor((1, 2), "%1", mark_at(view, row, column=3))
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        assert b"4711" not in raw and b"PIN" not in raw and b"second" not in raw
        # Without the process's key, a guess of the rows cannot be checked against it.
        for guess in ("\x00start\n\x00start", "\x00start\nPIN 4711 secret", rows[0][:16]):
            plain = hashlib.blake2b(guess.encode(), digest_size=8).hexdigest()
            assert plain.encode() not in raw
        assert decode_cursor(cursor, (1, 2), "%1").column == 3


def test_a_cursor_from_another_tmuxmcp_process_is_refused_clearly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tmuxmcp.panetext import scrollback

    cursor = encode_cursor((1, 2), "%1", mark_at(_view(_lines(1, 10)), 5))
    # Another process: another key, so another key id and another tag.
    monkeypatch.setattr(scrollback, "_KEY_ID", "another")
    monkeypatch.setattr(scrollback, "_MAC_KEY", bytes(32))
    with pytest.raises(InvalidArguments) as info:
        decode_cursor(cursor, (1, 2), "%1")
    assert "another tmuxmcp process" in info.value.message
    assert "without it to start over" in info.value.message


def _raw(cursor: str) -> bytes:
    return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))


def _text(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def test_a_cursor_with_any_bit_changed_is_refused() -> None:
    """CM-1, issue 18 R1: the tag covers every byte, so no field can be edited."""
    cursor = encode_cursor((1, 2), "%1", mark_at(_view(_lines(1, 60)), 40))
    raw = _raw(cursor)
    for index in range(len(raw)):
        for bit in (0x01, 0x80):
            edited = bytearray(raw)
            edited[index] ^= bit
            with pytest.raises(InvalidArguments, match="start over"):
                decode_cursor(_text(bytes(edited)), (1, 2), "%1")


def _signed(fields: list[object]) -> str:
    """A cursor of ``fields`` with a valid tag: as if the key had leaked (the second line)."""
    from tmuxmcp.panetext import scrollback

    payload = msgspec.msgpack.encode(fields)
    return _text(scrollback._tag(payload) + payload)


def test_a_cursor_with_fields_no_pane_has_is_refused_even_with_a_valid_tag() -> None:
    """Every field is range-checked after the tag, before a handler uses it (issue 18 R1)."""
    from tmuxmcp.panetext import scrollback

    mark = mark_at(_view(_lines(1, 60)), 40)
    good: list[object] = [
        scrollback.CURSOR_VERSION,
        1,
        2,
        "%1",
        list(msgspec.structs.astuple(mark)),
    ]
    good.append(scrollback._KEY_ID)
    assert decode_cursor(_signed(good), (1, 2), "%1") == mark
    mark_fields = list(msgspec.structs.astuple(mark))
    # row, fingerprint, history_size, width (-1 divided by zero), head, column
    for at, changed in [
        (0, 2**62),
        (0, -1),
        (1, "0" * 15 + "g"),
        (2, -1),
        (2, 2**62),
        (3, -1),
        (3, 0),
        (3, 10_001),
        (5, "x" * 65),
        (6, -1),
        (6, 10_001),
    ]:
        fields = list(mark_fields)
        fields[at] = changed
        with pytest.raises(InvalidArguments, match="start over"):
            decode_cursor(_signed([*good[:4], fields, good[5]]), (1, 2), "%1")
    for at, changed in [(0, 2), (3, "@1"), (5, "another")]:
        edited = list(good)
        edited[at] = changed
        with pytest.raises(InvalidArguments, match="start over"):
            decode_cursor(_signed(edited), (1, 2), "%1")
