"""End to end over stdio: the six inspect tools on the dedicated socket."""

from __future__ import annotations

from tests.support import PrivateTmux, serve, structured


async def test_lists_and_calls_inspect_tools(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        listed = await session.list_tools()
        names = {tool.name for tool in listed.tools}
        assert {
            "list_sessions",
            "list_windows",
            "list_panes",
            "capture_pane",
            "server_info",
        } <= names
        ids = private_tmux.new_session("work")
        sessions = structured(await session.call_tool("list_sessions", {}))["sessions"]
        assert [s["session_id"] for s in sessions] == [ids["session_id"]]
        assert sessions[0]["name"] == "work"
