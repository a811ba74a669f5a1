"""The snapshot aggregate: its nested authority follows the operator's exclusions."""

from __future__ import annotations

from tests.bounds_support import ByteCounter, fill_and_wait, fill_rows
from tests.fake_support import VALUES, call_tool, fake_runtime, words
from tests.memory_session import memory_session
from tests.support import PrivateTmux, serve, structured
from tmuxmcp.capability.surface import SurfaceRequest
from tmuxmcp.driver.fake import ANY, FakeTmux


async def test_snapshot_tree_with_screens(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        a = private_tmux.new_session("alpha")
        b = private_tmux.new_session("beta")
        lower = private_tmux.bare(
            "split-window", "-d", "-t", b["pane_id"], "-P", "-F", "#{pane_id}", "sh"
        ).stdout.strip()
        private_tmux.bare("send-keys", "-t", a["pane_id"], "echo ALPHA-SCREEN", "Enter")
        await private_tmux.wait_for_screen(a["pane_id"], "\nALPHA-SCREEN")
        snap = structured(await session.call_tool("snapshot", {}))
        assert snap["omitted_operations"] == []
        sessions = {s["session_id"]: s for s in snap["sessions"]}
        assert set(sessions) == {a["session_id"], b["session_id"]}
        beta_panes = [
            p["pane_id"] for w in sessions[b["session_id"]]["windows"] for p in w["panes"]
        ]
        assert sorted(beta_panes) == sorted([b["pane_id"], lower])
        alpha_pane = sessions[a["session_id"]]["windows"][0]["panes"][0]
        expected = private_tmux.bare("capture-pane", "-p", "-t", a["pane_id"]).stdout
        assert alpha_pane["content"] == expected.removesuffix("\n")
        only_b = structured(await session.call_tool("snapshot", {"session_id": b["session_id"]}))
        assert [s["session_id"] for s in only_b["sessions"]] == [b["session_id"]]


async def test_excluding_capture_pane_removes_content_from_the_aggregate(
    fake: FakeTmux,
) -> None:
    """ADR aggregates / CM-3: an exclusion removes the nested operation's authority.

    On the fake world, in memory (issue 30.2): the surface is the operator's request,
    decided before tmux is asked, and the fake fails a ``capture-pane`` it was not told
    to expect, so the one listing scripted here is all the snapshot may ask."""
    served = fake_runtime(fake, request=SurfaceRequest(exclude=("capture_pane",)))
    fake.expect(*words("list-panes -a -F"), ANY, rows=[VALUES])
    fake.expect()  # server_info: the gate alone, twice
    fake.expect()
    async with memory_session(served) as session:
        listed = await session.request("tools/list")
        tools = {t["name"]: t for t in listed["result"]["tools"]}
        assert "capture_pane" not in tools
        description = tools["snapshot"]["description"]
        assert "Excluded by the operator, so never invoked: capture_pane." in description
        snap = (await session.call("snapshot", {}))["structuredContent"]
        info = (await session.call("server_info", {"detail": True}))["structuredContent"]
        compact = (await session.call("server_info", {}))["structuredContent"]
    assert compact["info"]["surface"]["excluded_tools"] == ["capture_pane"]
    assert snap["omitted_operations"] == ["capture_pane"]
    panes = [p for s in snap["sessions"] for w in s["windows"] for p in w["panes"]]
    assert panes
    assert all(p["content"] is None for p in panes)
    entry = next(t for t in info["info"]["surface"]["tools"] if t["name"] == "snapshot")
    assert entry["nested_operations"] == ["list_sessions", "list_windows", "list_panes"]
    assert entry["excluded_nested_operations"] == ["capture_pane"]


async def test_excluding_a_listing_omits_every_level_below(fake: FakeTmux) -> None:
    """With ``list_windows`` excluded, the snapshot reads sessions only (on the fake,
    which fails any other command: issue 30.2)."""
    served = fake_runtime(fake, request=SurfaceRequest(exclude=("list_windows",)))
    fake.expect(*words("list-sessions -F"), ANY, rows=[VALUES])
    snap = (await call_tool(fake, served, "snapshot", {})).ok()
    assert snap["omitted_operations"] == ["list_windows", "list_panes", "capture_pane"]
    assert snap["sessions"] == [{"session_id": "$1", "name": "build", "windows": None}]


async def test_a_screen_larger_than_the_content_budget_is_not_read(
    private_tmux: PrivateTmux, byte_counter: ByteCounter
) -> None:
    """Issue 13.2: snapshot captured every visible screen in one tmux call before its
    1 MiB content cap applied, so a 2,000 x 600 screen full of text (1.2 MB) was read
    whole and then dropped. Screens are now chosen by their size before any is read."""
    small = private_tmux.new_session("small")["pane_id"]
    private_tmux.bare("send-keys", "-t", small, "echo small-screen", "Enter")
    big = private_tmux.new_session("big", "tmuxmcp", "-x", "2000", "-y", "600", "sh")["pane_id"]
    private_tmux.bare("resize-window", "-t", big, "-x", "2000", "-y", "600")
    await fill_and_wait(private_tmux, big, fill_rows(700, columns=1990))
    await private_tmux.wait_for_screen(small, "small-screen\n")
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        byte_counter.reset()
        result = structured(await session.call_tool("snapshot", {}))
    panes = {p["pane_id"]: p for s in result["sessions"] for w in s["windows"] for p in w["panes"]}
    assert panes[big]["content"] is None
    assert "small-screen" in panes[small]["content"]
    assert result["content_truncated"] is True
    read = byte_counter.total()
    assert read < 200_000, f"{read} bytes read from tmux for one snapshot"
