"""wait_for_text, search_panes and capture_since end to end over stdio on real tmux.

The three kinds of timeout are each provoked under their own name: the wait
deadline (outcome ``timeout``), the matching budget (outcome
``match-timeout``) and a tmux client that does not answer (the error
``[tmux-timeout]``).

To know that a wait has started (its first poll, which takes the anchor, is
done), tmuxmcp runs tmux through a wrapper script that logs each invocation;
the tests poll that log under deadlines instead of sleeping.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from typing import Any

import trio
from mcp import ClientSession

from tests.process_support import alive
from tests.support import PrivateTmux, error_text, logged_pids, serve, stalling_tmux, structured

NEVER = "no such text anywhere 7c1f"
RANDOM_AB = (
    'awk \'BEGIN{srand(7);for(r=0;r<100;r++){s="";'
    'for(i=0;i<250;i++)s=s (rand()<.5?"a":"b");print s}}\''
)


# -- helpers ---------------------------------------------------------------------


async def _until(predicate: Callable[[], bool], seconds: float = 10.0) -> None:
    with trio.fail_after(seconds):
        while not predicate():
            await trio.sleep(0.01)


async def _polled(log: str, since: int, polls: int = 2) -> None:
    """Wait until tmuxmcp has started ``polls`` tmux calls after ``since`` calls."""
    await _until(lambda: len(logged_pids(log)) >= since + polls)


async def _counting_from_now(log: str, since: int) -> None:
    """Wait until the wait has read the screen it counts new rows from: its tmux calls
    run one after another, so once a third has started after ``since`` the first two
    (the call's opening reads) have ended. Two started is not enough: the second may
    still be reading when the test types, and what it reads then counts as old."""
    await _polled(log, since, polls=3)


async def _shows(tmux: PrivateTmux, pane: str, needle: str) -> None:
    await _until(lambda: needle in tmux.bare("capture-pane", "-p", "-t", pane).stdout)


async def _ready(tmux: PrivateTmux, pane: str) -> None:
    """Wait for the shell's first prompt, so typed keys are not echoed before it."""
    await _until(lambda: tmux.bare("capture-pane", "-p", "-t", pane).stdout.strip() != "")


class _Background:
    """A tool call running in a nursery; ``result`` once ``done`` is set."""

    def __init__(self) -> None:
        self.result: Any = None
        self.done = trio.Event()
        self.scope = trio.CancelScope()


def _start(
    nursery: trio.Nursery,
    session: ClientSession,
    name: str,
    arguments: dict[str, Any],
    **options: Any,
) -> _Background:
    call = _Background()

    async def run() -> None:
        with call.scope:
            call.result = await session.call_tool(name, arguments, **options)
        call.done.set()

    nursery.start_soon(run)
    return call


def _wait(pane: str, pattern: str, **extra: Any) -> dict[str, Any]:
    return {"pane_id": pane, "pattern": pattern, **extra}


# -- wait_for_text: matching, anchoring, echoed input ------------------------------


async def test_new_output_matches_and_the_echoed_command_line_never_does(
    private_tmux: PrivateTmux,
) -> None:
    wrapper, log, _ = stalling_tmux(private_tmux.directory)
    async with serve(private_tmux, "--tmux", wrapper) as session:
        pane = private_tmux.new_session("w")["pane_id"]
        await _ready(private_tmux, pane)
        # The command line is typed (and echoed) before the call: it holds the pattern.
        private_tmux.bare("send-keys", "-t", pane, "-l", "echo ANCHOR_1")
        await _shows(private_tmux, pane, "echo ANCHOR_1")
        async with trio.open_nursery() as nursery:
            since = len(logged_pids(log))
            call = _start(nursery, session, "wait_for_text", _wait(pane, "ANCHOR_1", timeout=20))
            await _counting_from_now(log, since)
            assert not call.done.is_set(), "the echoed command line must not match"
            private_tmux.bare("send-keys", "-t", pane, "Enter")
            with trio.fail_after(10):
                await call.done.wait()
        result = structured(call.result)
        assert result["outcome"] == "matched"
        match = result["match"]
        assert match["line"] == "ANCHOR_1"
        assert match["column"] == 0
        screen = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout.split("\n")
        assert screen[match["row"]] == "ANCHOR_1"
        assert "echo ANCHOR_1" in screen[match["row"] - 1]
        assert match["in_scrollback"] is False
        assert result["elapsed_ms"] >= 0
        assert result["polls"] >= 2


async def test_output_from_before_the_call_counts_only_with_scope_screen(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("b")["pane_id"]
        await _ready(private_tmux, pane)
        private_tmux.bare("send-keys", "-t", pane, "echo BEFORE_$((40+2))", "Enter")
        await _shows(private_tmux, pane, "BEFORE_42\n")
        new = structured(
            await session.call_tool("wait_for_text", _wait(pane, "BEFORE_42", timeout=0.3))
        )
        assert new["outcome"] == "timeout"
        assert new["match"] is None
        screen = structured(
            await session.call_tool(
                "wait_for_text", _wait(pane, "^BEFORE_42$", regex=True, scope="screen")
            )
        )
        assert screen["outcome"] == "matched"
        assert screen["match"]["line"] == "BEFORE_42"
        assert screen["match"]["row"] == 1
        assert screen["polls"] == 1


async def test_a_match_is_found_across_history_trims(private_tmux: PrivateTmux) -> None:
    """Thousands of rows through a 50-row history while waiting: the end is still seen."""
    wrapper, log, _ = stalling_tmux(private_tmux.directory)
    async with serve(private_tmux, "--tmux", wrapper) as session:
        private_tmux.bare("set-option", "-g", "history-limit", "50")
        pane = private_tmux.new_session("t")["pane_id"]
        await _ready(private_tmux, pane)
        async with trio.open_nursery() as nursery:
            since = len(logged_pids(log))
            args = _wait(pane, "^END_[0-9]+$", regex=True, timeout=20)
            call = _start(nursery, session, "wait_for_text", args)
            await _counting_from_now(log, since)
            private_tmux.bare("send-keys", "-t", pane, "seq 1 3000; echo END_$((6*7))", "Enter")
            with trio.fail_after(15):
                await call.done.wait()
        result = structured(call.result)
        assert result["outcome"] == "matched"
        assert result["match"]["line"] == "END_42"


# -- the three timeouts ----------------------------------------------------------------


async def test_the_wait_deadline_is_outcome_timeout(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("d")["pane_id"]
        await _ready(private_tmux, pane)
        with trio.fail_after(10):
            result = await session.call_tool("wait_for_text", _wait(pane, NEVER, timeout=0.4))
        body = structured(result)
        assert body["outcome"] == "timeout"
        assert body["match"] is None
        # Not before its deadline, by the server's own count (the test reads no clock).
        assert body["elapsed_ms"] >= 400


async def test_the_matching_budget_is_outcome_match_timeout(private_tmux: PrivateTmux) -> None:
    """A regex that RE2 runs slowly (its DFA thrashes) over a 250x80 screen of a/b."""
    async with serve(private_tmux) as session:
        ids = private_tmux.new_session("m")
        await _ready(private_tmux, ids["pane_id"])
        pane = ids["pane_id"]
        private_tmux.bare("resize-window", "-t", ids["window_id"], "-x", "250", "-y", "80")
        private_tmux.bare("send-keys", "-t", pane, f"clear; {RANDOM_AB}", "Enter")
        await _until(
            lambda: (
                private_tmux.bare("capture-pane", "-p", "-t", pane).stdout.count("\n") >= 80
                and len(private_tmux.bare("capture-pane", "-p", "-t", pane).stdout) > 15_000
            )
        )
        slow = "[ab]*a[ab]{100}c"
        args = _wait(pane, slow, regex=True, scope="screen", match_budget_ms=1, timeout=30)
        with trio.fail_after(10):  # well inside the 30 s wait deadline
            result = await session.call_tool("wait_for_text", args)
        body = structured(result)
        # The matching budget, not the wait deadline (that would be "timeout"), ended it.
        assert body["outcome"] == "match-timeout"
        assert body["match_ms"] >= 1
        # With room to finish, the same scan completes and the deadline decides.
        roomy = _wait(pane, slow, regex=True, scope="screen", match_budget_ms=5000, timeout=0)
        assert structured(await session.call_tool("wait_for_text", roomy))["outcome"] == "timeout"
        # search_panes reports the same budget under the same name.
        search = structured(
            await session.call_tool(
                "search_panes", {"pattern": slow, "regex": True, "match_budget_ms": 1}
            )
        )
        assert search["outcome"] == "match-timeout"


async def test_catastrophic_patterns_over_a_pane_of_as_return_promptly(
    private_tmux: PrivateTmux,
) -> None:
    """(a+)+$ backtracks exponentially elsewhere; RE2 is linear, well inside the budget."""
    async with serve(private_tmux) as session:
        ids = private_tmux.new_session("a")
        await _ready(private_tmux, ids["pane_id"])
        pane = ids["pane_id"]
        private_tmux.bare("resize-window", "-t", ids["window_id"], "-x", "250", "-y", "80")
        fill = 'awk \'BEGIN{s=sprintf("%250s","");gsub(/ /,"a",s);for(r=0;r<400;r++)print s}\''
        private_tmux.bare("send-keys", "-t", pane, f"clear; {fill}", "Enter")
        await _until(
            lambda: (
                private_tmux.bare("capture-pane", "-p", "-t", pane).stdout.count("a" * 250) >= 79
            )
        )
        # Each call runs under a 5 s matching budget: a backtracking scan (2^250 ways to
        # split a row) would end as "match-timeout", so the outcomes below say RE2 stayed
        # inside it. Not the default 250 ms: that is wall-clock time, which a loaded
        # machine can spend on other processes (issue 27.4).
        budget = {"match_budget_ms": 5000}
        with trio.fail_after(60):
            hit = await session.call_tool(
                "wait_for_text", _wait(pane, "(a+)+$", regex=True, scope="screen") | budget
            )
            miss = await session.call_tool(
                "wait_for_text",
                _wait(pane, "(a+)+b", regex=True, scope="screen", timeout=0) | budget,
            )
            search = await session.call_tool(
                "search_panes",
                {
                    "pattern": "(a+)+$",
                    "regex": True,
                    "scrollback": 400,
                    "max_matches": 1000,
                    "max_chars": 1024 * 1024,  # room for every match (issue 18.2)
                    **budget,
                },
            )
        assert structured(hit)["outcome"] == "matched"
        body = structured(miss)
        assert body["outcome"] == "timeout"
        assert body["match_ms"] < 5000
        found = structured(search)
        assert found["outcome"] == "complete"
        assert len(found["matches"]) >= 400


async def test_a_tmux_that_does_not_answer_is_the_tmux_timeout_error(
    private_tmux: PrivateTmux,
) -> None:
    wrapper, log, flag = stalling_tmux(private_tmux.directory)
    async with serve(private_tmux, "--tmux", wrapper, "--timeout", "0.5") as session:
        pane = private_tmux.new_session("s")["pane_id"]
        await _ready(private_tmux, pane)
        async with trio.open_nursery() as nursery:
            since = len(logged_pids(log))
            call = _start(nursery, session, "wait_for_text", _wait(pane, NEVER, timeout=30))
            await _polled(log, since)
            with open(flag, "w"):
                pass  # from now on every tmux client stalls
            with trio.fail_after(10):
                await call.done.wait()
        os.unlink(flag)
        text = error_text(call.result)
        assert text.startswith("[tmux-timeout]")
        assert "match" not in text
        stalled = logged_pids(log)[-1]
        await _until(lambda: not alive(stalled))


# -- lifecycle: pane gone or dead, cancellation, progress --------------------------------


async def test_a_pane_that_disappears_or_dies_ends_the_wait(private_tmux: PrivateTmux) -> None:
    wrapper, log, _ = stalling_tmux(private_tmux.directory)
    async with serve(private_tmux, "--tmux", wrapper) as session:
        private_tmux.new_session("keep")  # the server outlives the killed pane
        gone = private_tmux.new_session("gone")["pane_id"]
        await _ready(private_tmux, gone)
        dead = private_tmux.new_session("dead")["pane_id"]
        await _ready(private_tmux, dead)
        private_tmux.bare("set-option", "-p", "-t", dead, "remain-on-exit", "on")
        async with trio.open_nursery() as nursery:
            since = len(logged_pids(log))
            first = _start(nursery, session, "wait_for_text", _wait(gone, NEVER, timeout=20))
            second = _start(nursery, session, "wait_for_text", _wait(dead, NEVER, timeout=20))
            await _polled(log, since, polls=4)
            private_tmux.bare("kill-pane", "-t", gone)
            private_tmux.bare("send-keys", "-t", dead, "exit", "Enter")
            with trio.fail_after(10):
                await first.done.wait()
                await second.done.wait()
        assert structured(first.result)["outcome"] == "pane-gone"
        assert structured(second.result)["outcome"] == "pane-dead"
        missing = await session.call_tool("wait_for_text", _wait(gone, NEVER, timeout=1))
        assert error_text(missing).startswith("[object-not-found]")


def _server_children(test_pid: int) -> list[int]:
    """tmux processes whose parent is a ``python -m tmuxmcp`` child of this test."""
    servers, tmux = [], []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        parent = int(fields[1])
        if parent == test_pid and b"tmuxmcp" in cmdline:
            servers.append(int(entry))
        elif fields[0] != "Z":
            tmux.append((int(entry), parent))
    return [pid for pid, parent in tmux if parent in servers]


async def test_cancelling_a_wait_stops_it_and_leaves_no_tmux_child(
    private_tmux: PrivateTmux,
) -> None:
    wrapper, log, flag = stalling_tmux(private_tmux.directory)
    async with serve(private_tmux, "--tmux", wrapper, "--timeout", "60") as session:
        pane = private_tmux.new_session("c")["pane_id"]
        await _ready(private_tmux, pane)
        async with trio.open_nursery() as nursery:
            since = len(logged_pids(log))
            call = _start(nursery, session, "wait_for_text", _wait(pane, NEVER, timeout=600))
            await _polled(log, since)
            with open(flag, "w"):
                pass
            await _polled(log, len(logged_pids(log)), polls=1)  # a poll is now stalled
            stalled = logged_pids(log)[-1]
            call.scope.cancel()
        os.unlink(flag)
        assert call.result is None
        await _until(lambda: not alive(stalled))
        await _until(lambda: _server_children(os.getpid()) == [])
        # The wait loop is gone: no more polls (the safety poll would come every 0.5 s).
        quiet_from = len(logged_pids(log))
        with trio.move_on_after(1.2):
            while True:
                assert len(logged_pids(log)) == quiet_from, "a cancelled wait kept polling"
                await trio.sleep(0.05)
        assert not (await session.call_tool("list_sessions", {})).is_error


async def test_long_waits_send_progress_notifications(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("p")["pane_id"]
        await _ready(private_tmux, pane)
        seen: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, total, message))

        # The wait runs until two reports came, not for a fixed time: a 2.6 s wait
        # on a loaded machine can see its first report late and have no room for a
        # second (each comes a second after the one before: issue 27.4).
        async with trio.open_nursery() as nursery:

            async def wait() -> None:
                await session.call_tool(
                    "wait_for_text", _wait(pane, NEVER, timeout=60), progress_callback=on_progress
                )
                raise AssertionError("a wait for text never printed ended")

            nursery.start_soon(wait)
            await _until(lambda: len(seen) >= 2, 30)
            nursery.cancel_scope.cancel()
        assert all(total == 60 and message == "waiting" for _, total, message in seen)
        progress = [p for p, _, _ in seen]
        assert progress == sorted(progress)
        assert 0.9 <= progress[0] < 60
        assert all(later - before >= 0.999 for before, later in itertools.pairwise(progress))


# -- search_panes --------------------------------------------------------------------


async def test_search_panes_across_scopes_with_rows_and_truncation(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        a = private_tmux.new_session("a")
        b = private_tmux.new_session("b")
        b2 = private_tmux.bare(
            "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", b["pane_id"], "sh"
        ).stdout.strip()
        for pane, word in ((a["pane_id"], "1"), (b["pane_id"], "2"), (b2, "3")):
            private_tmux.bare("send-keys", "-t", pane, f"echo app''le {word}", "Enter")
            await _shows(private_tmux, pane, f"apple {word}\n")
        everything = structured(await session.call_tool("search_panes", {"pattern": "apple"}))
        assert everything["outcome"] == "complete"
        assert {(m["pane_id"], m["line"]) for m in everything["matches"]} == {
            (a["pane_id"], "apple 1"),
            (b["pane_id"], "apple 2"),
            (b2, "apple 3"),
        }
        assert everything["panes_searched"] == 3
        assert everything["truncated"] is False
        for m in everything["matches"]:
            screen = private_tmux.bare("capture-pane", "-p", "-t", m["pane_id"]).stdout
            assert screen.split("\n")[m["row"]] == m["line"]
        in_b = structured(
            await session.call_tool(
                "search_panes", {"pattern": "apple", "session_id": b["session_id"]}
            )
        )
        assert {m["pane_id"] for m in in_b["matches"]} == {b["pane_id"], b2}
        assert all(m["session_id"] == b["session_id"] for m in in_b["matches"])
        in_a = structured(
            await session.call_tool(
                "search_panes", {"pattern": "apple", "window_id": a["window_id"]}
            )
        )
        assert [m["pane_id"] for m in in_a["matches"]] == [a["pane_id"]]
        capped = structured(
            await session.call_tool("search_panes", {"pattern": "apple", "max_matches": 2})
        )
        assert len(capped["matches"]) == 2
        assert capped["truncated"] is True
        assert capped["truncated_by"] == "max_matches"
        both = await session.call_tool(
            "search_panes",
            {"pattern": "x", "session_id": a["session_id"], "window_id": a["window_id"]},
        )
        assert "not both" in error_text(both)
        bad = await session.call_tool("search_panes", {"pattern": "(", "regex": True})
        assert error_text(bad).startswith("[invalid-arguments]")


async def test_search_panes_reaches_into_scrollback_and_caps_its_input(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("h")["pane_id"]
        await _ready(private_tmux, pane)
        private_tmux.bare("send-keys", "-t", pane, "seq 1 500", "Enter")
        await _shows(private_tmux, pane, "\n500\n")
        args = {"pattern": "^7$", "regex": True, "session_id": "$0"}
        visible = structured(await session.call_tool("search_panes", {**args, "scrollback": 0}))
        assert visible["matches"] == []
        deep = structured(await session.call_tool("search_panes", {**args, "scrollback": 600}))
        [match] = deep["matches"]
        assert match["in_scrollback"] is True
        assert match["row"] < 0
        bare = private_tmux.bare(
            "capture-pane", "-p", "-t", pane, "-S", str(match["row"]), "-E", str(match["row"])
        )
        assert bare.stdout == "7\n"
        small = structured(
            await session.call_tool(
                "search_panes", {"pattern": "100", "scrollback": 600, "max_scan_bytes": 1024}
            )
        )
        assert small["truncated_by"] == "max_scan_bytes"
        assert small["scanned_bytes"] <= 1024


# -- capture_since -------------------------------------------------------------------


async def test_capture_since_returns_new_complete_rows_and_pages(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("k")["pane_id"]
        await _ready(private_tmux, pane)
        private_tmux.bare("send-keys", "-t", pane, "echo one", "Enter")
        await _shows(private_tmux, pane, "one\n")
        start = structured(await session.call_tool("capture_since", {"pane_id": pane}))
        assert start["lines"][-1] == "one"
        assert start["first_row"] == 0
        assert start["gap"] is None
        prompt = start["partial"]
        private_tmux.bare("send-keys", "-t", pane, "seq 1 30", "Enter")
        await _shows(private_tmux, pane, "\n30\n")
        await _until(
            lambda: (
                private_tmux.bare("capture-pane", "-p", "-t", pane)
                .stdout.rstrip("\n")
                .split("\n")[-1]
                .strip()
                == prompt.strip()
            )
        )
        step = structured(
            await session.call_tool("capture_since", {"pane_id": pane, "cursor": start["cursor"]})
        )
        assert step["lines"][0].endswith("seq 1 30")
        assert step["lines"][1:] == [str(n) for n in range(1, 31)]
        assert step["gap"] is None
        assert step["lines_lost"] == 0
        assert step["more"] is False
        assert step["partial"] == prompt
        again = structured(
            await session.call_tool("capture_since", {"pane_id": pane, "cursor": step["cursor"]})
        )
        assert again["lines"] == []
        private_tmux.bare("send-keys", "-t", pane, "seq 101 150", "Enter")
        await _shows(private_tmux, pane, "\n150\n")
        pages: list[str] = []
        cursor = again["cursor"]
        for _ in range(5):
            page = structured(
                await session.call_tool(
                    "capture_since", {"pane_id": pane, "cursor": cursor, "max_lines": 20}
                )
            )
            pages += page["lines"]
            cursor = page["cursor"]
            if not page["more"]:
                break
            assert len(page["lines"]) == 20
        assert pages[0].endswith("seq 101 150")
        assert pages[1:] == [str(n) for n in range(101, 151)]


async def test_capture_since_reports_history_limit_and_cleared_history(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        private_tmux.bare("set-option", "-g", "history-limit", "100")
        pane = private_tmux.new_session("l")["pane_id"]
        await _ready(private_tmux, pane)
        first = structured(await session.call_tool("capture_since", {"pane_id": pane}))
        private_tmux.bare("send-keys", "-t", pane, "seq 1 1000", "Enter")
        await _shows(private_tmux, pane, "\n1000\n")
        lost = structured(
            await session.call_tool("capture_since", {"pane_id": pane, "cursor": first["cursor"]})
        )
        assert lost["gap"] == "history-limit"
        assert lost["lines_lost"] >= 1
        assert "1000" in lost["lines"]
        assert "1" not in lost["lines"]

        other = private_tmux.new_session("cl")["pane_id"]
        await _ready(private_tmux, other)
        mark = structured(await session.call_tool("capture_since", {"pane_id": other}))
        private_tmux.bare("send-keys", "-t", other, "seq 1 60", "Enter")
        await _shows(private_tmux, other, "\n60\n")
        private_tmux.bare("clear-history", "-t", other)
        cleared = structured(
            await session.call_tool("capture_since", {"pane_id": other, "cursor": mark["cursor"]})
        )
        assert cleared["gap"] == "history-cleared"
        assert cleared["lines"][-1] == "60"

        wrong = await session.call_tool(
            "capture_since", {"pane_id": pane, "cursor": mark["cursor"]}
        )
        assert "another pane" in error_text(wrong)
        garbage = await session.call_tool("capture_since", {"pane_id": pane, "cursor": "AAAA"})
        assert error_text(garbage).startswith("[invalid-arguments]")
        unsafe = await session.call_tool("capture_since", {"pane_id": pane, "cursor": "a;b"})
        assert error_text(unsafe).startswith("[invalid-arguments]")


# -- send, then wait (issue 11 item 7) ---------------------------------------------------

PYTHON = ("python3", "-I", "-q")
"""A REPL with no start-up file, banner or user site: its first prompt comes quickly."""


async def _prompt(session: ClientSession, pane: str) -> dict[str, Any]:
    result = structured(
        await session.call_tool("wait_for_text", _wait(pane, ">>> ", scope="screen", timeout=20))
    )
    assert result["outcome"] == "matched", result
    return result


async def test_a_prompt_with_a_trailing_space_matches_as_it_appears_on_screen(
    private_tmux: PrivateTmux,
) -> None:
    """capture-pane drops trailing spaces; the cursor after ``>>> `` shows the space."""
    async with serve(private_tmux) as session:
        repl = private_tmux.new_session("py", "tmuxmcp", *PYTHON)["pane_id"]
        prompt = await _prompt(session, repl)
        assert prompt["match"]["matched"] == ">>> "
        assert prompt["match"]["column"] == 0
        shell = private_tmux.new_session("sh")["pane_id"]  # sh's prompt: "$ " ("# " for root)
        await _ready(private_tmux, shell)
        dollar = structured(
            await session.call_tool(
                "wait_for_text", _wait(shell, "^[$#] $", regex=True, scope="screen", timeout=20)
            )
        )
        assert dollar["outcome"] == "matched"
        assert dollar["match"]["line"] in ("$ ", "# ")


async def test_output_that_appeared_before_the_wait_matches_since_the_send_cursor(
    private_tmux: PrivateTmux,
) -> None:
    """The race of issue 11: the answer is on screen before the wait begins."""
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("r")["pane_id"]
        await _ready(private_tmux, pane)
        sent = structured(
            await session.call_tool(
                "send_keys", {"pane_id": pane, "keys": [{"text": "echo RACE_$((6*7))"}, "Enter"]}
            )
        )
        await _shows(private_tmux, pane, "RACE_42\n")  # done before the wait starts
        pattern = _wait(pane, "^RACE_42$", regex=True, timeout=0.3)
        missed = structured(await session.call_tool("wait_for_text", pattern))
        assert missed["outcome"] == "timeout"  # without since, the answer is old news
        found = structured(
            await session.call_tool("wait_for_text", pattern | {"since": sent["cursor"]})
        )
        assert found["outcome"] == "matched"
        assert found["match"]["line"] == "RACE_42"
        assert found["gap"] is None
        # The echoed command line holds "RACE_" too, but only after the cursor's column.
        echo = structured(
            await session.call_tool(
                "wait_for_text",
                _wait(pane, "^[$#] echo", regex=True, timeout=0.3, since=sent["cursor"]),
            )
        )
        assert echo["outcome"] == "timeout"  # the prompt before the cursor does not count
        again = structured(
            await session.call_tool(
                "wait_for_text", _wait(pane, "echo RACE", timeout=5, since=sent["cursor"])
            )
        )
        assert again["outcome"] == "matched"
        assert again["match"]["column"] == 2


async def test_the_repl_loop_passes_twenty_times_in_a_row(private_tmux: PrivateTmux) -> None:
    """python3; wait for ``>>> ``; send ``6*7`` and Enter; wait since the send for ``^42$``."""
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("loop", "tmuxmcp", *PYTHON)["pane_id"]
        await _prompt(session, pane)
        for round_ in range(20):
            sent = structured(
                await session.call_tool(
                    "send_keys", {"pane_id": pane, "keys": [{"text": "6*7"}, "Enter"]}
                )
            )
            answer = structured(
                await session.call_tool(
                    "wait_for_text",
                    _wait(pane, "^42$", regex=True, timeout=10, since=sent["cursor"]),
                )
            )
            assert answer["outcome"] == "matched", (round_, answer)
            assert answer["match"]["line"] == "42"
            # The next prompt, not the one the text was typed after.
            prompt = structured(
                await session.call_tool(
                    "wait_for_text", _wait(pane, ">>> ", timeout=10, since=sent["cursor"])
                )
            )
            assert prompt["outcome"] == "matched", (round_, prompt)
            assert prompt["match"]["row"] == answer["match"]["row"] + 1


async def test_since_is_refused_when_it_is_not_a_cursor_of_this_pane(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("a")["pane_id"]
        other = private_tmux.new_session("b")["pane_id"]
        sent = structured(await session.call_tool("send_keys", {"pane_id": other, "keys": ["End"]}))
        wrong = await session.call_tool("wait_for_text", _wait(pane, "x", since=sent["cursor"]))
        assert "another pane" in error_text(wrong)
        assert "`since`" in error_text(wrong)
        garbage = await session.call_tool("wait_for_text", _wait(pane, "x", since="AAAA"))
        assert error_text(garbage).startswith("[invalid-arguments]")
        screen = await session.call_tool(
            "wait_for_text", _wait(other, "x", scope="screen", since=sent["cursor"])
        )
        assert error_text(screen).startswith("[invalid-arguments]")
