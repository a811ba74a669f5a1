"""One pane, many calls of one process (issue 27, item 2): served in the order they came;
and many panes, one process: a bound on the panes running commands at once (N8).

Real tmux, a real stdio client. A first run holds the pane until the test
lets it end (it waits for a file); the calls after it are sent one at a time,
each once the previous one has said it waits for its turn (its first progress
notification), so the order they came in is known. On 7563819 every waiter
woke at the holder's end and raced for the cross-process lock: the winners
were served in no particular order, and a loser polled that lock until its
timeout and then blamed "another tmuxmcp process" (there was none).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import trio
from mcp import ClientSession
from mcp.types import CallToolResult

from tests.raw_client import RawClient
from tests.support import PrivateTmux, error_text, serve, structured
from tmuxmcp.runs import registry

DEADLINE = 60


async def _wait_for_file(path: Path) -> None:
    while not path.exists():
        await trio.sleep(0.02)


def _blocker(directory: Path, tag: str) -> str:
    """A command that says it started, then waits for the test's go, then prints ``tag``."""
    started, go = directory / f"started-{tag}", directory / f"go-{tag}"
    order = directory / "order"
    return (
        f"touch {started}; until [ -e {go} ]; do sleep 0.05; done; "
        f"echo {tag} >> {order}; echo {tag}"
    )


class Caller:
    """Calls run_command in the background; knows when each call said it waits."""

    def __init__(self, session: ClientSession, nursery: trio.Nursery) -> None:
        self.session = session
        self.nursery = nursery
        self.results: dict[str, CallToolResult] = {}

    async def queue(self, tag: str, arguments: dict[str, Any]) -> None:
        """Send the call ``tag`` and return once it has said it waits for the pane."""
        waiting = trio.Event()

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            assert message is not None and "waiting" in message, message
            waiting.set()

        async def call() -> None:
            self.results[tag] = await self.session.call_tool(
                "run_command", arguments, progress_callback=on_progress
            )
            waiting.set()

        self.nursery.start_soon(call)
        await waiting.wait()
        assert tag not in self.results, f"{tag} ended before it waited: {self.results[tag]}"


async def test_calls_on_one_pane_are_served_in_the_order_they_came(
    private_tmux: PrivateTmux, tmp_path: Path
) -> None:
    """Five calls queued behind a run are served first come, first served, none refused."""
    tags = [f"r{k}" for k in range(1, 6)]
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("turns")["pane_id"]
        await private_tmux.wait_for_prompt(pane)
        with trio.fail_after(DEADLINE):
            async with trio.open_nursery() as nursery:
                caller = Caller(session, nursery)

                async def holder() -> None:
                    caller.results["r0"] = await session.call_tool(
                        "run_command",
                        {"pane_id": pane, "command": _blocker(tmp_path, "r0"), "timeout": 60},
                    )

                nursery.start_soon(holder)
                await _wait_for_file(tmp_path / "started-r0")
                for tag in tags:
                    (tmp_path / f"go-{tag}").touch()  # each runs at once when its turn comes
                    await caller.queue(
                        tag,
                        {"pane_id": pane, "command": _blocker(tmp_path, tag), "timeout": 60},
                    )
                (tmp_path / "go-r0").touch()
        outputs = [structured(caller.results[tag])["output"] for tag in ["r0", *tags]]
        assert outputs == ["r0", *tags]
        assert (tmp_path / "order").read_text().split() == ["r0", *tags]


async def test_a_call_timing_out_behind_this_process_s_run_names_that_run(
    private_tmux: PrivateTmux, tmp_path: Path
) -> None:
    """A waiter whose timeout passes while a run of this process holds the pane is told
    that run's run_id, not "another tmuxmcp process"; it types nothing, and the call
    that came before it is served first."""
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("holder")["pane_id"]
        await private_tmux.wait_for_prompt(pane)
        with trio.fail_after(DEADLINE):
            async with trio.open_nursery() as nursery:
                caller = Caller(session, nursery)

                async def holder() -> None:
                    caller.results["a"] = await session.call_tool(
                        "run_command",
                        {"pane_id": pane, "command": _blocker(tmp_path, "a"), "timeout": 60},
                    )

                nursery.start_soon(holder)
                await _wait_for_file(tmp_path / "started-a")
                await caller.queue(
                    "b", {"pane_id": pane, "command": _blocker(tmp_path, "b"), "timeout": 60}
                )
                late = f"echo c >> {tmp_path / 'order'}; echo late-call-ran"
                # 8 s: long enough that b has typed its command (and has a run_id) by
                # the time c gives up, even on a loaded machine.
                await caller.queue("c", {"pane_id": pane, "command": late, "timeout": 8})
                # a ends; b, which came first, gets the pane and holds it past c's timeout.
                (tmp_path / "go-a").touch()
                while "c" not in caller.results:
                    await trio.sleep(0.02)
                (tmp_path / "go-b").touch()
        refused = error_text(caller.results["c"])
        ran = {tag: structured(caller.results[tag])["run_id"] for tag in ("a", "b")}
        assert refused.startswith("[pane-not-ready]"), refused
        assert "another tmuxmcp process" not in refused, refused
        assert any(f"run_id {run_id} of this tmuxmcp process" in refused for run_id in ran.values())
        assert (tmp_path / "order").read_text().split() == ["a", "b"]
        assert "late-call-ran" not in private_tmux.bare("capture-pane", "-p", "-t", pane).stdout


