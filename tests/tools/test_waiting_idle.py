"""wait_for_idle end to end over stdio on real tmux: idle, timeout and pane-gone.

No test asserts a duration measured on this machine: each outcome follows from
what the pane's program does (it stops printing, it never stops, the pane is
killed), and the reported quiet is checked against the promise (never less
than quiet_ms when idle), which the implementation guarantees by construction.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import trio

from tests.support import (
    PrivateTmux,
    call_and_interrupt,
    error_text,
    logged_pids,
    serve,
    stalling_tmux,
    structured,
)


async def _until(predicate: Callable[[], bool], seconds: float = 10.0) -> None:
    with trio.fail_after(seconds):
        while not predicate():
            await trio.sleep(0.01)


async def _ready(tmux: PrivateTmux, pane: str) -> None:
    await _until(lambda: tmux.bare("capture-pane", "-p", "-t", pane).stdout.strip() != "")


def _idle(pane: str, quiet_ms: int, timeout: float) -> dict[str, Any]:
    return {"pane_id": pane, "quiet_ms": quiet_ms, "timeout": timeout}


async def test_a_pane_that_stops_printing_becomes_idle(private_tmux: PrivateTmux) -> None:
    """The output starts after the wait has started and ends before it can be idle.

    The pane prints a tick until the flag file exists, so it cannot be quiet
    before the wait's first progress report (the wait is then looking); the
    test creates the flag then, and only then the real output runs and stops.
    Typed before the call, the output could be over before the first look on
    a loaded machine (issue 27.4)."""
    flag = os.path.join(private_tmux.directory, "go")
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("i")["pane_id"]
        await _ready(private_tmux, pane)
        private_tmux.bare(
            "send-keys",
            "-t",
            pane,
            f"while [ ! -e {flag} ]; do echo tick; sleep 0.02; done; "
            "seq 1 30000; echo IDLE_$((6*7))",
            "Enter",
        )
        await _until(lambda: "tick" in private_tmux.bare("capture-pane", "-p", "-t", pane).stdout)
        waited = await call_and_interrupt(
            session,
            "wait_for_idle",
            _idle(pane, 1000, 60),
            lambda: open(flag, "w").close(),
            seconds=60,
        )
        result = structured(waited)
        assert result["outcome"] == "idle", result
        assert result["quiet_for_ms"] >= 1000
        assert result["changes"] >= 1
        assert result["pane_dead"] is False
        screen = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout
        assert "IDLE_42" in screen, screen
        # Already quiet: idle again after about quiet_ms, with no change seen.
        again = structured(await session.call_tool("wait_for_idle", _idle(pane, 50, 30)))
        assert again["outcome"] == "idle"
        assert again["changes"] == 0


async def test_a_screen_that_never_settles_times_out(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("t")["pane_id"]
        await _ready(private_tmux, pane)
        private_tmux.bare(
            "send-keys", "-t", pane, "while :; do date +%s%N; sleep 0.02; done", "Enter"
        )
        await _until(
            lambda: len(private_tmux.bare("capture-pane", "-p", "-t", pane).stdout.split()) > 8
        )
        result = structured(await session.call_tool("wait_for_idle", _idle(pane, 2000, 1.0)))
        assert result["outcome"] == "timeout", result
        assert result["changes"] >= 1
        assert result["quiet_for_ms"] < 2000
        assert result["elapsed_ms"] >= 1000


async def test_a_pane_that_disappears_ends_the_wait_with_pane_gone(
    private_tmux: PrivateTmux,
) -> None:
    wrapper, log, _ = stalling_tmux(private_tmux.directory)
    async with serve(private_tmux, "--tmux", wrapper) as session:
        private_tmux.new_session("keep")  # the server outlives the killed pane
        pane = private_tmux.new_session("gone")["pane_id"]
        await _ready(private_tmux, pane)
        async with trio.open_nursery() as nursery:
            since = len(logged_pids(log))
            box: dict[str, Any] = {}
            done = trio.Event()

            async def wait() -> None:
                box["result"] = await session.call_tool("wait_for_idle", _idle(pane, 600_000, 60))
                done.set()

            nursery.start_soon(wait)
            # The second look has started, so the first (which must find the pane) is done.
            await _until(lambda: len(logged_pids(log)) >= since + 2)
            private_tmux.bare("kill-pane", "-t", pane)
            with trio.fail_after(15):
                await done.wait()
        result = structured(box["result"])
        assert result["outcome"] == "pane-gone", result
        missing = await session.call_tool("wait_for_idle", _idle(pane, 10, 1))
        assert error_text(missing).startswith("[object-not-found]")


async def test_a_dead_pane_is_idle_and_says_so(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        private_tmux.new_session("keep")
        pane = private_tmux.new_session("dead")["pane_id"]
        await _ready(private_tmux, pane)
        private_tmux.bare("set-option", "-p", "-t", pane, "remain-on-exit", "on")
        private_tmux.bare("send-keys", "-t", pane, "exit", "Enter")
        await _until(
            lambda: (
                private_tmux.bare("display", "-p", "-t", pane, "#{pane_dead}").stdout.strip() == "1"
            )
        )
        result = structured(await session.call_tool("wait_for_idle", _idle(pane, 100, 20)))
        assert result["outcome"] == "idle"
        assert result["pane_dead"] is True
