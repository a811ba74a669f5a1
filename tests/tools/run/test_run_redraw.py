"""What a watcher sees (issue 31.3): the typed line replaced by the prompt and the command.

Real tmux on private sockets, read back through bare tmux (``capture-pane`` of
the whole history). After a run, the pane and its history hold the prompt,
the command as shown (``runscript.shown``) and its output, and no path of
tmuxmcp's private directory. Where the screen after Enter is not exactly the
prompt and the typed line (bash's ``PS0``, a zsh ``preexec`` printing,
``set -v``, a typed line taller than the pane), tmuxmcp tells the script not
to redraw (``redraw`` Rule 1): the typed line stays as before, and the result
is exact. A command text with an ESC byte is shown in caret notation, never
raw (``redraw`` Rule 2: ``tests/runs/test_redraw.py``; ``run_command`` refuses
such a command anyway). The tests of the redrawn screen failed on main
4ec314a, where the typed line, its private path included, always stayed on
the screen; the declined cases passed there, as they assert the screen and
the results as they were, but what the shell printed before the command,
which is no output (``redraw`` Rule 4: it was on 3478362). zsh with a typed
line taller than the pane is left out: its line editor shows ``>....``
there, which main already returns in the output (not changed here).
"""

from __future__ import annotations

import os

import pytest
import trio

from tests.support import PrivateTmux, serve, tmux_wrapper
from tests.tools.run.test_run_command import SHELLS, _run, _shell_session
from tests.tools.run.test_run_command_shells import _configure as configure_shell


@pytest.fixture(autouse=True)
def _no_rc_files(private_tmux: PrivateTmux) -> None:
    # The shells' settings are the test's alone: no user rc file, no user history.
    private_tmux.private_home("/bin/sh")


def _history(tmux: PrivateTmux, pane: str) -> list[str]:
    """The pane's whole history and screen, joined rows, as bare tmux reads it."""
    out = tmux.bare("capture-pane", "-p", "-J", "-S", "-", "-t", pane).stdout
    return [row.rstrip() for row in out.split("\n")]


