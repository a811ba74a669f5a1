"""``sinks.format``: the tmux-format (F) and strftime+format (FT) encoders.

Rule (research/tmux-sinks.md §0 "The escaping helpers", format.c
``format_expand1``): double every run of ``#`` unless it is followed by ``[``;
for FT sinks also double ``%``. The expansion of the encoded value must be the
value itself, so ``#(...)`` never runs and ``#{...}`` never expands (ADR 0001,
CM-5: sinks are measured against tmux, so the property tests drive real tmux).
"""

from __future__ import annotations

import os
import re
import string
import subprocess

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.support import PrivateTmux
from tmuxmcp.driver.argv import cmd
from tmuxmcp.errors import UnsafeValue
from tmuxmcp.sinks.format import (
    encode_format,
    encode_time_format,
    escape_format,
    escape_time_format,
)

# --------------------------------------------------------------------------- units


@pytest.mark.parametrize(
    ("value", "escaped"),
    [
        ("", ""),
        ("plain text", "plain text"),
        ("#[fg=red]", "#[fg=red]"),  # style markup is copied through: leave it alone
        ("##[", "##["),  # any run of '#' before '[' is copied verbatim (e2)
        ("###[x", "###[x"),
        ("#", "##"),  # trailing '#': doubled (3.7+ drops a lone one)
        ("trail#", "trail##"),
        ("##", "####"),
        ("###", "######"),
        ("#{pane_id}", "##{pane_id}"),
        ("#(touch x)", "##(touch x)"),
        ("##(touch x)", "####(touch x)"),
        ("#S #D #h", "##S ##D ##h"),  # single-letter aliases
        ("#,#}", "##,##}"),
        ("#\n", "##\n"),  # a newline after '#' is an ordinary following char
        ("%H:%M", "%H:%M"),  # plain F sinks do not run strftime
        ("a#[b#{c}", "a#[b##{c}"),
        ("#é", "##é"),
    ],
)
def test_escape_format_cases(value: str, escaped: str) -> None:
    assert escape_format(value) == escaped


@pytest.mark.parametrize(
    ("value", "escaped"),
    [
        ("%", "%%"),
        ("%H:%M %%", "%%H:%%M %%%%"),
        ("100%", "100%%"),
        ("#{pane_id}%", "##{pane_id}%%"),
        ("#[fg=red]%d", "#[fg=red]%%d"),
        ("#%", "##%%"),
        ("no percent", "no percent"),
    ],
)
def test_escape_time_format_cases(value: str, escaped: str) -> None:
    assert escape_time_format(value) == escaped


def test_naive_hash_doubling_would_be_wrong_for_style_markup() -> None:
    """Research §0: ``s.replace('#', '##')`` turns ``#[fg=red]`` into ``##[fg=red]``."""
    assert escape_format("#[fg=red]") != "#[fg=red]".replace("#", "##")


@pytest.mark.parametrize("encode", [encode_format, encode_time_format])
@pytest.mark.parametrize("value", ["a\x00b", "\udc80"])
def test_encoders_reject_what_argv_cannot_carry(encode: object, value: str) -> None:
    assert callable(encode)
    with pytest.raises(UnsafeValue, match="`title`"):
        encode(value, "title")


def test_encoders_apply_the_escapes() -> None:
    assert encode_format("#(x)%", "p") == "##(x)%"
    assert encode_time_format("#(x)%", "p") == "##(x)%%"


# ------------------------------------------------------- a model of format_expand1


def _model_expand(text: str) -> str:
    """tmux 3.3a ``format_expand1`` restricted to ``#`` handling.

    Raises if anything in ``text`` would be expanded (``#{``, ``#(``, an
    alias letter, or a version-dependent trailing ``#``).
    """
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] != "#":
            out.append(text[i])
            i += 1
            continue
        following = text[i + 1] if i + 1 < len(text) else ""
        if following == "#":
            j = i + 2
            while j < len(text) and text[j] == "#":
                j += 1
            if j < len(text) and text[j] == "[":
                out.append(text[i : j + 1])  # '##...#[' copied verbatim
                i = j + 1
            else:
                out.append("#")  # '##' -> '#'
                i += 2
            continue
        if following in (",", "}"):
            out.append(following)
            i += 2
            continue
        if following == "[":
            out.append("#[")
            i += 2
            continue
        raise AssertionError(f"would be expanded by tmux: {text[i : i + 2]!r}")
    return "".join(out)


