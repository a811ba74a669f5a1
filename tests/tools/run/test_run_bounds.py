"""run_command reads a long output in windows of bounded bytes, whatever the width (13.2).

Windows of 2,000 rows made one read of a 2,000-column pane about 4 MB. The
bound is checked where it is decided: a wrapper around tmux counts the bytes
each invocation wrote (``tests.bounds_support``).
"""

from __future__ import annotations

from tests.bounds_support import (
    FULL_ROW_BYTES,
    SLACK,
    WIDE_COLUMNS,
    WIDE_ROWS,
    ByteCounter,
    fill_rows,
)
from tests.support import PrivateTmux, serve, structured
from tmuxmcp.tools.run import collect


async def test_a_long_output_on_a_wide_pane_is_read_in_windows_of_bounded_bytes(
    private_tmux: PrivateTmux, wide_pane: dict[str, str], byte_counter: ByteCounter
) -> None:
    """20,000 full rows of 2,000 columns: no invocation reads more than one window's
    bytes (or the end frame's), and the output still ends with the command's last row."""
    pane = wide_pane["pane_id"]
    await private_tmux.wait_for_prompt(pane, seconds=20)
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        byte_counter.reset()
        done = structured(
            await session.call_tool(
                "run_command",
                {"pane_id": pane, "command": f"{fill_rows()}; echo LAST", "timeout": 120},
            )
        )
        reads = byte_counter.reads()
    assert (done["completed"], done["exit_status"]) == (True, 0)
    lines = done["output"].split("\n")
    assert lines[-1] == "LAST"
    assert lines[-2] == "x" * WIDE_COLUMNS
    assert done["output_truncated"] is True
    window = collect.WINDOW_BYTES + FULL_ROW_BYTES
    # The end frame: the speculative rows and the screen, physical and joined.
    end_frame = 2 * (collect.SPECULATIVE_BYTES + FULL_ROW_BYTES + WIDE_ROWS * FULL_ROW_BYTES)
    biggest = max(size for size, _ in reads)
    assert biggest <= max(window, end_frame) + SLACK, (biggest, [r[1][:120] for r in reads])
    # Before: one window of 2,000 such rows, 4,002,000 bytes.
    assert biggest < 2000 * FULL_ROW_BYTES // 2


def test_windows_of_ordinary_panes_keep_their_rows() -> None:
    """Up to 261 columns a window still has 2,000 rows (the invocations of a long output
    on an ordinary pane are as before); wider, the rows shrink to keep the bytes."""
    assert collect.window_rows(80) == collect.WINDOW_ROWS
    assert collect.window_rows(261) == collect.WINDOW_ROWS
    assert collect.window_rows(262) < collect.WINDOW_ROWS
    for width in (262, 2000, 10000):
        assert collect.window_rows(width) * (width + 1) <= collect.WINDOW_BYTES + width + 1
    assert collect.window_rows(10000) >= 16
