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
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.driver.socket import select_socket
from tmuxmcp.errors import TmuxCommandFailed

FIELDS = ("pane_id", "pane_title", "pane_current_path")


def _as_tmux_prints(frame: RecordFormat, values: dict[str, str]) -> str:
    """Expand the template the way tmux would, substituting each variable once."""
    return re.sub(r"#\{([a-z_]+)\}", lambda m: values[m.group(1)], frame.template)


# ------------------------------------------------------------------------ pure


def test_template_uses_only_the_given_variables() -> None:
    frame = RecordFormat(FIELDS)
    assert frame.fields == FIELDS
    assert re.findall(r"#\{([^}]*)\}", frame.template) == list(FIELDS)
    assert frame.template.startswith("\x1e")
    assert frame.template.count("\x1f") == len(FIELDS) - 1
    # No other '#' reaches the format: nothing else in the template is expanded.
    assert frame.template.count("#") == len(FIELDS)


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


@pytest.mark.parametrize(
    "hostile",
    [
        "",
        "\n",
        "line1\nline2",
        "\x1e",
        "\x1f",
        "\x1d",
        "\x1e\x1f\x1d",
        "\x1fdeadbeefdeadbeef",  # a separator with a guessed nonce
        "\x1d0000000000000000\n\x1e0000000000000000",
        "%end 1 2 1",
        "#{pane_id}",
        "\t:,;'\"\\",
        "é☺😀",
    ],
)
def test_hostile_field_values_parse_exactly(hostile: str) -> None:
    frame = RecordFormat(FIELDS)
    values = {"pane_id": "%1", "pane_title": hostile, "pane_current_path": hostile + "/p"}
    assert frame.parse(_as_tmux_prints(frame, values)) == [values]


def test_text_outside_frames_is_ignored() -> None:
    frame = RecordFormat(FIELDS)
    one = dict(zip(FIELDS, ("%1", "a", "/"), strict=True))
    two = dict(zip(FIELDS, ("%2", "b", "/tmp"), strict=True))
    text = (
        "HOOK OUTPUT\n"
        + _as_tmux_prints(frame, one)
        + "\n\x1f\x1d junk between \x1e\n"
        + _as_tmux_prints(frame, two)
        + "\ntrailing hook output\n"
    )
    assert frame.parse(text) == [one, two]
    assert frame.parse("") == []
    assert frame.parse("no frames at all\n") == []


@pytest.mark.parametrize("count", [1, 2, 4])
def test_a_frame_with_the_wrong_field_count_is_an_error(count: int) -> None:
    frame = RecordFormat(FIELDS)
    nonce = frame.template[1:17]
    assert re.fullmatch(r"[0-9a-f]{16}", nonce)
    body = f"\x1f{nonce}".join(["v"] * count)
    with pytest.raises(TmuxCommandFailed) as info:
        frame.parse(f"\x1e{nonce}{body}\x1d{nonce}")
    assert info.value.reference == "tmux-command-failed"


def test_an_unterminated_frame_is_ignored_not_misread() -> None:
    frame = RecordFormat(FIELDS)
    whole = _as_tmux_prints(frame, dict.fromkeys(FIELDS, "v"))
    assert frame.parse(whole[:-3]) == []


_HOSTILE = st.text(st.sampled_from(list("\x1e\x1f\x1d\n\t abc0123456789def%#{}é")), max_size=40)


@given(st.lists(st.tuples(_HOSTILE, _HOSTILE, _HOSTILE), max_size=5), _HOSTILE)
def test_parse_round_trips_any_values(rows: list[tuple[str, str, str]], noise: str) -> None:
    frame = RecordFormat(FIELDS)
    records = [dict(zip(FIELDS, row, strict=True)) for row in rows]
    text = noise.join(_as_tmux_prints(frame, record) for record in records)
    assert frame.parse("\n" + text + "\n") == records


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
    nonce = frame.template[1:17]
    start, sep, end = "\x1e" + nonce, "\x1f" + nonce, "\x1d" + nonce
    records = []
    for match in re.finditer(re.escape(start) + "(.*?)" + re.escape(end), text, re.S):
        values = match.group(1).split(sep)
        if len(values) != len(frame.fields):
            raise TmuxCommandFailed("tmux returned a record tmuxmcp could not parse")
        records.append(dict(zip(frame.fields, values, strict=True)))
    return records


_MARKED = st.lists(st.one_of(_HOSTILE, st.sampled_from(["START", "SEP", "END"])), max_size=30)


@given(_MARKED)
def test_parse_agrees_with_the_regex_reference_on_any_text(pieces: list[str]) -> None:
    """Same records, or the same error, on text with stray, missing and nested markers."""
    frame = RecordFormat(FIELDS)
    nonce = frame.template[1:17]
    marks = {"START": "\x1e" + nonce, "SEP": "\x1f" + nonce, "END": "\x1d" + nonce}
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
    nonce = frame.template[1:17]
    text = f"\x1e{nonce}a\x1e{nonce}b\x1d{nonce}"
    assert frame.parse(text) == [{"pane_id": f"a\x1e{nonce}b"}]
