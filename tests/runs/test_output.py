"""The run wing's pure output module: where the output starts, what is kept, the counts.

No tmux: rows in, text out (``tmuxmcp.runs.output``, Rules 1-3). The
expected texts and counts are worked out by hand in each test from the
budget rule (a line costs its length as a JSON string; the head keeps a
quarter of the budget, the tail the rest).
"""

from __future__ import annotations

from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from tmuxmcp.panetext.inline import line_cost
from tmuxmcp.runs import output
from tmuxmcp.runs.output import Outcome, TypedLine


def _outcome(
    head: list[str],
    tail: list[str] | None = None,
    *,
    omitted: int = 0,
    lost: int | None = 0,
    start_lost: bool = False,
    gap: str | None = None,
) -> Outcome:
    return Outcome(
        exit_status=0,
        head=head,
        tail=tail or [],
        lines_omitted=omitted,
        lines_lost=lost,
        start_lost=start_lost,
        gap_reason=gap,
    )


# -- Rules 2 and 3: what is kept, and the counts ------------------------------------------


def test_an_output_within_the_budget_is_kept_whole_and_counted() -> None:
    shaped = output.shape(_outcome(["one", "two"]), budget=100)
    assert shaped.text == "one\ntwo"
    assert (shaped.output_lines, shaped.lines_omitted) == (2, 0)
    assert shaped.output_truncated is False
    assert shaped.lines_lost == 0


def test_a_long_output_keeps_a_quarter_of_the_budget_for_its_head_the_rest_for_its_tail() -> None:
    # Twenty lines "00".."19" cost 4 each ('"00"'). Budget 48: the head may use
    # 12, so it keeps 00, 01, 02; the tail takes lines from the end while the
    # total stays within 48: nine more (19 back to 11). Eight lines between.
    lines = [f"{n:02d}" for n in range(20)]
    shaped = output.shape(_outcome(lines), budget=48)
    kept_tail = "\n".join(f"{n:02d}" for n in range(11, 20))
    assert shaped.text == "00\n01\n02\n[... 8 lines omitted ...]\n" + kept_tail
    assert (shaped.output_lines, shaped.lines_omitted) == (20, 8)
    assert shaped.output_truncated is True


def test_the_budget_counts_a_line_as_json_encodes_it() -> None:
    """A control character costs 6 (``\\u001b``), so 'ab<ESC>' costs 2 + 2 + 6 = 10."""
    line = "ab\x1b"
    assert output.shape(_outcome(["x", line]), budget=13).text == "x\nab\x1b"
    # 12 is too little for both (3 + 10 = 13): the head (budget 3) keeps "x",
    # and the rest goes.
    shaped = output.shape(_outcome(["x", line]), budget=12)
    assert shaped.text == "x\n[... 1 lines omitted ...]"
    assert shaped.lines_omitted == 1


def test_a_single_line_over_the_budget_keeps_its_end() -> None:
    # 'b<ESC>' costs 2 + 1 + 6 = 9, 'ab<ESC>' 10.
    assert output.shape(_outcome(["ab\x1b"]), budget=9).text == "b\x1b"


def test_a_line_over_the_budget_keeps_its_start_and_end_with_a_marker_between() -> None:
    """Issue 22.4: `echo short; head -c 100000 /dev/zero | tr '\\0' x` kept `short` and
    "1 lines omitted". Budget 400: the head (100) keeps "short" (7); the long line
    (1,002) fits neither end, so it is cut within the 393 left. The marker is costed
    as if all 1,000 characters were cut: '[... 1,000 of this line's 1,000 characters
    cut ...]' is 51 characters, 53 as JSON, leaving 340: a quarter (85, so 83 x's)
    for its start, the other 255 (253 x's) for its end; 1,000 - 83 - 253 = 664 cut."""
    shaped = output.shape(_outcome(["short", "x" * 1000]), budget=400)
    assert shaped.text == (
        "short\n" + "x" * 83 + "\n[... 664 of this line's 1,000 characters cut ...]\n" + "x" * 253
    )
    assert (shaped.output_lines, shaped.lines_omitted) == (2, 0)
    assert shaped.output_truncated is True


