"""wait_for_state end to end over stdio on real tmux (issue 28.3).

Each state is reached by a real pane through the tool (bash, zsh and sh,
which is dash on Debian, where the shell matters), and read back as the
state object list_panes returns. The wait is begun before the pane gets
there where that can be arranged (the pane waits for a flag file the test
creates once the call reports progress, so it is looking), so the state is
seen arriving, not found already there. Hostile programs print another
state's prompt and must not end the wait; a dead pane answers at its first
look; a timeout answers with the state it saw. ``quiet_ms`` is what
wait_for_idle was: a pane that stops printing, one that never does, one that
goes away. No test asserts a duration measured on this machine.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from typing import Any

import pytest
import trio

from tests.support import (
    PrivateTmux,
    call_and_interrupt,
    serve,
    structured,
)

SHELLS = {
    "sh": ("sh",),
    "bash": ("bash", "--norc", "--noprofile"),
    "zsh": ("zsh", "-f"),
}


@pytest.fixture(autouse=True)
def _no_rc_files(private_tmux: PrivateTmux) -> None:
    private_tmux.private_home("/bin/sh")


async def _until(predicate: Callable[[], bool], seconds: float = 10.0) -> None:
    with trio.fail_after(seconds):
        while not predicate():
            await trio.sleep(0.01)


def _pane(tmux: PrivateTmux, name: str, *argv: str) -> str:
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    return tmux.new_session(name, "tmuxmcp", *argv)["pane_id"]


def _type(tmux: PrivateTmux, pane: str, line: str) -> None:
    tmux.bare("send-keys", "-t", pane, "-l", line)
    tmux.bare("send-keys", "-t", pane, "Enter")


def _screen(tmux: PrivateTmux, pane: str) -> str:
    return tmux.bare("capture-pane", "-p", "-t", pane).stdout


def _args(pane: str, *states: str, **extra: Any) -> dict[str, Any]:
    return {"pane_id": pane, "states": list(states), **extra}


async def _reached(session: Any, pane: str, wanted: str, **extra: Any) -> dict[str, Any]:
    result = structured(await session.call_tool("wait_for_state", _args(pane, wanted, **extra)))
    assert (result["outcome"], result["reached"]) == ("reached", wanted), result
    assert result["state"]["state"] == wanted, result
    return result


# -- each state, reached ------------------------------------------------------------


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_shell_is_ready_again_when_its_command_ends(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """The pane runs a command until the flag exists; the wait sees it end."""
    flag = os.path.join(private_tmux.directory, f"go-{shell}")
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "r", *SHELLS[shell])
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, f"while [ ! -e {flag} ]; do sleep 0.05; done; echo ENDED")
        running = await _reached(session, pane, "running", timeout=20)
        assert running["state"]["leave_keys"] == ["C-c"]
        waited = await call_and_interrupt(
            session,
            "wait_for_state",
            _args(pane, "shell-ready", "dead", timeout=60),
            lambda: open(flag, "w").close(),
            seconds=60,
        )
        result = structured(waited)
        assert (result["outcome"], result["reached"]) == ("reached", "shell-ready"), result
        assert result["state"]["reading_terminal"] is True
        assert "ENDED" in _screen(private_tmux, pane)


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_shells_read_and_its_continuation_are_reached(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """``read`` is ``awaiting-line`` (dash's too, by its one-byte reads); an open quote is
    ``shell-continuation``; neither is ``shell-ready``."""
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "l", *SHELLS[shell])
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, "read x")
        line = await _reached(session, pane, "awaiting-line", timeout=20)
        assert line["state"]["echo"] is True
        _type(private_tmux, pane, "answer")
        await _reached(session, pane, "shell-ready", timeout=20)
        _type(private_tmux, pane, "echo 'open")
        await _reached(session, pane, "shell-continuation", timeout=20)


PROGRAMS = {
    "python-input": (f"{sys.executable} -c 'input(\"Name: \")'", "awaiting-line"),
    "bash-read-s": ("read -s secret", "awaiting-secret"),
    "python-getpass": (
        f"{sys.executable} -c 'import getpass; getpass.getpass(\"Password: \")'",
        "awaiting-secret",
    ),
    "python-repl": (f"{sys.executable} -q", "awaiting-keys"),
    "less": ("less /etc/passwd", "awaiting-keys"),
}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
async def test_a_program_that_asks_is_reached_in_the_state_it_asks_in(
    private_tmux: PrivateTmux, program: str
) -> None:
    command, wanted = PROGRAMS[program]
    if command.split()[0] == "less" and shutil.which("less") is None:
        pytest.skip("less is not installed")
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "p", *SHELLS["bash"])
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, command)
        result = await _reached(session, pane, wanted, timeout=20)
        assert result["state"]["foreground_pid"] is not None
        assert result["state"]["reading_terminal"] is True


async def test_copy_mode_is_reached_with_its_name(private_tmux: PrivateTmux) -> None:
    """A mode makes no output: the wait's looks at least every half second see it."""
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "m", *SHELLS["bash"])
        await private_tmux.wait_for_prompt(pane)
        waited = await call_and_interrupt(
            session,
            "wait_for_state",
            _args(pane, "copy-mode", timeout=60),
            lambda: private_tmux.bare("copy-mode", "-t", pane),
            seconds=60,
        )
        result = structured(waited)
        assert (result["outcome"], result["reached"]) == ("reached", "copy-mode"), result
        assert (result["state"]["mode"], result["state"]["leave_keys"]) == ("copy-mode", ["q"])


