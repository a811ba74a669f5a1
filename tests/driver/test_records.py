"""``driver.records``: nonce-framed ``-F`` templates and their parser.

Untrusted fields (pane titles, paths, command names) may hold newlines and
separator characters, and a hook on a foreign server may add output (research
§7 "use a separator and check the field count", §8 hooks). Frames carry a
fresh nonce; text outside frames is ignored; a wrong field count is an error.
"""

from __future__ import annotations

import os
import re
import shutil
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support import DEDICATED, PrivateTmux
from tmuxmcp.driver import binding
from tmuxmcp.driver.argv import cmd, escape_element
from tmuxmcp.driver.client import TmuxClient
from tmuxmcp.driver.records import RecordFormat, SectionMarker, decode_value
from tmuxmcp.driver.socket import select_socket
from tmuxmcp.errors import TmuxCommandFailed

FIELDS = ("pane_id", "pane_title", "pane_current_path")

_VIS_CSTYLE = {"\r": "r", "\b": "b", "\a": "a", "\v": "v", "\f": "f"}


def _vis(text: str) -> str:
    """What tmux 3.4-3.5a's print does (utf8_stravisx, VIS_OCTAL|VIS_CSTYLE|VIS_NOSLASH).

    Written from tmux's compat/vis.c: printable ASCII, space, tab, newline,
    backslash and valid UTF-8 pass; the other C0 controls become C-style or
    octal escapes; DEL and bytes that are not valid UTF-8 become octal.
    """
    out = []
    for char in text:
        if char in _VIS_CSTYLE:
            out.append("\\" + _VIS_CSTYLE[char])
        elif (ord(char) < 0x20 and char not in "\t\n") or char == "\x7f":
            out.append(f"\\{ord(char):03o}")
        elif 0xDC80 <= ord(char) <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
            out.append(f"\\{ord(char) - 0xDC00:03o}")
        else:
            out.append(char)
    return "".join(out)