async def _configure(tmux: PrivateTmux, pane: str, *lines: str) -> None:
    """Type ``lines`` as a user would, then clear the screen and its history."""
    await configure_shell(tmux, pane, *lines, "clear")
    tmux.bare("clear-history", "-t", pane)


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_the_history_holds_the_prompt_the_command_and_its_output(
    private_tmux: PrivateTmux, shell: str
) -> None:
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"seen-{shell}", shell)
        await _configure(private_tmux, pane, "PS1='$ '; PROMPT='$ '")
        first = await _run(session, pane, "echo hi; (exit 3)")
        second = await _run(session, pane, "printf 'a\\nb\\n'")
        assert (first["exit_status"], first["output"]) == (3, "hi")
        assert (second["exit_status"], second["output"]) == (0, "a\nb")
        rows = _history(private_tmux, pane)
        assert not any("tmuxmcp-" in row for row in rows), rows
        at = rows.index("$ echo hi; (exit 3)")
        assert rows[at : at + 5] == ["$ echo hi; (exit 3)", "hi", "$ printf 'a\\nb\\n'", "a", "b"]


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_command_wider_than_the_pane_keeps_its_output_exact(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """A prompt and typed line over several rows, wide characters in the shown text:
    the rows are counted as the terminal wraps them."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"wide-{shell}", shell)
        await _configure(private_tmux, pane, "PS1='$ '; PROMPT='$ '")
        command = "echo " + "あ" * 16 + "; echo done"
        done = await _run(session, pane, command)
        assert (done["exit_status"], done["output"]) == (0, "あ" * 16 + "\ndone")
        rows = _history(private_tmux, pane)
        assert not any("tmuxmcp-" in row for row in rows), rows


@pytest.mark.parametrize(
    ("shell", "setup", "printed", "output"),
    [
        ("bash", "PS0='ps0 line\\n'", "ps0 line", "hi"),
        # PS0 with no newline: the command's first line continues its row.
        ("bash", "PS0='ps0> '", "ps0> hi", "hi"),
        ("zsh", "preexec() { print started; }", "started", "hi"),
        # bash's verbose copy of the evaluated text is the command's own line
        # (docs/patterns.md, "What is not as typed"); the typed line's copy is not.
        ("bash", "set -v", None, "echo hi; (exit 4)\nhi"),
        ("zsh", "set -v", None, "hi"),
        ("sh", "set -v", None, "hi"),
    ],
)
async def test_a_line_printed_after_enter_means_no_redraw_and_is_no_output(
    private_tmux: PrivateTmux, shell: str, setup: str, printed: str | None, output: str
) -> None:
    """What the shell printed between the typed line and the command (``redraw`` Rule 4)
    stays on the screen and is not in ``output``: on 3478362 bash's PS0 line and the
    zsh preexec's were, and a PS0 with no newline began the command's first line."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"declined-{shell}", shell)
        await _configure(private_tmux, pane, setup)
        done = await _run(session, pane, "echo hi; (exit 4)")
        assert (done["exit_status"], done["output"]) == (4, output)
        rows = _history(private_tmux, pane)
        # The screen as before the redraw existed: the typed line is still there, and
        # whatever the shell printed after Enter.
        assert any("tmuxmcp-" in row and "echo hi" in row for row in rows), rows
        if printed is not None:
            assert printed in rows, rows
        # The next run's output as exact: nothing of this one's is left to it.
        again = await _run(session, pane, "echo again")
        echoed = "echo again\n" if output.startswith("echo hi") else ""
        assert (again["exit_status"], again["output"]) == (0, echoed + "again")


@pytest.mark.parametrize("shell", ["sh", "bash"])
async def test_a_typed_line_taller_than_the_pane_means_no_redraw(
    private_tmux: PrivateTmux, shell: str
) -> None:
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"tall-{shell}", shell, "-x", "30", "-y", "3")
        await _configure(private_tmux, pane)
        done = await _run(session, pane, "echo hi; (exit 4)")
        assert (done["exit_status"], done["output"]) == (4, "hi")
        rows = _history(private_tmux, pane)
        assert any("tmuxmcp-" in row for row in rows), rows


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_outputs_that_scroll_the_screen_start_at_the_shown_command(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """The prompt on the last row (every run scrolls), an output longer than the rows
    read with the end frame (``collect.speculative_rows``), and one run after it: the
    output's first row is the one below the shown command, found as an absolute row."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"scroll-{shell}", shell, "-x", "60", "-y", "8")
        await _configure(private_tmux, pane, "PS1='$ '; PROMPT='$ '")
        for word in ("one", "two", "three", "four", "five", "six"):
            done = await _run(session, pane, f"echo {word}")
            assert (done["exit_status"], done["output"]) == (0, word)
        long = await _run(session, pane, "seq 1 400", max_output_bytes=100_000)
        assert long["output"].split("\n") == [str(n) for n in range(1, 401)]
        after = await _run(session, pane, "echo after; (exit 2)")
        assert (after["exit_status"], after["output"]) == (2, "after")
        rows = _history(private_tmux, pane)
        assert not any("tmuxmcp-" in row for row in rows), rows
        assert rows[rows.index("$ seq 1 400") + 1] == "1"


def _calls(log: str) -> int:
    with open(log) as f:
        return len(f.readlines())


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_run_that_scrolls_the_screen_reads_the_pane_as_often_as_one_that_does_not(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """At the bottom of the pane a run's output scrolls the screen beyond the rows its
    typed line took (an agent's pane, mostly): the rows the scroll moved above the end
    frame's joined rows are read with it, as physical rows, where each is a whole line;
    on 3478362 each such run read the pane once more. A line that wrapped among them
    is read again, and is still exact."""
    log = os.path.join(private_tmux.directory, "calls")
    wrapper = tmux_wrapper(
        os.path.join(private_tmux.directory, "counting-tmux"), f'echo >> "{log}"'
    )
    async with serve(private_tmux, "--tmux", wrapper) as session:
        pane = _shell_session(private_tmux, f"count-{shell}", shell, "-x", "60", "-y", "20")
        await _configure(private_tmux, pane, "PS1='$ '; PROMPT='$ '")
        counts = []
        for word in ("one", "two", "three", "four", "five", "six", "seven", "eight"):
            before = _calls(log)
            done = await _run(session, pane, f"echo {word}; seq 1 4")
            assert (done["exit_status"], done["output"]) == (0, f"{word}\n1\n2\n3\n4")
            counts.append(_calls(log) - before)
        # Of 20 rows, the first two runs had room below (the first also reads what a
        # server's first run reads); from the third on, each scrolled the screen.
        assert private_tmux.bare("display", "-p", "-t", pane, "#{history_size}").stdout != "0\n"
        assert counts[2:] == [counts[1]] * 6, counts
        wide = "x" * 70
        done = await _run(session, pane, f"echo {wide}; echo end")
        assert (done["exit_status"], done["output"]) == (0, f"{wide}\nend")
        # Tabs over 64 cells, which tmux 3.6 captures as 8 characters: still one line.
        done = await _run(session, pane, "printf 'a\\tb\\tc\\td\\te\\tf\\tg\\th\\n'; echo end")
        first, end = done["output"].split("\n")
        assert (first.expandtabs(8).replace(" ", ""), end) == ("abcdefgh", "end")


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_tmuxmcp_gone_while_the_script_waits_for_its_word_leaves_the_shell_working(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """The script waits after ``S`` for the redraw's answer (``runscript`` Rule 6): a
    tmuxmcp that exits meanwhile (its read of the screen stalled here, and the call
    timed out first) leaves the shell running the command, undrawn, and back at its
    prompt, with no error about its files. The script read the command's file only
    after the answer at first: the closed run had removed it ("No such file")."""
    flag = os.path.join(private_tmux.directory, "stall")
    wrapper = tmux_wrapper(
        os.path.join(private_tmux.directory, "stalling-tmux"),
        f'case "$*" in *"#{{pane_height}} #{{pane_width}} #{{alternate_on}}"*)\n'
        f'  [ -e "{flag}" ] && exec sleep 5 ;;\nesac',
    )
    open(flag, "w").close()
    async with serve(private_tmux, "--tmux", wrapper) as session:
        pane = _shell_session(private_tmux, f"gone-{shell}", shell)
        await _configure(private_tmux, pane)
        first = await _run(session, pane, "echo surv$((1 + 1))ived", timeout=0.5)
        assert first["timed_out"] is True
    os.unlink(flag)
    with trio.fail_after(20):
        while "surv2ived" not in private_tmux.bare("capture-pane", "-p", "-t", pane).stdout:
            await trio.sleep(0.05)
    private_tmux.bare("send-keys", "-t", pane, "echo back-$((6*7))", "Enter")
    await private_tmux.wait_for_screen(pane, "back-42")
    screen = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout
    assert "No such file" not in screen and "not found" not in screen, screen
