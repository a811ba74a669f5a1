"""The confirmed redraw's pure decision and the shown command (issue 31.3).

No tmux: a screen in, a decision out (``tmuxmcp.runs.redraw``, Rules 1 and 2),
and the text the typed line and a redraw show (``runscript.shown``). The
screens are drawn by hand as tmux wraps a line: wide characters take two
cells, and one that does not fit a row's last cell moves to the next. The
caret test failed on main 4ec314a, whose ``shown`` passed an ESC through raw.
"""

from __future__ import annotations

import re

import msgspec

from tmuxmcp.panetext.scrollback import Mark
from tmuxmcp.runs import redraw, runscript
from tmuxmcp.runs.redraw import Screen
from tmuxmcp.tools.run import collect


def _mark(row: int, column: int, width: int) -> Mark:
    return Mark(row, "0" * 16, 0, width, False, "", column)


def _screen(rows: list[str], *, y: int, width: int = 10, height: int = 6, h: int = 0) -> Screen:
    rows = rows + [""] * (height - len(rows))
    return Screen(
        cursor_x=0,
        cursor_y=y,
        history_size=h,
        height=height,
        width=width,
        alternate=False,
        rows=rows,
    )


def test_a_screen_of_the_prompt_and_the_wrapped_line_is_redrawn() -> None:
    typed = "abcdefghijklmn\n"  # 2 + 14 cells: rows of 10 and 6
    screen = _screen(["old", "$ abcdefgh", "ijklmn"], y=3, h=5)
    plan = redraw.plan(
        screen, typed=typed, shell="bash", mark=_mark(6, 2, 10), prompt="$ ", shown="ab"
    )
    assert isinstance(plan, redraw.Redraw)
    assert (plan.up, plan.column, plan.answer()) == (2, 2, "2:2\n")
    assert (plan.prompt_row, plan.rows, plan.first, plan.history_size) == (6, 1, 7, 5)


def _plan(screen: Screen, shell: str, typed: str, *, width: int) -> redraw.Redraw | None:
    """The redraw ``plan`` makes, None for none (``_seen`` has what else it said)."""
    seen = _seen(screen, shell, typed, width=width)
    return seen if isinstance(seen, redraw.Redraw) else None


def _seen(
    screen: Screen, shell: str, typed: str, *, width: int, prompt: str = "$ ", column: int = 2
) -> redraw.Redraw | redraw.Before | None:
    return redraw.plan(
        screen,
        typed=typed,
        shell=shell,
        mark=_mark(0, column, width),
        prompt=prompt,
        shown="x",
    )


def test_zsh_leaves_a_blank_row_below_a_line_that_fills_its_last_row() -> None:
    typed = "abcdefgh\n"  # 2 + 8 cells: exactly one row
    rows = ["$ abcdefgh", ""]
    assert _plan(_screen(rows, y=1), "bash", typed, width=10) is not None
    assert _plan(_screen(rows, y=1), "zsh", typed, width=10) is None
    plan = _plan(_screen(rows, y=2), "zsh", typed, width=10)
    assert plan is not None and plan.up == 2


def test_a_wide_character_that_does_not_fit_moves_to_the_next_row() -> None:
    rows, x = redraw.wrapped(2, "abcdefgあい", 10)
    assert (rows, x) == (["abcdefg", "あい"], 4)
    assert redraw.rows_printed(2, "abcdefgあい", 10) == 2
    assert redraw.rows_printed(0, "abcdefghij", 10) == 1  # filled exactly: one row