_HASHY = st.text(alphabet="#[]{}(),%aSDh \n", max_size=30)


@given(st.one_of(_HASHY, st.text(max_size=30)))
def test_model_expansion_of_escape_format_is_identity(value: str) -> None:
    assert _model_expand(escape_format(value)) == value


@given(_HASHY)
def test_escape_time_format_doubles_every_percent_and_nothing_else(value: str) -> None:
    escaped = escape_time_format(value)
    assert escaped.count("%") == 2 * value.count("%")
    assert escaped.replace("%%", "%") == escape_format(value)


@given(st.text(alphabet=string.printable.replace("#", ""), max_size=30))
def test_text_without_hash_is_unchanged(value: str) -> None:
    assert escape_format(value) == value


# ------------------------------------------------------------ against real tmux

_DANGEROUS = "#{}()[],%;:.'\"$\\"
_WORDS = _DANGEROUS + string.ascii_letters + " " + "é☺中ß😀"
_SENT = "@SENTINEL@"
_DOLLAR_WORD = re.compile(r"\$(?=[A-Za-z_{])")
_TOKENS = [
    f"#(touch {_SENT})",
    f"##(touch {_SENT})",
    f"#{{E:#(touch {_SENT})}}",
    f"#{{s/a/#(touch {_SENT})/:window_name}}",
    "#{pane_id}",
    "#{?1,a,b}",
    "#{l:x}",
    "#[fg=red]",
    "##[",
    "###[",
    "#",
    "##",
    "#S",
    "#D",
    "#h",
    "#,",
    "#}",
    "%H",
    "%%",
    "%",
    ";",
    "\\;",
    "-t",
    "--",
]


def _strings(alphabet: str) -> st.SearchStrategy[str]:
    piece = st.one_of(st.sampled_from(_TOKENS), st.text(alphabet, max_size=5))
    return st.lists(piece, max_size=7).map("".join)


def _prove_jobs_run(tmux: PrivateTmux, control: str) -> None:
    """Positive control: an unescaped ``#()`` does run a job on this server.

    The trailing run-shell keeps the tmux client alive (bounded) until the job
    has created its file, since a client's jobs are killed when it exits
    (research §0 "#() semantics"). Any job started earlier has had at least
    as long to run, so the sentinel checks after this are meaningful.
    """
    wait = f"i=0; while [ ! -e {control} ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done"
    tmux.bare("display-message", "-p", f"#(touch {control})", ";", "run-shell", wait)
    assert os.path.exists(control), "the #() positive control did not run"


def _tmux_version() -> tuple[int, int]:
    out = subprocess.run(["tmux", "-V"], capture_output=True, text=True, check=True).stdout
    found = re.search(r"(\d+)\.(\d+)", out)
    assert found, out
    return int(found.group(1)), int(found.group(2))


def _tmux_escapes_dollar_words() -> bool:
    """True before tmux 3.5, whose ``utf8_strvis`` escapes ``$word`` only with ``VIS_DQ``.

    tmux source, utf8.c: 3.3a and 3.4 test ``src[0] == '$'`` for every
    caller; 3.5 added ``(flag & VIS_DQ) &&``, which ``window_set_name`` does
    not pass.
    """
    return _tmux_version() < (3, 5)


def _as_printed(text: str, *, dollar_words: bool) -> str:
    """What bare tmux prints for ``text`` (no control characters in it).

    tmux 3.4 alone prints command output through ``utf8_strvis`` (3.3a and
    3.6 print it raw; 3.5a's needs ``VIS_DQ`` for dollars), so with
    ``dollar_words`` (tmux 3.4) a ``$`` before a letter, ``_`` or ``{`` is
    printed as ``\\$``; found on 3.4, where ``$A`` was printed ``\\$A``.
    """
    return _DOLLAR_WORD.sub(r"\\$", text) if dollar_words else text


