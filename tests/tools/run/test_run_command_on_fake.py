"""run_command's and wait_for_command's handlers on the fake world (issue 30.2): every path
before a line is typed.

``run_command`` decides whether the pane's shell is at its prompt before it
types anything (``settle``, ``readiness`` Rules 1-3): here tmux's facts and
screen come from the fake (``fake_support.shows``) and the shell's processes
from the fake world's kernel (``FakeTmux.kernel``: the foreground leader, the
terminal's reading), so each refusal is shown with its text and with nothing
typed, and the pane's turn and lock given back. ``wait_for_command`` refuses
a run it does not know, or one of another pane. The clock is trio's autojump
clock, so a refusal waited out within the settle time takes none. What a run
does once typed (its files and FIFOs, the shell running the script, the
watcher, the output collected) needs a real shell and stays on real tmux,
in the ``test_run_command*.py`` modules.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio.testing

from tests.fake_answers import (
    missing_pane_look,
    program_leader,
    shell_leader,
    shell_reading_line,
)
from tests.fake_support import PANE_PID, call_tool, fake_runtime, screen, shows, words
from tests.memory_session import memory_session
from tmuxmcp.driver.fake import ANY, FakeTmux


@pytest.fixture
def world(tmp_path: Path) -> FakeTmux:
    """A fake tmux whose socket is in a directory of the test's own (``run_command``
    keeps its pane locks beside the socket); expectations may be left unused."""
    return FakeTmux(socket_directory=str(tmp_path))


def _reads(fake: FakeTmux, shown: str, *, times: int = 1, pane: str = "%3", **values: str) -> None:
    """Script ``times`` of run_command's reads of ``pane`` (its state, then its screen,
    in one invocation) showing ``shown``."""
    for _ in range(times):
        fake.expect(
            *words(f"display-message -p -t {pane} --"),
            ANY,
            *words(f"; capture-pane -p -t {pane}"),
            answer=shows(shown, **values),
        )


def _run(**extra: Any) -> dict[str, Any]:
    return {"pane_id": "%3", "command": "make", **extra}


def _typed_nothing(fake: FakeTmux) -> None:
    """Nothing was typed, pasted or sent: every command run was a read."""
    assert {c[0] for c in fake.commands()} <= {"display-message"}, fake.commands()


async def test_refused_arguments_never_reach_tmux(world: FakeTmux) -> None:
    """CM-5: an empty command, a timeout out of range and an unknown parameter are
    ``[invalid-arguments]``, a control character the shell sink refuses is
    ``[unsafe-value]``, each naming what to fix; neither tmux nor the kernel is asked,
    and no pane lock is made."""
    served = fake_runtime(world)
    for wrong, named in (
        (_run(command=""), "[invalid-arguments]"),
        (_run(command="echo \x07"), "[unsafe-value] `command` contains control character"),
        (_run(timeout=0), "[invalid-arguments]"),
        (_run(timeout=601), "[invalid-arguments]"),
        (_run(shell="bash"), "[invalid-arguments]"),
    ):
        refused = await call_tool(world, served, "run_command", wrong)
        assert refused.error is not None and refused.error.startswith(named), refused.error
        assert any(name in refused.error for name in ("command", "timeout", "shell"))
    assert world.calls == [] and world.kernel.read == []
    assert not list(Path(world.socket_directory).iterdir())


async def test_a_pane_tmux_does_not_have_is_the_callers_mistake(world: FakeTmux) -> None:
    """A pane that is not there is ``[object-not-found]`` from the first read, before
    anything is typed; the pane's turn is given back (a second call is refused the
    same way, not told the pane is busy)."""
    served = fake_runtime(world)
    for _ in range(2):
        world.expect(
            *words("display-message -p -t %9 --"),
            ANY,
            *words("; capture-pane -p -t %9"),
            answer=missing_pane_look,
        )
        missing = await call_tool(world, served, "run_command", _run(pane_id="%9"))
        assert missing.error is not None and missing.error.startswith("[object-not-found]")
    _typed_nothing(world)


@pytest.mark.parametrize(
    ("values", "said"),
    [
        ({"pane_dead": "1"}, "is dead; respawn it"),
        ({"pane_in_mode": "1"}, "is in a tmux mode"),
        ({"alternate_on": "1"}, "full-screen program"),
    ],
)
async def test_what_tmux_says_of_the_pane_refuses_it_at_once(
    world: FakeTmux, values: dict[str, str], said: str
) -> None:
    """``readiness`` Rule 1: a dead pane, one in a tmux mode, one on the alternate
    screen are ``[pane-not-ready]`` at the first read, saying what to do; the kernel is
    not asked and nothing is typed."""
    served = fake_runtime(world)
    world.expect(
        *words("display-message -p -t %3 --"),
        ANY,
        *words("; capture-pane -p -t %3"),
        answer=shows(screen("$ "), **values),
    )
    refused = await call_tool(world, served, "run_command", _run())
    assert refused.error is not None and refused.error.startswith("[pane-not-ready]")
    assert said in refused.error, refused.error
    assert world.kernel.read == []
    _typed_nothing(world)


async def test_a_program_in_the_foreground_is_refused_after_the_settle_time(
    world: FakeTmux, autojump_clock: trio.testing.MockClock
) -> None:
    """``readiness`` Rule 2: a program, not a shell, leads the terminal's foreground
    group (read from the kernel, not from the name tmux reports): the pane is looked at
    again within the settle time, in case it was exec'ing a shell, and then refused,
    naming the program."""
    served = fake_runtime(world)
    world.kernel.leader(PANE_PID, program_leader(5000))
    _reads(world, screen("$ "), times=200)
    refused = await call_tool(world, served, "run_command", _run())
    assert refused.error is not None and refused.error.startswith("[pane-not-ready]")
    assert "is running 'sleep' in the foreground, not a shell" in refused.error
    assert len(world.calls) > 1, "looked at again within the settle time"
    _typed_nothing(world)


async def test_a_shell_in_its_own_read_is_not_at_its_prompt(world: FakeTmux) -> None:
    """``readiness`` Rule 2, the terminal's side: bash, the pane's own process, asleep,
    but reading a line in canonical mode with echo is in its ``read`` builtin: a typed
    command would be its answer. Refused at once, saying what it waits for."""
    served = fake_runtime(world)
    world.kernel.leader(PANE_PID, shell_leader(PANE_PID))
    world.kernel.terminal(PANE_PID, shell_reading_line(PANE_PID))
    _reads(world, screen("name? "), cursor_x="6")
    refused = await call_tool(world, served, "run_command", _run())
    assert refused.error is not None and refused.error.startswith("[pane-not-ready]")
    assert "runs its own read builtin" in refused.error and "awaiting-line" in refused.error
    _typed_nothing(world)


async def test_a_continuation_prompt_is_refused(world: FakeTmux) -> None:
    """``readiness`` Rule 3: the shell at its prompt (kernel) whose cursor row reads
    ``> `` waits for the rest of a command; typing would add to it. Refused at once,
    with the prompt seen and the key that cancels it."""
    served = fake_runtime(world)
    world.kernel.leader(PANE_PID, shell_leader(PANE_PID))
    _reads(world, screen("$ echo 'open", "> "), cursor_y="1")
    refused = await call_tool(world, served, "run_command", _run())
    assert refused.error is not None and refused.error.startswith("[pane-not-ready]")
    assert "waiting for the rest of a command" in refused.error and "C-c" in refused.error
    _typed_nothing(world)


async def test_wait_for_command_refuses_a_run_it_does_not_know(world: FakeTmux) -> None:
    """wait_for_command: a run id this process never returned, or one of another pane,
    is ``[object-not-found]`` saying where the id comes from; a run id that is not one
    is ``[invalid-arguments]``. tmux is never asked."""
    served = fake_runtime(world)
    unknown = await call_tool(
        world, served, "wait_for_command", {"pane_id": "%3", "run_id": "0123456789ab"}
    )
    assert unknown.error is not None and unknown.error.startswith("[object-not-found]")
    assert "run_command returns the run_id" in unknown.error
    bad = await call_tool(world, served, "wait_for_command", {"pane_id": "%3", "run_id": "x y"})
    assert bad.error is not None and bad.error.startswith("[invalid-arguments]")
    other = served.runs.new_run("%4", budget=100, lock_fd=-1)
    try:
        elsewhere = await call_tool(
            world, served, "wait_for_command", {"pane_id": "%3", "run_id": other.run_id}
        )
    finally:
        served.runs.shutdown()
    assert elsewhere.error is not None and "ran in pane %4, not %3" in elsewhere.error
    assert world.calls == []


async def test_a_refusal_over_the_in_memory_server_is_a_tool_error(world: FakeTmux) -> None:
    """The whole server in memory: run_command's refusal of a dead pane crosses the
    protocol as an ``isError`` result, and the connection goes on."""
    served = fake_runtime(world)
    _reads(world, screen(""), pane_dead="1")
    async with memory_session(served) as client:
        result = await client.call("run_command", _run())
        assert result["isError"] is True
        assert result["content"][0]["text"].startswith("[pane-not-ready]")
        assert "result" in await client.request("ping")


async def test_an_unknown_run_over_the_in_memory_server_is_a_tool_error(
    world: FakeTmux,
) -> None:
    """The whole server in memory: wait_for_command for a run this process never
    returned is an ``isError`` result saying where run ids come from; tmux is never
    asked."""
    served = fake_runtime(world)
    async with memory_session(served) as client:
        result = await client.call("wait_for_command", {"pane_id": "%3", "run_id": "0123456789ab"})
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("[object-not-found]")
    assert "run_command returns the run_id" in result["content"][0]["text"]
    assert world.calls == []
