"""run_command in shells configured the way users configure them: real tmux, real shells.

The reviewer's second pass (the neighbours of issue 11): the same loop with
xtrace, verbose, errexit, zsh's err_return, a DEBUG trap, functions named like
the builtins the script calls, echo off, a prompt that looks like a
continuation prompt, a typed line as wide as the pane, and a command that
ends its shell. Each test failed before its fix (the echo-off cases of bash
and zsh, and the wide line in dash, passed already and stay as regressions).
The cases that already behaved (set -u, noclobber, vi mode, set +m, a deleted
working directory, umask 777, PROMPT_COMMAND, precmd, RPROMPT, PROMPT_SP, a
here-document, a trailing backslash, a comment, an unclosed quote, a command
reading stdin) are described in docs/patterns.md, not pinned here twice.
Every command here runs in the pane's own shell only (CM-6), and a refusal
types nothing that could run.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
import trio

from tests.support import PrivateTmux, error_text, no_redraw_tmux, serve, structured
from tests.tools.run.test_run_command import SHELLS, _at_prompt, _run, _shell_session


@pytest.fixture(autouse=True)
def _no_rc_files(private_tmux: PrivateTmux) -> None:
    # The shells' settings are the test's alone: no user rc file, no user history.
    private_tmux.private_home("/bin/sh")


async def _configure(tmux: PrivateTmux, pane: str, *lines: str) -> None:
    """Type ``lines`` into the pane's shell as a user would, then wait for its prompt."""
    await _at_prompt(tmux, pane)
    for line in lines:
        tmux.bare("send-keys", "-t", pane, "-l", line)
        tmux.bare("send-keys", "-t", pane, "Enter")
    # The quotes keep the typed line from matching: only the output says READY-n.
    token = os.urandom(4).hex()
    tmux.bare("send-keys", "-t", pane, "-l", f'echo "READ""Y-{token}"')
    tmux.bare("send-keys", "-t", pane, "Enter")
    with trio.fail_after(20):
        while f"READY-{token}" not in tmux.bare("capture-pane", "-p", "-t", pane).stdout:
            await trio.sleep(0.05)
    await _at_prompt(tmux, pane)


def _wrapper_text(output: str) -> list[str]:
    """Lines of ``output`` that name tmuxmcp's own steps (its files, FIFOs, fence)."""
    words = ("tmuxmcp", "printf", "read ", "unset", "/dev/shm", "033]7")
    return [line for line in output.split("\n") if any(word in line for word in words)]


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_xtrace_shows_no_line_of_the_wrapper(private_tmux: PrivateTmux, shell: str) -> None:
    """`set -x` in the pane's shell: every step of the typed line and the script was
    traced into `output` (nine lines around `hi` in bash, the fence's secret among
    them). Trace lines the command itself causes may stay."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"x-{shell}", shell)
        await _configure(private_tmux, pane, "set -x")
        done = await _run(session, pane, "echo hi; (exit 3)")
        assert done["exit_status"] == 3
        assert "hi" in done["output"].split("\n")
        assert _wrapper_text(done["output"]) == [], done["output"]
        traced = [line for line in done["output"].split("\n") if line != "hi"]
        assert all(line.startswith("+") for line in traced), done["output"]


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_verbose_shows_the_command_not_the_typed_line(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """`set -v` prints each line the shell reads: the typed line came back as the first
    line of `output`. The command's own lines, read from its file, may stay."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"v-{shell}", shell)
        await _configure(private_tmux, pane, "set -v")
        done = await _run(session, pane, "echo hi; (exit 3)")
        assert done["exit_status"] == 3
        assert _wrapper_text(done["output"]) == [], done["output"]
        assert done["output"].split("\n")[-1] == "hi"


