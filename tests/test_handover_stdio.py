"""Hand-over in seconds, and every wait as an MCP Task, over real stdio (issue 29.1, 29.2, 29.4).

A raw 2026-07-28 client that opts in on each request (``tests.test_tasks_stdio``'s
``modern``, whose traffic the SDK oracle checks). Commands wait on a file the
test creates, never on a clock, so a loaded machine cannot turn a task into an
inline answer or the other way round; the hand-over time is the default (3 s)
unless a test says otherwise, and every call's own ``timeout`` is far above it,
so a task before the file exists can only come from the hand-over. What a
cancel leaves in the pane is read back with bare tmux.

CM-5, CM-7: a wait reaches no sink in the pane (a cancelled wait types
nothing); its status message is one bounded printable line.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import trio

from tests.raw_client import PROTOCOL_VERSION, RawClient
from tests.support import PrivateTmux, temporary_tmux
from tests.test_tasks_stdio import CAPS, TASKS, ModernClient, _envelope, modern
from tmuxmcp.runs import registry
from tmuxmcp.tools import handover

LONG = 600
"""A call's own timeout: far past the hand-over time, so only the hand-over makes a task."""


def _gate(tmux: PrivateTmux, name: str, then: str = "echo finished-$((6*7))") -> tuple[str, str]:
    """A command that runs until the test creates a file (the 20 s command of the issue,
    on a condition the test controls), then ``then``; the file's path."""
    path = os.path.join(tmux.directory, name)
    return f"while [ ! -e {path} ]; do sleep 0.05; done; {then}", path


def _open(path: str) -> None:
    with open(path, "w"):
        pass


def _call(client: ModernClient, tool: str, arguments: dict[str, Any], **more: Any) -> Any:
    return client.result("tools/call", {"name": tool, "arguments": arguments}, **more)


def _pane_as_it_is(tmux: PrivateTmux, pane: str) -> tuple[str, str, str]:
    """What bare tmux shows of ``pane``: its screen, its cursor and its process (the
    shell's pid and whether it is dead; not ``pane_current_command``, which flips
    between ``sh`` and ``sleep`` while the gate's loop runs)."""
    screen = tmux.bare("capture-pane", "-p", "-t", pane).stdout
    facts = tmux.bare(
        "display-message", "-p", "-t", pane, "#{cursor_x},#{cursor_y} #{pane_pid}:#{pane_dead}"
    ).stdout.strip()
    cursor, process = facts.split(" ", 1)
    return screen, cursor, process


