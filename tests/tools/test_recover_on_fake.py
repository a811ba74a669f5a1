"""recover_pane's handler on the fake world (issue 30.2): its steps, refusals and result.

Each test scripts the reads of the pane tmux answers (``list-panes -t`` with
the state's facts, the cursor row of a shell at its prompt) and what the fake
world's kernel reads of the pane's terminal after each step
(``FakeTmux.kernel``, readings the parity test holds to real panes), calls
the tool through the dispatcher and checks the words each step typed and
what the result or the refusal says (``recover`` Rules 1, 2, 3 and 5). The
clock is trio's autojump clock, so a step's wait passes without waiting on
this machine. What the keys do to real programs (a pager leaving, a REPL's
own exit, vim discarding its buffer, a program ignoring SIGINT), and a run
in flight, stay in ``test_recover.py``.
"""

from __future__ import annotations

import trio.testing

from tests.fake_answers import missing_pane, reading_keys, running_command, shell_prompt
from tests.fake_support import (
    PANE_PID,
    call_tool,
    cursor_row,
    fake_runtime,
    listed,
    words,
)
from tests.memory_session import memory_session
from tmuxmcp.driver.fake import ANY, FakeTmux

CHILD = 5000
"""A program the pane's shell runs in the foreground."""


def _ready_again(fake: FakeTmux) -> None:
    """The read after a step: the shell is back at its prompt, its cursor row fresh."""
    listed(fake)
    cursor_row(fake, "$ ")


async def test_a_shell_ready_pane_gets_nothing(fake: FakeTmux) -> None:
    """Rule 1: a pane whose shell is at its prompt, no text typed after it, is the
    result at once: no step, nothing typed."""
    served = fake_runtime(fake)
    fake.kernel.terminal(PANE_PID, shell_prompt(PANE_PID))
    _ready_again(fake)
    result = (await call_tool(fake, served, "recover_pane", {"pane_id": "%3"})).ok()
    assert result == {"pane_id": "%3", "state": "shell-ready", "steps": [], "run_id": None}


async def test_a_mode_is_left_by_tmux_not_by_keys(fake: FakeTmux) -> None:
    """Rule 1: a pane in a tmux mode takes one step, tmux's own ``copy-mode -q`` (no key
    reaches a mode's bindings), reported as such, and the state read after it."""
    served = fake_runtime(fake)
    fake.kernel.terminal(PANE_PID, shell_prompt(PANE_PID))
    listed(fake, pane_in_mode="1", pane_mode="copy-mode")
    fake.expect(*words("copy-mode -q -t %3"))
    _ready_again(fake)
    result = (await call_tool(fake, served, "recover_pane", {"pane_id": "%3"})).ok()
    assert result["steps"] == [{"sent": ["copy-mode -q"], "state": "shell-ready"}]
    assert result["state"] == "shell-ready"


async def test_a_pager_is_left_with_q(fake: FakeTmux) -> None:
    """Rule 1: a pager (by its executable) reading keys is left with ``q``, a key, which
    loses nothing but its view."""
    served = fake_runtime(fake)
    fake.kernel.terminal(PANE_PID, reading_keys(CHILD), shell_prompt(PANE_PID))
    listed(fake)
    fake.expect(*words("send-keys -t %3 -- q"))
    _ready_again(fake)
    result = (await call_tool(fake, served, "recover_pane", {"pane_id": "%3"})).ok()
    assert result["steps"] == [{"sent": ["q"], "state": "shell-ready"}]


