"""run_command as an MCP Task, over real stdio with real tmux (issue 20).

A raw client speaks 2026-07-28 as Claude Code does, opting in to
``io.modelcontextprotocol/tasks`` on each request. Effects are read back
with bare tmux; every line the server writes goes through the SDK oracle
(``tests/wire_oracle.py``, whose Rule 6 checks the task shapes, for which
mcp_types 2.3 has no models). The store's TTL and bound, on a clock the
test controls, are ``tests/protocol/test_tasks.py``; the operator's TTL
(``--task-ttl``) over stdio is here.

CM-5, CM-7: the command reaches only the pane's shell, and the status
message, pane text, comes back as one bounded printable line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.fake_support import fake_runtime
from tests.memory_session import memory_session
from tests.raw_client import RawClient
from tests.support import PrivateTmux
from tests.wire_oracle import Conversation
from tmuxmcp.driver.fake import FakeTmux
from tmuxmcp.protocol.tasks import status_line

MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
CAPS = "io.modelcontextprotocol/clientCapabilities"


def _envelope(opt_in: bool) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.332"},
        CAPS: {"extensions": {TASKS: {}}} if opt_in else {},
    }


class ModernClient:
    """A raw 2026-07-28 client whose every request carries the envelope."""

    def __init__(self, client: RawClient, opt_in: bool = True) -> None:
        self.raw = client
        self.opt_in = opt_in

    def request(self, method: str, params: dict[str, Any], opt_in: bool | None = None) -> Any:
        meta = _envelope(self.opt_in if opt_in is None else opt_in)
        return self.raw.request(method, {**params, "_meta": meta})

    def result(self, method: str, params: dict[str, Any], opt_in: bool | None = None) -> Any:
        reply = self.request(method, params, opt_in)
        assert "result" in reply, reply
        return reply["result"]

    def run(self, pane: str, command: str, timeout: float, **more: Any) -> Any:
        arguments = {"pane_id": pane, "command": command, "timeout": timeout}
        return self.result("tools/call", {"name": "run_command", "arguments": arguments}, **more)

    def until_done(self, task_id: str, seconds: float = 30) -> dict[str, Any]:
        """Poll ``tasks/get`` (as Claude Code does, faster) until the task ends."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            task: dict[str, Any] = self.result("tasks/get", {"taskId": task_id})
            if task["status"] != "working":
                return task
            time.sleep(0.05)
        raise AssertionError(f"task {task_id} still working after {seconds} s")


@contextmanager
def modern(tmux: PrivateTmux, *args: str, opt_in: bool = True) -> Iterator[ModernClient]:
    """A tmuxmcp process opened with ``server/discover``; its traffic checked by the oracle."""
    conversation = Conversation()
    sent: list[dict[str, Any]] = []
    with RawClient(tmux.env, *args, initialize=False, on_line=conversation.server_wrote) as raw:
        original = raw.send

        def send(message: dict[str, Any]) -> None:
            sent.append(message)
            conversation.client_sent(message)
            original(message)

        raw.send = send  # type: ignore[method-assign]
        client = ModernClient(raw, opt_in)
        found = client.result("server/discover", {})
        assert found["capabilities"]["extensions"] == {TASKS: {}}
        yield client
    conversation.assert_valid()


def _gate(tmux: PrivateTmux, name: str) -> tuple[str, str]:
    """A command that runs until the test creates a file; the file's path."""
    path = os.path.join(tmux.directory, name)
    return f"while [ ! -e {path} ]; do sleep 0.05; done; echo finished-$((6*7))", path


def _current_command(tmux: PrivateTmux, pane: str) -> str:
    return tmux.bare("display-message", "-p", "-t", pane, "#{pane_current_command}").stdout.strip()


def test_a_command_that_ends_in_time_gets_its_plain_result(private_tmux: PrivateTmux) -> None:
    """Opted in, but the command ended within timeout: the plain result, no task."""
    pane = private_tmux.new_session("fast")["pane_id"]
    with modern(private_tmux) as client:
        result = client.run(pane, "echo quick-$((2+3))", 20)
    assert result["resultType"] == "complete"
    assert result["structuredContent"]["completed"] is True
    assert result["structuredContent"]["output"] == "quick-5"