def test_a_long_first_line_is_cut_too_and_the_lines_after_it_kept() -> None:
    # Budget 400: "end" (5) goes to the tail; 395 are left for the long line: 342
    # after the marker, 85 (83 x's) for its start, 257 (255 x's) for its end.
    shaped = output.shape(_outcome(["x" * 1000, "end"]), budget=400)
    assert shaped.text == (
        "x" * 83 + "\n[... 662 of this line's 1,000 characters cut ...]\n" + "x" * 255 + "\nend"
    )
    assert shaped.output_truncated is True


def test_lines_of_ordinary_length_are_never_cut() -> None:
    # Forty lines of 60 characters (62 each) in a budget of 1,000: whole lines only.
    lines = [f"{n:02d}" + "y" * 58 for n in range(40)]
    shaped = output.shape(_outcome(lines), budget=1000)
    assert "characters cut" not in shaped.text
    assert all(line in lines or "lines omitted" in line for line in shaped.text.split("\n"))


def test_rows_unread_between_head_and_tail_are_counted_as_lines() -> None:
    shaped = output.shape(_outcome(["a"], ["z"], omitted=1000), budget=100)
    assert shaped.text == "a\n[... 1,000 lines omitted ...]\nz"
    assert (shaped.output_lines, shaped.lines_omitted) == (1002, 1000)
    assert shaped.output_truncated is True


def test_a_start_lost_to_the_history_limit_says_how_many_lines_at_least() -> None:
    shaped = output.shape(_outcome(["tail"], lost=37, start_lost=True), budget=100)
    assert shaped.text == (
        "[... at least 37 earlier lines scrolled out of the pane's history ...]\ntail"
    )
    assert shaped.lines_lost == 37
    assert shaped.output_truncated is True


def test_a_start_lost_in_unknown_measure_says_so_and_counts_none() -> None:
    shaped = output.shape(_outcome(["tail"], lost=None, start_lost=True), budget=100)
    assert shaped.text.startswith("[... earlier lines scrolled out of the pane's history ...]")
    assert shaped.lines_lost is None


def test_a_start_gone_to_a_clear_says_why() -> None:
    shaped = output.shape(
        _outcome(["x"], lost=None, start_lost=True, gap="history-cleared"), budget=100
    )
    assert shaped.text.splitlines()[0] == (
        "[... earlier output is gone: the screen and its history were cleared "
        "(clear, tmux clear-history) ...]"
    )


# -- Rule 1: where the output starts ----------------------------------------------------------


def test_the_typed_line_is_found_across_joined_lines() -> None:
    """A line editor can break the typed line over several joined lines."""
    typed = " { : 'echo hi'; . /tmp/r1; }\n"
    lines = ["$ ", " { : 'ec", "ho hi'; . /tm", "p/r1; }", "hi"]
    assert output.typed_index(lines, typed) == 3
    assert output.typed_index(["nothing", "here"], typed) is None


def test_output_glued_to_a_typed_line_that_filled_its_row_is_output() -> None:
    typed = "echo hi"
    # "$ echo hi" is 9 cells: on a 9-column pane the output's first character wrapped.
    assert output.glued("$ echo hihi", typed, 9) == ["hi"]
    # On a 10-column pane the typed line ended mid-row: text right of it is not output.
    assert output.glued("$ echo hi  RPROMPT", typed, 10) == []


def test_zsh_leaves_a_blank_row_below_a_typed_line_that_filled_its_row() -> None:
    assert output.editor_rows("$ echo hi", ["", "hi"], "zsh", 9) == 1
    assert output.editor_rows("$ echo hi", ["", "hi"], "bash", 9) == 0
    assert output.editor_rows("$ echo hi", ["", "hi"], "zsh", 10) == 0


def test_output_of_a_line_typed_with_echo_off_starts_right_of_the_prompt() -> None:
    typed = TypedLine(text=" { : 'x'; . /r; }\n", shell="dash", column=2, width=40)
    assert output.after_prompt("$ the output", typed, 40) == ["the output"]
    # Rewrapped since (another width): the column says nothing any more.
    assert output.after_prompt("$ the output", typed, 41) == []
    # The typed line after all (echoed): not output.
    assert output.after_prompt("$ { : 'x'", typed, 40) == []


