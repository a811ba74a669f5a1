"""The selected socket bounds what tools can name; defaults follow the socket (CM-1, CM-3, CM-4)."""

from __future__ import annotations

from mcp.shared.exceptions import MCPError

from tests.support import PrivateTmux, error_text, serve, structured


async def test_tools_cannot_reach_a_server_on_another_socket(private_tmux: PrivateTmux) -> None:
    """CM-1: ids name objects on the selected socket only."""
    other = private_tmux.new_session("other", "elsewhere")
    private_tmux.bare(
        "send-keys",
        "-t",
        other["pane_id"],
        "echo ON-THE-OTHER-$((1+1))",
        "Enter",
        label="elsewhere",
    )
    await private_tmux.wait_for_screen(other["pane_id"], "ON-THE-OTHER-2", "elsewhere")
    async with serve(private_tmux) as session:
        listed = structured(await session.call_tool("list_sessions", {}))["sessions"]
        assert listed == []
        text = error_text(await session.call_tool("capture_pane", {"pane_id": other["pane_id"]}))
        assert text.startswith("[object-not-found]")
        text = error_text(
            await session.call_tool("kill_session", {"session_id": other["session_id"]})
        )
        assert text.startswith("[object-not-found]")
        # Ids are per server: the same id on the selected socket names our own pane.
        mine = private_tmux.new_session("mine")
        assert mine["pane_id"] == other["pane_id"]
        ours = structured(await session.call_tool("capture_pane", {"pane_id": mine["pane_id"]}))
        assert "ON-THE-OTHER-2" not in ours["text"]
    assert (
        private_tmux.bare("has-session", "-t", other["session_id"], label="elsewhere").returncode
        == 0
    )


async def test_an_inherited_tmux_environment_never_selects_the_socket(
    private_tmux: PrivateTmux,
) -> None:
    """CM-1: only explicit configuration selects a socket other than the dedicated one."""
    other = private_tmux.new_session("inherited", "elsewhere")
    socket = private_tmux.bare(
        "display-message", "-p", "#{socket_path},#{pid},0", label="elsewhere"
    ).stdout.strip()
    private_tmux.env["TMUX"] = socket
    private_tmux.env["TMUX_PANE"] = other["pane_id"]
    async with serve(private_tmux) as session:
        info = structured(await session.call_tool("server_info", {}))["info"]
        sessions = structured(await session.call_tool("list_sessions", {}))["sessions"]
    assert info["socket"]["value"] == "tmuxmcp"
    assert info["socket"]["path"] != socket.split(",")[0]
    assert info["server"]["provenance"] == "minimal"
    assert sessions == []


async def test_another_socket_gets_teardown_only_when_named(private_tmux: PrivateTmux) -> None:
    """CM-3: a non-dedicated socket, even with a server tmuxmcp started, needs teardown named."""
    async with serve(private_tmux, "--socket-name", "project") as session:
        names = {t.name for t in (await session.list_tools()).tools}
        info = structured(await session.call_tool("server_info", {}))["info"]
    private_tmux.labels.add("project")
    assert info["server"]["provenance"] == "minimal"
    assert info["socket"]["dedicated_default"] is False
    assert "kill_session" not in names
    assert {"create_session", "run_command", "list_panes"} <= names
    async with serve(private_tmux, "--socket-name", "project", "--toolsets", "all") as session:
        names = {t.name for t in (await session.list_tools()).tools}
    assert "kill_session" in names


async def test_the_surface_is_frozen_for_the_process_lifetime(private_tmux: PrivateTmux) -> None:
    """CM-3: discovery and invocation keep using the startup surface whatever happens."""
    async with serve(private_tmux, "--exclude-tools", "kill_pane") as session:
        first = (await session.list_tools()).tools
        ids = private_tmux.new_session("churn")
        await session.call_tool("create_session", {"name": "more"})
        await session.call_tool("kill_session", {"session_id": ids["session_id"]})
        second = (await session.list_tools()).tools
        assert [t.model_dump() for t in first] == [t.model_dump() for t in second]
        try:
            await session.call_tool("kill_pane", {"pane_id": "%0"})
        except MCPError as exc:
            assert exc.error.code == -32602
        else:
            raise AssertionError("an excluded tool became callable")


async def test_annotations_do_not_decide_whether_a_call_runs(private_tmux: PrivateTmux) -> None:
    """CM-4: a call is dispatched the same whether its hints are narrow or cautious.

    Narrow hints on an inspect-only surface need the per-call check, which
    needs tmux 3.5 or later (annotations rule 3c); before that both are cautious.
    """
    private_tmux.bare("-f", "/dev/null", "start-server", ";", "set", "-s", "exit-empty", "off")
    seen = private_tmux.bare("display-message", "-p", "#{command-alias}").stdout
    per_call = "split-pane=split-window" in seen
    private_tmux.kill_server()
    outcomes = []
    for args in (("--toolsets", "inspect"), ("--toolsets", "inspect,execute")):
        async with serve(private_tmux, *args) as session:
            tool = next(t for t in (await session.list_tools()).tools if t.name == "list_sessions")
            assert tool.annotations is not None  # every hint is set (manifest.tool_annotations)
            read_only = tool.annotations.read_only_hint is True
            result = await session.call_tool("list_sessions", {})
            outcomes.append((read_only, result.is_error))
        private_tmux.kill_all()
    assert outcomes == [(per_call, False), (False, False)]