def test_a_slow_command_continues_as_a_task_with_the_result_it_would_have_had(
    private_tmux: PrivateTmux,
) -> None:
    """The task carries every field; an immediate tasks/get answers; a late
    notifications/cancelled for the call is harmless; the completed result is the one
    wait_for_command gives for the same run; wait_for_command keeps working."""
    pane = private_tmux.new_session("slow")["pane_id"]
    command, go = _gate(private_tmux, "go")
    with modern(private_tmux) as client:
        created = client.run(pane, command, 0.5)
        call_id = client.raw._next
        assert created["resultType"] == "task"
        assert created["status"] == "working"
        assert re.fullmatch(r"[0-9a-f]{32}", created["taskId"])
        assert (created["ttlMs"], created["pollIntervalMs"]) == (3_600_000, 1000)
        assert created["createdAt"].endswith("Z") and created["lastUpdatedAt"].endswith("Z")
        assert "content" not in created
        polled = client.result("tasks/get", {"taskId": created["taskId"]})
        assert polled["status"] == "working" and polled["resultType"] == "complete"
        client.raw.notify(
            "notifications/cancelled", {"requestId": call_id, "_meta": _envelope(True)}
        )
        with open(go, "w"):
            pass
        done = client.until_done(created["taskId"])
        assert done["status"] == "completed"
        result = done["result"]
        assert result["isError"] is False
        facts = result["structuredContent"]
        assert (facts["completed"], facts["exit_status"], facts["output"]) == (
            True,
            0,
            "finished-42",
        )
        assert facts["run_id"] != created["taskId"]
        again = client.result(
            "tools/call",
            {"name": "wait_for_command", "arguments": {"pane_id": pane, "run_id": facts["run_id"]}},
        )
    assert again["structuredContent"] == facts
    assert again["content"] == result["content"]
    assert again["isError"] is False


