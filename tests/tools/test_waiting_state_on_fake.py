"""wait_for_state's handler on the fake world (issue 30.2): refusals, states, outcomes.

Each test scripts the looks tmux answers (the state's tmux facts, the frame
and the screen: ``fake_support.looks``) and what the fake world's kernel
reads of the pane's terminal at each look (``FakeTmux.kernel``, the
readings of ``tests/fake_answers.py`` that the parity test holds to real
panes), and calls the tool through the dispatcher. The clock is trio's
autojump clock, so a wait's timeout, its quiet time and its polls pass
without waiting on this machine. What only real tmux and real programs show
(each state reached by a real shell or program, the activity hint waking a
look, hostile programs) stays in ``test_waiting_state.py``.
"""

from __future__ import annotations

from typing import Any

import trio.testing

from tests.fake_answers import missing_pane_look, running_command, shell_prompt
from tests.fake_support import (
    PANE_PID,
    call_tool,
    fake_runtime,
    looks,
    screen,
    words,
)
from tests.memory_session import memory_session
from tmuxmcp.driver.fake import ANY, FakeTmux

CHILD = 5000
"""A command the pane's shell runs in the foreground."""


def _args(*states: str, **extra: Any) -> dict[str, Any]:
    return {"pane_id": "%3", "states": list(states), **extra}


async def test_bad_arguments_are_refused_before_tmux_is_asked(fake: FakeTmux) -> None:
    """CM-5: neither states nor quiet_ms, an empty list, a state that is none (the
    error names the ones there are) and a quiet of 0 are ``[invalid-arguments]``; none
    asks tmux or the kernel anything. A pane tmux does not have is the caller's
    mistake, ``[object-not-found]``, from its first look."""
    served = fake_runtime(fake)
    neither = await call_tool(fake, served, "wait_for_state", {"pane_id": "%3"})
    assert neither.error is not None and neither.error.startswith("[invalid-arguments]")
    assert "`states`" in neither.error and "quiet_ms" in neither.error
    for wrong in (_args(), _args("idle"), _args("dead", quiet_ms=0)):
        refused = await call_tool(fake, served, "wait_for_state", wrong)
        assert refused.error is not None and refused.error.startswith("[invalid-arguments]")
    unknown = await call_tool(fake, served, "wait_for_state", _args("idle"))
    assert unknown.error is not None and "shell-ready" in unknown.error  # says what is accepted
    assert fake.calls == [] and fake.kernel.read == []
    fake.expect(
        *words("display-message -p -t %999 --"),
        ANY,
        *words("; display-message -p -t %999 --"),
        ANY,
        *words("; capture-pane -p -t %999 -S"),
        ANY,
        answer=missing_pane_look,
    )
    arguments = {"pane_id": "%999", "states": ["dead"], "timeout": 1}
    missing = await call_tool(fake, served, "wait_for_state", arguments)
    assert missing.error is not None and missing.error.startswith("[object-not-found]")


async def test_the_state_the_kernel_reads_ends_the_wait(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Rule 1: the wait goes on while the kernel reads ``running`` and ends at the look
    that reads ``shell-ready``; the result carries that look's state (bash, the pane's
    own process, reading its terminal) and how many looks it took."""
    fake = FakeTmux()
    served = fake_runtime(fake)
    looks(fake, screen("$ sleep 1"), times=2, cursor_x="0", cursor_y="1")
    looks(fake, screen("$ sleep 1", "$ "), times=20, cursor_y="1")
    fake.kernel.terminal(
        PANE_PID, running_command(CHILD), running_command(CHILD), shell_prompt(PANE_PID)
    )
    waited = (await call_tool(fake, served, "wait_for_state", _args("shell-ready"))).ok()
    assert (waited["outcome"], waited["reached"], waited["polls"]) == ("reached", "shell-ready", 3)
    assert waited["state"]["foreground_pid"] == PANE_PID
    assert waited["state"]["foreground_program"] == "bash"
    assert fake.kernel.read == [PANE_PID] * 3
    fake.check(all_used=False)


async def test_a_prompt_on_the_screen_is_not_a_state(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Rule 1, Rule 4: a screen that says ``Password:`` while the kernel reads a running
    command does not end a wait for ``awaiting-secret``; the deadline does, after a
    last look, with the state seen then."""
    fake = FakeTmux()
    served = fake_runtime(fake)
    looks(fake, screen("Password:"), times=200, cursor_x="9")
    fake.kernel.terminal(PANE_PID, running_command(CHILD))
    arguments = _args("awaiting-secret", timeout=1.5)
    waited = (await call_tool(fake, served, "wait_for_state", arguments)).ok()
    assert (waited["outcome"], waited["reached"]) == ("timeout", None)
    assert waited["state"]["state"] == "running"
    assert waited["elapsed_ms"] >= 1500
    assert waited["polls"] > 1
    fake.check(all_used=False)


