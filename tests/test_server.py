"""The MCP layer over real stdio: frozen surface, errors as results, no leaks (CM-3..CM-5)."""

from __future__ import annotations

import os
import subprocess
from typing import Any

import pytest
import trio
from mcp.types import Tool

from tests.fake_support import VALUES, fake_runtime, words
from tests.memory_session import memory_session
from tests.process_support import alive
from tests.raw_client import handshake, raw_exchange
from tests.support import (
    PrivateTmux,
    error_text,
    logged_pids,
    serve,
    stalling_tmux,
    structured,
)
from tmuxmcp.capability.annotations import gather_evidence, whole_call_hints
from tmuxmcp.capability.describe import describe
from tmuxmcp.capability.manifest import hints_json
from tmuxmcp.capability.schema import input_schema, output_schema
from tmuxmcp.capability.surface import SurfaceRequest
from tmuxmcp.definition import BY_NAME
from tmuxmcp.driver.fake import ANY, FakeTmux

CAUTIOUS = (False, True, False, True)


HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _sent(tool: Tool) -> dict[str, object]:
    """The annotations exactly as they came over the wire: only the keys the server set."""
    assert tool.annotations is not None, f"{tool.name}: no annotations"
    return tool.annotations.model_dump(by_alias=True, exclude_unset=True)


def _hints(tool: Tool) -> tuple[bool, ...]:
    """The four hints as sent; CM-4.5 to CM-4.8 say they are set, so none may be absent."""
    sent = _sent(tool)
    assert set(HINTS) <= set(sent), f"{tool.name}: {sent}"
    return tuple(bool(sent[name]) for name in HINTS)


async def test_tools_list_agrees_with_the_definition(private_tmux: PrivateTmux) -> None:
    """CM-5: names, descriptions, schemas and annotations all derive from the definition."""
    async with serve(private_tmux) as session:
        listed = (await session.list_tools()).tools
        info = structured(await session.call_tool("server_info", {"detail": True}))
    served = [BY_NAME[t.name] for t in listed]
    evidence = gather_evidence(
        served,
        minimal_provenance=True,
        per_call_check=info["info"]["annotation_evidence"]["per_call_check"],
    )
    for tool in listed:
        spec = BY_NAME[tool.name]
        assert tool.description == describe(spec)
        assert tool.input_schema == input_schema(spec.args)
        assert tool.output_schema == output_schema(spec.result)
        hints = whole_call_hints(spec, evidence)
        assert _hints(tool) == (
            hints.read_only,
            hints.destructive,
            hints.idempotent,
            hints.open_world,
        )


@pytest.mark.parametrize(
    "flags", [(), ("--toolsets", "inspect")], ids=["default-surface", "inspect-surface"]
)
async def test_every_listed_tool_sets_its_title_and_all_four_hints(
    private_tmux: PrivateTmux, flags: tuple[str, ...]
) -> None:
    """Issue 18.3, CM-4.5 to CM-4.8: every hint is set, cautious or narrow, never left out.

    On the default surface (process tools served) every hint is cautious, which
    is what MCP assumes for an absent hint; they are set all the same. On an
    inspect-only surface they narrow where this tmux allows the per-call check
    (3.5 and later). Each equals the definition's whole-call hints for the
    evidence the server reports, and the annotations title is the tool's title.
    """
    async with serve(private_tmux, *flags) as session:
        listed = (await session.list_tools()).tools
        info = structured(await session.call_tool("server_info", {"detail": True}))["info"]
    evidence = gather_evidence(
        [BY_NAME[t.name] for t in listed],
        minimal_provenance=info["annotation_evidence"]["minimal_provenance"],
        per_call_check=info["annotation_evidence"]["per_call_check"],
    )
    published = {t["name"]: t["annotations"] for t in info["surface"]["tools"]}
    assert [t.name for t in listed] == list(published)
    for tool in listed:
        spec = BY_NAME[tool.name]
        expected = {"title": spec.title, **hints_json(whole_call_hints(spec, evidence))}
        assert _sent(tool) == expected, tool.name
        assert tool.title == spec.title
        assert published[tool.name] == expected, tool.name
    if not flags:
        assert all(_hints(t) == CAUTIOUS for t in listed), "process tools served: all cautious"


def _formats_expand_whole_arrays(tmux: PrivateTmux) -> bool:
    """Measured with bare tmux: does ``#{command-alias}`` show the default aliases?"""
    tmux.bare("-f", "/dev/null", "start-server", ";", "set", "-s", "exit-empty", "off")
    seen = tmux.bare("display-message", "-p", "#{command-alias}").stdout.strip()
    tmux.kill_server()
    return "split-pane=split-window" in seen


