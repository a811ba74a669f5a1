"""wait_for_text and capture_since read bounded windows however far back their mark is (13.2).

A since cursor taken before a long burst makes the first poll reach back over
the whole burst. The bound is checked where it is decided: a wrapper around
tmux logs the bytes each invocation wrote to stdout (``tests.bounds_support``).
"""

from __future__ import annotations

from typing import Any

from tests.bounds_support import (
    FULL_ROW_BYTES,
    SLACK,
    WIDE_ROWS,
    ByteCounter,
    fill_and_wait,
    fill_rows,
    new_long_pane,
)
from tests.support import PrivateTmux, serve, structured
from tmuxmcp.panetext.windows import MIN_WINDOW_ROWS
from tmuxmcp.tools.observation import MAX_RESULT_BYTES


async def test_a_since_cursor_before_a_wide_burst_reads_a_bounded_window(
    private_tmux: PrivateTmux, wide_pane: dict[str, str], byte_counter: ByteCounter
) -> None:
    """20,000 rows of 2,000 columns after the cursor, max_scan_bytes 1024: no read of MBs."""
    pane = wide_pane["pane_id"]
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        sent = structured(
            await session.call_tool(
                "send_keys",
                {
                    "pane_id": pane,
                    "keys": [{"text": f"clear; {fill_rows()}; echo DO''NE"}, "Enter"],
                },
            )
        )
        await private_tmux.wait_for_screen(pane, "\nDONE\n")
        byte_counter.reset()
        found = structured(
            await session.call_tool(
                "wait_for_text",
                {
                    "pane_id": pane,
                    "pattern": "^DONE$",
                    "regex": True,
                    "since": sent["cursor"],
                    "timeout": 30,
                    "max_scan_bytes": 1024,
                },
            )
        )
        biggest, count = byte_counter.biggest(), len(byte_counter.reads())
    assert found["outcome"] == "matched"
    assert found["lines_not_scanned"] > 0
    # One poll: the frame, the screen (40 rows) and windows planned to fill 1 KiB.
    assert biggest <= (WIDE_ROWS + 2 * MIN_WINDOW_ROWS) * FULL_ROW_BYTES + SLACK, (biggest, count)


async def test_a_since_cursor_finds_the_first_row_of_a_long_burst_across_windows(
    private_tmux: PrivateTmux, byte_counter: ByteCounter
) -> None:
    """The cap allows the whole burst: it is read in several windows, none skipped."""
    pane = new_long_pane(private_tmux, "long")["pane_id"]
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        sent = structured(
            await session.call_tool(
                "send_keys",
                {"pane_id": pane, "keys": [{"text": "clear; seq 1 20000; echo DO''NE"}, "Enter"]},
            )
        )
        await private_tmux.wait_for_screen(pane, "\nDONE\n")
        byte_counter.reset()
        args = {"pane_id": pane, "regex": True, "since": sent["cursor"], "timeout": 30}
        first = structured(
            await session.call_tool(
                "wait_for_text", {**args, "pattern": "^1$", "max_scan_bytes": 262144}
            )
        )
        captures = byte_counter.captures()
        middle = structured(await session.call_tool("wait_for_text", {**args, "pattern": "^9876$"}))
    assert first["outcome"] == "matched", first
    assert first["match"]["line"] == "1"
    assert first["lines_not_scanned"] == 0
    assert len(captures) > 2, captures
    assert middle["outcome"] == "matched"
    row = str(middle["match"]["row"])
    bare = private_tmux.bare("capture-pane", "-p", "-t", pane, "-S", row, "-E", row)
    assert bare.stdout == "9876\n"


async def _capture_since_before_a_wide_burst(
    tmux: PrivateTmux, pane: str, byte_counter: ByteCounter, *, max_lines: int
) -> dict[str, Any]:
    """A cursor, 20,000 full rows of 2,000 columns, then one capture_since from the
    cursor with ``max_lines``; ``byte_counter`` holds that call's reads alone."""
    async with serve(tmux, "--tmux", byte_counter.wrapper) as session:
        start = structured(await session.call_tool("capture_since", {"pane_id": pane}))
        await fill_and_wait(tmux, pane, fill_rows(), clear=False)
        byte_counter.reset()
        args = {"pane_id": pane, "cursor": start["cursor"], "max_lines": max_lines}
        return structured(await session.call_tool("capture_since", args))


async def test_capture_since_a_cursor_far_up_reads_windows_at_the_cursor(
    private_tmux: PrivateTmux, wide_pane: dict[str, str], byte_counter: ByteCounter
) -> None:
    """20,000 wide rows since the cursor: the rows right after it, without reading the rest."""
    page = await _capture_since_before_a_wide_burst(
        private_tmux, wide_pane["pane_id"], byte_counter, max_lines=3
    )
    biggest = byte_counter.biggest()
    assert page["gap"] is None
    assert page["more"] is True
    assert page["lines"][0].endswith("echo DO''NE")
    assert page["lines"][1:] == ["x" * 2000] * 2
    assert biggest <= (3 + 64 + WIDE_ROWS + 16) * FULL_ROW_BYTES + SLACK, biggest


async def test_capture_since_pages_through_a_long_burst_from_its_cursor(
    private_tmux: PrivateTmux,
) -> None:
    pane = new_long_pane(private_tmux, "long")["pane_id"]
    async with serve(private_tmux) as session:
        start = structured(await session.call_tool("capture_since", {"pane_id": pane}))
        private_tmux.bare("send-keys", "-t", pane, "seq 1 20000; echo DO''NE", "Enter")
        await private_tmux.wait_for_screen(pane, "\nDONE\n")
        first = structured(
            await session.call_tool(
                "capture_since", {"pane_id": pane, "cursor": start["cursor"], "max_lines": 3}
            )
        )
        second = structured(
            await session.call_tool(
                "capture_since", {"pane_id": pane, "cursor": first["cursor"], "max_lines": 3}
            )
        )
        bare_row = private_tmux.bare(
            "capture-pane",
            "-p",
            "-t",
            pane,
            "-S",
            str(second["first_row"]),
            "-E",
            str(second["first_row"]),
        )
    assert first["gap"] is None and second["gap"] is None
    assert first["lines"][0].endswith("seq 1 20000; echo DO''NE")
    assert first["lines"][1:] == ["1", "2"]
    assert second["lines"] == ["3", "4", "5"]
    assert bare_row.stdout == "3\n"
    assert first["more"] is True and second["more"] is True


async def test_capture_since_reads_no_more_wide_rows_than_its_result_can_hold(
    private_tmux: PrivateTmux, wide_pane: dict[str, str], byte_counter: ByteCounter
) -> None:
    """max_lines 10,000 of 2,000 columns would be 20 MB; the result holds 1 MiB."""
    page = await _capture_since_before_a_wide_burst(
        private_tmux, wide_pane["pane_id"], byte_counter, max_lines=10000
    )
    total = byte_counter.total()
    assert page["gap"] is None and page["more"] is True
    assert page["lines"][1:4] == ["x" * 2000] * 3
    assert sum(len(line) + 1 for line in page["lines"]) <= MAX_RESULT_BYTES
    # The near read (what the result can hold, 64 rows more, the screen), then the
    # window at the cursor: twice the result at most, never the 40 MB between.
    assert total <= 2 * MAX_RESULT_BYTES + (64 + WIDE_ROWS + 16) * FULL_ROW_BYTES + SLACK, total
