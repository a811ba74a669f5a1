"""Faults while serving (issue 13, item 4): each call returns promptly, nothing is lost.

A tmux server stopped with SIGSTOP, killed in the middle of a wait, a pane
killed during a wait, and many calls cancelled at once. Real tmux, a real
stdio client; deadlines, never timing asserts.
"""

from __future__ import annotations

import os
import random
import select
import signal
from collections.abc import Callable
from typing import Any

import pytest
import trio
from mcp import ClientSession
from mcp.types import CallToolResult

from tests.process_support import alive, gate_options, stalled_call, wait_exit
from tests.support import (
    PrivateTmux,
    call_and_interrupt,
    error_text,
    logged_pids,
    serve,
    structured,
)


async def test_a_stopped_tmux_server_times_out_while_pings_are_answered(
    private_tmux: PrivateTmux,
) -> None:
    private_tmux.start_foreign_server()
    server_pid = int(private_tmux.server_pid())
    async with serve(private_tmux, "--timeout", "1") as session:
        assert not (await session.call_tool("list_sessions", {})).is_error
        os.kill(server_pid, signal.SIGSTOP)
        try:
            results: list[str] = []

            async def one_call() -> None:
                results.append(error_text(await session.call_tool("list_sessions", {})))

            with trio.fail_after(15):
                async with trio.open_nursery() as nursery:
                    for _ in range(4):
                        nursery.start_soon(one_call)
                    for _ in range(3):
                        await session.send_ping()  # answered while the calls wait on tmux
        finally:
            os.kill(server_pid, signal.SIGCONT)
        assert len(results) == 4
        assert all(text.startswith("[tmux-timeout]") for text in results), results
        with trio.fail_after(10):
            assert not (await session.call_tool("list_sessions", {})).is_error


async def _wait_cut_short(
    session: ClientSession, pane: str, interrupt: Callable[[], object]
) -> CallToolResult:
    """A long wait_for_text on ``pane``, with ``interrupt`` run once it is waiting."""
    wait = {"pane_id": pane, "pattern": "never-printed", "timeout": 60}
    return await call_and_interrupt(session, "wait_for_text", wait, interrupt)


async def test_tmux_killed_during_wait_for_text_ends_the_wait(private_tmux: PrivateTmux) -> None:
    ids = private_tmux.new_session()
    async with serve(private_tmux) as session:
        result = await _wait_cut_short(session, ids["pane_id"], private_tmux.kill_server)
        text = error_text(result)
        assert text.startswith("[tmux-bound-server-lost]"), text


async def test_a_pane_killed_during_a_wait_ends_the_wait(private_tmux: PrivateTmux) -> None:
    ids = private_tmux.new_session()
    private_tmux.bare("split-window", "-t", ids["pane_id"], "sh")
    async with serve(private_tmux) as session:
        result = await _wait_cut_short(
            session, ids["pane_id"], lambda: private_tmux.bare("kill-pane", "-t", ids["pane_id"])
        )
        found = structured(result)
        assert found["outcome"] == "pane-gone"
        assert found["pane_id"] == ids["pane_id"]
        assert not (await session.call_tool("list_sessions", {})).is_error


async def test_many_calls_cancelled_at_once_leave_the_server_serving(
    private_tmux: PrivateTmux,
) -> None:
    ids = private_tmux.new_session()
    async with serve(private_tmux) as session:
        with trio.move_on_after(1.0):
            async with trio.open_nursery() as nursery:
                for _ in range(40):
                    nursery.start_soon(
                        session.call_tool,
                        "wait_for_text",
                        {"pane_id": ids["pane_id"], "pattern": "never-printed", "timeout": 60},
                    )
        # The client sent notifications/cancelled for each; the server goes on.
        with trio.fail_after(10):
            got = structured(await session.call_tool("list_sessions", {}))
        assert [s["session_id"] for s in got["sessions"]] == [ids["session_id"]]


KILL_REPEATS = int(os.environ.get("TMUXMCP_FAULT_REPEATS", "7"))
"""Times tmux is killed each way under the calls below, each time on a new server with a
new tmuxmcp (7 by default: 21 kills per tool; TMUXMCP_FAULT_REPEATS=20 for 60)."""