def _tmux_prints_dollar_words() -> bool:
    """True on tmux 3.4 (see ``_as_printed``)."""
    return _tmux_version() == (3, 4)


def _window_name_as_tmux_shows_it(value: str, *, dollar_words: bool) -> str:
    """What tmux stores for a window name (window.c ``window_set_name``).

    ``utf8_stravis`` doubles a backslash and, with ``dollar_words`` (tmux
    before 3.5; measured here, not in the research notes, which list only
    ``\\``, ``\\t`` and ``\\n``), puts a backslash before a ``$`` that is
    followed by an ASCII letter, ``_`` or ``{``. Control characters are
    excluded from the alphabet.
    """
    doubled = value.replace("\\", "\\\\")
    return _DOLLAR_WORD.sub(r"\\$", doubled) if dollar_words else doubled


def test_rename_window_shows_exactly_the_escaped_name(private_tmux: PrivateTmux) -> None:
    """F sink ``rename-window`` (research §0 table): escape_format round-trips; no job runs."""
    ids = private_tmux.new_session("fmt")
    window, session = ids["window_id"], ids["session_id"]
    sentinel = os.path.join(private_tmux.directory, "sentinel")
    dollar_words = _tmux_escapes_dollar_words()
    printed_dollars = _tmux_prints_dollar_words()

    @settings(max_examples=80, deadline=None)
    @given(_strings(_WORDS))
    @example("$A")
    def check(raw: str) -> None:
        name = raw.replace(_SENT, sentinel)
        argv = cmd("rename-window", t=window, args=[escape_format(name)]).render()
        private_tmux.bare(*argv)
        shown = private_tmux.bare("list-windows", "-t", session, "-F", "#{window_name}").stdout
        stored = _window_name_as_tmux_shows_it(name, dollar_words=dollar_words)
        assert shown == _as_printed(stored, dollar_words=printed_dollars) + "\n"
        assert not os.path.exists(sentinel)

    check()
    _prove_jobs_run(private_tmux, os.path.join(private_tmux.directory, "control"))
    assert not os.path.exists(sentinel)


def test_display_message_prints_exactly_the_time_escaped_text(private_tmux: PrivateTmux) -> None:
    """FT sink ``display-message`` (research §0 table): strftime, then F; no job runs."""
    private_tmux.new_session("fmt")
    sentinel = os.path.join(private_tmux.directory, "sentinel")
    printed_dollars = _tmux_prints_dollar_words()

    @settings(max_examples=80, deadline=None)
    @given(_strings(_WORDS + "\t\n"))
    @example("$A")
    def check(raw: str) -> None:
        text = raw.replace(_SENT, sentinel)
        argv = cmd("display-message", "-p", args=[escape_time_format(text)]).render()
        assert (
            private_tmux.bare(*argv).stdout
            == _as_printed(text, dollar_words=printed_dollars) + "\n"
        )
        assert not os.path.exists(sentinel)

    check()
    _prove_jobs_run(private_tmux, os.path.join(private_tmux.directory, "control"))
    assert not os.path.exists(sentinel)


def test_unescaped_values_are_expanded_so_the_property_tests_can_fail(
    private_tmux: PrivateTmux,
) -> None:
    """Negative control: without the encoder tmux expands ``#{}`` and ``%H``."""
    ids = private_tmux.new_session("fmt")
    raw = "#{pane_id}"
    assert private_tmux.bare("display-message", "-p", "--", raw).stdout == ids["pane_id"] + "\n"
    assert private_tmux.bare("display-message", "-p", "--", "%%").stdout == "%\n"
    private_tmux.bare("rename-window", "-t", ids["window_id"], "--", "##[x")
    shown = private_tmux.bare("list-windows", "-t", ids["session_id"], "-F", "#{window_name}")
    assert shown.stdout == "##[x\n"  # and a naive '#'-doubling would have shown '####[x'
