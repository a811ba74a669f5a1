"""A capture into history reads windows sized by what its rows cost (issue 31.1).

Rows are planned as if full only before any is read; then their measured
cost plans the next window, and the pane's last capture plans the first
(``panetext.windows`` Rule 1). So 10,000 short rows of a 200-column pane come
back in one tmux invocation, where planning every row at full width took
the probe and three windows. The number of invocations is a count, read
from a ``--tmux`` wrapper that logs each one (``tests.bounds_support``). A
pane whose older rows are full behind short ones stays within the bound of
Rule 1a.
"""

from __future__ import annotations

from tests.bounds_support import (
    FULL_ROW_BYTES,
    SLACK,
    ByteCounter,
    fill_and_wait,
    new_long_pane,
)
from tests.support import PrivateTmux, serve, structured
from tmuxmcp.panetext.windows import GROWTH
from tmuxmcp.tools.capture import MAX_CAPTURE_BYTES, WINDOW_MARGIN

LINES = 10_000
ROW = "line %g lorem ipsum dolor sit amet"
"""About 40 columns: a short row on a pane of 200."""


def _pane_of_short_rows(tmux: PrivateTmux) -> str:
    """A 200x50 pane holding 12,000 rows of about 40 characters, then DONE."""
    tmux.new_session("seed")
    tmux.bare("set-option", "-g", "history-limit", "30000")
    pane = tmux.new_session("rows", "tmuxmcp", "-x", "200", "-y", "50", "sh")["pane_id"]
    tmux.bare("resize-window", "-t", pane, "-x", "200", "-y", "50")
    return pane


async def test_a_10000_line_capture_of_short_rows_is_one_tmux_invocation(
    private_tmux: PrivateTmux, byte_counter: ByteCounter
) -> None:
    pane = _pane_of_short_rows(private_tmux)
    await fill_and_wait(private_tmux, pane, f"seq -f '{ROW}' 1 12000")
    args = {
        "pane_id": pane,
        "start": -LINES,
        "max_lines": LINES + 50,
        "max_chars": MAX_CAPTURE_BYTES,
    }
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        byte_counter.reset()
        first = structured(await session.call_tool("capture_pane", args))
        cold = byte_counter.reads()
        byte_counter.reset()
        again = structured(await session.call_tool("capture_pane", args))
        warm = byte_counter.reads()
    bare = private_tmux.bare("capture-pane", "-p", "-t", pane, "-S", str(-LINES)).stdout
    rows = bare.rstrip("\n").split("\n")
    while rows and not rows[-1].strip():
        rows.pop()
    for got in (first, again):
        assert got["truncated"] is False, got["truncated_by"]
        assert got["text"] == "\n".join(rows)
    # Cold: the geometry probe, a window planned as if rows were full, and one
    # measured window for the rest (main: the probe and three full-row windows).
    assert len(cold) == 3, [line[:100] for _, line in cold]
    # Warm: the first window rides with the probe and is planned from the
    # rows' cost at the last capture, so it is the whole range.
    assert len(warm) == 1, [line[:100] for _, line in warm]


async def test_full_rows_behind_short_ones_are_read_within_the_growth_bound(
    private_tmux: PrivateTmux, filled_wide_pane: dict[str, str], byte_counter: ByteCounter
) -> None:
    """20,000 full rows of 2,000 columns, then 3,000 short rows: the short rows predict
    a long window, which reaches the full rows; it is at most ``GROWTH`` times the
    full-row plan (Rule 1a), not the 40 MB of history."""
    pane = filled_wide_pane["pane_id"]
    await fill_and_wait(private_tmux, pane, "seq 1 3000", clear=False)
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        byte_counter.reset()
        got = structured(
            await session.call_tool(
                "capture_pane",
                {
                    "pane_id": pane,
                    "start": -30000,
                    "max_lines": 100000,
                    "max_chars": MAX_CAPTURE_BYTES,
                },
            )
        )
        total = byte_counter.total()
        biggest = byte_counter.biggest()
    assert got["truncated_by"] == "max_chars"
    assert "DONE" in got["text"].split("\n")[-3:]
    assert "x" * 2000 in got["text"]
    window = GROWTH * MAX_CAPTURE_BYTES + (WINDOW_MARGIN + 1) * FULL_ROW_BYTES
    assert biggest <= window + SLACK, biggest
    assert total <= MAX_CAPTURE_BYTES + window + SLACK, total
    assert total < 20000 * FULL_ROW_BYTES // 4


async def test_short_rows_on_a_wide_pane_are_read_in_few_windows(
    private_tmux: PrivateTmux, wide_pane: dict[str, str], byte_counter: ByteCounter
) -> None:
    """8,000 short rows on a 2,000-column pane: planned as if full, a 1 MiB capture
    takes 14 windows of 589 rows; measured, each window after the first is
    ``GROWTH`` times as tall (the bound of Rule 1a on a pane this wide)."""
    pane = wide_pane["pane_id"]
    await fill_and_wait(private_tmux, pane, "seq 1 8000")
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        byte_counter.reset()
        got = structured(
            await session.call_tool(
                "capture_pane",
                {
                    "pane_id": pane,
                    "start": -8100,
                    "max_lines": 8050,
                    "max_chars": MAX_CAPTURE_BYTES,
                },
            )
        )
        captures = byte_counter.captures()
    assert got["truncated"] is False
    assert "8000\nDONE" in got["text"]
    assert "1\n2\n3\n" in got["text"]
    assert len(captures) <= 5, [line[:100] for line in captures]


async def test_a_long_output_of_short_lines_is_read_in_two_windows(
    private_tmux: PrivateTmux, byte_counter: ByteCounter
) -> None:
    """run_command's long output is read by the same sizing: 10,000 short lines with
    a 1 MiB budget were five windows of 2,000 rows (``collect.window_rows``); the
    first window's rows now predict the rest, which is one more window."""
    pane = new_long_pane(private_tmux, "out")["pane_id"]
    await private_tmux.wait_for_prompt(pane, seconds=20)
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        byte_counter.reset()
        done = structured(
            await session.call_tool(
                "run_command",
                {
                    "pane_id": pane,
                    "command": "seq 1 10000",
                    "timeout": 60,
                    "max_output_bytes": MAX_CAPTURE_BYTES,
                },
            )
        )
        captures = byte_counter.captures()
    assert (done["completed"], done["exit_status"]) == (True, 0)
    assert done["output"] == "\n".join(str(n) for n in range(1, 10001))
    assert done["output_truncated"] is False
    # The long output's windows: joined rows of a bounded span (the end frame
    # reads from -S alone, the start's search reads physical rows).
    windows = [line for line in captures if " -J " in line and " -E " in line]
    assert len(windows) == 2, [line[:120] for line in windows]