# -- what must not end the wait, and how it ends otherwise ---------------------------

HOSTILE = {
    # Prints a shell's prompt and goes on running.
    "fake-prompt": (
        f'{sys.executable} -c \'print("$ ", end="", flush=True); input()\'',
        "shell-ready",
        "awaiting-line",
    ),
    # Asks for a "Password" with echo on: a line, not a secret.
    "fake-password": (
        f"{sys.executable} -c 'input(\"Password: \")'",
        "awaiting-secret",
        "awaiting-line",
    ),
    # Prints a continuation prompt while it sleeps.
    "fake-continuation": ("printf '> '; sleep 600", "shell-continuation", "running"),
}


@pytest.mark.parametrize("program", sorted(HOSTILE))
async def test_a_program_printing_another_states_prompt_does_not_end_the_wait(
    private_tmux: PrivateTmux, program: str
) -> None:
    """The kernel decides (pane_state Rule 1): the wait times out, with the state it saw."""
    command, asked, actual = HOSTILE[program]
    async with serve(private_tmux) as session:
        pane = _pane(private_tmux, "h", *SHELLS["bash"])
        await private_tmux.wait_for_prompt(pane)
        _type(private_tmux, pane, command)
        await _reached(session, pane, actual, timeout=20)
        result = structured(
            await session.call_tool("wait_for_state", _args(pane, asked, timeout=1.5))
        )
        assert (result["outcome"], result["reached"]) == ("timeout", None), result
        assert result["state"]["state"] == actual, result
        assert result["elapsed_ms"] >= 1500


async def test_a_dead_pane_answers_at_its_first_look(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        private_tmux.new_session("keep")
        private_tmux.bare("set-option", "-g", "remain-on-exit", "on")
        dead = private_tmux.bare(
            "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "keep:", "sh -c 'exit 7'"
        ).stdout.strip()
        await _until(
            lambda: (
                private_tmux.bare("display", "-p", "-t", dead, "#{pane_dead}").stdout.strip() == "1"
            )
        )
        other = structured(
            await session.call_tool(
                "wait_for_state", _args(dead, "shell-ready", quiet_ms=600_000, timeout=60)
            )
        )
        assert (other["outcome"], other["reached"], other["polls"]) == ("pane-dead", None, 1)
        assert other["state"]["state"] == "dead"
        asked = await _reached(session, dead, "dead", timeout=60)
        assert asked["polls"] == 1


# -- quiet_ms (what wait_for_idle was) -----------------------------------------------


async def test_a_pane_that_stops_printing_becomes_quiet(private_tmux: PrivateTmux) -> None:
    """The output starts after the wait has started and ends before it can be quiet.

    The pane prints a tick until the flag file exists, so it cannot be quiet
    before the wait's first progress report (the wait is then looking); the
    test creates the flag then, and only then the real output runs and stops."""
    flag = os.path.join(private_tmux.directory, "go")
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("i")["pane_id"]
        await private_tmux.wait_for_prompt(pane)
        private_tmux.bare(
            "send-keys",
            "-t",
            pane,
            f"while [ ! -e {flag} ]; do echo tick; sleep 0.02; done; "
            "seq 1 30000; echo IDLE_$((6*7)); sleep 600",
            "Enter",
        )
        await _until(lambda: "tick" in _screen(private_tmux, pane))
        waited = await call_and_interrupt(
            session,
            "wait_for_state",
            {"pane_id": pane, "quiet_ms": 1000, "timeout": 60},
            lambda: open(flag, "w").close(),
            seconds=60,
        )
        result = structured(waited)
        assert (result["outcome"], result["reached"]) == ("reached", "quiet"), result
        assert result["quiet_for_ms"] >= 1000
        assert result["changes"] >= 1
        assert result["state"]["state"] == "running"  # sleep 600: quiet, not done
        assert "IDLE_42" in _screen(private_tmux, pane)
        # A state asked for wins as soon as it holds; quiet is not waited for.
        state = structured(
            await session.call_tool(
                "wait_for_state", _args(pane, "running", quiet_ms=600_000, timeout=30)
            )
        )
        assert (state["outcome"], state["reached"], state["changes"]) == ("reached", "running", 0)


async def test_a_screen_that_never_settles_times_out_with_the_state_seen(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("t")["pane_id"]
        await private_tmux.wait_for_prompt(pane)
        private_tmux.bare(
            "send-keys", "-t", pane, "while :; do date +%s%N; sleep 0.02; done", "Enter"
        )
        await _until(lambda: len(_screen(private_tmux, pane).split()) > 8)
        result = structured(
            await session.call_tool(
                "wait_for_state", _args(pane, "shell-ready", quiet_ms=2000, timeout=1.0)
            )
        )
        assert (result["outcome"], result["reached"]) == ("timeout", None), result
        assert result["state"]["state"] == "running"
        assert result["changes"] >= 1
        assert result["quiet_for_ms"] < 2000
        assert result["elapsed_ms"] >= 1000
