"""recover_pane (issue 28.5): each wedge back to ``shell-ready``, with the keys typed.

Real tmux, real shells and real programs. Each test wedges a pane with bare
tmux, calls ``recover_pane`` over stdio, and reads the pane back through bare
tmux and the shell itself: a command typed with bare tmux after the call
runs, which only a shell at its prompt does. The keys each step typed are
checked against what the wedge needs (``recover`` Rule 1), and a program that
holds work is ended only when ``end_pid`` names it (Rule 2). The tool is
declared ``pane-input`` (CM-2): the keys it types reach a pane program.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any

import pytest
import trio

from tests.support import PrivateTmux, error_text, serve, structured

SHELLS = {
    "sh": ("sh",),
    "bash": ("bash", "--norc", "--noprofile"),
    "zsh": ("zsh", "-f"),
}


@pytest.fixture(autouse=True)
def _no_rc_files(private_tmux: PrivateTmux) -> None:
    private_tmux.private_home("/bin/sh")


def _pane(tmux: PrivateTmux, name: str, shell: str = "bash") -> str:
    argv = SHELLS[shell]
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    return tmux.new_session(name, "tmuxmcp", *argv)["pane_id"]


def _type(tmux: PrivateTmux, pane: str, line: str) -> None:
    tmux.bare("send-keys", "-t", pane, "-l", line)
    tmux.bare("send-keys", "-t", pane, "Enter")


async def _state(session: Any, pane: str) -> dict[str, Any]:
    listed = structured(await session.call_tool("list_panes", {"pane_id": pane}))
    state: dict[str, Any] = listed["panes"][0]["state"]
    return state


async def _reach(session: Any, pane: str, wanted: str, program: str = "") -> dict[str, Any]:
    """The pane's state once it is ``wanted``, its foreground program's name starting
    with ``program`` (deadline 15 s): a shell that forked is ``running`` a moment before
    the program it starts."""
    with trio.fail_after(15):
        while True:
            state = await _state(session, pane)
            if state["state"] == wanted and (state["foreground_program"] or "").startswith(program):
                return state
            await trio.sleep(0.05)


async def _shell_runs(tmux: PrivateTmux, pane: str) -> None:
    """Read back through bare tmux: a line typed now runs, so the shell is at its prompt."""
    _type(tmux, pane, "echo rec''overed")
    await tmux.wait_for_screen(pane, "recovered")


async def _recover(session: Any, pane: str, **extra: Any) -> dict[str, Any]:
    result = structured(await session.call_tool("recover_pane", {"pane_id": pane, **extra}))
    assert result["state"] == "shell-ready", result
    return result


def _sent(result: dict[str, Any]) -> list[list[str]]:
    return [step["sent"] for step in result["steps"]]


async def test_a_pager_is_left_with_q(private_tmux: PrivateTmux) -> None:
    if shutil.which("less") is None:
        pytest.skip("less is not installed")
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "pager")
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, "less /etc/passwd")
        await _reach(session, pane, "awaiting-keys")
        result = await _recover(session, pane)
        assert _sent(result) == [["q"]]
        assert result["steps"][-1]["state"] == "shell-ready"
        await _shell_runs(private_tmux, pane)


async def test_copy_mode_is_left_by_tmux_and_the_pager_under_it_with_q(
    private_tmux: PrivateTmux,
) -> None:
    """A tmux mode over a pager: two steps, the mode first (no key reaches the mode)."""
    if shutil.which("less") is None:
        pytest.skip("less is not installed")
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "mode")
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, "less /etc/passwd")
        await _reach(session, pane, "awaiting-keys")
        private_tmux.bare("copy-mode", "-t", pane)
        assert (await _state(session, pane))["state"] == "copy-mode"
        result = await _recover(session, pane)
        assert _sent(result) == [["copy-mode -q"], ["q"]]
        assert [s["state"] for s in result["steps"]] == ["awaiting-keys", "shell-ready"]
        assert private_tmux.bare("display-message", "-p", "-t", pane, "#{pane_in_mode}").stdout == (
            "0\n"
        )
        await _shell_runs(private_tmux, pane)


async def test_copy_mode_over_a_shell_takes_one_step(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "copy")
        await private_tmux.wait_for_prompt(pane)
        private_tmux.bare("copy-mode", "-t", pane)
        result = await _recover(session, pane)
        assert _sent(result) == [["copy-mode -q"]]
        await _shell_runs(private_tmux, pane)


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_an_unclosed_quote_is_cancelled_with_c_c(
    private_tmux: PrivateTmux, shell: str
) -> None:
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, f"quote-{shell}", shell)
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, "echo 'open")
        await _reach(session, pane, "shell-continuation")
        result = await _recover(session, pane)
        assert _sent(result) == [["C-c"]]
        await _shell_runs(private_tmux, pane)
        screen = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout
        assert "open\necho" not in screen  # the quoted line never ran


async def test_text_typed_after_a_runs_prompt_is_cleared_with_c_u(
    private_tmux: PrivateTmux,
) -> None:
    """``pending`` Rule 4's text (typed, not entered) is what run_command refuses; C-u
    clears it and the next run runs."""
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "typed")
        await private_tmux.wait_for_prompt(pane)
        ran = structured(
            await session.call_tool("run_command", {"pane_id": pane, "command": "true"})
        )
        assert ran["exit_status"] == 0, ran
        private_tmux.bare("send-keys", "-t", pane, "-l", "echo half")
        await private_tmux.wait_for_screen(pane, "echo half")
        result = await _recover(session, pane)
        assert _sent(result) == [["C-u"]]
        ran = structured(
            await session.call_tool("run_command", {"pane_id": pane, "command": "echo whole"})
        )
        assert ran["output"] == "whole", ran


async def test_a_repl_is_refused_without_end_pid_and_left_with_its_own_exit(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "repl")
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, f"{sys.executable} -q")
        state = await _reach(session, pane, "awaiting-keys", "python")
        _type(private_tmux, pane, "kept = 42")
        refused = error_text(await session.call_tool("recover_pane", {"pane_id": pane}))
        assert refused.startswith("[pane-not-ready]"), refused
        assert f"end_pid {state['foreground_pid']}" in refused
        assert "Typed nothing." in refused
        _type(private_tmux, pane, "print('still', kept)")
        await private_tmux.wait_for_screen(pane, "still 42")  # the REPL kept its state
        result = await _recover(session, pane, end_pid=state["foreground_pid"])
        assert _sent(result)[-1] == ["C-d"]
        assert _sent(result)[0] == ["C-c"]
        await _shell_runs(private_tmux, pane)


async def test_a_running_command_is_ended_with_c_c_only_when_named(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "sleep")
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, "sleep 600")
        state = await _reach(session, pane, "running", "sleep")
        refused = error_text(await session.call_tool("recover_pane", {"pane_id": pane}))
        assert f"end_pid {state['foreground_pid']}" in refused, refused
        assert (await _state(session, pane))["state"] == "running"
        wrong = error_text(
            await session.call_tool(
                "recover_pane", {"pane_id": pane, "end_pid": state["foreground_pid"] + 100000}
            )
        )
        assert "Typed nothing." in wrong, wrong
        result = await _recover(session, pane, end_pid=state["foreground_pid"])
        assert _sent(result) == [["C-c"]]
        await _shell_runs(private_tmux, pane)


async def test_a_program_ignoring_sigint_gets_c_backslash(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "deaf")
        await private_tmux.wait_for_prompt(pane)
        _type(
            private_tmux,
            pane,
            f"{sys.executable} -c 'import signal, time; "
            'signal.signal(signal.SIGINT, signal.SIG_IGN); print("dea" "f", flush=True); '
            "time.sleep(600)'",
        )
        # The program ignores SIGINT only once it printed: "running" comes before that.
        await private_tmux.wait_for_screen(pane, "deaf\n")
        state = await _reach(session, pane, "running", "python")
        result = await _recover(session, pane, end_pid=state["foreground_pid"])
        assert _sent(result) == [["C-c"], ["C-\\"]]
        assert [s["state"] for s in result["steps"]] == ["running", "shell-ready"]
        await _shell_runs(private_tmux, pane)


async def test_vim_with_unsaved_changes_is_refused_and_its_buffer_kept(
    private_tmux: PrivateTmux,
) -> None:
    """Without end_pid vim is refused before any key: the unsaved line is still in its
    buffer, read back by writing it with bare tmux."""
    if shutil.which("vim") is None:
        pytest.skip("vim is not installed")
    path = os.path.join(private_tmux.directory, "notes.txt")
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "vim")
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, f"vim -u NONE -i NONE -n {path}")
        state = await _reach(session, pane, "awaiting-keys", "vi")
        private_tmux.bare("send-keys", "-t", pane, "i", "unsaved line", "Escape")
        await private_tmux.wait_for_screen(pane, "unsaved line")
        refused = error_text(await session.call_tool("recover_pane", {"pane_id": pane}))
        assert refused.startswith("[pane-not-ready]"), refused
        assert "vim" in refused and f"end_pid {state['foreground_pid']}" in refused
        assert not os.path.exists(path)
        _type(private_tmux, pane, ":wq")
        await private_tmux.wait_for_prompt(pane)
        with trio.fail_after(10):
            while not os.path.exists(path):
                await trio.sleep(0.02)
        with open(path) as f:
            assert f.read() == "unsaved line\n"


async def test_vim_named_by_end_pid_quits_without_saving(private_tmux: PrivateTmux) -> None:
    if shutil.which("vim") is None:
        pytest.skip("vim is not installed")
    path = os.path.join(private_tmux.directory, "discarded.txt")
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "vimq")
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, f"vim -u NONE -i NONE -n {path}")
        state = await _reach(session, pane, "awaiting-keys", "vi")
        private_tmux.bare("send-keys", "-t", pane, "i", "thrown away")
        await private_tmux.wait_for_screen(pane, "thrown away")
        result = await _recover(session, pane, end_pid=state["foreground_pid"])
        assert _sent(result) == [["Escape", ":", "q", "!", "Enter"]]
        assert not os.path.exists(path)
        await _shell_runs(private_tmux, pane)


async def test_a_run_in_flight_is_ended_only_when_named_and_then_collected(
    private_tmux: PrivateTmux,
) -> None:
    """``recover`` Rule 4: the run's command is a running command; ended with end_pid, the
    run's watcher reads its status back, and wait_for_command collects it."""
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "run")
        await private_tmux.wait_for_prompt(pane)
        started = structured(
            await session.call_tool(
                "run_command", {"pane_id": pane, "command": "sleep 600", "timeout": 0.2}
            )
        )
        assert started["completed"] is False
        state = await _reach(session, pane, "running", "sleep")
        refused = error_text(await session.call_tool("recover_pane", {"pane_id": pane}))
        assert started["run_id"] in refused and "wait_for_command" in refused, refused
        result = await _recover(session, pane, end_pid=state["foreground_pid"])
        assert result["run_id"] == started["run_id"]
        assert _sent(result) == [["C-c"]]
        ended = structured(
            await session.call_tool(
                "wait_for_command", {"pane_id": pane, "run_id": started["run_id"], "timeout": 10}
            )
        )
        assert ended["completed"] is True and ended["exit_status"] == 130, ended