def test_a_call_behind_a_task_s_run_waits_its_turn_and_runs_when_the_task_ends(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 27, item 2: a run a task follows holds its pane in the background; a
    run_command on that pane from the same process waits for its turn (its progress
    says which run holds the pane) and runs when the task's command ends."""
    pane = private_tmux.new_session("behind")["pane_id"]
    command, go = _gate(private_tmux, "go")
    with modern(private_tmux) as client:
        created = client.run(pane, command, 0.5)
        assert created["resultType"] == "task"
        meta = {**_envelope(False), "progressToken": "behind"}
        arguments = {"pane_id": pane, "command": "echo next-$((2*3))", "timeout": 60}
        client.raw.send(
            {
                "jsonrpc": "2.0",
                "id": "behind",
                "method": "tools/call",
                "params": {"name": "run_command", "arguments": arguments, "_meta": meta},
            }
        )
        deadline = time.monotonic() + 30
        while True:
            assert time.monotonic() < deadline, "the queued call never said it waits"
            message = client.raw.message(deadline - time.monotonic())
            assert message.get("id") != "behind", message  # it must not end before go
            if message.get("method") == "notifications/progress":
                text = message["params"]["message"]
                assert "waiting" in text and "run_id" in text, text
                break
        with open(go, "w"):
            pass
        answered = client.raw.reply("behind", timeout=30)
        done = client.until_done(created["taskId"])
    assert done["status"] == "completed"
    assert done["result"]["structuredContent"]["output"] == "finished-42"
    assert answered["result"]["structuredContent"]["output"] == "next-6"
    run_id = done["result"]["structuredContent"]["run_id"]
    assert f"run_id {run_id} of this tmuxmcp process" in text


@pytest.mark.parametrize("era", ["handshake", MODERN])
def test_without_the_opt_in_a_slow_command_returns_its_run_id(
    private_tmux: PrivateTmux, era: str
) -> None:
    """Never a task to a request that did not opt in: a 2026-07-28 request without the
    extension, or a handshake-era request whose _meta names it anyway."""
    pane = private_tmux.new_session("no-opt-in")["pane_id"]
    command, go = _gate(private_tmux, "go")
    arguments = {"pane_id": pane, "command": command, "timeout": 0.5}
    if era == MODERN:
        with modern(private_tmux, opt_in=False) as client:
            result = client.run(pane, command, 0.5)
    else:
        with RawClient(private_tmux.env) as raw:
            meta: dict[str, Any] = {CAPS: {"extensions": {TASKS: {}}}}
            reply = raw.request(
                "tools/call", {"name": "run_command", "arguments": arguments, "_meta": meta}
            )
            result = reply["result"]
    with open(go, "w"):
        pass
    assert result.get("resultType", "complete") == "complete"
    assert "taskId" not in result
    facts = result["structuredContent"]
    assert (facts["completed"], facts["timed_out"]) == (False, True)
    assert re.fullmatch(r"[0-9a-f]{12}", facts["run_id"])


def test_cancel_interrupts_the_command_and_leaves_the_pane_ready(
    private_tmux: PrivateTmux,
) -> None:
    """tasks/cancel, twice: acknowledged both times; the command is interrupted (C-c),
    the task is cancelled, and the next run_command in the pane runs."""
    pane = private_tmux.new_session("cancel")["pane_id"]
    with modern(private_tmux) as client:
        created = client.run(pane, "sleep 600", 0.5)
        assert created["resultType"] == "task"
        assert _current_command(private_tmux, pane) == "sleep"
        for _ in range(2):
            ack = client.result("tasks/cancel", {"taskId": created["taskId"]})
            assert set(ack) <= {"resultType", "_meta"} and ack["resultType"] == "complete"
        task = client.result("tasks/get", {"taskId": created["taskId"]})
        assert task["status"] == "cancelled"
        assert "result" not in task
        assert _current_command(private_tmux, pane) == "sh"
        after = client.run(pane, "echo after-$((1+1))", 20)
    assert after["structuredContent"]["output"] == "after-2"
    assert "after-2" in private_tmux.bare("capture-pane", "-p", "-t", pane).stdout


def test_a_c_c_tmuxmcp_did_not_send_completes_the_task_with_the_shells_status(
    private_tmux: PrivateTmux,
) -> None:
    """A person's C-c (sent straight to the pane, not tasks/cancel) ends the command:
    the task completes with the result run_command would have returned, exit status
    130 (issue 22.2: it was `command-interrupted`), and `$?` is 130 after it."""
    pane = private_tmux.new_session("person")["pane_id"]
    with modern(private_tmux) as client:
        created = client.run(pane, "echo started; sleep 600", 0.5)
        assert created["resultType"] == "task"
        assert _current_command(private_tmux, pane) == "sleep"
        private_tmux.bare("send-keys", "-t", pane, "C-c")
        done = client.until_done(created["taskId"])
        assert done["status"] == "completed"
        assert done["result"].get("isError") is not True, done["result"]
        facts = done["result"]["structuredContent"]
        assert (facts["completed"], facts["exit_status"]) == (True, 130)
        assert facts["output"].split("\n")[0] == "started"
        after = client.run(pane, "echo $?", 20)
    assert after["structuredContent"]["output"] == "130"


def test_the_status_message_of_hostile_pane_text_is_one_clean_line(
    private_tmux: PrivateTmux,
) -> None:
    """CM-7: escape sequences, a 10,000-character line and newlines on the screen; the
    statusMessage is one printable line of at most 128 characters."""
    ids = private_tmux.new_session("hostile")
    private_tmux.bare("resize-window", "-t", ids["window_id"], "-x", "400")
    pane = ids["pane_id"]
    command, go = _gate(private_tmux, "go")
    noisy = (
        r"printf '\033[31mred\033[0m\n\033]0;title\007bell\n\342\200\256rtl\n'; "
        r"printf '%010000d\n\n\n' 0; " + command
    )
    with modern(private_tmux) as client:
        created = client.run(pane, noisy, 0.5)
        assert created["resultType"] == "task"
        polled = client.result("tasks/get", {"taskId": created["taskId"]})
        with open(go, "w"):
            pass
        client.until_done(created["taskId"])
    for message in (created["statusMessage"], polled["statusMessage"]):
        assert 0 < len(message) <= 128
        assert all(unicodedata.category(c)[0] != "C" for c in message), message
        assert set(message) <= {"0", "\u2026"}, message


def _status_until(client: ModernClient, task_id: str, wanted: str) -> str:
    """Poll the task until its statusMessage is ``wanted`` (deadline), returning it."""
    deadline = time.monotonic() + 30
    while True:
        message: str = client.result("tasks/get", {"taskId": task_id}).get("statusMessage", "")
        if message == wanted:
            return message
        assert time.monotonic() < deadline, f"statusMessage stayed {message!r}"
        time.sleep(0.05)


def test_the_status_message_is_the_commands_own_text_then_its_output(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 27 N7: until the command printed, statusMessage was the tail of the line
    tmuxmcp typed, with its private run directory's paths. It is the command's text
    while nothing is printed, then its last line of output; never tmuxmcp's."""
    pane = private_tmux.new_session("status")["pane_id"]
    first, go_on = _gate(private_tmux, "go-on")
    second, go = _gate(private_tmux, "go")
    command = f"{first.split('; echo')[0]}; echo step-$((1+1)); {second}"
    shown = status_line(" ".join(command.split()))
    assert shown is not None
    with modern(private_tmux) as client:
        created = client.run(pane, command, 0.5)
        assert created["resultType"] == "task"
        polled = client.result("tasks/get", {"taskId": created["taskId"]})
        for message in (created["statusMessage"], polled["statusMessage"]):
            assert message == shown, message
            assert "tmuxmcp-" not in message and "/dev/null" not in message
        with open(go_on, "w"):
            pass
        _status_until(client, created["taskId"], "step-2")
        with open(go, "w"):
            pass
        client.until_done(created["taskId"])


def test_the_status_message_of_a_long_output_is_its_last_line(private_tmux: PrivateTmux) -> None:
    """Issue 27 N7: the progress line reads a long output only as far as its last line
    needs (collect.PROGRESS_BYTES), past the history limit too."""
    pane = private_tmux.new_session("long")["pane_id"]
    command, go = _gate(private_tmux, "go")
    with modern(private_tmux) as client:
        created = client.run(pane, f"seq 1 5000; {command}", 0.5)
        assert created["resultType"] == "task"
        _status_until(client, created["taskId"], "5000")
        with open(go, "w"):
            pass
        done = client.until_done(created["taskId"])
    assert done["result"]["structuredContent"]["output"].endswith("5000\nfinished-42")


def test_the_progress_of_a_waiting_call_is_the_commands_own_text(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 27 N7: the blocking run_command's progress notifications (Claude Code shows
    them) say the command's text while it has printed nothing, not tmuxmcp's line."""
    pane = private_tmux.new_session("progress")["pane_id"]
    command, go = _gate(private_tmux, "go")
    arguments = {"pane_id": pane, "command": command, "timeout": 600}
    with RawClient(private_tmux.env) as raw:
        raw.send(
            {
                "jsonrpc": "2.0",
                "id": "call",
                "method": "tools/call",
                "params": {
                    "name": "run_command",
                    "arguments": arguments,
                    "_meta": {"progressToken": 7},
                },
            }
        )
        deadline = time.monotonic() + 60
        while True:
            message = json.loads(raw._line(deadline))
            if message.get("method") == "notifications/progress":
                break
            assert message.get("id") != "call", message
        with open(go, "w"):
            pass
        reply = raw.reply("call")
    said = message["params"]["message"]
    assert re.fullmatch(r"running \d+ s: (.*)", said), said
    assert said.split(": ", 1)[1] == " ".join(command.split())[:200], said
    assert "tmuxmcp-" not in said
    assert reply["result"]["structuredContent"]["output"] == "finished-42"


def test_a_pane_that_dies_mid_task_completes_it_with_is_error(
    private_tmux: PrivateTmux,
) -> None:
    """A tmuxmcp error during the run is completed with isError, not failed."""
    ids = private_tmux.new_session("dies")
    private_tmux.bare("split-window", "-t", ids["window_id"], "sh")  # the session outlives it
    pane = ids["pane_id"]
    with modern(private_tmux) as client:
        created = client.run(pane, "sleep 600", 0.5)
        assert created["resultType"] == "task"
        private_tmux.bare("kill-pane", "-t", pane)
        done = client.until_done(created["taskId"])
    assert done["status"] == "completed"
    assert done["result"]["isError"] is True
    assert done["result"]["content"][0]["text"].startswith("[")


async def test_unknown_task_ids_are_invalid_params_and_the_server_keeps_serving(
    fake: FakeTmux,
) -> None:
    """-32602 "Task not found" for tasks/get, tasks/cancel and tasks/update.

    The task store answers before any tool runs, so the whole server in memory on the
    fake world shows it (issue 30.2): no tmux command is run, and the next request on
    the connection is served."""
    async with memory_session(fake_runtime(fake), handshake=False) as client:
        for method in ("tasks/get", "tasks/cancel", "tasks/update"):
            params = {"taskId": "f" * 32, "inputResponses": {}, "_meta": _envelope(True)}
            reply = await client.request(method, params)
            assert reply["error"]["code"] == -32602, method
            assert reply["error"]["message"] == "Failed to retrieve task: Task not found"
        listed = await client.request("tools/list", {"_meta": _envelope(True)})
    assert any(tool["name"] == "run_command" for tool in listed["result"]["tools"])
    assert fake.calls == []


def test_a_task_past_its_ttl_has_expired_and_the_server_keeps_serving(
    private_tmux: PrivateTmux,
) -> None:
    """The operator's --task-ttl (5 s here, the least it takes: issue 27 N6) is the
    task's ttlMs; once it has passed, tasks/get, tasks/cancel and tasks/update answer
    -32602 "expired" (issue 20.5)."""
    pane = private_tmux.new_session("ttl")["pane_id"]
    with modern(private_tmux, "--task-ttl", "5") as client:
        created = client.run(pane, "sleep 600", 0.5)
        assert created["resultType"] == "task"
        assert created["ttlMs"] == 5000
        deadline = time.monotonic() + 30
        while True:
            reply = client.request("tasks/get", {"taskId": created["taskId"]})
            if "error" in reply:
                break
            assert reply["result"]["status"] == "working", reply
            assert time.monotonic() < deadline, "the task outlived its ttl"
            time.sleep(0.1)
        for method in ("tasks/get", "tasks/cancel", "tasks/update"):
            reply = client.request(method, {"taskId": created["taskId"], "inputResponses": {}})
            assert reply["error"]["code"] == -32602, method
            assert reply["error"]["message"] == "Failed to retrieve task: Task has expired"
        listed = client.result("tools/list", {})
    assert any(tool["name"] == "run_command" for tool in listed["tools"])


def test_the_audit_log_records_task_creation_completion_and_cancellation(
    private_tmux: PrivateTmux,
) -> None:
    """Audited like calls, with the same redaction: the command text never appears."""
    log = os.path.join(private_tmux.directory, "audit.jsonl")
    pane = private_tmux.new_session("audited")["pane_id"]
    command, go = _gate(private_tmux, "go-SECRET-token")
    with modern(private_tmux, "--audit-log", log) as client:
        finishing = client.run(pane, command, 0.5)
        with open(go, "w"):
            pass
        client.until_done(finishing["taskId"])
        cancelled = client.run(pane, "sleep 600 # SECRET-token", 0.5)
        client.result("tasks/cancel", {"taskId": cancelled["taskId"]})
    with open(log) as f:
        raw = f.read()
    assert "SECRET-token" not in raw
    entries = [json.loads(line) for line in raw.splitlines()]
    assert [(e["tool"], e["outcome"]) for e in entries] == [
        ("run_command", "task-created"),
        ("run_command", "task-completed:ok"),
        ("run_command", "task-created"),
        ("run_command", "task-cancelled"),
    ]
    assert all(e["arguments"]["command"]["redacted"] is True for e in entries)


CONTINUING = ("run_command", "wait_for_command", "wait_for_text", "wait_for_state")
"""The tools that may continue as a task (issue 29.2)."""


@pytest.mark.parametrize(
    "args",
    [("--toolsets", "manage"), ("--exclude-tools", ",".join(CONTINUING))],
    ids=" ".join,
)
def test_the_extension_is_declared_only_where_a_served_tool_can_continue_as_a_task(
    private_tmux: PrivateTmux, args: tuple[str, ...]
) -> None:
    """Issue 27 N7, capability honesty (CM-7): on a surface where no served tool can
    continue as a task, server/discover declares no Tasks extension (it did on
    7563819), and tasks/get, tasks/cancel and tasks/update are unknown methods, as on
    a server without the extension."""
    with RawClient(private_tmux.env, *args, initialize=False) as raw:
        client = ModernClient(raw)
        found = client.result("server/discover", {})
        assert TASKS not in found["capabilities"].get("extensions", {}), found
        for method in ("tasks/get", "tasks/cancel", "tasks/update"):
            reply = client.request(method, {"taskId": "f" * 32})
            assert reply["error"]["code"] == -32601, (method, reply)
        listed = client.result("tools/list", {})
    assert not set(CONTINUING) & {tool["name"] for tool in listed["tools"]}


def _audited(log: str, outcome: str, seconds: float = 30) -> list[tuple[str, str]]:
    """The (tool, outcome) records of ``log`` once one has ``outcome``, within a deadline
    (the server writes them from a thread of its own, while it serves)."""
    deadline = time.monotonic() + seconds
    while True:
        with open(log) as f:
            records = [json.loads(line) for line in f.read().splitlines()]
        found = [(r["tool"], r["outcome"]) for r in records]
        if ("run_command", outcome) in found:
            return found
        assert time.monotonic() < deadline, f"no {outcome} record: {found}"
        time.sleep(0.05)


def test_a_cancel_the_command_ignores_says_so_and_the_task_follows_it_to_its_end(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 27 N7: a command that ignores SIGINT was reported "cancelled: the command
    was interrupted" and then ran to exit 0. The cancel is acknowledged, the task stays
    working and says the command did not stop, and completes with the command's real
    result; the audit log says the cancel was ignored, then how the task ended."""
    log = os.path.join(private_tmux.directory, "audit.jsonl")
    pane = private_tmux.new_session("stubborn")["pane_id"]
    command, go = _gate(private_tmux, "go")
    with modern(private_tmux, "--audit-log", log) as client:
        created = client.run(pane, "trap '' INT; " + command, 0.5)
        assert created["resultType"] == "task"
        client.result("tasks/cancel", {"taskId": created["taskId"]})
        task = client.result("tasks/get", {"taskId": created["taskId"]})
        assert task["status"] == "working", task
        assert "did not stop on the interrupt" in task["statusMessage"], task
        assert _current_command(private_tmux, pane) == "sleep"
        with open(go, "w"):
            pass
        done = client.until_done(created["taskId"])
    assert done["status"] == "completed", done
    facts = done["result"]["structuredContent"]
    assert (facts["completed"], facts["exit_status"]) == (True, 0)
    assert facts["output"].endswith("finished-42"), facts
    assert _audited(log, "task-completed:ok") == [
        ("run_command", "task-created"),
        ("run_command", "task-cancel-ignored"),
        ("run_command", "task-completed:ok"),
    ]


def test_a_tasks_end_is_audited_when_it_happens_with_nobody_polling(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 27 N10: an unpolled task left only task-created. Its completion is audited
    when the command ends, and a task whose TTL passes while its command runs is
    audited as expired, with no tasks/get at all."""
    log = os.path.join(private_tmux.directory, "audit.jsonl")
    pane = private_tmux.new_session("unpolled")["pane_id"]
    command, go = _gate(private_tmux, "go")
    with modern(private_tmux, "--audit-log", log, "--task-ttl", "5") as client:
        finishing = client.run(pane, command, 0.5)
        assert finishing["resultType"] == "task"
        with open(go, "w"):
            pass
        assert _audited(log, "task-completed:ok") == [
            ("run_command", "task-created"),
            ("run_command", "task-completed:ok"),
        ]
        expiring = client.run(pane, "sleep 600", 0.5)
        assert expiring["resultType"] == "task"
        assert _audited(log, "task-expired")[2:] == [
            ("run_command", "task-created"),
            ("run_command", "task-expired"),
        ]
        reply = client.request("tasks/get", {"taskId": expiring["taskId"]})
    assert reply["error"]["message"] == "Failed to retrieve task: Task has expired"


def test_server_info_and_the_surface_say_run_command_may_continue_as_a_task(
    private_tmux: PrivateTmux,
) -> None:
    """CM-7, capability honesty: the published surface, as server_info (detail) and
    ``tmuxmcp surface`` show it, marks run_command and the waits that continue as tasks
    (issue 29.2) and no other tool; each one's description says so."""
    with modern(private_tmux) as client:
        called = client.result("tools/call", {"name": "server_info", "arguments": {"detail": True}})
        listed = client.result("tools/list", {})
    published = called["structuredContent"]["info"]["surface"]["tools"]
    surface = subprocess.run(
        [sys.executable, "-m", "tmuxmcp", "surface"],
        env=private_tmux.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    for tools in (published, json.loads(surface.stdout)["surface"]["tools"]):
        continuing = [t["name"] for t in tools if t["continues_as_task"]]
        assert continuing == list(CONTINUING)
    described = {t["name"]: t["description"] for t in listed["tools"]}
    for name in CONTINUING:
        assert "becomes a task after a few seconds" in described[name], name
    assert "interrupts it (C-c)" in described["run_command"]


def _documented_exchange() -> list[str]:
    """The answers (``←`` lines, continuations joined) of docs/patterns.md's Tasks example."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "patterns.md").read_text()
    section = page.split("### With a client that supports MCP Tasks", 1)[1]
    block = section.split("```text\n", 1)[1].split("```", 1)[0]
    answers: list[str] = []
    for line in block.splitlines():
        if line.startswith("← "):
            answers.append(line[2:])
        elif line.startswith("   ") and answers:
            answers[-1] += " " + line.strip()
    return answers


def _flat(value: Any, into: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every key of a nested JSON object, with its value (a later duplicate wins)."""
    into = {} if into is None else into
    if isinstance(value, dict):
        for key, inner in value.items():
            into[key] = inner
            _flat(inner, into)
    return into


_LITERAL = re.compile(r'"(\w+)": ("[^"<…]*"|-?\d+|true|false)(?=[,}])')
_KEY = re.compile(r'"(\w+)":')


def test_the_documented_tasks_exchange_is_what_the_server_answers(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 20.7: docs/patterns.md's Tasks example, executed. Each documented answer's
    keys are in the real one, and each literal value it shows is the real value."""
    documented = _documented_exchange()
    assert len(documented) == 3, documented
    pane = private_tmux.new_session("docs")["pane_id"]
    # The page's ``sleep 3`` as a wait for ``go``, made after the first poll: the poll
    # must find the task working, which a fixed sleep cannot promise on a loaded
    # machine (issue 27.4); the answers are the same.
    go = os.path.join(private_tmux.directory, "go")
    with modern(private_tmux) as client:
        created = client.run(pane, f"while [ ! -e {go} ]; do sleep 0.05; done; echo built", 0.5)
        polled = client.result("tasks/get", {"taskId": created["taskId"]})
        with open(go, "w"):
            pass
        done = client.until_done(created["taskId"])
    for shown, real in zip(documented, (created, polled, done), strict=True):
        flat = _flat(real)
        for key in _KEY.findall(shown):
            assert key in flat, (key, shown, real)
        for key, literal in _LITERAL.findall(shown):
            assert flat[key] == json.loads(literal), (key, literal, real)


def test_a_task_whose_program_asks_completes_with_the_question_and_the_run_goes_on(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 28.2 for a task (continuation Rule 5): a command that asks after it became a
    task completes the task with what it waits for, instead of waiting out the TTL;
    after the answer, wait_for_command gives the exit status."""
    pane = private_tmux.new_session("asks")["pane_id"]
    command, go = _gate(private_tmux, "asks")
    question = f"{command}; printf 'Deploy? [y/N] '; read a; test \"$a\" = y && echo deployed"
    with modern(private_tmux) as client:
        created = client.run(pane, question, 0.5)
        assert created["resultType"] == "task"
        with open(go, "w"):
            pass
        done = client.until_done(created["taskId"])
        assert done["status"] == "completed"
        facts = done["result"]["structuredContent"]
        assert (facts["completed"], facts["timed_out"], facts["waiting_for"]) == (
            False,
            False,
            "awaiting-line",
        ), facts
        assert facts["prompt"] == "Deploy? [y/N]"
        client.result(
            "tools/call",
            {"name": "send_keys", "arguments": {"pane_id": pane, "keys": [{"text": "y"}, "Enter"]}},
        )
        after = client.result(
            "tools/call",
            {
                "name": "wait_for_command",
                "arguments": {"pane_id": pane, "run_id": facts["run_id"], "timeout": 30},
            },
        )
    assert (after["structuredContent"]["completed"], after["structuredContent"]["exit_status"]) == (
        True,
        0,
    )
    assert after["structuredContent"]["output"].endswith("deployed")
