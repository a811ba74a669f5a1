"""search_panes reads bounded windows, newest first, and still reaches the top (issue 13.2).

The bound is checked where it is decided: a wrapper around tmux logs the
bytes each tmux invocation wrote to stdout and its argv, so the test counts
what the server read from tmux for one call, not its RSS
(``tests.bounds_support``).
"""

from __future__ import annotations

from tests.bounds_support import (
    FULL_ROW_BYTES,
    SLACK,
    ByteCounter,
    new_long_pane,
)
from tests.support import PrivateTmux, serve, structured
from tmuxmcp.panetext.windows import MIN_WINDOW_ROWS


async def test_a_small_byte_cap_reads_a_small_window_of_a_wide_long_history(
    private_tmux: PrivateTmux, filled_wide_pane: dict[str, str], byte_counter: ByteCounter
) -> None:
    """2,000 columns, 20,000 full rows of history, max_scan_bytes 1024: a few KB read."""
    pane = filled_wide_pane["pane_id"]
    history = int(private_tmux.bare("display-message", "-p", "-t", pane, "#{history_size}").stdout)
    assert history >= 19_000
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        byte_counter.reset()
        found = structured(
            await session.call_tool(
                "search_panes",
                {
                    "pattern": "DONE",
                    "window_id": filled_wide_pane["window_id"],
                    "scrollback": 30000,
                    "max_scan_bytes": 1024,
                },
            )
        )
        reads = byte_counter.reads()
    assert byte_counter.captures(), "the wrapper counted the reads"
    total = byte_counter.total()
    # The listing, plus windows planned to fill 1 KiB: at most MIN_WINDOW_ROWS full rows.
    limit = 1024 + MIN_WINDOW_ROWS * FULL_ROW_BYTES + SLACK
    assert total <= limit, (total, [r[1][:200] for r in reads])
    assert found["truncated_by"] == "max_scan_bytes"
    assert found["scanned_bytes"] <= 1024
    assert [m["line"] for m in found["matches"]] == ["DONE"]


async def test_rows_at_the_top_of_a_long_history_are_found_when_the_caps_allow(
    private_tmux: PrivateTmux, byte_counter: ByteCounter
) -> None:
    ids = new_long_pane(private_tmux, "long")
    pane = ids["pane_id"]
    private_tmux.bare("send-keys", "-t", pane, "clear; seq 1 20000; echo DO''NE", "Enter")
    await private_tmux.wait_for_screen(pane, "\nDONE\n")
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        scope = {"window_id": ids["window_id"], "scrollback": 30000}
        ends = structured(
            await session.call_tool(
                "search_panes", {"pattern": "^(1|10000|20000)$", "regex": True, **scope}
            )
        )
        assert ends["truncated"] is False
        assert [m["line"] for m in ends["matches"]] == ["1", "10000", "20000"]
        for m in ends["matches"]:
            row = str(m["row"])
            bare = private_tmux.bare("capture-pane", "-p", "-t", pane, "-S", row, "-E", row)
            assert bare.stdout == m["line"] + "\n"
        # A small cap reads many small windows: every row of the newest part is
        # found once, in order, none skipped at a window's edge.
        byte_counter.reset()
        run = structured(
            await session.call_tool(
                "search_panes",
                {
                    "pattern": "^19[0-9]{3}$",
                    "regex": True,
                    "max_matches": 1000,
                    "max_scan_bytes": 16384,
                    "max_chars": 1024 * 1024,  # room for the 1,000 matches (issue 18.2)
                    **scope,
                },
            )
        )
        captures = byte_counter.captures()
    assert len(captures) > 3, captures
    assert run["truncated_by"] == "max_scan_bytes"
    assert [m["line"] for m in run["matches"]] == [str(n) for n in range(19000, 20000)]
    rows = [m["row"] for m in run["matches"]]
    assert rows == list(range(rows[0], rows[0] + 1000))
