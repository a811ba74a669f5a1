"""Calls that read every pane still work with a thousand of them.

A pane program can create sessions through ``$TMUX`` as fast as it likes.
``snapshot`` and ``search_panes`` read every pane in one tmux invocation, and
from about 200 panes on that list was over tmux's 16,364-byte limit: both
answered ``[tmux-command-failed] ... command too long`` and read nothing.
"""

from __future__ import annotations

from tests.support import PrivateTmux, error_text, serve, structured

PANES = 1001


def _sessions(tmux: PrivateTmux) -> None:
    tmux.new_session("first")
    for batch in range(20):
        words: list[str] = []
        for n in range(50):
            words += ["new-session", "-d", "-s", f"s{batch}-{n}", "sh", ";"]
        tmux.bare(*words[:-1])
    tmux.bare("send-keys", "-t", "s19-49", "-l", "echo needle-$((6*7))\n")


async def test_snapshot_and_search_read_a_thousand_panes(private_tmux: PrivateTmux) -> None:
    _sessions(private_tmux)
    async with serve(private_tmux) as session:
        # All of them on request: the default budget keeps a result inline (issue 18.2).
        shot = await session.call_tool("snapshot", {"max_chars": 4 * 1024 * 1024})
        assert not shot.is_error, error_text(shot)
        panes = [p for s in structured(shot)["sessions"] for w in s["windows"] for p in w["panes"]]
        assert len(panes) == PANES
        assert sum(1 for p in panes if p.get("content") is not None) > 200
        for _ in range(100):  # the echo runs in its sh (deadline 10 s)
            found = await session.call_tool("search_panes", {"pattern": "needle-42"})
            assert not found.is_error, error_text(found)
            body = structured(found)
            if body["matches"]:
                break
        assert body["panes_searched"] == PANES, body
        assert [m["line"] for m in body["matches"]] == ["needle-42"], body