def _as_tmux_prints(frame: RecordFormat, values: dict[str, str], *, escaped: bool = False) -> str:
    """Expand the template the way tmux would: each variable once, backslashes doubled.

    ``escaped``: then print the result the way tmux 3.4 to 3.5a does.
    """
    expanded = re.sub(
        r"#\{s/\\\\/\\\\\\\\/:([a-z_]+)\}",
        lambda m: values[m.group(1)].replace("\\", "\\\\"),
        frame.template,
    )
    text = _vis(expanded) if escaped else expanded
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _read(value: str) -> str:
    """What a raw tmux's output of ``value`` reads as in tmuxmcp (client.decode)."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


# ------------------------------------------------------------------------ pure


def test_template_uses_only_the_given_variables() -> None:
    frame = RecordFormat(FIELDS)
    assert frame.fields == FIELDS
    # Every variable is read through the backslash-doubling substitution.
    assert re.findall(r"#\{s/\\\\/\\\\\\\\/:([^}]*)\}", frame.template) == list(FIELDS)
    # No other '#' reaches the format: nothing else in the template is expanded.
    assert frame.template.count("#") == len(FIELDS)


def test_markers_are_printed_the_same_by_every_tmux() -> None:
    """Rule 1: no character of the template outside the variables is escaped by vis."""
    frame = RecordFormat(FIELDS)
    outside = re.sub(r"#\{[^}]*\}", "", frame.template)
    assert re.fullmatch(r"[A-Za-z0-9]+", outside)
    assert _vis(frame.template) == frame.template


@pytest.mark.parametrize(
    "field", ["", "pane-id", "pane_id}", "#{pane_id}", "E:pane_title", "Pane", "a b", "x1"]
)
def test_field_names_are_validated(field: str) -> None:
    with pytest.raises(ValueError, match="not a tmux format variable"):
        RecordFormat(["pane_id", field])


def test_each_format_gets_a_fresh_nonce() -> None:
    templates = {RecordFormat(FIELDS).template for _ in range(50)}
    assert len(templates) == 50


def test_a_record_from_another_format_is_not_read() -> None:
    first, second = RecordFormat(FIELDS), RecordFormat(FIELDS)
    text = _as_tmux_prints(first, dict.fromkeys(FIELDS, "v"))
    assert first.parse(text) == [dict.fromkeys(FIELDS, "v")]
    assert second.parse(text) == []


HOSTILE = [
    "",
    "\n",
    "line1\nline2",
    "\x1e",
    "\x1f",
    "\x1d",
    "\x1e\x1f\x1d",
    "\\036",  # the text tmux 3.5a prints for RS
    "\\036\\037\\035",
    "\\",
    "\\\\",
    "a\\",
    "\\n\\t\\r\\s\\0\\x",
    "\\0365",
    "\x01\x1b[31m\x7f\r\b\a\v\f",
    "\udce9\udcc3",  # bytes that are not UTF-8
    "Fdeadbeefdeadbeef",  # a separator with a guessed nonce
    "E0000000000000000\nS0000000000000000",
    "\x1fdeadbeefdeadbeef",
    "%end 1 2 1",
    "#{pane_id}",
    "\t:,;'\"\\",
    "é☺😀",
]


@pytest.mark.parametrize("escaped", [False, True], ids=["raw", "escaped"])
@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_field_values_parse_exactly(hostile: str, escaped: bool) -> None:
    frame = RecordFormat(FIELDS)
    values = {"pane_id": "%1", "pane_title": hostile, "pane_current_path": hostile + "/p"}
    expected = {k: _read(v) for k, v in values.items()}
    assert frame.parse(_as_tmux_prints(frame, values, escaped=escaped)) == [expected]


@pytest.mark.parametrize(
    ("printed", "value"),
    [
        ("a\\\\b", "a\\b"),
        ("\\036", "\x1e"),
        ("\\\\036", "\\036"),
        ("\\n\\r\\t\\b\\a\\v\\f\\s\\0", "\n\r\t\b\a\v\f \0"),
        ("\\303\\251", "é"),  # octal bytes are reassembled before UTF-8 decoding
        ("\\351x", "\ufffdx"),
        ("plain", "plain"),
    ],
)
def test_decode_value_reads_doubled_backslashes_and_vis_escapes(printed: str, value: str) -> None:
    assert decode_value(printed) == value


@pytest.mark.parametrize("printed", ["\\", "a\\", "\\x", "\\8", "\\M-a", "\\^A", "\\400"])
def test_a_backslash_that_starts_no_escape_is_an_error_not_a_guess(printed: str) -> None:
    with pytest.raises(TmuxCommandFailed, match="could not decode"):
        decode_value(printed)


def test_text_outside_frames_is_ignored() -> None:
    frame = RecordFormat(FIELDS)
    one = dict(zip(FIELDS, ("%1", "a", "/"), strict=True))
    two = dict(zip(FIELDS, ("%2", "b", "/tmp"), strict=True))
    text = (
        "HOOK OUTPUT \\ \\x\n"
        + _as_tmux_prints(frame, one)
        + "\n\x1f\x1d junk between \x1e S F E\n"
        + _as_tmux_prints(frame, two)
        + "\ntrailing hook output\n"
    )
    assert frame.parse(text) == [one, two]
    assert frame.parse("") == []
    assert frame.parse("no frames at all\n") == []


@pytest.mark.parametrize("count", [1, 2, 4])
def test_a_frame_with_the_wrong_field_count_is_an_error(count: int) -> None:
    frame = RecordFormat(FIELDS)
    nonce = frame.nonce
    assert re.fullmatch(r"[0-9a-f]{16}", nonce)
    body = f"F{nonce}".join(["v"] * count)
    with pytest.raises(TmuxCommandFailed) as info:
        frame.parse(f"S{nonce}{body}E{nonce}")
    assert info.value.reference == "tmux-command-failed"


def test_an_unterminated_frame_is_ignored_not_misread() -> None:
    frame = RecordFormat(FIELDS)
    whole = _as_tmux_prints(frame, dict.fromkeys(FIELDS, "v"))
    assert frame.parse(whole[:-3]) == []


def test_parse_leading_ends_the_record_at_its_marker_not_at_a_newline() -> None:
    frame = RecordFormat(FIELDS)
    values = {"pane_id": "%1", "pane_title": "a\nb", "pane_current_path": "/\n"}
    text = _as_tmux_prints(frame, values) + "\nrow 1\nrow 2\n"
    assert frame.parse_leading(text) == (values, "row 1\nrow 2\n")
    with pytest.raises(TmuxCommandFailed):
        frame.parse_leading("hook output\n" + text)


def test_section_markers_split_pane_text_on_every_print_style() -> None:
    marker = SectionMarker()
    first, second = marker.line(0, "history_size"), marker.line(1, "history_size")
    assert _vis(first) == first  # printed the same by every tmux
    pane_text = "S F E M \\036 \x1e0:1\n:"  # a pane shows any text but the nonce
    text = f"{first.replace('#{history_size}', '7')}\n{pane_text}\n"
    text += f"{second.replace('#{history_size}', '0')}\nb\n"
    assert marker.split(text) == {0: (["7"], pane_text + "\n"), 1: (["0"], "b\n")}


_HOSTILE = st.text(
    st.sampled_from(list("\x1e\x1f\x1d\x01\x7f\r\n\t\\ abc0123456789defSFE%#{}é\udce9")),
    max_size=40,
)


@given(st.lists(st.tuples(_HOSTILE, _HOSTILE, _HOSTILE), max_size=5), _HOSTILE, st.booleans())
def test_parse_round_trips_any_values(
    rows: list[tuple[str, str, str]], noise: str, escaped: bool
) -> None:
    frame = RecordFormat(FIELDS)
    records = [dict(zip(FIELDS, row, strict=True)) for row in rows]
    text = _read(noise).join(_as_tmux_prints(frame, record, escaped=escaped) for record in records)
    expected = [{k: _read(v) for k, v in record.items()} for record in records]
    assert frame.parse("\n" + text + "\n") == expected


# ----------------------------------------------------------------- real tmux


def _client(tmux: PrivateTmux) -> TmuxClient:
    found = shutil.which("tmux")
    assert found is not None
    return TmuxClient(os.path.realpath(found), select_socket(None, None), tmux.env, timeout=10)


def _wait_for_title(tmux: PrivateTmux, pane: str, title: str) -> None:
    deadline = time.monotonic() + 10
    seen = None
    while time.monotonic() < deadline:
        seen = tmux.bare("list-panes", "-t", pane, "-F", "#{pane_title}").stdout
        if seen == title + "\n":
            return
    raise AssertionError(f"pane title never became {title!r}; last {seen!r}")


_SET_TITLE = 'printf "\\033]2;%s\\033\\\\" "$TITLE"; exec cat'


async def test_program_set_titles_parse_exactly_via_list_panes(private_tmux: PrivateTmux) -> None:
    """A pane program sets a hostile title with OSC 2; list-panes still parses it exactly."""
    sentinel = os.path.join(private_tmux.directory, "S")
    tricky = f"t#{{pane_id}} #(touch {sentinel});\"'$HOME \\ ☺ %H %% , : . #[fg=red] ## end;"
    # Bare tmux needs the argv-layer escape too: the value ends in ';'.
    env = escape_element(f"TITLE={tricky}")
    first = private_tmux.new_session("rec", DEDICATED, "-e", env, "sh", "-c", _SET_TITLE)
    _wait_for_title(private_tmux, first["pane_id"], tricky)
    # C0 controls inside an OSC string are dropped by tmux's parser, so a
    # program cannot put RS/US/GS (let alone the nonce) into its title.
    controls = "a\x1eb\x1fc\x1dd\ne"
    second = private_tmux.new_session(
        "rec2", DEDICATED, "-e", f"TITLE={controls}", "sh", "-c", _SET_TITLE
    )
    _wait_for_title(private_tmux, second["pane_id"], "abcde")

    client = _client(private_tmux)
    await binding.establish(client)
    frame = RecordFormat(("pane_id", "pane_title", "session_id"))
    out = await client.run(cmd("list-panes", "-a", F=frame.template))
    records = sorted(frame.parse(out.stdout), key=lambda r: r["session_id"])
    assert records == [
        {"pane_id": first["pane_id"], "pane_title": tricky, "session_id": first["session_id"]},
        {"pane_id": second["pane_id"], "pane_title": "abcde", "session_id": second["session_id"]},
    ]
    assert not os.path.exists(sentinel)


def _parse_with_regex(frame: RecordFormat, text: str) -> list[dict[str, str]]:
    """The parser before it moved to str.find: the reference for the framing rules."""
    nonce = frame.nonce
    start, sep, end = "S" + nonce, "F" + nonce, "E" + nonce
    records = []
    for match in re.finditer(re.escape(start) + "(.*?)" + re.escape(end), text, re.S):
        values = match.group(1).split(sep)
        if len(values) != len(frame.fields):
            raise TmuxCommandFailed("tmux returned a record tmuxmcp could not parse")
        records.append(dict(zip(frame.fields, map(decode_value, values), strict=True)))
    return records


_MARKED = st.lists(st.one_of(_HOSTILE, st.sampled_from(["START", "SEP", "END"])), max_size=30)


@given(_MARKED)
def test_parse_agrees_with_the_regex_reference_on_any_text(pieces: list[str]) -> None:
    """Same records, or the same error, on text with stray, missing and nested markers."""
    frame = RecordFormat(FIELDS)
    nonce = frame.nonce
    marks = {"START": "S" + nonce, "SEP": "F" + nonce, "END": "E" + nonce}
    text = "".join(marks.get(piece, piece) for piece in pieces)
    try:
        expected: list[dict[str, str]] | type[TmuxCommandFailed] = _parse_with_regex(frame, text)
    except TmuxCommandFailed:
        expected = TmuxCommandFailed
    if expected is TmuxCommandFailed:
        with pytest.raises(TmuxCommandFailed):
            frame.parse(text)
    else:
        assert frame.parse(text) == expected


def test_a_second_start_before_the_end_is_part_of_the_value() -> None:
    """A frame runs from a start marker to the first end marker, as the regex did."""
    frame = RecordFormat(("pane_id",))
    nonce = frame.nonce
    text = f"S{nonce}aS{nonce}bE{nonce}"
    assert frame.parse(text) == [{"pane_id": f"aS{nonce}b"}]


async def test_hostile_paths_and_names_round_trip_on_this_tmux(private_tmux: PrivateTmux) -> None:
    """Rule 2 on the tmux under test: binding and a framed read work on every print style.

    tmux 3.5a prints control characters as octal escapes: before the framing
    was printable, ``binding.establish`` could not read the server's identity
    there, and no record parsed at all.
    """
    leaf = "p\\q\\036\x01\x1b\x7f\r\t\nz\\ S F E é\udce9 \\ne"
    directory = os.path.join(private_tmux.directory, leaf)
    os.mkdir(directory)
    # tmux stores session names vis-escaped itself (no control character is
    # left, and a backslash is doubled), so bare tmux prints the stored name
    # the same on every version.
    ids = private_tmux.new_session("hostile", DEDICATED, "-c", directory, "sleep", "600")
    private_tmux.bare("rename-session", "-t", ids["session_id"], "--", "a\\b\x01$x\\036")
    stored = private_tmux.bare("list-sessions", "-F", "#{session_name}").stdout
    assert stored.count("\n") == 1

    client = _client(private_tmux)
    await binding.establish(client)
    frame = RecordFormat(("pane_id", "pane_current_path", "session_name"))
    out = await client.run(cmd("list-panes", "-a", F=frame.template))
    assert frame.parse(out.stdout) == [
        {
            "pane_id": ids["pane_id"],
            "pane_current_path": _read(directory),
            "session_name": stored.removesuffix("\n"),
        }
    ]
