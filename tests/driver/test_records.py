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


PRINT_STYLES = ("raw", "3.4", "3.5a")
"""How tmux prints a command's output: as it is (3.3a and earlier, 3.6 and
later), or escaped (3.4, 3.5a; 3.4 also escapes some dollars)."""


def _vis(text: str, *, dollars: bool = False) -> str:
    """What tmux 3.4-3.5a's print does (utf8_stravisx, VIS_OCTAL|VIS_CSTYLE|VIS_NOSLASH).

    Written from tmux's compat/vis.c: printable ASCII, space, tab, newline,
    backslash and valid UTF-8 pass; the other C0 controls become C-style or
    octal escapes; DEL and bytes that are not valid UTF-8 become octal.
    ``dollars``: as 3.4's utf8_strvis, which also writes a backslash before a
    ``$`` that a letter, ``_`` or ``{`` follows (3.5 does so only with VIS_DQ).
    """
    out = []
    for index, char in enumerate(text):
        following = text[index + 1 : index + 2]
        if (
            dollars
            and char == "$"
            and ((following.isascii() and following.isalpha()) or following in ("_", "{"))
        ):
            out.append("\\$")
        elif char in _VIS_CSTYLE:
            out.append("\\" + _VIS_CSTYLE[char])
        elif (ord(char) < 0x20 and char not in "\t\n") or char == "\x7f":
            out.append(f"\\{ord(char):03o}")
        elif 0xDC80 <= ord(char) <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
            out.append(f"\\{ord(char) - 0xDC00:03o}")
        else:
            out.append(char)
    return "".join(out)


def _as_tmux_prints(frame: RecordFormat, values: dict[str, str], style: str = "raw") -> str:
    """Expand the template the way tmux would: each variable once, backslashes doubled.

    Then print the result in ``style`` (one of ``PRINT_STYLES``).
    """
    expanded = re.sub(
        r"#\{s/\\\\/\\\\\\\\/:([a-z_]+)\}",
        lambda m: values[m.group(1)].replace("\\", "\\\\"),
        frame.template,
    )
    text = expanded if style == "raw" else _vis(expanded, dollars=style == "3.4")
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
    "$HOME ${x} $_ $1 $ $$",  # 3.4 prints the first three dollars as \\$
    "\\$HOME",
    "a$",
]


@pytest.mark.parametrize("style", PRINT_STYLES)
@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_field_values_parse_exactly(hostile: str, style: str) -> None:
    frame = RecordFormat(FIELDS)
    values = {"pane_id": "%1", "pane_title": hostile, "pane_current_path": hostile + "/p"}
    expected = {k: _read(v) for k, v in values.items()}
    assert frame.parse(_as_tmux_prints(frame, values, style)) == [expected]


@pytest.mark.parametrize(
    ("printed", "value"),
    [
        ("a\\\\b", "a\\b"),
        ("\\036", "\x1e"),
        ("\\\\036", "\\036"),
        ("\\n\\r\\t\\b\\a\\v\\f\\s\\0", "\n\r\t\b\a\v\f \0"),
        ("\\303\\251", "é"),  # octal bytes are reassembled before UTF-8 decoding
        ("\\351x", "\ufffdx"),
        ("\\$HOME \\${x} $1", "$HOME ${x} $1"),  # tmux 3.4
        ("\\\\\\$HOME", "\\$HOME"),  # a backslash of the value, then 3.4's \\$
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
    st.sampled_from(list("\x1e\x1f\x1d\x01\x7f\r\n\t\\ abc0123456789defSFE%#{}$_é\udce9")),
    max_size=40,
)


@given(
    st.lists(st.tuples(_HOSTILE, _HOSTILE, _HOSTILE), max_size=5),
    _HOSTILE,
    st.sampled_from(PRINT_STYLES),
)
def test_parse_round_trips_any_values(
    rows: list[tuple[str, str, str]], noise: str, style: str
) -> None:
    frame = RecordFormat(FIELDS)
    records = [dict(zip(FIELDS, row, strict=True)) for row in rows]
    text = _read(noise).join(_as_tmux_prints(frame, record, style) for record in records)
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


def _wait_for_title_ending(tmux: PrivateTmux, pane: str, end: str) -> None:
    deadline = time.monotonic() + 10
    seen = None
    while time.monotonic() < deadline:
        seen = tmux.bare("list-panes", "-t", pane, "-F", "#{pane_title}").stdout
        if seen.endswith(end + "\n"):
            return
    raise AssertionError(f"pane title never ended in {end!r}; last {seen!r}")


async def test_program_set_titles_parse_exactly_via_list_panes(private_tmux: PrivateTmux) -> None:
    """A pane program sets a hostile title with OSC 2; list-panes still parses it exactly.

    What tmux stores is the title as sent up to 3.6; 3.7 stores it through
    ``vis`` (a backslash doubled) and turns ``#(`` into ``_(``. Either way
    the parsed title must be exactly what tmux holds, compared by tmux itself,
    because bare tmux 3.4 prints ``$HOME`` as ``\\$HOME`` (found on 3.4: the
    parse failed on that escape).
    """
    sentinel = os.path.join(private_tmux.directory, "S")
    tricky = f"t#{{pane_id}} #(touch {sentinel});\"'$HOME \\ ☺ %H %% , : . #[fg=red] ## end;"
    # Bare tmux needs the argv-layer escape too: the value ends in ';'.
    env = escape_element(f"TITLE={tricky}")
    first = private_tmux.new_session("rec", DEDICATED, "-e", env, "sh", "-c", _SET_TITLE)
    _wait_for_title_ending(private_tmux, first["pane_id"], "## end;")
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
    title = records[0]["pane_title"]
    assert private_tmux.holds(first["pane_id"], "pane_title", title)
    assert title in (tricky, tricky.replace("\\", "\\\\").replace("#(", "_("))  # <= 3.6, 3.7
    assert records == [
        {"pane_id": first["pane_id"], "pane_title": title, "session_id": first["session_id"]},
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
    # left, and a backslash is doubled; up to 3.4 "$x" becomes "\\$x" too).
    # Bare tmux 3.4 prints that "$x" as "\\$x" again, so tmux itself
    # compares the name read with the one it holds.
    ids = private_tmux.new_session("hostile", DEDICATED, "-c", directory, "sleep", "600")
    renamed = private_tmux.bare(
        "rename-session", "-t", ids["session_id"], "--", "a\\b\x01$x\\036", check=False
    )
    if renamed.returncode != 0:  # tmux 3.7 refuses a control character in a name
        assert "invalid session name" in renamed.stderr
        private_tmux.bare("rename-session", "-t", ids["session_id"], "--", "a\\b$x\\036")
    stored = private_tmux.bare("list-sessions", "-F", "#{session_name}").stdout
    assert stored.count("\n") == 1

    client = _client(private_tmux)
    await binding.establish(client)
    frame = RecordFormat(("pane_id", "pane_current_path", "session_name"))
    out = await client.run(cmd("list-panes", "-a", F=frame.template))
    records = frame.parse(out.stdout)
    name = records[0]["session_name"] if records else ""
    assert private_tmux.holds(ids["session_id"], "session_name", name)
    # 3.5 and 3.6, up to 3.4, 3.7
    assert name in ("a\\\\b\\001$x\\\\036", "a\\\\b\\001\\$x\\\\036", "a\\\\b$x\\\\036")
    assert records == [
        {"pane_id": ids["pane_id"], "pane_current_path": _read(directory), "session_name": name}
    ]