async def test_a_running_command_is_ended_only_when_end_pid_names_it(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Rule 2, Rule 5: a running command is refused without ``end_pid`` (the refusal
    names the pid to give, says nothing was typed, and nothing is), and with another
    pid; with its own, ``C-c`` ends it."""
    fake = FakeTmux()
    served = fake_runtime(fake)
    fake.kernel.terminal(PANE_PID, running_command(CHILD))
    listed(fake, times=2)
    refused = await call_tool(fake, served, "recover_pane", {"pane_id": "%3"})
    assert refused.error is not None and refused.error.startswith("[pane-not-ready]")
    assert f"end_pid {CHILD}" in refused.error and "Typed nothing." in refused.error
    wrong = await call_tool(fake, served, "recover_pane", {"pane_id": "%3", "end_pid": CHILD + 1})
    assert wrong.error is not None and "Typed nothing." in wrong.error
    assert not [c for c in fake.commands() if c[0] == "send-keys"]
    fake.kernel.terminal(PANE_PID, running_command(CHILD), shell_prompt(PANE_PID))
    listed(fake)
    fake.expect(*words("send-keys -t %3 -- C-c"))
    _ready_again(fake)
    ended = (
        await call_tool(fake, served, "recover_pane", {"pane_id": "%3", "end_pid": CHILD})
    ).ok()
    assert ended["steps"] == [{"sent": ["C-c"], "state": "shell-ready"}]
    fake.check()


async def test_a_program_that_outlasts_every_step_is_left_and_the_error_says_so(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Rule 2, Rule 3, Rule 5: a named command that survives ``C-c`` and ``C-\\`` is left
    as it is after its last step; the error lists what was typed and what goes on."""
    fake = FakeTmux()
    served = fake_runtime(fake)
    fake.kernel.terminal(PANE_PID, running_command(CHILD))
    fake.kernel.alive.add(CHILD)  # it runs on: each step waits out its time, no more
    # On the autojump clock a step's wait reads the pane as often as the pacer's gaps
    # fit in STEP_SECONDS (65, then 61 once its gap has grown), the same on every machine.
    listed(fake)
    fake.expect(*words("send-keys -t %3 -- C-c"))
    listed(fake, times=65)
    fake.expect(*words("send-keys -t %3 -- C-\\"))
    listed(fake, times=61)
    arguments = {"pane_id": "%3", "end_pid": CHILD}
    refused = await call_tool(fake, served, "recover_pane", arguments)
    assert refused.error is not None and refused.error.startswith("[pane-not-ready]")
    assert "outlasted every step" in refused.error
    assert "Typed: C-c -> running; C-\\ -> running." in refused.error
    fake.check()


async def test_a_dead_pane_a_missing_one_and_bad_arguments_say_what_to_do(
    fake: FakeTmux,
) -> None:
    """Rule 5: a dead pane is refused naming respawn_pane, with its exit status; a pane
    tmux does not have is ``[object-not-found]`` naming it; an ``end_pid`` that is not
    a pid is refused before tmux is asked (CM-5)."""
    served = fake_runtime(fake)
    bad = await call_tool(fake, served, "recover_pane", {"pane_id": "%1", "end_pid": "vim"})
    assert bad.error is not None and bad.error.startswith("[invalid-arguments]")
    assert "end_pid" in bad.error and fake.calls == []
    listed(fake, pane_dead="1", pane_dead_status="7")
    dead = await call_tool(fake, served, "recover_pane", {"pane_id": "%3"})
    assert dead.error is not None and dead.error.startswith("[pane-not-ready]")
    assert "dead (exit 7)" in dead.error and "respawn_pane" in dead.error
    fake.expect(*words("list-panes -t %999 -F"), ANY, answer=missing_pane("%999"))
    missing = await call_tool(fake, served, "recover_pane", {"pane_id": "%999"})
    assert missing.error is not None and missing.error.startswith("[object-not-found]")
    assert "%999" in missing.error
    assert fake.kernel.read == []


async def test_a_refusal_over_the_in_memory_server_is_a_tool_error(fake: FakeTmux) -> None:
    """The whole server in memory: recover_pane's refusal of a running command crosses
    the protocol as an ``isError`` result naming the pid, and the connection goes on."""
    served = fake_runtime(fake)
    fake.kernel.terminal(PANE_PID, running_command(CHILD))
    listed(fake)
    async with memory_session(served) as client:
        result = await client.call("recover_pane", {"pane_id": "%3"})
        assert result["isError"] is True
        assert result["content"][0]["text"].startswith("[pane-not-ready]")
        assert f"end_pid {CHILD}" in result["content"][0]["text"]
        assert "result" in await client.request("ping")