def test_one_capture_gives_the_rows_between_the_typed_line_and_the_cursor() -> None:
    typed = TypedLine(text="echo a; echo b\n", shell="bash", column=2, width=80)
    joined = ["old", "$ echo a; echo b", "a", "b", "$ ", ""]
    assert output.below_typed_line(joined, 1, 2, typed, 80) == ["a", "b"]


def test_rows_read_from_the_prompt_row_lose_the_prompt_and_the_typed_line() -> None:
    typed = TypedLine(text="seq 3\n", shell="bash", column=2, width=80)
    assert output.after_start(["$ seq 3", "1", "2", "3"], [], 0, typed, 80) == (
        [],
        ["1", "2", "3"],
    )
    # With rows unread between head and tail, the tail is left as read.
    assert output.after_start(["$ seq 3", "1"], ["9"], 7, typed, 80) == (["1"], ["9"])


def test_the_copy_of_the_typed_line_that_set_v_prints_is_dropped() -> None:
    typed = " { : 'true'; . /r; }\n"
    assert output.without_verbose_echo([" { : 'true'; . /r; }", "x"], [], typed) == (["x"], [])
    assert output.without_verbose_echo([], ["{ : 'true'; . /r; }", "y"], typed) == ([], ["y"])
    assert output.without_verbose_echo(["x"], ["y"], typed) == (["x"], ["y"])


def test_text_written_over_the_prompt_row_is_the_commands_first_line() -> None:
    """Issue 22.7: `tput cup 0 0; echo TOP` writes TOP over "bas" of the prompt."""
    typed = " { : 'echo first'; . /r1; }"
    row = "TOPh-5.2# " + typed
    assert output.written_over(row, typed, "bash-5.2# ") == ["TOP"]
    # The prompt as it was drawn: nothing was written over it.
    assert output.written_over("bash-5.2# " + typed, typed, "bash-5.2# ") == []
    # A character written equal to the one under it cannot be told from the prompt.
    assert output.written_over("1ash-5.2# " + typed, typed, "bash-5.2# ") == ["1"]
    # Not the prompt row tmuxmcp saw (a redrawn, longer prompt): nothing is guessed.
    assert output.written_over("[user] bash-5.2# " + typed, typed, "bash-5.2# ") == []


def test_text_written_over_a_redrawn_row_is_told_from_the_whole_row() -> None:
    """Issue 22.7 after a redraw (31.3): in dash, TOP reaches past the prompt `# ` into
    the shown command, which ``written_over`` needs intact."""
    shown = "# echo first; tput cup 0 0; echo TOP"
    assert output.written_over_shown("TOPcho first; tput cup 0 0; echo TOP", shown) == ["TOP"]
    assert output.written_over_shown("TOPh-5.2# echo x", "bash-5.2# echo x") == ["TOP"]
    # The row as the redraw left it: nothing was written over it.
    assert output.written_over_shown(shown + "  ", shown) == []
    # Text ending in a character equal to the one under it is cut where they agree.
    # ("TOe" written over "# e": the e agrees with the one under it.)
    assert output.written_over_shown("TOecho first", "# echo first") == ["TO"]
    # A row that lost its end (ESC [K, or `clear; echo after`) or grew: not told from
    # a screen cleared and written anew, so nothing is guessed (the start is gone).
    assert output.written_over_shown("TOP", shown) == []
    assert output.written_over_shown("after", "$ echo before; clear; echo after") == []
    # A wide character over two narrow cells: compared from the end, no shift.
    assert output.written_over_shown("日echo x", "# echo x") == ["日"]
    assert output.written_over_shown("x" * 50, shown) == []
    # As wide, but nothing of the shown row left: nothing is guessed.
    assert output.written_over_shown("x" * len(shown), shown) == []