def test_anything_printed_after_enter_is_no_redraw() -> None:
    good = ["$ echo hi"]
    typed = "echo hi\n"
    assert _plan(_screen(good, y=1, width=20), "bash", typed, width=20) is not None
    # bash's PS0, a zsh preexec, set -v: a line below the typed one, the cursor lower.
    for printed in (["$ echo hi", "ps0 line"], ["$ echo hi", "echo hi"]):
        assert _plan(_screen(printed, y=2, width=20), "bash", typed, width=20) is None
        # What was printed is known (Rule 4), and is no output.
        seen = _seen(_screen(printed, y=2, width=20), "bash", typed, width=20)
        assert seen == redraw.Before(rows=(printed[1],), partial="")
    # Something printed on the cursor's row, or below it.
    assert _plan(_screen([*good, "x"], y=1, width=20), "bash", typed, width=20) is None
    # The cursor not at the start of its row.
    moved = msgspec.structs.replace(_screen(good, y=1, width=20), cursor_x=3)
    assert _plan(moved, "bash", typed, width=20) is None
    # A transient prompt: the prompt row no longer the prompt as it was at typing.
    assert _plan(_screen(["> echo hi"], y=1, width=20), "zsh", typed, width=20) is None
    # The prompt row not where the mark holds it (the history moved).
    assert _plan(_screen(good, y=1, width=20, h=1), "bash", typed, width=20) is None


def test_a_typed_line_taller_than_the_pane_is_no_redraw() -> None:
    typed = "x" * 40 + "\n"
    rows = ["xxxxxxxx", "xxxxxxxxxx", "xxxxxxxxxx"]  # its first rows scrolled off
    plan = redraw.plan(
        _screen(rows, y=3, height=4, h=2),
        typed=typed,
        shell="bash",
        mark=_mark(0, 2, 10),
        prompt="$ ",
        shown="x",
    )
    assert plan is None


def test_the_shown_command_carries_no_control_character() -> None:
    """``run_command`` refuses control characters but tab and newline before this; the
    text shown is safe all the same, in caret notation as a line editor shows them."""
    shown = runscript.shown("echo \x1b[31mred\x7f\x9b2J")
    assert shown == "echo ^[[31mred^?M-^[2J"
    assert not re.search(r"[\x00-\x1f\x7f-\x9f]", shown)
    step = runscript.redraw_step(shown, "\\builtin")
    assert "'\\033[J%s\\n' 'echo ^[[31mred^?M-^[2J' >&7" in step
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", step)


def test_what_the_shell_printed_before_the_command_is_kept_up_to_the_cursor() -> None:
    """Rule 4: rows printed below the typed line before the command began, the last up
    to the cursor, blanks kept (capture-pane leaves them off)."""
    typed = "echo hi\n"
    # A prompt dash drew after a line typed before it: the cursor right of "# ".
    dash = msgspec.structs.replace(_screen(["echo hi", "#"], y=1, width=20), cursor_x=2)
    assert _seen(dash, "sh", typed, width=20, prompt="", column=0) == redraw.Before(
        rows=(), partial="# "
    )
    # PS0 of two lines, the second with no newline; a wide character takes two cells.
    ps0 = msgspec.structs.replace(_screen(["$ echo hi", "one", "あ>"], y=2, width=20), cursor_x=4)
    assert _seen(ps0, "bash", typed, width=20) == redraw.Before(rows=("one",), partial="あ> ")
    # Text right of the cursor, or below it: not what the shell printed first.
    right = msgspec.structs.replace(_screen(["$ echo hi", "ab  c"], y=1, width=20), cursor_x=2)
    assert _seen(right, "bash", typed, width=20) is None
    below = _screen(["$ echo hi", "ps0", "", "x"], y=2, width=20)
    assert _seen(below, "bash", typed, width=20) is None
    # The typed line not as echoed: nothing is known.
    other = _screen(["$ echo ho", "ps0"], y=2, width=20)
    assert _seen(other, "bash", typed, width=20) is None


def test_split_at_counts_cells() -> None:
    assert redraw.split_at("ab", 4) == ("ab  ", "")
    assert redraw.split_at("あいう", 4) == ("あい", "う")
    # A wide character across the cut goes right, the left padded to the cut.
    assert redraw.split_at("aあ", 2) == ("a ", "あ")


def test_a_scrolled_row_is_a_whole_line_only_when_surely_short_of_a_wrap() -> None:
    """``collect._scrolled_rows``: a row is taken as a whole line, not read again, only
    where no estimate of a character's width decides it."""
    short = collect._short_of_a_wrap
    assert short("x" * 58, 60) and not short("x" * 59, 60)
    # Not ASCII: as if every character took two cells.
    assert short("é" * 29, 60) and not short("é" * 30, 60)
    # A tab, one character over up to eight cells (as tmux 3.6 captures it).
    assert not short("a\tb", 60)
