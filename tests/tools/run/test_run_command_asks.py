"""run_command stops waiting when the command's program asks (issue 28.2): real shells.

A command that asks ``[Y/n]``, asks for a password or opens a pager used to
hold the call until its ``timeout``. Now the call returns once the program
waits for input and keeps waiting (``completed: false``, ``timed_out:
false``, ``waiting_for`` and the question), the agent answers, and
``wait_for_command`` gives the exit status and the whole output. Every
command runs in the pane's own shell only (CM-6).
"""

from __future__ import annotations

import shutil
import sys
from typing import Any

import pytest

from tests.support import PrivateTmux, serve, structured
from tests.tools.run.test_run_command import SHELLS, _at_prompt, _run, _shell_session

LONG = 60
"""A timeout the calls below never reach: a return before it is the program's asking."""


@pytest.fixture(autouse=True)
def _no_rc_files(private_tmux: PrivateTmux) -> None:
    private_tmux.private_home("/bin/sh")


async def _wait(session: Any, pane: str, run_id: str) -> dict[str, Any]:
    return structured(
        await session.call_tool(
            "wait_for_command", {"pane_id": pane, "run_id": run_id, "timeout": LONG}
        )
    )


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_yes_no_question_returns_and_the_answer_finishes_the_run(
    private_tmux: PrivateTmux, shell: str
) -> None:
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"yn-{shell}", shell)
        await _at_prompt(private_tmux, pane)
        asked = await _run(
            session,
            pane,
            "printf 'Continue? [Y/n] '; read answer; echo \"answer:$answer\"; exit_code=3; "
            'test "$answer" = y && exit_code=0; (exit $exit_code)',
            timeout=LONG,
        )
        assert (asked["completed"], asked["timed_out"], asked["waiting_for"]) == (
            False,
            False,
            "awaiting-line",
        ), asked
        assert "Continue? [Y/n]" in asked["prompt"]
        assert asked["exit_status"] is None
        await session.call_tool("send_keys", {"pane_id": pane, "keys": [{"text": "y"}, "Enter"]})
        done = await _wait(session, pane, asked["run_id"])
        assert (done["completed"], done["exit_status"], done["waiting_for"]) == (True, 0, None)
        assert "answer:y" in done["output"]


async def test_a_password_prompt_is_a_secret_and_resumes_after_the_answer(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, "pw", "bash")
        await _at_prompt(private_tmux, pane)
        asked = await _run(
            session,
            pane,
            f"{sys.executable} -c 'import getpass; print(\"length\", len(getpass.getpass()))'",
            timeout=LONG,
        )
        assert (asked["completed"], asked["timed_out"], asked["waiting_for"]) == (
            False,
            False,
            "awaiting-secret",
        ), asked
        assert "Password:" in asked["prompt"]
        # Issue 28.6: the command a person runs to type it, on this socket, at this pane.
        attach = asked["attach_command"]
        assert attach.startswith("tmux -S ") and attach.endswith(f" attach -t {pane}"), attach
        socket = private_tmux.bare("display-message", "-p", "#{socket_path}").stdout.strip()
        assert socket in attach
        await session.call_tool(
            "send_keys", {"pane_id": pane, "keys": [{"text": "hunter2"}, "Enter"]}
        )
        done = await _wait(session, pane, asked["run_id"])
        assert (done["completed"], done["exit_status"]) == (True, 0), done
        assert "length 7" in done["output"]
        assert "hunter2" not in done["output"]


async def test_a_pager_returns_with_its_keys_and_q_ends_it(private_tmux: PrivateTmux) -> None:
    if shutil.which("less") is None:
        pytest.skip("less is not installed")
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, "pager", "bash")
        await _at_prompt(private_tmux, pane)
        asked = await _run(session, pane, "seq 1 500 | less", timeout=LONG)
        assert (asked["completed"], asked["timed_out"], asked["waiting_for"]) == (
            False,
            False,
            "awaiting-keys",
        ), asked
        info = structured(await session.call_tool("list_panes", {"pane_id": pane}))
        assert info["panes"][0]["state"]["leave_keys"] == ["q"]
        private_tmux.bare("send-keys", "-t", pane, "q")
        done = await _wait(session, pane, asked["run_id"])
        assert (done["completed"], done["exit_status"]) == (True, 0), done


@pytest.mark.parametrize(
    "command",
    [
        "sleep 2; echo done",
        # Hostile: it prints a password prompt and goes on working (Rule 1).
        "printf 'Password: '; sleep 2; echo done",
    ],
)
async def test_a_command_that_merely_pauses_is_not_cut_short(
    private_tmux: PrivateTmux, command: str
) -> None:
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, "pause", "bash")
        await _at_prompt(private_tmux, pane)
        done = await _run(session, pane, command, timeout=LONG)
        assert (done["completed"], done["exit_status"], done["waiting_for"]) == (True, 0, None)
        assert done["output"].endswith("done")
