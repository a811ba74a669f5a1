"""run_command's typed line and runscript against what a person typing would get (issue 22).

Real tmux, real shells (dash as ``sh``, bash, zsh), a real stdio client. Each
test names the defect it pins and failed on main before its fix:

* item 1: a tab anywhere in the command was refused (``unsafe-value``,
  U+0009), although the command reaches the shell from a file and only its
  shown first line is typed;
* item 2, a neighbour: ``$?`` at the start of a run was 0, not the status
  the last command ended with.
"""

from __future__ import annotations

import pytest

from tests.support import PrivateTmux, serve
from tests.tools.run.test_run_command import SHELLS, _at_prompt, _run, _shell_session


@pytest.fixture(autouse=True)
def _no_rc_files(private_tmux: PrivateTmux) -> None:
    # The shells' settings are the test's alone: no user rc file, no user history.
    private_tmux.private_home("/bin/sh")


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_tab_reaches_the_command_as_a_tab(private_tmux: PrivateTmux, shell: str) -> None:
    """Item 1: `printf '%s' 'x<TAB>y' | od` was refused as unsafe-value (U+0009). The
    bytes the command's programs receive are read back: 78 09 79, the tab itself (not
    a completion, not spaces), also when the tab is in the shown first line."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"tab-{shell}", shell)
        await _at_prompt(private_tmux, pane)
        done = await _run(session, pane, "printf '%s' 'x\ty' | od -An -tx1")
        assert (done["exit_status"], done["output"].split()) == (0, ["78", "09", "79"])
        # A tab leading the command and one between words: the shell's completion
        # never sees them (a completed word would change the bytes read back).
        led = await _run(session, pane, "\tprintf '%s\\n' a\tb | od -An -c")
        assert led["output"].split() == ["a", "\\n", "b", "\\n"], led["output"]


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_tab_stripping_heredoc_and_a_makefile_recipe(
    private_tmux: PrivateTmux, shell: str, tmp_path: object
) -> None:
    """Item 1's neighbours: `<<-EOF` strips the leading tabs of its body and its
    delimiter; a Makefile recipe must start with a tab (else make stops: "missing
    separator")."""
    heredoc = "cat <<-EOF\n\tindented\n\t\ttwice\n\tEOF\necho after"
    makefile = (
        f"cd {tmp_path} && cat > Makefile <<'EOF'\nall:\n\t@echo made by make\nEOF\n"
        "make -s; echo status $?"
    )
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"doc-{shell}", shell)
        await _at_prompt(private_tmux, pane)
        done = await _run(session, pane, heredoc)
        assert (done["exit_status"], done["output"]) == (0, "indented\ntwice\nafter")
        made = await _run(session, pane, makefile)
        assert made["output"] == "made by make\nstatus 0", made["output"]


@pytest.mark.parametrize("shell", sorted(SHELLS))
@pytest.mark.parametrize(
    ("command", "status"),
    [("(exit 7)", 7), ("false", 1), ("sh -c 'kill -TERM $$'", 143)],
)
async def test_the_next_command_finds_the_last_status_in_its_dollar_question(
    private_tmux: PrivateTmux, shell: str, command: str, status: int
) -> None:
    """Item 2's neighbour: `$?` at the start of a run was 0 (the status of the typed
    line's own `:`), so `echo $?` after a failed run printed 0 where a person gets the
    failed command's status. A signal the shell does not take as an interrupt
    (TERM) keeps its status, 128 + the signal's number."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"st-{shell}", shell)
        await _at_prompt(private_tmux, pane)
        done = await _run(session, pane, command)
        assert done["exit_status"] == status, done
        # No helper variable is left to the command, nor its shown line in `_` (an
        # interactive shell sets `_` to the last argument of each command it runs).
        again = await _run(
            session, pane, 'echo "$?"; echo "${tmuxmcp_status-unset}"; env | grep "^_=echo"'
        )
        assert (again["exit_status"], again["output"]) == (1, f"{status}\nunset")
