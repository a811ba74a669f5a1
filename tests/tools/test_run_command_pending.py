"""run_command when input is already waiting in the pane: real tmux, real shells.

Issue 22 item 5: a program that asks the terminal something (the cursor
position, the device attributes, the background colour) and does not read
the answer leaves tmux's reply in the pane's input; the next run found it
typed ahead of its line (``1R`` after ``\\033[6n``) and was refused as an
"unclosed quote". Text a person (or ``send_text``) left at the prompt is not
tmuxmcp's to destroy: the run is refused, saying what is pending and how to
clear it. Every command runs in the pane's own shell only (CM-6).
"""

from __future__ import annotations

import pytest

from tests.support import PrivateTmux, serve
from tests.tools.test_run_command import SHELLS, _at_prompt, _run, _shell_session

QUERIES = {
    "cursor-position": "printf '\\033[6n'",
    "device-attributes": "printf '\\033[c'",
    "secondary-attributes": "printf '\\033[>c'",
    "status-report": "printf '\\033[5n'",
}
"""Terminal queries tmux answers into the pane's input, each of tmux 3.3a-3.6a."""


@pytest.fixture(autouse=True)
def _no_rc_files(private_tmux: PrivateTmux) -> None:
    private_tmux.private_home("/bin/sh")


@pytest.mark.parametrize("query", sorted(QUERIES))
@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_terminal_reply_left_unread_does_not_reach_the_next_command(
    private_tmux: PrivateTmux, shell: str, query: str
) -> None:
    """The reply to a query the command never read was typed ahead of the next run's
    line: ``echo next`` was refused ("unclosed quote") or ran with the reply's tail."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"q-{shell}", shell)
        await _at_prompt(private_tmux, pane)
        first = await _run(session, pane, f"{QUERIES[query]}; sleep 0.3; echo asked")
        assert first["exit_status"] == 0
        after = await _run(session, pane, "echo next")
        assert (after["exit_status"], after["output"]) == (0, "next"), after
        # And the one after it: nothing of the reply is left anywhere.
        again = await _run(session, pane, "echo again")
        assert (again["exit_status"], again["output"]) == (0, "again"), again