async def test_zsh_err_return_works_as_if_the_command_were_typed(
    private_tmux: PrivateTmux, tmp_path: Any
) -> None:
    """Issue 31.2: under zsh's ERR_RETURN every run was refused (`pane-not-ready`,
    "unsetopt err_return"), nothing run. A typed `false; echo never` there abandons
    the rest of the line with status 1 and the shell stays: so does the run now, and
    `$?` at the next prompt is 1; a failure ERR_RETURN does not see (`&&`) goes on."""
    ran = tmp_path / "ran"
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, "errreturn", "zsh")
        await _configure(private_tmux, pane, "setopt err_return")
        done = await _run(session, pane, f"touch {ran}; false; echo never")
        assert (done["exit_status"], done["output"]) == (1, "")
        assert ran.exists()
        again = await _run(session, pane, 'echo "was $?"; [[ -o errreturn ]] && echo on')
        assert (again["exit_status"], again["output"]) == (0, "was 1\non")
        tested = await _run(session, pane, "false && echo no; echo goes on; (exit 3)")
        assert (tested["exit_status"], tested["output"]) == (3, "goes on")
        hi = await _run(session, pane, "echo hi")
        assert (hi["exit_status"], hi["output"]) == (0, "hi")
        assert private_tmux.pane_command(pane) == "zsh"
        # The path the fence set is put back after a failure too (`t`, sourced in the
        # script's `always` block).
        before = private_tmux.bare("display-message", "-p", "-t", pane, "#{pane_path}").stdout
        await _run(session, pane, "false")
        with trio.fail_after(20):
            while (
                private_tmux.bare("display-message", "-p", "-t", pane, "#{pane_path}").stdout
                != before
            ):
                await trio.sleep(0.05)


async def test_zsh_return_at_the_prompt_is_reported_by_the_script(
    private_tmux: PrivateTmux,
) -> None:
    """Typed at zsh's prompt, `return 3; echo after` abandons the line with status 3.
    It left tmuxmcp's script before the script reported, so the run was taken for
    one the shell left by itself and a status probe was typed (one more line on the
    screen, ` { _='' …`); the script's `always` block (issue 31.2) now reports it."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, "return", "zsh")
        await _configure(private_tmux, pane, "true")
        done = await _run(session, pane, "return 3; echo after")
        assert (done["exit_status"], done["output"]) == (3, "")
        again = await _run(session, pane, 'echo "was $?"')
        assert again["output"] == "was 3"
        screen = private_tmux.bare("capture-pane", "-p", "-J", "-t", pane).stdout.split("\n")
        assert not any("_=''" in row for row in screen), screen  # no probe was typed


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_the_typed_line_shows_the_command_first_and_names_one_file(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """Issue 31.3, what a person watching the pane sees: the typed line named
    tmuxmcp's private directory twice (the script `r`, then `. t && :` for the
    status); the script now gives the status back itself, so the line names its
    script alone, right after the command it shows, and is shorter by a path."""
    # Where the redraw is declined (its read of the screen fails here), the typed line
    # stays on the screen; what it is, is what this checks (issue 31.3 has it replaced).
    async with serve(private_tmux, "--tmux", no_redraw_tmux(private_tmux)) as session:
        # Wide enough for the whole line on one row (zsh's editor wraps it itself).
        pane = _shell_session(private_tmux, f"watch-{shell}", shell, "-x", "300")
        await _configure(private_tmux, pane, "PS1='$ '")
        done = await _run(session, pane, "echo hi; (exit 3)")
        assert (done["exit_status"], done["output"]) == (3, "hi")
        screen = private_tmux.bare("capture-pane", "-p", "-J", "-t", pane).stdout
        (typed,) = [row for row in screen.split("\n") if "_='echo hi; (exit 3)'" in row]
        assert typed.startswith("$  { _='echo hi; (exit 3)' "), typed
        assert typed.count("tmuxmcp-") == 1, typed
        assert typed.endswith('; . "$tmuxmcp_t" && :; } 7>&1 8>&2 >/dev/null 2>&1'), typed
        again = await _run(session, pane, 'echo "was $?"')
        assert again["output"] == "was 3"


async def test_a_debug_trap_prints_nothing_for_the_wrapper(private_tmux: PrivateTmux) -> None:
    """bash's `trap ... DEBUG` runs before each simple command: its output for the typed
    line's own commands (`:` and `.`) opened `output` ("dbg", "dbg", "hi")."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, "dbg", "bash")
        await _configure(private_tmux, pane, "trap 'echo dbg' DEBUG")
        done = await _run(session, pane, "echo hi")
        lines = done["output"].split("\n")
        assert (done["exit_status"], lines[-1]) == (0, "hi")
        # At most the one the command's own `echo` causes.
        assert lines.count("dbg") <= 1, done["output"]


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_functions_named_like_the_scripts_builtins_are_not_called(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """`\\printf` escapes an alias, not a function: a user's `printf` or `read` function
    ran in place of the script's, so no status was reported and after 2 s the run was
    refused as "did not run it" although the command had run."""
    definitions = ["printf() { echo HIJACKED; }", "read() { echo HIJACKED; }"]
    if shell != "sh":  # dash refuses functions named like special builtins
        definitions.append("unset() { echo HIJACKED; }")
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"fn-{shell}", shell)
        await _configure(private_tmux, pane, *definitions)
        with trio.fail_after(20):
            done = await _run(session, pane, "echo hi; (exit 4)")
        assert (done["exit_status"], done["output"]) == (4, "hi")
        again = await _run(session, pane, 'echo "${tmuxmcp_release-unset}"')
        assert again["output"] == "unset"


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_errexit_in_the_shell_behaves_as_if_the_command_were_typed(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """Issue 22.10: with `set -e` in the pane's shell every run was refused
    (`pane-not-ready`, errexit), because the script's `.` of a command whose last AND-OR
    list failed without tripping errexit (`test -f x && echo yes`) would have ended the
    shell. Now such a command reports its status and the shell stays, `$?` is the
    command's at the next prompt, and a command that trips errexit ends the shell, as
    it does when a person types it (CM-6: only the pane's own shell is touched)."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"e-{shell}", shell)
        await _configure(private_tmux, pane, "set -e")
        tested = await _run(session, pane, "test -f /nonexistent && echo yes")
        assert (tested["exit_status"], tested["output"]) == (1, "")
        again = await _run(session, pane, 'echo "was $?"; case $- in *e*) echo on;; esac')
        assert (again["exit_status"], again["output"]) == (0, "was 1\non")
        hi = await _run(session, pane, "echo hi")
        assert (hi["exit_status"], hi["output"]) == (0, "hi")
        assert private_tmux.pane_command(pane) == SHELLS[shell][0]
        ended = await session.call_tool(
            "run_command", {"pane_id": pane, "command": "false; echo never", "timeout": 20}
        )
        text = error_text(ended)
        assert "exited during the command" in text and "errexit" in text
        assert "never" not in text


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_set_e_run_as_a_command_leaves_later_commands_running(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """The issue's own case: after `run_command("set -e")`, `run_command("echo hi")` was
    refused; a person typing `echo hi` there gets `hi`. `set +e` turns it off again."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"set-e-{shell}", shell)
        await _at_prompt(private_tmux, pane)
        assert (await _run(session, pane, "set -e"))["exit_status"] == 0
        hi = await _run(session, pane, "echo hi")
        assert (hi["exit_status"], hi["output"]) == (0, "hi")
        failing = await _run(session, pane, "(exit 3) && echo never")
        assert failing["exit_status"] == 3
        assert (await _run(session, pane, "set +e"))["exit_status"] == 0
        off = await _run(session, pane, "false; echo survived")
        assert (off["exit_status"], off["output"]) == (0, "survived")


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_errexit_refuses_a_command_ending_in_an_open_here_document(
    private_tmux: PrivateTmux, shell: str, tmp_path: Any
) -> None:
    """Under errexit the status is read on a line after the command's text; a text that
    ends inside a here-document would take that line as data, so it runs nothing and
    the refusal says what to fix; the shell stays and the next command runs."""
    ran = tmp_path / "ran"
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"e-doc-{shell}", shell)
        await _configure(private_tmux, pane, "set -e")
        refused = await session.call_tool(
            "run_command", {"pane_id": pane, "command": f"touch {ran}; cat <<EOF\nabc"}
        )
        text = error_text(refused)
        assert "[pane-not-ready]" in text and "here-document" in text
        assert not ran.exists()
        closed = await _run(session, pane, f"touch {ran}; cat <<EOF\nabc\nEOF")
        assert (closed["exit_status"], closed["output"]) == (0, "abc")
        assert ran.exists()


