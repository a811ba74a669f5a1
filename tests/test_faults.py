"""Faults while serving (issue 13, item 4): each call returns promptly, nothing is lost.

A tmux server stopped with SIGSTOP, killed in the middle of a wait, a pane
killed during a wait, and many calls cancelled at once. Real tmux, a real
stdio client; deadlines, never timing asserts.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

import trio
from mcp import ClientSession
from mcp.types import CallToolResult

from tests.support import PrivateTmux, error_text, serve, structured


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
    outcome: list[CallToolResult] = []

    async def wait() -> None:
        outcome.append(
            await session.call_tool(
                "wait_for_text", {"pane_id": pane, "pattern": "never-printed", "timeout": 60}
            )
        )

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(wait)
            await trio.sleep(0.5)  # let the wait start polling (not an assert)
            interrupt()
    return outcome[0]


async def test_tmux_killed_during_wait_for_text_ends_the_wait(private_tmux: PrivateTmux) -> None:
    ids = private_tmux.new_session()
    async with serve(private_tmux) as session:
        result = await _wait_cut_short(session, ids["pane_id"], private_tmux.kill_server)
        text = error_text(result)
        # Usually [tmux-server-gone]; a tmux client cut off by the dying server
        # exits non-zero with no stderr, which reads as a failed command (open).
        assert text.startswith(("[tmux-server-gone]", "[tmux-command-failed]")), text


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
