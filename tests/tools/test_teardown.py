"""The teardown toolset and the self-teardown guard, over stdio on real tmux."""

from __future__ import annotations

import json
import os
import select
import sys
from typing import Any

import trio
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

from tests.raw_client import handshake
from tests.recording_stdio import recorded_stdio
from tests.support import PrivateTmux, error_text, serve, server_params, structured
from tests.wire_oracle import Conversation
from tmuxmcp.driver.versions import version_tuple


def _exists(tmux: PrivateTmux, target: str) -> bool:
    kind = {"$": "has-session", "@": "list-panes", "%": "list-panes"}[target[0]]
    return tmux.bare(kind, "-t", target, check=False).returncode == 0


async def test_kill_tools_delete_only_what_they_name(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        keep = private_tmux.new_session("keep")
        doomed = private_tmux.new_session("doomed")
        lower = private_tmux.bare(
            "split-window", "-d", "-t", doomed["pane_id"], "-P", "-F", "#{pane_id}"
        ).stdout.strip()
        second = private_tmux.bare(
            "new-window", "-d", "-t", doomed["session_id"] + ":", "-P", "-F", "#{window_id}"
        ).stdout.strip()
        before = private_tmux.bare("list-panes", "-a", "-F", "#{pane_id}").stdout.split()

        assert structured(await session.call_tool("kill_pane", {"pane_id": lower}))["id"] == lower
        assert not _exists(private_tmux, lower)
        structured(await session.call_tool("kill_window", {"window_id": second}))
        assert not _exists(private_tmux, second)
        structured(await session.call_tool("kill_session", {"session_id": doomed["session_id"]}))
        assert not _exists(private_tmux, doomed["session_id"])
        after = private_tmux.bare("list-panes", "-a", "-F", "#{pane_id}").stdout.split()
        assert after == [keep["pane_id"]]
        assert set(before) - set(after) == {lower, doomed["pane_id"]} | (
            set(before) - {keep["pane_id"], lower, doomed["pane_id"]}
        )
        again = await session.call_tool("kill_session", {"session_id": doomed["session_id"]})
        assert error_text(again).startswith("[object-not-found]")


def _tmux_release(tmux: PrivateTmux) -> tuple[int, int]:
    found = version_tuple(tmux.bare("-V").stdout)
    assert found is not None
    return found


async def test_killing_a_zoomed_window_never_takes_the_server_down(
    private_tmux: PrivateTmux,
) -> None:
    """tmux 3.4's server crashes when kill-session destroys a zoomed window (zoom guard).

    Found on 3.4 (the fuzz suite's world rebuild, then by hand): kill-session
    of a session whose window was zoomed ended the server with every other
    session on it ("server exited unexpectedly"); kill-window unzooms first
    and is safe. On 3.4 kill_session is refused, nothing is killed, and the
    caller is told to unzoom; on every other version it just works. Either
    way the server and the bystander session survive.
    """
    async with serve(private_tmux) as session:
        keep = private_tmux.new_session("keep")
        pid = private_tmux.server_pid()
        doomed = [private_tmux.new_session(f"zoomed{n}") for n in range(2)]
        for ids in doomed:
            private_tmux.bare("split-window", "-d", "-t", ids["pane_id"])
            private_tmux.bare("resize-pane", "-Z", "-t", ids["pane_id"])
        calls = [
            ("kill_window", {"window_id": doomed[0]["window_id"]}, doomed[0]["window_id"]),
            ("kill_session", {"session_id": doomed[1]["session_id"]}, doomed[1]["session_id"]),
        ]
        for tool, arguments, target in calls:
            result = await session.call_tool(tool, arguments)
            assert private_tmux.server_pid() == pid, f"{tool} took the tmux server down"
            if tool == "kill_session" and _tmux_release(private_tmux) == (3, 4):
                text = error_text(result)
                assert text.startswith("[zoomed-teardown-refused] "), text
                assert "unzoom it first" in text
                assert _exists(private_tmux, target)
            else:
                assert structured(result)["id"] == target
                assert not _exists(private_tmux, target)
        assert _exists(private_tmux, keep["session_id"])
        # Unzoomed, the same call kills it on 3.4 too.
        private_tmux.bare("resize-pane", "-Z", "-t", doomed[1]["pane_id"], check=False)
        await session.call_tool("kill_session", {"session_id": doomed[1]["session_id"]})
        assert not _exists(private_tmux, doomed[1]["session_id"])
        assert private_tmux.server_pid() == pid


async def test_no_tool_kills_the_server(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        names = {t.name for t in (await session.list_tools()).tools}
    assert "kill_server" not in names
    assert not any("server" in n and n.startswith("kill") for n in names)


async def test_clear_history_and_delete_buffer(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        ids = private_tmux.new_session("h")
        pane = ids["pane_id"]
        private_tmux.bare("send-keys", "-t", pane, "seq 1 200", "Enter")
        with trio.fail_after(10):
            while (
                int(
                    private_tmux.bare("display-message", "-p", "-t", pane, "#{history_size}").stdout
                )
                < 100
            ):
                await trio.sleep(0.02)
        structured(await session.call_tool("clear_history", {"pane_id": pane}))
        assert (
            private_tmux.bare("display-message", "-p", "-t", pane, "#{history_size}").stdout.strip()
            == "0"
        )
        private_tmux.bare("set-buffer", "-b", "mine\\;", "secret")  # bare argv: escape ";"
        private_tmux.bare("set-buffer", "-b", "other", "x")
        buffers = structured(await session.call_tool("list_buffers", {}))["buffers"]
        assert {"name": "mine;", "size": 6} in buffers
        assert all("secret" not in json.dumps(b) for b in buffers), "content is never listed"
        structured(await session.call_tool("delete_buffer", {"buffer": "mine;"}))
        left = private_tmux.bare("list-buffers", "-F", "#{buffer_name}").stdout.split()
        assert left == ["other"]
        missing = await session.call_tool("delete_buffer", {"buffer": "mine;"})
        assert error_text(missing).startswith("[object-not-found]")
        # Upstream tmux before 3.4 deletes the most recent buffer for an
        # unknown -b name; the tool deletes the named buffer or nothing.
        left = private_tmux.bare("list-buffers", "-F", "#{buffer_name}").stdout.split()
        assert left == ["other"]


async def test_teardown_is_off_by_default_on_an_existing_server(private_tmux: PrivateTmux) -> None:
    """CM-3: unknown provenance needs teardown named by the operator."""
    private_tmux.start_foreign_server()
    async with serve(private_tmux) as session:
        names = {t.name for t in (await session.list_tools()).tools}
        assert "kill_session" not in names
        assert "create_session" in names
    async with serve(private_tmux, "--toolsets", "inspect,teardown") as session:
        names = {t.name for t in (await session.list_tools()).tools}
        assert {"kill_session", "list_panes"} <= names
        assert "create_session" not in names
    async with serve(private_tmux, "--include-tools", "kill_pane") as session:
        names = {t.name for t in (await session.list_tools()).tools}
        assert "kill_pane" in names
        assert "kill_session" not in names


def _fifo_server(tmux: PrivateTmux) -> tuple[str, str, str]:
    """Start tmuxmcp *inside a pane* of the dedicated socket, speaking MCP over FIFOs."""
    inbox = os.path.join(tmux.directory, "in")
    outbox = os.path.join(tmux.directory, "out")
    os.mkfifo(inbox)
    os.mkfifo(outbox)
    # The pane's shell stays the pane process and runs tmuxmcp as its child, so
    # tmuxmcp inherits TMUX and TMUX_PANE exactly as any pane program does.
    command = (
        f"{sys.executable} -m tmuxmcp --toolsets all "
        f"<{inbox} >{outbox} 2>{tmux.directory}/err; true"
    )
    ids = tmux.bare(
        "new-session",
        "-d",
        "-s",
        "host",
        "-P",
        "-F",
        "#{session_id} #{window_id} #{pane_id}",
        "sh",
        "-c",
        command,
    ).stdout.split()
    return ids[0], ids[1], ids[2]


async def test_self_teardown_guard_with_tmuxmcp_running_in_a_pane(
    private_tmux: PrivateTmux,
) -> None:
    """tmuxmcp refuses to kill its own pane, window and session (teardown tools only)."""
    await _check_guard(private_tmux)


async def test_self_teardown_guard_with_commas_in_the_socket_path(
    private_tmux: PrivateTmux,
) -> None:
    """``$TMUX`` is ``path,pid,index`` and the path may hold commas (issue 12.8).

    The directory name mimics the two numeric fields, so a split from the left
    reads the wrong pid and path and switched the guard off.
    """
    directory = os.path.join(private_tmux.directory, "a,1,0")
    os.mkdir(directory, 0o700)
    commas = PrivateTmux(directory)
    try:
        await _check_guard(commas)
        socket = commas.bare("display-message", "-p", "#{socket_path}").stdout.strip()
        assert "a,1,0" in socket
    finally:
        commas.kill_all()


async def _check_guard(private_tmux: PrivateTmux) -> None:
    private_tmux.bare(
        "-f", "/dev/null", "start-server", ";", "set-option", "-s", "exit-empty", "off"
    )
    own_session, own_window, own_pane = _fifo_server(private_tmux)
    other = private_tmux.new_session("other")
    inbox = os.path.join(private_tmux.directory, "in")
    outbox = os.path.join(private_tmux.directory, "out")
    requests: list[dict[str, Any]] = handshake("fifo")
    calls = [
        ("respawn_pane", {"pane_id": own_pane}),
        ("kill_pane", {"pane_id": own_pane}),
        ("kill_window", {"window_id": own_window}),
        ("kill_session", {"session_id": own_session}),
        ("server_info", {}),
        ("kill_pane", {"pane_id": other["pane_id"]}),
    ]
    for number, (name, arguments) in enumerate(calls, start=2):
        requests.append(
            {
                "jsonrpc": "2.0",
                "id": number,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
    replies: dict[int, dict[str, object]] = {}
    standing: list[bool] = []

    def exchange() -> None:
        with open(inbox, "w") as send, open(outbox) as receive:
            for message in requests:
                send.write(json.dumps(message) + "\n")
                send.flush()
                if "id" in message:
                    # A server that died (its own pane killed) must fail the
                    # test, not hang it: wait for each reply with a deadline.
                    readable, _, _ = select.select([receive], [], [], 20)
                    assert readable, f"no reply to {message['id']}: tmuxmcp is gone"
                    line = receive.readline()
                    assert line, f"tmuxmcp closed its output before answering {message['id']}"
                    reply = json.loads(line)
                    replies[reply["id"]] = reply
                    if reply["id"] == 5:
                        # After the four refusals, while tmuxmcp still serves: closing
                        # the inbox ends tmuxmcp and with it its pane, so a look
                        # after the exchange would race that ending (issue 27.4).
                        standing.append(_exists(private_tmux, own_pane))

    with trio.fail_after(30):
        await trio.to_thread.run_sync(exchange)

    assert all("result" in reply for reply in replies.values()), replies
    for number in (2, 3, 4, 5):
        result = replies[number]["result"]
        assert isinstance(result, dict)
        assert result["isError"] is True
        assert result["content"][0]["text"].startswith("[self-teardown-refused]")
    assert standing == [True], "the pane tmuxmcp runs in survived the four refused calls"
    info = replies[6]["result"]
    assert isinstance(info, dict)
    assert own_pane in info["structuredContent"]["info"]["server"]["self_teardown_guard"]
    killed = replies[7]["result"]
    assert isinstance(killed, dict)
    assert killed["isError"] is False
    assert not _exists(private_tmux, other["pane_id"])


async def test_why_teardown_is_off_is_said_in_instructions_server_info_and_stderr(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 14.4: unknown provenance turns teardown off, and the server says so and how."""
    private_tmux.start_foreign_server()
    errlog_path = os.path.join(private_tmux.directory, "stderr")
    conversation = Conversation()
    with open(errlog_path, "w") as errlog:
        async with (
            recorded_stdio(server_params(private_tmux.env), conversation, errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            listed = {t.name for t in (await session.list_tools()).tools}
            info = structured(await session.call_tool("server_info", {}))
            hidden = None
            try:
                await session.call_tool("kill_pane", {"pane_id": "%0"})
            except MCPError as exc:
                hidden = exc.error.message
            try:
                await session.call_tool("no_such_tool", {})
            except MCPError as exc:
                missing = exc.error.message
    conversation.assert_valid()
    with open(errlog_path) as f:
        stderr = f.read()
    assert "kill_pane" not in listed
    instructions = init.instructions or ""
    off = info["info"]["surface"]["toolsets_off"]
    assert [entry["toolset"] for entry in off] == ["teardown"]
    for text in (instructions, off[0]["reason"] + " " + off[0]["enable"], stderr):
        assert "teardown" in text
        assert "already running" in text, text
        assert "provenance is unknown" in text
        assert "--toolsets all" in text
        assert "TMUXMCP_TOOLSETS" in text
    assert len([line for line in stderr.splitlines() if "toolset is off" in line]) == 1
    # CM-3: the hidden tool still gets exactly the error of a missing one.
    assert hidden is not None
    assert hidden.replace("kill_pane", "X") == missing.replace("no_such_tool", "X")


async def test_toolsets_left_out_by_configuration_are_explained(private_tmux: PrivateTmux) -> None:
    conversation = Conversation()
    params = server_params(private_tmux.env, "--toolsets", "inspect")
    async with (
        recorded_stdio(params, conversation) as (read, write),
        ClientSession(read, write) as session,
    ):
        init = await session.initialize()
        info = structured(await session.call_tool("server_info", {}))
    conversation.assert_valid()
    off = {entry["toolset"]: entry for entry in info["info"]["surface"]["toolsets_off"]}
    assert set(off) == {"manage", "execute", "teardown"}
    assert all("--toolsets" in entry["reason"] for entry in off.values())
    assert "The execute toolset is off" in (init.instructions or "")