AS_TYPED = {
    "bash": {
        "nonexistent_cmd": "bash: nonexistent_cmd: command not found",
        "echo (": "bash: syntax error near unexpected token `newline'",
        "return 3": "bash: return: can only `return' from a function or sourced script",
        "echo $0": "bash",
    },
    "zsh": {
        "nonexistent_cmd": "zsh: command not found: nonexistent_cmd",
        "echo $0": "zsh",
    },
    "sh": {
        # dash names the builtin that ran the command, as it does for any `eval`.
        "nonexistent_cmd": "sh: 1: eval: nonexistent_cmd: not found",
        "echo $0": "sh",
    },
}
"""What the shell prints for a command, as a person typing it sees it (dash: but for
its ``eval:``), measured in an interactive dash 0.5.12, bash 5.2 and zsh 5.9."""


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_shell_messages_read_as_if_the_command_were_typed(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """Issue 22.8: errors named tmuxmcp's command file (dash `sh: 1: /…/tmuxmcp-…/c1:
    nonexistent_cmd: not found`, zsh `/…/c1:1: command not found: …`, bash's syntax
    errors), and zsh's `$0` was that file. The command is now evaluated where a typed
    line would run (runscript Rule 5): no message names tmuxmcp's files."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"msg-{shell}", shell)
        await _configure(private_tmux, pane, "true")
        for command, expected in AS_TYPED[shell].items():
            done = await _run(session, pane, command)
            assert done["output"] == expected, (command, done["output"])
            assert "tmuxmcp" not in done["output"]
        failed = await _run(session, pane, "nonexistent_cmd; echo after $?")
        assert failed["output"].split("\n")[-1] == "after 127"
        assert "tmuxmcp" not in failed["output"]


TRACED = {"bash": "+++ echo hi\nhi", "zsh": "hi", "sh": "+ echo hi\nhi"}
"""`set -x` and `echo hi`, as docs/patterns.md's "What is not as typed" says: dash as
typed; bash one `+` per `eval` between the prompt and the command; zsh no line."""


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_traces_are_what_the_docs_say_cannot_be_as_typed(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """Issue 31.2 pins what stays short of typed, with the reason in the docs: a change
    that brings bash's or zsh's traces to the typed form fails here until the docs say
    so too."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"trace-{shell}", shell)
        await _configure(private_tmux, pane, "set -x")
        done = await _run(session, pane, "echo hi")
        assert (done["exit_status"], done["output"]) == (0, TRACED[shell])


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_path_without_cat_still_runs_the_next_command(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """The script reads the command's text to evaluate it; in dash with `cat`, which a
    command that set PATH=/nonexistent took away: every later run read nothing, ran
    nothing and reported status 0. It reads with the standard PATH (`command -p`),
    and a read that fails still runs the command, from its file."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"path-{shell}", shell)
        await _at_prompt(private_tmux, pane)
        assert (await _run(session, pane, "PATH=/nonexistent"))["exit_status"] == 0
        done = await _run(session, pane, "echo still; (exit 3)")
        assert (done["exit_status"], done["output"]) == (3, "still")


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_allexport_keeps_the_command_text_out_of_the_environment(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """Under `set -a` every variable assigned is exported: the command's text, read into
    a variable to be evaluated, would reach every program it starts, so it is sourced
    from its file there (runscript Rule 5)."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"allexport-{shell}", shell)
        await _configure(private_tmux, pane, "set -a")
        done = await _run(session, pane, "env | grep -c '^tmuxmcp' || :")
        assert done["output"] == "0", done["output"]
        big = await _run(session, pane, f": {'x' * 60_000}; env | grep -c '^tmuxmcp' || :")
        assert (big["exit_status"], big["output"]) == (0, "0")


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_echo_off_keeps_the_output(private_tmux: PrivateTmux, shell: str) -> None:
    """`stty -echo`: dash has no line editor, so nothing echoed the typed line and the
    output started on the prompt row, which was dropped as if it held the typed line:
    `echo hi` returned "" (and a two-line output lost its first line)."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"echo-{shell}", shell)
        await _configure(private_tmux, pane, "stty -echo")
        first = await _run(session, pane, "echo hi; (exit 4)")
        assert (first["exit_status"], first["output"]) == (4, "hi")
        second = await _run(session, pane, "printf 'a\\nb\\n'")
        assert second["output"] == "a\nb"
        empty = await _run(session, pane, "true")
        assert empty["output"] == ""


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_prompt_like_a_continuation_is_refused_saying_what_to_do(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """PS1='> ' looks exactly like PS2 on the screen, so the refusal stands (typing into
    a real continuation could run the pending command with the typed words); it said
    only "cancel with C-c", which changes nothing there. It now names PS1 and a fix."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"ps1-{shell}", shell)
        await _configure(private_tmux, pane, "PS1='> '")
        refused = await session.call_tool(
            "run_command", {"pane_id": pane, "command": "echo SECRET-PAYLOAD"}
        )
        assert "[pane-not-ready]" in error_text(refused)
        assert "PS1" in error_text(refused)
        assert "SECRET-PAYLOAD" not in private_tmux.bare("capture-pane", "-p", "-t", pane).stdout
        await _configure(private_tmux, pane, "PS1='$ '")
        done = await _run(session, pane, "echo after")
        assert done["output"] == "after"


@pytest.mark.parametrize("shell", sorted(SHELLS))
@pytest.mark.parametrize("remain", [False, True])
async def test_exit_says_what_became_of_the_pane(
    private_tmux: PrivateTmux, shell: str, remain: bool
) -> None:
    """`exit 3`: zsh's shell was seen as a zombie (alive to kill(0)) until it was reaped,
    so the run was reported as interrupted with "the pane is free again"; the other
    shells got "no exit status" with nothing on what to do. With remain-on-exit the
    pane stays, dead, and tmux knows the shell's status."""
    async with serve(private_tmux) as session:
        private_tmux.new_session("bystander")
        pane = _shell_session(private_tmux, f"exit-{shell}", shell)
        if remain:
            private_tmux.bare("set-option", "-p", "-t", pane, "remain-on-exit", "on")
        await _at_prompt(private_tmux, pane)
        with trio.fail_after(20):
            result = await session.call_tool(
                "run_command", {"pane_id": pane, "command": "echo bye; exit 3", "timeout": 15}
            )
        text = error_text(result)
        assert "[pane-not-ready]" in text and "exited during the command" in text
        if remain:
            assert "kept, dead (remain-on-exit)" in text and "respawn_pane" in text
            # The status is told when tmux has it within the notice time; tmux 3.3a
            # was seen to report the pane dead without a status for over 2 s (about
            # one run in four, cause not found), so only a status given is checked.
            given = re.search(r"exit status was (\d+)", text)
            assert given is None or given.group(1) == "3", text
        else:
            assert "closed" in text
        await session.send_ping()


async def test_a_nested_shell_that_exits_leaves_the_pane_to_its_own_shell(
    private_tmux: PrivateTmux,
) -> None:
    """A shell started inside the pane's shell (`sh` typed at bash's prompt) that runs
    `exit 3`: the pane's own process still ran, so after 2 s more of asking tmux the
    report said the pane was respawned. It now says the pane's own shell runs on, at
    once, and the next run goes to it."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, "nested", "bash")
        await _configure(private_tmux, pane, "sh")
        with trio.fail_after(20):
            result = await session.call_tool(
                "run_command", {"pane_id": pane, "command": "exit 3", "timeout": 15}
            )
        text = error_text(result)
        assert "exited during the command" in text and "pane's own program" in text
        assert "respawned" not in text
        with trio.fail_after(20):
            while True:
                again = await session.call_tool(
                    "run_command", {"pane_id": pane, "command": "echo $BASH_VERSINFO"}
                )
                if not again.is_error:
                    break
                await trio.sleep(0.1)
        assert structured(again)["output"].isdigit()


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_typed_line_as_wide_as_the_pane_keeps_the_first_output_line(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """A typed line that filled its row exactly left the cursor in the pending-wrap state;
    the output's first line wrapped from there and tmux joined it to the typed row, so it
    was dropped with the typed line (`echo` of 41 characters in bash on main: output "").
    Thirty lengths in a row after a short prompt, in a pane as wide as the shortest
    typed line plus 20, make one typed line fill its row exactly (the typed line shows
    at most 40 characters of the command: runscript.shown)."""
    # Declined redraws (the screen's read fails): the typed line stays, and fills its
    # row; redrawn runs find their output by its row, not after the typed line.
    async with serve(private_tmux, "--tmux", no_redraw_tmux(private_tmux)) as session:
        pane = _shell_session(private_tmux, f"wide-{shell}", shell, "-x", "400")
        # A short prompt, so that the shortest typed line fits in one row.
        await _configure(private_tmux, pane, "PS1='$ '")
        assert (await _run(session, pane, "echo a"))["output"] == "a"
        screen = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout.split("\n")
        (shortest,) = [len(r) for r in screen if r.startswith("$  { _='echo a'")]
        width = shortest + 20
        private_tmux.bare("resize-window", "-t", pane, "-x", str(width))
        for length in range(1, 31):
            word = "a" * length
            done = await _run(session, pane, f"echo {word}")
            assert done["output"] == word, (length, done["output"])
        # A physical row that holds a whole typed line and is full: the case itself.
        history = private_tmux.bare("capture-pane", "-p", "-S", "-", "-t", pane).stdout
        full = [r for r in history.split("\n") if r.startswith("$  { _=") and r.endswith("2>&1")]
        assert any(len(r) == width for r in full), (width, [len(r) for r in full])


async def test_zsh_rprompt_is_not_output(private_tmux: PrivateTmux) -> None:
    """zsh keeps RPROMPT right of an accepted line that leaves room for it: that text
    is on the typed line's row but is no output (a regression test for the wide-line
    fix above, which first took it for the output's first line)."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, "rprompt", "zsh")
        await _configure(private_tmux, pane, "RPROMPT='[%?]'", "PS1='%# '")
        for command, status, output in (("false", 1, ""), ("echo x", 0, "x")):
            done = await _run(session, pane, command)
            assert (done["exit_status"], done["output"]) == (status, output)