def test_what_the_shell_printed_before_the_command_is_no_output() -> None:
    """``redraw`` Rule 4: bash's PS0 line, and a prompt dash drew after a line typed
    before it (the command's output then continues the prompt's row)."""
    drop = output.without_printed_first
    assert drop(["ps0 line", "hi"], [], ("ps0 line",), "") == (["hi"], [])
    assert drop(["# hi"], [], (), "# ") == (["hi"], [])
    # Nothing printed by the command on the row the prompt left the cursor on.
    assert drop(["#"], [], (), "# ") == ([], [])
    assert drop(["#", "x"], [], (), "# ") == (["", "x"], [])
    # A long output: the head holds its start; with no head, the tail does.
    assert drop(["ps0", "1"], ["9"], ("ps0",), "") == (["1"], ["9"])
    assert drop([], ["ps0", "1"], ("ps0",), "") == ([], ["1"])
    # The output does not start with them (written over, or joined): nothing dropped.
    assert drop(["other", "hi"], [], ("ps0 line",), "") == (["other", "hi"], [])
    assert drop(["$ hi"], [], (), "# ") == (["$ hi"], [])
    assert drop([], [], ("ps0",), "") == ([], [])


def test_the_screen_at_typing_keeps_the_prompt_with_its_trailing_blank() -> None:
    # capture-pane drops the row's trailing space; the cursor column (10) keeps it.
    seen = output.at_typing(["old", "bash-5.2#", "", ""], cursor=1, column=10)
    assert seen == output.AtTyping(prompt="bash-5.2# ", clear_below=True)
    assert output.at_typing(["bash-5.2#", "stale"], cursor=0, column=10).clear_below is False
    # Wide characters take two cells each: column 4 ends after "あい".
    assert output.at_typing(["あいう"], cursor=0, column=4).prompt == "あい"


def test_a_cursor_left_above_the_typed_line_is_said_first() -> None:
    outcome = Outcome(
        exit_status=0,
        head=["x"],
        tail=[],
        lines_omitted=0,
        lines_lost=0,
        start_lost=False,
        above_start=True,
    )
    shaped = output.shape(outcome, budget=1000)
    assert shaped.text.split("\n")[0].startswith("[... the command moved the cursor above")
    assert shaped.output_truncated is True


def _typed(text: str, column: int = 10, width: int = 200) -> TypedLine:
    return TypedLine(text=text, shell="bash", column=column, width=width)


def test_the_typed_line_takes_its_rows_counted_one_cell_short() -> None:
    assert output.typed_rows(_typed("x" * 50)) == 1
    # 10 + 190 = 200 cells: one full row of 200, but two of 199.
    assert output.typed_rows(_typed("x" * 190)) == 2
    # Wide characters: 10 + 2 * 100 = 210 cells, two rows of 199.
    assert output.typed_rows(_typed("あ" * 100)) == 2


def test_lines_lost_count_whole_trims_less_the_rows_that_were_not_output() -> None:
    # Mark on row 162, one typed row, trims of 200: one trim, 200 - 162 - 1 = 37.
    assert output.lost_at_least(162, _typed("seq 1 2040"), 200) == 37
    # Mark on row 0: 200 - 0 - 1.
    assert output.lost_at_least(0, _typed("seq 1 2500"), 200) == 199
    # Mark on row 450: its fingerprint rows (448, 449) are gone only after three trims.
    assert output.lost_at_least(450, _typed("x"), 200) == 600 - 450 - 1


def test_the_typed_line_is_found_with_the_blank_a_wide_character_left_at_a_row_end() -> None:
    """Issue 22.3: an 80-column row of "…ああ" ends one cell short when the next
    あ does not fit; joined, that blank cell is a space before the あ."""
    typed = " { : 'echo x" + "あ" * 40 + "'; . /r1; }"
    joined = "bash-5.2# " + typed[:40] + " " + typed[40:]
    assert output.typed_index(["", joined, "xあ"], typed) == 1
    # A space before an ASCII character is not a wide character's blank.
    assert output.typed_index(["bash-5.2# { : 'echo  x'; }"], "{ : 'echo x'; }") is None


def test_characters_the_screen_replaced_are_said_first() -> None:
    """Issue 22.11: `printf '\\xff\\xfe ok'` on tmux 3.6 shows '\ufffd\ufffd ok'."""
    shaped = output.shape(_outcome(["\ufffd\ufffd ok", "fine"]), budget=1000)
    first, *rest = shaped.text.split("\n")
    assert first.startswith("[... 2 characters of this output are U+FFFD")
    assert rest == ["\ufffd\ufffd ok", "fine"]
    assert output.shape(_outcome(["ok"]), budget=1000).text == "ok"


# -- Rule 5: the output of a run whose shell left the script ends at its prompt ------


