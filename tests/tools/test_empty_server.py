"""A server with no sessions: listings are empty and named targets say what is missing.

Issue 18 item 1 (red team R7). tmuxmcp starts its dedicated server with
``exit-empty off``, so the server keeps running with zero sessions, both
before the first session and after the last one is killed. tmux answers
``list-panes -a`` and ``list-windows -a`` there with "no current target";
every listing must still answer an empty collection (CM-1: the call names
nothing, so it touches nothing), and a call naming an object must say that
the server has no sessions.
"""

from __future__ import annotations

from mcp import ClientSession

from tests.support import PrivateTmux, error_text, serve, structured

_EMPTY_LISTINGS: dict[str, tuple[dict[str, object], str]] = {
    "list_sessions": ({}, "sessions"),
    "list_windows": ({}, "windows"),
    "list_panes": ({}, "panes"),
    "list_buffers": ({}, "buffers"),
    "search_panes": ({"pattern": "x"}, "matches"),
}


async def _assert_empty(session: ClientSession) -> None:
    for tool, (arguments, key) in _EMPTY_LISTINGS.items():
        result = structured(await session.call_tool(tool, arguments))
        assert result[key] == [], tool
    assert structured(await session.call_tool("snapshot", {}))["sessions"] == []
    # Only the pane index, which is there before any pane is (issue 29.3).
    assert [str(r.uri) for r in (await session.list_resources()).resources] == ["tmux://panes"]
    assert structured(await session.call_tool("server_info", {}))
    missing = error_text(await session.call_tool("capture_pane", {"pane_id": "%0"}))
    assert "[object-not-found]" in missing
    assert "no sessions" in missing


async def test_listings_are_empty_on_a_fresh_server(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        await _assert_empty(session)


async def test_listings_are_empty_after_the_last_session_is_killed(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        ids = private_tmux.new_session("only")
        panes = structured(await session.call_tool("list_panes", {}))["panes"]
        assert [p["pane_id"] for p in panes] == [ids["pane_id"]]
        private_tmux.bare("kill-session", "-t", ids["session_id"])
        await _assert_empty(session)