async def test_annotations_differ_by_provenance(private_tmux: PrivateTmux) -> None:
    """CM-4 on both kinds of socket: narrow only with evidence.

    Rule 3c: narrow only where every call can re-check aliases and hooks in
    the same invocation, which needs a tmux whose formats expand whole arrays
    (3.5 and later); on 3.3a an inspect-only surface is cautious as well.
    """
    per_call = _formats_expand_whole_arrays(private_tmux)
    async with serve(private_tmux, "--toolsets", "inspect") as session:
        minimal = {t.name: _hints(t) for t in (await session.list_tools()).tools}
        info = structured(await session.call_tool("server_info", {"detail": True}))
    assert info["info"]["annotation_evidence"]["per_call_check"] is per_call
    if per_call:
        assert minimal["list_panes"] == (True, False, True, False)
    else:
        assert minimal["list_panes"] == CAUTIOUS
    private_tmux.kill_all()
    private_tmux.start_foreign_server()
    async with serve(private_tmux, "--toolsets", "inspect") as session:
        foreign = {t.name: _hints(t) for t in (await session.list_tools()).tools}
    assert set(foreign.values()) == {CAUTIOUS}


async def test_a_hook_added_after_startup_refuses_the_read_only_call(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 12 item 5 / CM-4: the issue's own case. On an inspect-only surface
    ``list_sessions`` is advertised read-only; an operator's client then adds an
    ``after-list-sessions`` hook. The call is refused instead of running it."""
    if not _formats_expand_whole_arrays(private_tmux):
        pytest.skip("before tmux 3.5 no per-call check exists and the hints are cautious")
    mark = os.path.join(private_tmux.directory, "ran")
    async with serve(private_tmux, "--toolsets", "inspect") as session:
        listed = {t.name: _hints(t) for t in (await session.list_tools()).tools}
        assert listed["list_sessions"] == (True, False, True, False)
        private_tmux.new_session("operator")
        assert structured(await session.call_tool("list_sessions", {}))
        private_tmux.bare("set-hook", "-g", "after-list-sessions", f"run-shell 'touch {mark}'")
        text = error_text(await session.call_tool("list_sessions", {}))
        assert text.startswith("[tmux-configuration-changed]"), text
        assert "readOnlyHint" in text and "restart tmuxmcp" in text
        assert not os.path.exists(mark)
        info = structured(await session.call_tool("server_info", {}))
        assert info["server_state"] == "configuration-changed"
        assert info["info"]["annotation_evidence"]["narrow_hints_allowed"] is False
    private_tmux.bare("list-sessions")  # control: a plain client runs the hook
    with trio.fail_after(10):
        while not os.path.exists(mark):
            await trio.sleep(0.01)


async def test_hidden_and_missing_tools_get_the_same_error(fake: FakeTmux) -> None:
    """CM-3: a tool outside the surface is neither advertised nor callable; it gets the
    error of a name that was never a tool, asks tmux nothing, and the connection goes on.

    On the fake world, in memory (issue 30.2): the surface is decided from the
    operator's request before tmux is asked anything, so a real server showed no more."""
    served = fake_runtime(fake, request=SurfaceRequest(exclude=("capture_pane",)))
    async with memory_session(served) as client:
        listed = await client.request("tools/list")
        names = {tool["name"] for tool in listed["result"]["tools"]}
        assert "capture_pane" not in names and "list_sessions" in names
        errors = []
        for name in ("capture_pane", "no_such_tool"):
            answer = await client.request(
                "tools/call", {"name": name, "arguments": {"pane_id": "%0"}}
            )
            errors.append(answer["error"])
        assert [e["code"] for e in errors] == [-32602, -32602]
        assert [e["message"].split(":")[0] for e in errors] == ["Unknown tool"] * 2
        assert fake.calls == [], "a hidden tool asks tmux nothing"
        fake.expect(*words("list-sessions -F"), ANY, rows=[VALUES])
        still = await client.call("list_sessions", {})
    assert still.get("isError") is not True, still


@pytest.mark.parametrize(
    "arguments",
    [
        {"pane_id": "%0", "surprise": 1},
        {"pane_id": 5},
        {"pane_id": "%0\n"},
        {"pane_id": "%0;kill-server"},
        {"pane_id": "\x00"},
        {"pane_id": "%0", "start": "-5"},
        {"pane_id": "%0", "start": True},
        {"pane_id": "%0", "max_lines": 0},
        {"pane_id": "=main:"},
        {},
    ],
)
async def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving(
    fake: FakeTmux, arguments: dict[str, object]
) -> None:
    """CM-1.3, CM-5: arguments the declaration refuses (an undeclared one, a wrong type,
    a value its sink cannot carry) are a tool error that says so, without a traceback;
    tmux is asked nothing, so nothing changed, and the next call on the connection is
    served.

    On the fake world, in memory (issue 30.2): the refusal is decided before tmux is
    asked, and the fake fails any command it was not told to expect, which says more
    than reading the panes back said on a real server."""
    served = fake_runtime(fake)
    async with memory_session(served) as client:
        result = await client.call("capture_pane", arguments)
        assert result["isError"] is True
        text = result["content"][0]["text"]
        assert text.startswith(("[invalid-arguments]", "[unsafe-value]")), text
        assert "Traceback" not in text
        assert fake.calls == [], "a refused call asks tmux nothing"
        fake.expect(*words("list-sessions -F"), ANY, rows=[VALUES])
        ok = await client.call("list_sessions", {})
    assert [s["name"] for s in ok["structuredContent"]["sessions"]] == [VALUES["session_name"]]


async def test_missing_objects_say_what_to_fix(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        private_tmux.new_session("one")
        for tool, args in (
            ("capture_pane", {"pane_id": "%999"}),
            ("list_panes", {"pane_id": "%999"}),
            ("list_windows", {"session_id": "$999"}),
            ("list_panes", {"window_id": "@999"}),
        ):
            text = error_text(await session.call_tool(tool, args))
            assert text.startswith("[object-not-found]"), text
            assert "list" in text


async def test_a_dead_server_is_reported_and_serving_continues(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        private_tmux.new_session("doomed")
        private_tmux.bare("kill-server")
        text = error_text(await session.call_tool("list_sessions", {}))
        assert text.startswith("[tmux-bound-server-lost]")
        info = structured(await session.call_tool("server_info", {}))
        assert info["server_state"] == "gone"
        assert info["info"]["server"]["state"] == "gone"
        assert info["info"]["server"]["provenance"] is None
        assert private_tmux.bare("list-sessions", check=False).returncode != 0, (
            "tmuxmcp must not restart a server by itself"
        )


async def test_a_replaced_server_is_refused(private_tmux: PrivateTmux) -> None:
    """CM-1: provenance decided at startup is never claimed for another server."""
    async with serve(private_tmux) as session:
        old_pid = private_tmux.server_pid()
        private_tmux.bare("kill-server")
        # kill-server returns before the old server has exited: wait until no
        # server answers, so the foreign server below is really a new one.
        with trio.fail_after(10):
            while private_tmux.bare("list-sessions", check=False).returncode == 0:
                await trio.sleep(0.01)
        private_tmux.start_foreign_server()
        assert private_tmux.server_pid() != old_pid
        text = error_text(await session.call_tool("list_sessions", {}))
        assert text.startswith("[tmux-bound-server-lost]")
        info = structured(await session.call_tool("server_info", {"detail": True}))
        # The bound server exited: it is gone, whatever answers now (issue 18 R3).
        assert info["server_state"] == "gone"
        # Issue 12 item 4: no provenance is claimed for whatever answers now.
        server = info["info"]["server"]
        assert server["state"] == "gone"
        assert server["provenance"] is None
        assert server["bound_pid"] == int(old_pid)
        assert info["info"]["annotation_evidence"]["minimal_provenance"] is False


async def test_no_tmux_command_runs_on_a_replacement_server(private_tmux: PrivateTmux) -> None:
    """CM-1, issue 18 R3: once the bound server is replaced, no call sends it anything.

    The replacement's ``command-error`` hook and ``show-options`` alias ran on
    every call before (the gate's own ``show-options`` reached it): the
    replacement is now told apart by its socket file, without asking it.
    """
    async with serve(private_tmux) as session:
        socket = private_tmux.bare("display-message", "-p", "#{socket_path}").stdout.strip()
        # The bound server lives on under another name; a new one takes the path.
        moved = socket + "-moved"
        os.rename(socket, moved)
        try:
            markers = _start_hostile_server(private_tmux)
            for name in CALLS_AFTER_LOSS:
                text = error_text(await session.call_tool(name, {}))
                assert text.startswith("[tmux-bound-server-lost]"), text
                assert "restart tmuxmcp" in text
            info = structured(await session.call_tool("server_info", {"detail": True}))
            assert info["server_state"] == "replaced"
            assert info["info"]["server"]["provenance"] is None
            assert [m for m in markers if os.path.exists(m)] == []
        finally:
            binary = private_tmux.argv()[0]
            subprocess.run([binary, "-S", moved, "kill-server"], check=False, timeout=20)


async def test_no_tmux_command_runs_once_the_bound_server_is_gone(
    private_tmux: PrivateTmux,
) -> None:
    """CM-1, issue 18 R3: a bound server that exited is known gone without asking tmux,
    also when a new server (hostile hook and alias) then takes its socket."""
    async with serve(private_tmux) as session:
        private_tmux.kill_server()
        for name in CALLS_AFTER_LOSS[:2]:
            text = error_text(await session.call_tool(name, {}))
            assert text.startswith("[tmux-bound-server-lost]"), text
        markers = _start_hostile_server(private_tmux)
        for name in CALLS_AFTER_LOSS:
            text = error_text(await session.call_tool(name, {}))
            assert text.startswith("[tmux-bound-server-lost]"), text
        info = structured(await session.call_tool("server_info", {}))
        assert info["server_state"] == "gone"
        assert [m for m in markers if os.path.exists(m)] == []


def _start_hostile_server(private_tmux: PrivateTmux) -> list[str]:
    """Start a server on the dedicated socket with a configuration whose
    ``command-error`` hook and ``show-options`` alias (the gate's command) each
    touch a marker file; return the markers, the alias's checked live, then removed."""
    markers = [os.path.join(private_tmux.directory, n) for n in ("error-hook-ran", "alias-ran")]
    config = os.path.join(private_tmux.directory, "hostile.conf")
    with open(config, "w") as out:
        out.write(f"set-hook -g command-error \"run-shell 'touch {markers[0]}'\"\n")
        out.write(
            f"set -s command-alias[100] \"show-options=run-shell 'touch {markers[1]}' ; "
            'show-options"\n'
        )
    private_tmux.bare("new-session", "-d", "-s", "theirs", config=config)
    # Control: both fire on this server (command-error from tmux 3.5).
    private_tmux.bare("show-options", "-g", "no-such-option", check=False)
    assert os.path.exists(markers[1]), "the alias of show-options must fire here"
    for marker in markers:
        if os.path.exists(marker):
            os.unlink(marker)
    return markers


CALLS_AFTER_LOSS = ("list_sessions", "list_windows", "list_panes", "snapshot", "list_sessions")


# A call cancelled while tmux stalls: test_modern_stdio's
# test_a_cancelled_call_kills_its_tmux_child_in_either_era, in both eras.
async def test_a_stalled_tmux_times_out_and_is_reaped(private_tmux: PrivateTmux) -> None:
    wrapper, log, flag = stalling_tmux(private_tmux.directory)
    async with serve(private_tmux, "--tmux", wrapper, "--timeout", "0.5") as session:
        before = len(logged_pids(log))
        with open(flag, "w"):
            pass
        with trio.fail_after(10):
            text = error_text(await session.call_tool("list_sessions", {}))
        assert text.startswith("[tmux-timeout]")
        os.unlink(flag)
        pid = logged_pids(log)[before]
        assert not alive(pid), "the stalled tmux client must be killed and reaped"
        assert not (await session.call_tool("list_sessions", {})).is_error


def test_unknown_tools_and_invalid_unicode_over_raw_json_rpc(private_tmux: PrivateTmux) -> None:
    """Wire level: hidden tools get -32602; lone surrogates get an isError result."""
    lines: list[dict[str, Any]] = [
        *handshake(),
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "server_info", "arguments": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "server_info", "arguments": {"x": "\u0000"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "capture_pane", "arguments": {"pane_id": "%0\ud800"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "list_panes", "arguments": {"session_id": "\udfff"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 6,
            "method": "tools/call",
            "params": {"name": "list_sessions", "arguments": {}},
        },
    ]
    replies, stderr = raw_exchange(private_tmux.env, ["--exclude-tools", "server_info"], lines)
    for request_id in (2, 3):
        assert replies[request_id]["error"]["code"] == -32602
        assert replies[request_id]["error"]["message"] == "Unknown tool: server_info"
    for request_id in (4, 5):
        result = replies[request_id]["result"]
        assert result["isError"] is True
        assert result["content"][0]["text"].startswith("[invalid-arguments]")
    assert replies[6]["result"]["isError"] is False, "the server keeps serving"
    assert "Traceback" not in stderr


async def test_a_clean_shutdown_removes_the_gate_option(private_tmux: PrivateTmux) -> None:
    """tmuxmcp leaves no server option behind on a server it was bound to."""
    private_tmux.start_foreign_server()
    async with serve(private_tmux) as session:
        await session.call_tool("list_sessions", {})
        during = private_tmux.bare("show-options", "-s").stdout
        assert "@tmuxmcp_" in during
    with trio.fail_after(10):
        while "@tmuxmcp_" in private_tmux.bare("show-options", "-s").stdout:
            await trio.sleep(0.05)