def _until(condition: Any, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


def test_a_long_command_is_handed_over_and_completes_as_wait_for_command_says(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 29.1: with timeout 600 the call answers with a task while the command still
    waits for its file (so within the hand-over, not at timeout); the task completes
    with the result wait_for_command gives for the same run."""
    pane = private_tmux.new_session("handover")["pane_id"]
    command, go = _gate(private_tmux, "go")
    with modern(private_tmux) as client:
        created = client.run(pane, command, LONG)
        assert created["resultType"] == "task", created
        assert not os.path.exists(go)
        assert created["statusMessage"].startswith("while [ ! -e"), created
        _open(go)
        done = client.until_done(created["taskId"])
        assert done["status"] == "completed"
        facts = done["result"]["structuredContent"]
        assert (facts["completed"], facts["timed_out"], facts["output"]) == (
            True,
            False,
            "finished-42",
        )
        again = _call(client, "wait_for_command", {"pane_id": pane, "run_id": facts["run_id"]})
    assert again["resultType"] == "complete"
    assert again["structuredContent"] == facts
    assert again["content"] == done["result"]["content"]


def test_a_command_that_ends_within_the_handover_returns_inline(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 29.1: opted in, a quick command gets its plain result (no task), and so do a
    wait met at once and a wait whose own timeout is shorter than the hand-over."""
    pane = private_tmux.new_session("quick")["pane_id"]
    with modern(private_tmux) as client:
        result = client.run(pane, "echo quick-$((2+3))", LONG)
        waited = _call(
            client, "wait_for_text", {"pane_id": pane, "pattern": "quick", "scope": "screen"}
        )
        short = _call(client, "wait_for_text", {"pane_id": pane, "pattern": "never", "timeout": 1})
    assert short["resultType"] == "complete"
    assert short["structuredContent"]["outcome"] == "timeout"
    assert result["resultType"] == "complete"
    assert result["structuredContent"]["output"] == "quick-5"
    assert waited["resultType"] == "complete"
    assert waited["structuredContent"]["outcome"] == "matched"


def test_the_operator_sets_the_handover_time(private_tmux: PrivateTmux) -> None:
    """Issue 29.1: ``--task-handover`` is how long a call answers inline. With 600 s, a
    command that ends after the test's file appears is still answered inline."""
    pane = private_tmux.new_session("setting")["pane_id"]
    command, go = _gate(private_tmux, "go")
    with modern(private_tmux, "--task-handover", "600") as client:
        client.raw.send(
            {
                "jsonrpc": "2.0",
                "id": 10_000,
                "method": "tools/call",
                "params": {
                    "name": "run_command",
                    "arguments": {"pane_id": pane, "command": command, "timeout": 60},
                    "_meta": _envelope(True),
                },
            }
        )
        _until(lambda: "while [ ! -e" in private_tmux.bare("capture-pane", "-p", "-t", pane).stdout)
        _open(go)
        reply = client.raw.reply(10_000)
    assert reply["result"]["resultType"] == "complete", reply
    assert reply["result"]["structuredContent"]["output"] == "finished-42"


def test_a_wait_for_a_line_printed_later_continues_as_a_task_with_the_match(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 29.2: wait_for_text for a line not there yet answers with a task after the
    hand-over; its status says what it waits for and what it saw; the task completes
    with the match once the line is printed."""
    pane = private_tmux.new_session("line")["pane_id"]
    command, go = _gate(private_tmux, "go", "echo progress-1; read x; echo READY-$((40+2))")
    private_tmux.bare("send-keys", "-t", pane, "-l", command)
    private_tmux.bare("send-keys", "-t", pane, "Enter")
    with modern(private_tmux) as client:
        created = _call(
            client,
            "wait_for_text",
            {"pane_id": pane, "pattern": "^READY-42$", "regex": True, "timeout": 600},
        )
        assert created["resultType"] == "task", created
        _open(go)
        _until(
            lambda: (
                "last new row: progress-1"
                in client.result("tasks/get", {"taskId": created["taskId"]}).get(
                    "statusMessage", ""
                )
            )
        )
        status = client.result("tasks/get", {"taskId": created["taskId"]})["statusMessage"]
        assert status.startswith("waiting for '^READY-42$'"), status
        assert client.result("tasks/get", {"taskId": created["taskId"]})["status"] == "working"
        private_tmux.bare("send-keys", "-t", pane, "Enter")
        done = client.until_done(created["taskId"])
    assert done["status"] == "completed"
    facts = done["result"]["structuredContent"]
    assert facts["outcome"] == "matched"
    assert facts["match"]["line"] == "READY-42"


def test_wait_for_command_continues_as_a_task_until_the_command_ends(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 29.2: without the opt-in run_command returns a run_id; an opted-in
    wait_for_command for it continues as a task whose status is the command's own
    last line, and completes with the run's result."""
    pane = private_tmux.new_session("command")["pane_id"]
    command, go = _gate(private_tmux, "go", "echo done-$((6*7))")
    with modern(private_tmux) as client:
        started = client.run(pane, f"echo first-line; {command}", 0.5, opt_in=False)
        run_id = started["structuredContent"]["run_id"]
        created = _call(
            client, "wait_for_command", {"pane_id": pane, "run_id": run_id, "timeout": LONG}
        )
        assert created["resultType"] == "task", created
        assert created["statusMessage"].endswith("first-line"), created
        _open(go)
        done = client.until_done(created["taskId"])
    facts = done["result"]["structuredContent"]
    assert (facts["run_id"], facts["completed"], facts["exit_status"]) == (run_id, True, 0)
    assert facts["output"].splitlines() == ["first-line", "done-42"]


def test_wait_for_state_continues_as_a_task_until_the_shell_is_back(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 29.2 with 28.3: an opted-in wait_for_state for shell-ready while a command
    runs becomes a task whose status names the states waited for and the state seen
    (never the pane's text); it completes when the shell is back at its prompt."""
    pane = private_tmux.new_session("state")["pane_id"]
    command, go = _gate(private_tmux, "go", "echo PRINTED-$((6*7))")
    private_tmux.bare("send-keys", "-t", pane, "-l", command)
    private_tmux.bare("send-keys", "-t", pane, "Enter")
    with modern(private_tmux) as client:
        created = _call(
            client, "wait_for_state", {"pane_id": pane, "states": ["shell-ready"], "timeout": LONG}
        )
        assert created["resultType"] == "task", created
        assert created["statusMessage"] == "waiting for shell-ready; pane is running", created
        _open(go)
        done = client.until_done(created["taskId"])
    assert done["status"] == "completed"
    facts = done["result"]["structuredContent"]
    assert (facts["outcome"], facts["reached"]) == ("reached", "shell-ready"), facts
    assert "PRINTED" not in json.dumps(created)


@pytest.mark.parametrize("tool", ["wait_for_text", "wait_for_command"])
def test_cancelling_a_wait_ends_it_and_leaves_the_pane_as_it_was(
    private_tmux: PrivateTmux, tool: str
) -> None:
    """Issue 29.2: tasks/cancel of a wait is acknowledged, the task is cancelled, and
    nothing reaches the pane: screen, cursor and program read back with bare tmux are
    as before; a command waited for goes on and ends as it would have. CM-5: the waits
    are declared reach none, effect observe, and stay so as tasks."""
    pane = private_tmux.new_session("cancel")["pane_id"]
    command, go = _gate(private_tmux, "go")
    with modern(private_tmux) as client:
        started = client.run(pane, command, 0.5, opt_in=False)
        run_id = started["structuredContent"]["run_id"]
        arguments: dict[str, Any] = (
            {"pane_id": pane, "pattern": "never-printed", "timeout": LONG}
            if tool == "wait_for_text"
            else {"pane_id": pane, "run_id": run_id, "timeout": LONG}
        )
        created = _call(client, tool, arguments)
        assert created["resultType"] == "task", created
        before = _pane_as_it_is(private_tmux, pane)
        for _ in range(2):
            ack = client.result("tasks/cancel", {"taskId": created["taskId"]})
            assert ack["resultType"] == "complete"
        task = client.result("tasks/get", {"taskId": created["taskId"]})
        assert task["status"] == "cancelled" and "result" not in task
        assert _pane_as_it_is(private_tmux, pane) == before
        # The command goes on: it ends by its own gate, status 0, not by a C-c (130).
        _open(go)
        after = _call(
            client, "wait_for_command", {"pane_id": pane, "run_id": run_id, "timeout": 60}
        )
    assert after["structuredContent"]["exit_status"] == 0
    assert after["structuredContent"]["output"] == "finished-42"


def test_a_wait_whose_pane_dies_completes_its_task(private_tmux: PrivateTmux) -> None:
    """Issue 29.2: the pane goes away while its wait is a task: the task completes with
    the wait's own outcome (pane-gone), when it happens."""
    pane = private_tmux.new_session("dies")["pane_id"]
    private_tmux.bare("new-window", "-d")  # the session outlives the pane
    with modern(private_tmux) as client:
        created = _call(
            client, "wait_for_text", {"pane_id": pane, "pattern": "never", "timeout": LONG}
        )
        assert created["resultType"] == "task", created
        private_tmux.bare("kill-pane", "-t", pane)
        done = client.until_done(created["taskId"])
    assert done["result"]["structuredContent"]["outcome"] == "pane-gone"


def test_a_wait_as_a_task_ends_with_its_timeout_before_the_task_expires(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 29.2: a wait that goes on as a task has its timeout cut to the task's TTL,
    less a margin (``handover.TTL_MARGIN``): with a TTL of 8 s and a hand-over of 1 s, a
    wait of 600 s for a line never printed completes with outcome timeout, and a poll
    sees it completed, not expired."""
    pane = private_tmux.new_session("deadline")["pane_id"]
    with modern(private_tmux, "--task-ttl", "8", "--task-handover", "1") as client:
        created = _call(
            client, "wait_for_text", {"pane_id": pane, "pattern": "never", "timeout": 600}
        )
        assert created["resultType"] == "task", created
        done = client.until_done(created["taskId"])
    assert done["status"] == "completed"
    facts = done["result"]["structuredContent"]
    assert facts["outcome"] == "timeout"
    assert facts["elapsed_ms"] >= (8 - handover.TTL_MARGIN) * 1000


def test_a_wait_as_a_task_keeps_the_callers_timeout(private_tmux: PrivateTmux) -> None:
    """Issue 29.2: a task only stops a wait from holding the conversation; the caller's
    ``timeout`` still says when to give up. With a TTL of an hour, a wait of 4 s handed
    over after 1 s completes with outcome timeout after its 4 s, not near the TTL (on
    the first version of the hand-over it waited for the TTL)."""
    pane = private_tmux.new_session("own-timeout")["pane_id"]
    with modern(private_tmux, "--task-ttl", "3600", "--task-handover", "1") as client:
        created = _call(
            client, "wait_for_text", {"pane_id": pane, "pattern": "never", "timeout": 4}
        )
        assert created["resultType"] == "task", created
        done = client.until_done(created["taskId"])
    assert done["status"] == "completed"
    facts = done["result"]["structuredContent"]
    assert facts["outcome"] == "timeout"
    assert 4000 <= facts["elapsed_ms"] < (3600 - handover.TTL_MARGIN) * 1000


@pytest.mark.parametrize("era", ["2026-07-28 without the opt-in", PROTOCOL_VERSION])
def test_without_the_opt_in_every_wait_blocks_and_returns_its_timeout(
    private_tmux: PrivateTmux, era: str
) -> None:
    """Issue 29: a request that did not opt in (or a 2025-06-18 session, whatever its
    _meta says) never gets a task: the waits answer at their timeout as on main."""
    pane = private_tmux.new_session("plain")["pane_id"]
    arguments = {"pane_id": pane, "pattern": "never", "timeout": 4}
    if era == PROTOCOL_VERSION:
        with RawClient(private_tmux.env) as raw:
            meta: dict[str, Any] = {CAPS: {"extensions": {TASKS: {}}}}
            reply = raw.request(
                "tools/call", {"name": "wait_for_text", "arguments": arguments, "_meta": meta}
            )
            result = reply["result"]
    else:
        with modern(private_tmux, opt_in=False) as client:
            result = _call(client, "wait_for_text", arguments)
    assert result.get("resultType", "complete") == "complete"
    assert result["structuredContent"]["outcome"] == "timeout"
    assert result["structuredContent"]["elapsed_ms"] >= 4000


def test_a_waits_task_end_is_audited_when_it_happens(private_tmux: PrivateTmux) -> None:
    """Issue 29.4: a wait's task is audited when it is made and when it ends, with
    nobody polling: task-created, then task-completed:ok; a cancelled one task-cancelled."""
    log = os.path.join(private_tmux.directory, "audit.log")
    pane = private_tmux.new_session("audit")["pane_id"]
    with modern(private_tmux, "--audit-log", log) as client:
        created = _call(
            client,
            "wait_for_text",
            {"pane_id": pane, "pattern": "^AUDITED$", "regex": True, "timeout": LONG},
        )
        assert created["resultType"] == "task"
        cancelled = _call(
            client, "wait_for_text", {"pane_id": pane, "pattern": "never", "timeout": LONG}
        )
        client.result("tasks/cancel", {"taskId": cancelled["taskId"]})
        private_tmux.bare("send-keys", "-t", pane, "-l", "echo AUDITED")
        private_tmux.bare("send-keys", "-t", pane, "Enter")

        def outcomes() -> list[str]:
            with open(log) as lines:
                return [
                    json.loads(line)["outcome"]
                    for line in lines
                    if json.loads(line)["tool"] == "wait_for_text"
                ]

        _until(lambda: "task-completed:ok" in outcomes())
    assert sorted(outcomes()) == sorted(
        ["task-created", "task-created", "task-cancelled", "task-completed:ok"]
    )


_LIMITED = (
    "import os, resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), "
    "resource.getrlimit(resource.RLIMIT_NOFILE)[1]))\n"
    "os.execv(sys.executable, [sys.executable, '-m', 'tmuxmcp', *sys.argv[2:]])\n"
)


def test_waits_as_tasks_count_toward_the_descriptor_bound(private_tmux: PrivateTmux) -> None:
    """Issue 29.4 (issue 27 N8): a wait that goes on as a task holds its activity hint's
    descriptors, counted with the runs' against the open-file limit. With room for one
    such wait, a second opted-in wait is not handed over: it blocks to its timeout as
    without the opt-in; once the first task is cancelled, a wait is handed over again."""
    room = registry.DESCRIPTOR_HEADROOM + handover.DESCRIPTORS_PER_WAIT + 7
    pane = private_tmux.new_session("bound")["pane_id"]
    command = [sys.executable, "-c", _LIMITED, str(room)]
    with RawClient(private_tmux.env, initialize=False, command=command) as raw:
        client = ModernClient(raw)
        client.result("server/discover", {})
        first = _call(client, "wait_for_text", {"pane_id": pane, "pattern": "a1", "timeout": LONG})
        assert first["resultType"] == "task", first
        second = _call(client, "wait_for_text", {"pane_id": pane, "pattern": "b2", "timeout": 4})
        assert second["resultType"] == "complete", second
        assert second["structuredContent"]["outcome"] == "timeout"
        client.result("tasks/cancel", {"taskId": first["taskId"]})
        third = _call(client, "wait_for_text", {"pane_id": pane, "pattern": "c3", "timeout": LONG})
        assert third["resultType"] == "task", third


# -- the patterns page's exchanges, executed in both eras (issue 29.4) ------------------

PAGE = Path(__file__).resolve().parent.parent / "docs" / "patterns.md"
_EXCHANGE = re.compile(
    r"<!-- exchange: (?P<name>[a-z-]+) era=(?P<era>[0-9-]+) -->\n(?P<body>.*?)"
    r"<!-- end exchange -->",
    re.S,
)
_NAMED = re.compile(r"^<(\w+)>$")
ANY = "…"
TERMINAL = {"completed", "cancelled", "failed"}


class Exchange(NamedTuple):
    name: str
    era: str
    lines: tuple[tuple[str, str], ...]
    """Each line's mark (``→`` a request, ``←`` its answer, ``·`` bare tmux) and text."""


def parse_exchanges(page: str) -> list[Exchange]:
    found = []
    for match in _EXCHANGE.finditer(page):
        block = match["body"].split("```text\n", 1)[1].split("```", 1)[0]
        lines = tuple((line[0], line[2:]) for line in block.splitlines() if line.strip())
        assert all(mark in "→←·" for mark, _ in lines), lines
        found.append(Exchange(match["name"], match["era"], lines))
    return found


EXCHANGES = parse_exchanges(PAGE.read_text(encoding="utf-8"))


def _bind(expected: Any, actual: Any, seen: dict[str, Any], where: str) -> list[str]:
    """Where ``actual`` differs from the documented ``expected``; ``"<name>"`` binds a value."""
    if isinstance(expected, str) and (named := _NAMED.match(expected)):
        if named[1] in seen:
            return [] if seen[named[1]] == actual else [f"{where}: {actual!r} != <{named[1]}>"]
        seen[named[1]] = actual
        return [] if actual is not None else [f"{where}: null for <{named[1]}>"]
    if expected == ANY:
        return [] if actual is not None else [f"{where}: null"]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {actual!r}"]
        return [
            problem
            for key, value in expected.items()
            for problem in (
                _bind(value, actual[key], seen, f"{where}.{key}")
                if key in actual
                else [f"{where}.{key}: missing"]
            )
        ]
    return [] if expected == actual else [f"{where}: documented {expected!r}, got {actual!r}"]


def _named(value: Any, seen: dict[str, Any]) -> Any:
    if isinstance(value, str) and (named := _NAMED.match(value)):
        return seen[named[1]]
    if isinstance(value, dict):
        return {key: _named(inner, seen) for key, inner in value.items()}
    return value


def run_exchange(exchange: Exchange, tmux: PrivateTmux, ask: Any) -> None:
    """Send each ``→`` line with ``ask(method, params)``, check each ``←`` answer, run
    each ``·`` line with bare tmux. A ``tasks/get`` documented as ended is polled until
    the task has ended."""
    seen: dict[str, Any] = {}
    request: tuple[str, dict[str, Any]] | None = None
    answer: Any = None
    for mark, text in exchange.lines:
        if mark == "·":
            words = shlex.split(text)
            assert words[0] == "tmux", text
            tmux.bare(*words[1:])
        elif mark == "→":
            method, rest = text.split(" ", 1)
            if method == "tools/call":
                tool, rest = rest.split(" ", 1)
                params = {"name": tool, "arguments": _named(json.loads(rest), seen)}
            else:
                params = _named(json.loads(rest), seen)
            request = (method, params)
            answer = ask(method, params)
        else:
            assert request is not None, text
            expected = json.loads(text)
            deadline = time.monotonic() + 60
            while (
                request[0] == "tasks/get"
                and expected.get("status") in TERMINAL
                and answer["status"] == "working"
            ):
                assert time.monotonic() < deadline, answer
                time.sleep(0.05)
                answer = ask(*request)
            problems = _bind(expected, answer, seen, f"{exchange.name} {request[0]}")
            assert not problems, (problems, answer)


@pytest.mark.parametrize("exchange", [pytest.param(e, id=f"{e.name}-{e.era}") for e in EXCHANGES])
def test_the_documented_exchange_is_what_the_server_answers(exchange: Exchange) -> None:
    """Issue 29.4: docs/patterns.md's long-command, wait-for-a-line and cancel exchanges,
    each in both protocol eras, over real stdio on a fresh tmux server."""
    with temporary_tmux("tmxho") as tmux:
        tmux.private_home(shutil.which("bash") or "/bin/sh")
        pane = tmux.new_session("work")["pane_id"]
        assert pane == "%0"
        trio.run(tmux.wait_for_prompt, pane)
        if exchange.era == "2026-07-28":
            with modern(tmux) as client:
                run_exchange(exchange, tmux, client.result)
        else:
            assert exchange.era == PROTOCOL_VERSION
            with RawClient(tmux.env) as raw:

                def ask(method: str, params: dict[str, Any]) -> Any:
                    reply = raw.request(method, params)
                    assert "result" in reply, reply
                    return reply["result"]

                run_exchange(exchange, tmux, ask)


def test_the_page_shows_each_exchange_in_both_eras() -> None:
    shown = {(e.name, e.era) for e in EXCHANGES}
    assert shown == {
        (name, era)
        for name in ("long-command", "wait-for-a-line", "cancel")
        for era in ("2026-07-28", PROTOCOL_VERSION)
    }