async def test_a_dead_pane_answers_at_its_first_look(fake: FakeTmux) -> None:
    """Rule 4: a dead pane is ``pane-dead`` at the first look when ``dead`` was not asked
    for (no other state can follow), ``reached`` when it was; its exit status is tmux's,
    and no kernel reading is made of a process that is gone."""
    served = fake_runtime(fake)
    dead = {"pane_dead": "1", "pane_dead_status": "7"}
    looks(fake, screen(""), times=2, **dead)
    arguments = _args("shell-ready", quiet_ms=600_000, timeout=60)
    other = (await call_tool(fake, served, "wait_for_state", arguments)).ok()
    assert (other["outcome"], other["reached"], other["polls"]) == ("pane-dead", None, 1)
    assert (other["state"]["state"], other["state"]["exit_status"]) == ("dead", 7)
    asked = (await call_tool(fake, served, "wait_for_state", _args("dead", timeout=60))).ok()
    assert (asked["outcome"], asked["reached"], asked["polls"]) == ("reached", "dead", 1)
    assert fake.kernel.read == []


async def test_a_pane_in_a_mode_is_reached_with_the_modes_name(fake: FakeTmux) -> None:
    """A pane in a tmux mode is ``copy-mode`` from tmux's own facts, named by its mode,
    whatever its program does; the keys that leave it are ``q``."""
    served = fake_runtime(fake)
    looks(fake, screen("$ "), pane_in_mode="1", pane_mode="view-mode")
    fake.kernel.terminal(PANE_PID, shell_prompt(PANE_PID))
    waited = (await call_tool(fake, served, "wait_for_state", _args("copy-mode"))).ok()
    assert (waited["outcome"], waited["reached"]) == ("reached", "copy-mode")
    assert (waited["state"]["mode"], waited["state"]["leave_keys"]) == ("view-mode", ["q"])


async def test_a_pane_that_disappears_ends_the_wait_with_pane_gone(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Rule 4: a pane found at the first look and missing at a later one is the
    outcome ``pane-gone``, not an error, with the state the last look read."""
    fake = FakeTmux()
    served = fake_runtime(fake)
    looks(fake, screen("$ sleep 600"))
    fake.expect(
        *words("display-message -p -t %3 --"),
        ANY,
        *words("; display-message -p -t %3 --"),
        ANY,
        *words("; capture-pane -p -t %3 -S"),
        ANY,
        answer=missing_pane_look,
    )
    fake.kernel.terminal(PANE_PID, running_command(CHILD))
    arguments = _args("dead", quiet_ms=600_000, timeout=60)
    waited = (await call_tool(fake, served, "wait_for_state", arguments)).ok()
    assert (waited["outcome"], waited["reached"], waited["polls"]) == ("pane-gone", None, 2)
    assert waited["state"]["state"] == "running"
    fake.check()


async def test_a_screen_that_stops_changing_is_quiet_and_one_that_does_not_times_out(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Rule 3: the screen unchanged for ``quiet_ms`` (from the call's start) is
    ``reached: quiet`` with the state still ``running``; a screen that changes at every
    look never is, and the wait times out with the changes it counted."""
    fake = FakeTmux()
    served = fake_runtime(fake)
    fake.kernel.terminal(PANE_PID, running_command(CHILD))
    looks(fake, screen("$ make", "done"), times=200)
    arguments = {"pane_id": "%3", "quiet_ms": 1000, "timeout": 60}
    quiet = (await call_tool(fake, served, "wait_for_state", arguments)).ok()
    assert (quiet["outcome"], quiet["reached"], quiet["changes"]) == ("reached", "quiet", 0)
    assert quiet["quiet_for_ms"] >= 1000 and quiet["state"]["state"] == "running"
    fake = FakeTmux()
    served = fake_runtime(fake)
    fake.kernel.terminal(PANE_PID, running_command(CHILD))
    for tick in range(200):
        looks(fake, screen("$ make", f"tick {tick}"))
    arguments = _args("shell-ready", quiet_ms=2000, timeout=1.0)
    busy = (await call_tool(fake, served, "wait_for_state", arguments)).ok()
    assert (busy["outcome"], busy["reached"]) == ("timeout", None)
    assert busy["changes"] >= 1 and busy["quiet_for_ms"] < 2000
    assert busy["state"]["state"] == "running"


async def test_a_wait_over_the_in_memory_server_reaches_its_state(fake: FakeTmux) -> None:
    """The whole server in memory (``tests/memory_session.py``): the call's line through
    the protocol and the method table to the handler, the state read from the fake
    world's kernel, the result back as structured content and text."""
    served = fake_runtime(fake)
    looks(fake, screen("$ "))
    fake.kernel.terminal(PANE_PID, shell_prompt(PANE_PID))
    async with memory_session(served) as client:
        result = await client.call("wait_for_state", _args("shell-ready"))
    assert result.get("isError") is not True, result
    assert result["structuredContent"]["reached"] == "shell-ready"
    assert "outcome=reached reached=shell-ready pane=%3" in result["content"][0]["text"]