def test_the_prompt_a_left_shell_drew_is_not_output() -> None:
    """The shell's own fresh line after a SIGINT (a blank row) and its prompt go."""
    rows = ["one", "two", "", "$ "]
    assert output.before_prompt(rows, [], ["$ "], "bash") == (["one", "two"], [])


def test_a_last_line_printed_with_no_newline_keeps_its_text_left_of_the_prompt() -> None:
    assert output.before_prompt(["one", "partial$ "], [], ["$ "], "sh") == (["one", "partial"], [])


def test_a_prompt_that_changed_drops_its_row_whole() -> None:
    """An unknown prompt cannot be told from output on its row: the row is not kept."""
    assert output.before_prompt(["one", "(venv) $ "], [], ["% "], "bash") == (["one"], [])


def test_every_row_of_a_prompt_of_several_rows_goes() -> None:
    """The rows of a prompt drawn on rows of its own after the probe (`top\\n$ `): all
    of them go, and what its first row follows on its row stays."""
    prompt = ["user@host ~/src", "$ "]
    rows = ["one", "user@host ~/src", "$ "]
    assert output.before_prompt(rows, [], prompt, "bash") == (["one"], [])
    rows = ["one", "partialuser@host ~/src", "$ "]
    assert output.before_prompt(rows, [], prompt, "bash") == (["one", "partial"], [])


def test_a_prompt_whose_first_row_is_blank_keeps_a_line_it_ended() -> None:
    """`\\n$ `: the prompt's own newline ends a last line printed with no newline; that
    line is output, and a blank row the newline made is not."""
    assert output.before_prompt(["one", "partial", "$ "], [], ["", "$ "], "sh") == (
        ["one", "partial"],
        [],
    )
    assert output.before_prompt(["one", "", "$ "], [], ["", "$ "], "sh") == (["one"], [])


def test_rows_that_do_not_end_with_the_whole_prompt_are_cut_at_its_last_row() -> None:
    rows = ["one", "other", "$ "]
    assert output.before_prompt(rows, [], ["top", "$ "], "bash") == (["one", "other"], [])


def test_zshs_prompt_sp_mark_is_not_output() -> None:
    """zsh marks a last line printed with no newline with `%` (`#` for root) padded
    with blanks, and draws its prompt on the next row; a `%` ending a line is kept."""
    rows = ["looping", "^C%" + " " * 20, "% "]
    assert output.before_prompt(rows, [], ["% "], "zsh") == (["looping", "^C"], [])
    assert output.before_prompt(["100%", "% "], [], ["% "], "zsh") == (["100%"], [])
    assert output.before_prompt(["^C%   ", "$ "], [], ["$ "], "bash") == (["^C%   "], [])


def test_the_prompt_is_cut_from_the_tail_of_a_long_output() -> None:
    assert output.before_prompt(["a"], ["y", "z$ "], ["$ "], "bash") == (["a"], ["y", "z"])
    assert output.before_prompt([], [], ["$ "], "bash") == ([], [])


def test_a_left_outcome_has_the_status_read_back_and_its_lines_end_trimmed() -> None:
    read = Outcome(
        exit_status=None,
        head=["one  ", "$ "],
        tail=[],
        lines_omitted=0,
        lines_lost=0,
        start_lost=False,
    )
    left = output.left_outcome(read, ["$ "], "bash", 130)
    assert (left.exit_status, left.head, left.tail) == (130, ["one"], [])


LINE = st.text(st.characters(exclude_characters="\n", exclude_categories=["Cs"]), max_size=300)


@given(
    st.lists(LINE, max_size=30),
    st.lists(LINE, max_size=30),
    st.integers(0, 50),
    st.integers(1, 4_000),
)
def test_shape_counts_an_output_with_one_encoding_as_line_by_line(
    head: list[str], tail: list[str], omitted: int, budget: int
) -> None:
    """Rule 2, issue 31.1: ``shape`` sizes the output from one encoding of its lines
    (``lines_cost``); the result is the one counting each ``line_cost`` gives."""
    outcome = _outcome(head, tail, omitted=omitted)
    shaped = output.shape(outcome, budget)
    by_line = sum(line_cost(line) for line in head + tail)
    with mock.patch.object(output, "lines_cost", lambda lines: by_line):
        assert output.shape(outcome, budget) == shaped
