"""What a pane is waiting for (issue 28.1): real tmux, real shells and real programs.

Each test puts a real pane in one state and reads ``state`` back through
``list_panes`` (all panes, and one by ``pane_id``) over stdio. The state comes from the
kernel (the terminal's foreground group, what it is blocked in, echo and
canonical mode), so hostile programs that print another state's prompt are
tested too: printing "Password:" or "$ " changes nothing.
"""

from __future__ import annotations

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


def _pane(tmux: PrivateTmux, name: str, *argv: str) -> str:
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    return tmux.new_session(name, "tmuxmcp", *argv)["pane_id"]


def _type(tmux: PrivateTmux, pane: str, line: str) -> None:
    tmux.bare("send-keys", "-t", pane, "-l", line)
    tmux.bare("send-keys", "-t", pane, "Enter")


async def _state_of(session: Any, pane: str) -> dict[str, Any]:
    info = structured(await session.call_tool("list_panes", {"pane_id": pane}))
    state: dict[str, Any] = info["panes"][0]["state"]
    return state


async def _wait_for_state(session: Any, pane: str, wanted: str) -> dict[str, Any]:
    """Read ``state`` until it is ``wanted`` (deadline 15 s); the last reading if not."""
    state: dict[str, Any] = {}
    with trio.move_on_after(15):
        while True:
            state = await _state_of(session, pane)
            if state["state"] == wanted:
                return state
            await trio.sleep(0.05)
    return state


PROGRAMS = {
    # A program reading a line with echo on, whatever it printed.
    "python-input": (f"{sys.executable} -c 'input(\"Password: \")'", "awaiting-line"),
    "cat": ("cat", "awaiting-line"),
    # A password prompt: canonical, echo off, read from /dev/tty.
    "python-getpass": (
        f"{sys.executable} -c 'import getpass; getpass.getpass(\"Name: \")'",
        "awaiting-secret",
    ),
    # A program that reads keys itself.
    "python-repl": (f"{sys.executable} -q", "awaiting-keys"),
    "less": ("less /etc/passwd", "awaiting-keys"),
    # A program under a shell's name (argv[0] is its own choice): the executable decides.
    "spoofed-shell": ("exec -a bash cat", "awaiting-line"),
    "vim": ("vim -u NONE -i NONE", "awaiting-keys"),
    # Running, and printing a shell's prompt.
    "sleep": ("printf '$ '; sleep 60", "running"),
    "busy": (f'{sys.executable} -c \'print("$ "); exec("while True: pass")\'', "running"),
}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
async def test_a_program_in_the_foreground_has_the_state_the_kernel_shows(
    private_tmux: PrivateTmux, program: str
) -> None:
    """Each program's state, read from the terminal: not from what it printed."""
    command, wanted = PROGRAMS[program]
    if command.split()[0] in ("less", "vim") and shutil.which(command.split()[0]) is None:
        pytest.skip(f"{command.split()[0]} is not installed")
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "p", *SHELLS["bash"])
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, command)
        state = await _wait_for_state(session, pane, wanted)
        assert state["state"] == wanted, state
        assert state["foreground_pid"] is not None
        private_tmux.bare("kill-session", "-t", pane)


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_shell_at_its_prompt_is_ready(private_tmux: PrivateTmux, shell: str) -> None:
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "s", *SHELLS[shell])
        await private_tmux.wait_for_prompt(pane)
        state = await _wait_for_state(session, pane, "shell-ready")
        assert state["state"] == "shell-ready", state
        assert state["reading_terminal"] is True
        listed = structured(await session.call_tool("list_panes", {}))["panes"]
        assert [p["state"]["state"] for p in listed if p["pane_id"] == pane] == ["shell-ready"]


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_shells_own_read_is_not_its_prompt(private_tmux: PrivateTmux, shell: str) -> None:
    """bash and zsh read their own ``read`` in canonical mode, dash one byte at a time: each
    is ``awaiting-line``, and ``read -s`` (bash, zsh) ``awaiting-secret``."""
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "r", *SHELLS[shell])
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, "read x")
        state = await _wait_for_state(session, pane, "awaiting-line")
        assert state["state"] == "awaiting-line", state
        if shell != "sh":
            _type(private_tmux, pane, "answer")
            await private_tmux.wait_for_prompt(pane)
            _type(private_tmux, pane, "read -s y")
            state = await _wait_for_state(session, pane, "awaiting-secret")
            assert state["state"] == "awaiting-secret", state
            assert state["echo"] is False


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_continuation_prompt_is_not_ready(private_tmux: PrivateTmux, shell: str) -> None:
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "c", *SHELLS[shell])
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, "echo 'open")
        state = await _wait_for_state(session, pane, "shell-continuation")
        assert state["state"] == "shell-continuation", state
        assert state["leave_keys"] == ["C-c"]


async def test_copy_mode_and_a_dead_pane_are_tmuxs_own(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "m", *SHELLS["bash"])
        private_tmux.bare("copy-mode", "-t", pane)
        state = await _state_of(session, pane)
        assert (state["state"], state["mode"], state["leave_keys"]) == (
            "copy-mode",
            "copy-mode",
            ["q"],
        )
        private_tmux.bare("set-option", "-g", "remain-on-exit", "on")
        dead = private_tmux.bare(
            "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "m:", "sh -c 'exit 7'"
        ).stdout.strip()
        state = await _wait_for_state(session, dead, "dead")
        assert state["state"] == "dead", state
        # tmux 3.3a may leave the exit unreaped (and the status empty) until another of
        # its children exits; a second child makes it reap.
        if state["exit_status"] is None:
            private_tmux.bare("new-window", "-d", "-t", "m:", "true")
            with trio.fail_after(15):
                while state["exit_status"] is None:
                    await trio.sleep(0.05)
                    state = await _state_of(session, dead)
        assert state["exit_status"] == 7, state


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_run_command_does_not_answer_a_shells_own_read(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """The issue's case: with bash in ``read x; echo got:$x``, run_command typed its line
    and the ``read`` took it as its answer. The terminal's modes refuse it now, and the
    read gets only the answer a person (here bare tmux) gives."""
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "q", *SHELLS[shell])
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, "read x; echo got:$x")
        assert (await _wait_for_state(session, pane, "awaiting-line"))["state"] == "awaiting-line"
        refused = await session.call_tool(
            "run_command", {"pane_id": pane, "command": "echo hi", "timeout": 5}
        )
        assert error_text(refused).startswith("[pane-not-ready]"), error_text(refused)
        assert "read builtin" in error_text(refused)
        _type(private_tmux, pane, "answer")

        def answers() -> list[str]:
            screen = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout
            return [line for line in screen.splitlines() if line.startswith("got:")]

        with trio.fail_after(10):
            while not answers():
                await trio.sleep(0.02)
        assert answers() == ["got:answer"]