def _kill(private_tmux: PrivateTmux, how: str) -> None:
    """End the tmux server: SIGKILL (its socket is left), SIGTERM, or kill-server;
    return once its process has exited, so the next server is a new one."""
    if how == "kill-server":
        private_tmux.kill_server()
        return
    pid = int(private_tmux.server_pid())
    exited = os.pidfd_open(pid)
    try:
        os.kill(pid, signal.SIGKILL if how == "SIGKILL" else signal.SIGTERM)
        readable, _, _ = select.select([exited], [], [], 10)
        assert readable, f"the tmux server did not exit within 10 s of {how}"
    finally:
        os.close(exited)


async def _until_error(session: ClientSession, name: str, args: dict[str, Any]) -> str:
    """Call ``name`` back to back until a call fails; that call's error text."""
    while True:
        result = await session.call_tool(name, args)
        if result.is_error:
            return error_text(result)


async def _kill_under_calls(private_tmux: PrivateTmux, how: str, delay: float) -> dict[str, str]:
    """Five calls in flight on a new server, tmux killed after ``delay``: each one's error.

    tmuxmcp's run files go to a private ``TMPDIR``, so the caller can check that
    none is left once it has exited (the shells they were for are gone).
    """
    errors: dict[str, str] = {}
    panes = [private_tmux.new_session(f"s{n}")["pane_id"] for n in range(3)]
    async with serve(private_tmux) as session:
        started = structured(
            await session.call_tool(
                "run_command", {"pane_id": panes[2], "command": "sleep 600", "timeout": 0.1}
            )
        )
        assert started["completed"] is False

        async def one(name: str, args: dict[str, Any]) -> None:
            errors[name] = error_text(await session.call_tool(name, args))

        async def loop(name: str, args: dict[str, Any]) -> None:
            errors[name] = await _until_error(session, name, args)

        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(
                    one, "run_command", {"pane_id": panes[0], "command": "sleep 600"}
                )
                nursery.start_soon(
                    one,
                    "wait_for_text",
                    {"pane_id": panes[1], "pattern": "never-printed", "timeout": 60},
                )
                nursery.start_soon(
                    one,
                    "wait_for_command",
                    {"pane_id": panes[2], "run_id": started["run_id"], "timeout": 60},
                )
                nursery.start_soon(loop, "search_panes", {"pattern": "never-printed"})
                nursery.start_soon(loop, "capture_pane", {"pane_id": panes[1]})
                await trio.sleep(delay)  # a random moment, not an assert
                _kill(private_tmux, how)
    return errors


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM", "kill-server"])
async def test_tmux_killed_in_the_middle_of_calls_is_always_server_gone(
    private_tmux: PrivateTmux, how: str
) -> None:
    """run_command, wait_for_text, wait_for_command, search_panes and capture_pane,
    all in flight when tmux is killed, each time on a new server: every one of them
    ends with [tmux-bound-server-lost], never another error (CM-1: nothing is claimed
    for a server that is not there). The kill lands at a random moment, so over
    the repeats it finds the calls both between and inside tmux invocations."""
    shuffle = random.Random(f"faults-{how}")
    run_files = os.path.join(private_tmux.directory, "run-files")
    os.mkdir(run_files, 0o700)
    private_tmux.env["TMPDIR"] = run_files
    for repeat in range(KILL_REPEATS):
        errors = await _kill_under_calls(private_tmux, how, 0.2 + shuffle.random() * 0.5)
        assert len(errors) == 5, errors
        assert os.listdir(run_files) == [], (repeat, how, "run files left behind")
        wrong = {
            n: text for n, text in errors.items() if not text.startswith("[tmux-bound-server-lost]")
        }
        assert not wrong, (repeat, how, wrong)


def test_sigterm_with_a_call_in_flight_kills_its_tmux_child_and_exits_143(
    private_tmux: PrivateTmux,
) -> None:
    """Item 3: a signal while a call waits on tmux ends serving cleanly: the call's
    tmux child is killed and reaped, the gate option removed, no traceback."""
    with stalled_call(private_tmux) as call:
        assert alive(call.stalled[0])
        os.unlink(call.flag)  # the stalled child stays stalled; the shutdown's own calls do not
        call.client.proc.send_signal(signal.SIGTERM)
        assert wait_exit(call.client.proc) == 143
    assert "Traceback" not in call.client.stderr()
    assert not [pid for pid in logged_pids(call.log) if alive(pid)]
    assert "@tmuxmcp_" not in gate_options(private_tmux)
