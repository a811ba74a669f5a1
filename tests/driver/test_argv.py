"""``driver.argv``: the one renderer that applies tmux's argv-layer rules.

Research §2 (cmd-parse.y ``cmd_parse_from_arguments``, arguments.c
``args_parse``): an element ending in ``;`` ends the command; a positional
starting with ``-`` is read as flags unless ``--`` comes first. The pure tests
pin the rendering; the tmux tests show the rules hold against real tmux 3.3a.
"""

from __future__ import annotations

import os
import time

import msgspec
import pytest

from tests.support import PrivateTmux
from tmuxmcp.driver.argv import Command, cmd, escape_element, render

# ------------------------------------------------------------------------ pure


@pytest.mark.parametrize(
    ("element", "escaped"),
    [
        ("x;", "x\\;"),
        (";", "\\;"),
        ("x;;", "x;\\;"),  # only the last byte matters to tmux
        ("a;b", "a;b"),  # a ';' inside an element is not special
        ("a\\;", "a\\\\;"),  # tmux turns this back into 'a\;'
        ("", ""),
        ("plain", "plain"),
        ("{", "{"),
        ("x; ", "x; "),
    ],
)
def test_escape_element(element: str, escaped: str) -> None:
    assert escape_element(element) == escaped


def test_trailing_semicolons_are_escaped_in_option_values_and_positionals() -> None:
    command = cmd("send-keys", "-l", t="%0;", args=["abc;", "run-shell", "touch M;"])
    assert command.render() == [
        "send-keys",
        "-l",
        "-t",
        "%0\\;",
        "--",
        "abc\\;",
        "run-shell",
        "touch M\\;",
    ]


def test_double_dash_precedes_positionals() -> None:
    assert cmd("rename-window", t="@1", args=["-x"]).render() == [
        "rename-window",
        "-t",
        "@1",
        "--",
        "-x",
    ]


def test_no_double_dash_without_positionals() -> None:
    assert cmd("list-panes", "-a", F="#{pane_id}").render() == [
        "list-panes",
        "-a",
        "-F",
        "#{pane_id}",
    ]


def test_none_options_are_omitted_and_order_is_kept() -> None:
    command = cmd("split-window", "-d", "-h", t="%1", c=None, l=5)
    assert command.render() == ["split-window", "-d", "-h", "-t", "%1", "-l", "5"]


@pytest.mark.parametrize(
    ("value", "text"), [(0, "0"), (80, "80"), (-5, "-5"), (10**12, "1000000000000")]
)
def test_ints_are_rendered_in_decimal(value: int, text: str) -> None:
    assert cmd("resize-pane", t="%1", x=value).render()[-1] == text
    assert cmd("resize-pane", t="%1", args=[value]).render()[-1] == text


@pytest.mark.parametrize("value", [True, False, 1.5, b"bytes", None, ["x"]])
def test_values_other_than_str_and_int_are_rejected(value: object) -> None:
    with pytest.raises(TypeError):
        Command("display-message", args=(value,)).render()  # type: ignore[arg-type]
    if value is not None:  # None means "omit" for keyword options
        with pytest.raises(TypeError):
            cmd("resize-pane", x=value).render()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "flag", ["t", "-", "--", "-ab", "-1", "-;", "- ", "-é", "-t;", "--t", "-t\n", ""]
)
def test_malformed_flags_are_programming_errors(flag: str) -> None:
    with pytest.raises(ValueError, match="not a tmux flag"):
        Command("list-panes", flags=(flag,)).render()
    with pytest.raises(ValueError, match="not a tmux flag"):
        Command("list-panes", options=((flag, "x"),)).render()


def test_multi_letter_keyword_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="not a tmux flag"):
        cmd("list-panes", tt="%1").render()


@pytest.mark.parametrize(
    "name",
    ["", "Rename-window", "rename-window;", "run shell", "-t", "a--b", "x-", "list_panes", "ls1"],
)
def test_malformed_command_names_are_programming_errors(name: str) -> None:
    with pytest.raises(ValueError, match="not a tmux command name"):
        Command(name).render()


def test_render_joins_commands_with_a_lone_semicolon() -> None:
    first = cmd("display-message", "-p", args=["a;"])
    second = cmd("list-panes", t="%1")
    assert render([first, second]) == [
        "display-message",
        "-p",
        "--",
        "a\\;",
        ";",
        "list-panes",
        "-t",
        "%1",
    ]
    assert render([]) == []
    assert render([second]) == second.render()


def test_commands_are_immutable() -> None:
    command = cmd("list-panes", t="%1")
    with pytest.raises(AttributeError):
        command.name = "kill-server"  # type: ignore[misc]
    assert msgspec.structs.asdict(command)["options"] == (("-t", "%1"),)