async def test_a_cancelled_waiter_leaves_the_queue_and_holds_nothing(
    private_tmux: PrivateTmux, tmp_path: Path
) -> None:
    """A queued call the client cancels (notifications/cancelled) leaves the queue: its
    command never runs, the call behind it is served when the holder ends, and the
    pane's lock is free afterwards for another tmuxmcp process. (A guard: 7563819 also
    passes this one; its waiters did not hold the lock either.)"""
    async with serve(private_tmux) as session, serve(private_tmux) as other:
        pane = private_tmux.new_session("cancel")["pane_id"]
        await private_tmux.wait_for_prompt(pane)
        with trio.fail_after(DEADLINE):
            async with trio.open_nursery() as nursery:
                caller = Caller(session, nursery)

                async def holder() -> None:
                    caller.results["a"] = await session.call_tool(
                        "run_command",
                        {"pane_id": pane, "command": _blocker(tmp_path, "a"), "timeout": 60},
                    )

                nursery.start_soon(holder)
                await _wait_for_file(tmp_path / "started-a")
                cancelled = f"echo b >> {tmp_path / 'order'}"
                async with trio.open_nursery() as doomed:
                    await Caller(session, doomed).queue(
                        "b", {"pane_id": pane, "command": cancelled, "timeout": 60}
                    )
                    doomed.cancel_scope.cancel()  # the SDK sends notifications/cancelled
                # Answered after the server read the cancellation, which came first.
                assert not (await session.call_tool("list_sessions", {})).is_error
                (tmp_path / "go-c").touch()
                await caller.queue(
                    "c", {"pane_id": pane, "command": _blocker(tmp_path, "c"), "timeout": 60}
                )
                (tmp_path / "go-a").touch()
        assert [structured(caller.results[tag])["output"] for tag in "ac"] == ["a", "c"]
        assert (tmp_path / "order").read_text().split() == ["a", "c"]
        after = structured(
            await other.call_tool("run_command", {"pane_id": pane, "command": "echo other"})
        )
        assert after["output"] == "other"


_LIMITED = (
    "import os, resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), "
    "resource.getrlimit(resource.RLIMIT_NOFILE)[1]))\n"
    "os.execv(sys.executable, [sys.executable, '-m', 'tmuxmcp', *sys.argv[2:]])\n"
)


def _text(result: dict[str, Any]) -> str:
    return " ".join(block.get("text", "") for block in result["content"])


def test_runs_past_the_descriptor_bound_are_refused_naming_it(
    private_tmux: PrivateTmux, tmp_path: Path
) -> None:
    """Issue 27, N8: each running command holds descriptors, and at the open-file limit
    run_command failed with "check that tmux is installed". Under an open-file limit of
    160 the bound is 4 panes (``registry.run_limit``): a fifth pane's run is refused at
    once, naming the bound and what to do, and types nothing; once a run ends, the
    fifth pane runs."""
    limit = 160
    bound = (limit - registry.DESCRIPTOR_HEADROOM) // registry.DESCRIPTORS_PER_RUN
    command = [sys.executable, "-c", _LIMITED, str(limit)]
    with RawClient(private_tmux.env, command=command) as client:
        panes = [private_tmux.new_session(f"limit{k}")["pane_id"] for k in range(bound + 1)]
        for pane in panes:
            trio.run(private_tmux.wait_for_prompt, pane)
        running = []
        for k, pane in enumerate(panes[:bound]):
            started = client.call(
                "run_command",
                {"pane_id": pane, "command": _blocker(tmp_path, f"p{k}"), "timeout": 0.2},
            )
            assert started["structuredContent"]["timed_out"] is True, started
            running.append(started["structuredContent"]["run_id"])
        refused = client.call(
            "run_command", {"pane_id": panes[bound], "command": "echo past-the-bound"}
        )
        text = _text(refused)
        assert refused["isError"] and text.startswith("[run-limit]"), text
        assert f"bound ({bound}" in text and "ulimit -n" in text, text
        screen = private_tmux.bare("capture-pane", "-p", "-t", panes[bound]).stdout
        assert "past-the-bound" not in screen
        (tmp_path / "go-p0").touch()
        ended = client.call(
            "wait_for_command", {"pane_id": panes[0], "run_id": running[0], "timeout": 30}
        )
        assert ended["structuredContent"]["output"] == "p0", ended
        after = client.call("run_command", {"pane_id": panes[bound], "command": "echo free"})
        assert after["structuredContent"]["output"] == "free", after
        for k in range(1, bound):
            (tmp_path / f"go-p{k}").touch()
