"""A capture into history reads its first window with the probe while the geometry holds.

``panetext.geometry`` Rule 1: the remembered width and height are a hint. A
second capture of an unchanged pane is one tmux invocation (the geometry
guard, the history size and the first window); a pane resized since is
refused by the guard, probed again and read within its new geometry, with
the same result as a first capture. Invocations are counted by the tmux
wrapper of ``tests.bounds_support``; expected rows come from bare tmux.
"""

from __future__ import annotations

from tests.bounds_support import ByteCounter, new_long_pane
from tests.support import PrivateTmux, serve, structured
from tmuxmcp.tools.capture import WINDOW_MARGIN


def _last_rows(tmux: PrivateTmux, pane: str, count: int) -> list[str]:
    """The last ``count`` rows of the pane's history and screen, blank rows below dropped."""
    rows = tmux.bare("capture-pane", "-p", "-t", pane, "-S", "-").stdout.rstrip("\n").split("\n")
    while rows and not rows[-1].strip():
        rows.pop()
    return rows[-count:]


async def test_a_second_capture_of_an_unchanged_pane_is_one_invocation(
    private_tmux: PrivateTmux, byte_counter: ByteCounter
) -> None:
    pane = new_long_pane(private_tmux, "again")["pane_id"]
    private_tmux.bare("send-keys", "-t", pane, "clear; seq 1 3000; echo DO''NE", "Enter")
    await private_tmux.wait_for_screen(pane, "\nDONE\n")
    arguments = {"pane_id": pane, "start": -2000, "max_lines": 100}
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        byte_counter.reset()
        first = structured(await session.call_tool("capture_pane", arguments))
        first_reads = byte_counter.reads()
        byte_counter.reset()
        second = structured(await session.call_tool("capture_pane", arguments))
        second_reads = byte_counter.reads()
        spans = byte_counter.capture_spans()
    assert len(first_reads) == 2, first_reads  # the probe, then one window
    assert len(second_reads) == 1, second_reads
    assert spans and all(span <= 100 + WINDOW_MARGIN for span in spans), spans
    assert second == first
    assert second["text"].split("\n") == _last_rows(private_tmux, pane, 100)
    assert second["truncated_by"] == "max_lines"


async def test_a_resized_pane_is_probed_again_and_read_in_its_new_geometry(
    private_tmux: PrivateTmux, byte_counter: ByteCounter
) -> None:
    pane = new_long_pane(private_tmux, "resized")["pane_id"]
    private_tmux.bare("send-keys", "-t", pane, "clear; seq 1 3000; echo DO''NE", "Enter")
    await private_tmux.wait_for_screen(pane, "\nDONE\n")
    arguments = {"pane_id": pane, "start": -2000, "max_lines": 40, "max_chars": 1000}
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        structured(await session.call_tool("capture_pane", arguments))
        private_tmux.bare("resize-window", "-t", pane, "-x", "200", "-y", "30")
        byte_counter.reset()
        resized = structured(await session.call_tool("capture_pane", arguments))
        reads = byte_counter.reads()
        spans = byte_counter.capture_spans()
        byte_counter.reset()
        again = structured(await session.call_tool("capture_pane", arguments))
        again_reads = byte_counter.reads()
    # The guard refused: its window, planned for 80 columns from what the rows cost
    # at the last capture (all 40 lines fit 1,000 characters; windows Rule 1, issue
    # 31.1), was not read; the gate's identity line is all it printed. Then the
    # probe, and windows planned for 200 columns (5 full rows), the cost forgotten
    # with the geometry.
    assert "tmuxmcp-geometry-changed" in reads[0][1] and reads[0][0] < 40, reads
    assert "display-message" in reads[1][1] and "capture-pane" not in reads[1][1], reads
    assert spans[0] == 40 + WINDOW_MARGIN, spans
    assert all(span <= 5 + WINDOW_MARGIN for span in spans[1:]), spans
    assert resized["text"].split("\n") == _last_rows(private_tmux, pane, resized["lines"])
    assert "DONE" in resized["text"].split("\n")[-3:]
    assert len(again_reads) == 1, again_reads
    assert again == resized


async def test_a_hinted_capture_reaching_above_the_history_counts_its_rows(
    private_tmux: PrivateTmux, byte_counter: ByteCounter
) -> None:
    """The window read behind the guard is planned before the history size is known and
    starts above the oldest row, where tmux starts it at the oldest row: its rows are
    numbered from there (``history.behind_guard`` clamps the range), so the second
    capture reports what the first did."""
    pane = new_long_pane(private_tmux, "short")["pane_id"]
    private_tmux.bare("send-keys", "-t", pane, "clear; seq 1 300; echo DO''NE", "Enter")
    await private_tmux.wait_for_screen(pane, "\nDONE\n")
    arguments = {"pane_id": pane, "start": -5000, "max_lines": 5000}
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        first = structured(await session.call_tool("capture_pane", arguments))
        byte_counter.reset()
        second = structured(await session.call_tool("capture_pane", arguments))
        assert len(byte_counter.reads()) == 1  # the window rode with the guard
    rows = _last_rows(private_tmux, pane, 5000)
    assert first["text"].split("\n") == rows
    assert second == first
    assert first["captured_lines"] == first["lines"] == len(rows)
    assert first["truncated"] is False