# ----------------------------------------------------------------- real tmux


def _window_name(tmux: PrivateTmux, session: str) -> str:
    out = tmux.bare("list-windows", "-t", session, "-F", "#{window_name}").stdout
    assert out.endswith("\n")
    return out[:-1]


def test_unescaped_trailing_semicolon_runs_a_second_command(private_tmux: PrivateTmux) -> None:
    """Positive control (research §2, e3): raw ``x;`` ends the command and the shell runs."""
    ids = private_tmux.new_session("argv")
    marker = os.path.join(private_tmux.directory, "M")
    private_tmux.bare("rename-window", "-t", ids["window_id"], "x;", "run-shell", f"touch {marker}")
    assert _window_name(private_tmux, ids["session_id"]) == "x"
    assert os.path.exists(marker)  # run-shell without -b finishes before the client exits


def test_rendered_trailing_semicolon_does_not_split_the_command(private_tmux: PrivateTmux) -> None:
    """Rule 1: the rendered ``x;`` followed by injected words is one command, which tmux rejects."""
    ids = private_tmux.new_session("argv")
    sentinel = os.path.join(private_tmux.directory, "S")
    argv = cmd("rename-window", t=ids["window_id"], args=["x;", "run-shell", f"touch {sentinel}"])
    done = private_tmux.bare(*argv.render(), check=False)
    assert done.returncode != 0
    # tmux 3.3 and later say so; 3.2a prints the command's usage line instead.
    assert "too many arguments" in done.stderr or "usage: rename-window" in done.stderr
    assert not os.path.exists(sentinel)
    assert _window_name(private_tmux, ids["session_id"]) != "x"


def test_rendered_name_ending_in_semicolon_arrives_exactly(private_tmux: PrivateTmux) -> None:
    """Rule 1 end to end: the name is exactly ``x;`` and the next command runs once."""
    ids = private_tmux.new_session("argv")
    argv = render(
        [
            cmd("rename-window", t=ids["window_id"], args=["x;"]),
            cmd("display-message", "-p", args=["after;"]),
        ]
    )
    assert private_tmux.bare(*argv).stdout == "after;\n"
    assert _window_name(private_tmux, ids["session_id"]) == "x;"
    private_tmux.bare(*cmd("rename-window", t=ids["window_id"], args=["a\\;"]).render())
    assert _window_name(private_tmux, ids["session_id"]) == "a\\\\;"  # '\' is vis-doubled


def test_send_keys_words_after_an_escaped_semicolon_are_text(private_tmux: PrivateTmux) -> None:
    """Research e3 with escaping: ``abc;`` ``run-shell`` ``touch M`` are typed, not run."""
    ids = private_tmux.new_session("argv", "tmuxmcp", "cat")
    sentinel = os.path.join(private_tmux.directory, "S")
    argv = cmd(
        "send-keys", "-l", t=ids["pane_id"], args=["abc;", "run-shell", f" touch {sentinel}"]
    )
    private_tmux.bare(*argv.render())
    expected = f"abc;run-shell touch {sentinel}"
    deadline = time.monotonic() + 10
    screen = ""
    while expected not in screen and time.monotonic() < deadline:  # the tty echo is async
        screen = private_tmux.bare("capture-pane", "-p", "-t", ids["pane_id"]).stdout
    assert expected in screen
    assert not os.path.exists(sentinel)


def test_positional_starting_with_dash_is_not_a_flag(private_tmux: PrivateTmux) -> None:
    """Rule 2: ``--`` precedes positionals, so ``-a`` is a name, not a flag."""
    ids = private_tmux.new_session("argv")
    raw = private_tmux.bare("rename-window", "-t", ids["window_id"], "-a", check=False)
    assert raw.returncode != 0  # control: without '--' tmux reads a flag
    # "unknown flag -a" from tmux 3.3; 3.2a's getopt says "unknown option -- a".
    assert "unknown flag" in raw.stderr or "unknown option -- a" in raw.stderr
    for name in ("-a", "-t", "--", "-", "-x;"):
        private_tmux.bare(*cmd("rename-window", t=ids["window_id"], args=[name]).render())
        assert _window_name(private_tmux, ids["session_id"]) == name


def test_option_value_starting_with_dash_is_taken_verbatim(private_tmux: PrivateTmux) -> None:
    """Research §2: a flag's value is taken verbatim even if it starts with ``-``."""
    private_tmux.new_session("argv")
    argv = cmd("display-message", "-p", F="-t;").render()
    assert private_tmux.bare(*argv).stdout == "-t;\n"
