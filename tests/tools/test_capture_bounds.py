"""capture_pane reads bounded windows and drops blank rows below the text (issues 13, 14).

The bound is checked where it is decided: a wrapper around tmux logs every
argv (``tests.bounds_support.ByteCounter``), and each ``capture-pane`` it saw
must span at most ``max_lines`` plus ``WINDOW_MARGIN`` rows, whatever the
history holds.
"""

from __future__ import annotations

from tests.bounds_support import (
    FULL_ROW_BYTES,
    SLACK,
    ByteCounter,
    new_long_pane,
)
from tests.fake_support import call_tool, fake_runtime
from tests.support import PrivateTmux, serve, structured
from tmuxmcp.driver.fake import FakeTmux
from tmuxmcp.tools.capture import DEFAULT_CAPTURE_LINES, MAX_CAPTURE_BYTES, WINDOW_MARGIN


async def test_a_small_cap_reads_a_small_window_of_a_long_history(
    private_tmux: PrivateTmux, byte_counter: ByteCounter
) -> None:
    pane = new_long_pane(private_tmux, "big")["pane_id"]
    private_tmux.bare("send-keys", "-t", pane, "clear; seq 1 20000; echo DO''NE", "Enter")
    await private_tmux.wait_for_screen(pane, "\nDONE\n")
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        byte_counter.reset()
        one = structured(
            await session.call_tool(
                "capture_pane", {"pane_id": pane, "start": -30000, "max_lines": 1}
            )
        )
        spans = byte_counter.capture_spans()
        byte_counter.reset()
        default = structured(
            await session.call_tool("capture_pane", {"pane_id": pane, "start": -30000})
        )
        default_spans = byte_counter.capture_spans()
    assert spans and all(span <= 1 + WINDOW_MARGIN for span in spans), spans
    assert one["truncated_by"] == "max_lines"
    last = [r for r in private_tmux.bare("capture-pane", "-p", "-t", pane).stdout.split("\n") if r]
    assert one["text"] == last[-1]
    assert one["captured_lines"] > 20000
    assert default["lines"] == DEFAULT_CAPTURE_LINES
    assert default["text"].split("\n")[-1] == last[-1]
    assert default_spans and all(s <= DEFAULT_CAPTURE_LINES + WINDOW_MARGIN for s in default_spans)


async def test_blank_rows_below_the_text_are_not_returned_or_counted(
    private_tmux: PrivateTmux,
) -> None:
    pane = private_tmux.new_session("b")["pane_id"]
    private_tmux.bare("send-keys", "-t", pane, "clear; printf 'a\\nb\\nc\\n'", "Enter")
    await private_tmux.wait_for_screen(pane, "\nc\n")
    async with serve(private_tmux) as session:
        for extra in ({}, {"start": -100}, {"start": -100, "end": 23}):
            got = structured(
                await session.call_tool("capture_pane", {"pane_id": pane, "max_lines": 5, **extra})
            )
            rows = got["text"].split("\n")
            assert rows[-1].strip(), (extra, got["text"])
            assert rows[-4:-1] == ["a", "b", "c"], (extra, got["text"])
            assert got["lines"] == len(rows) <= 5
            assert got["captured_lines"] == got["lines"]
            assert got["truncated"] is False, extra


async def test_an_end_above_the_default_start_is_refused_before_any_capture(
    fake: FakeTmux,
) -> None:
    """tmux reads ``-E -50000`` without ``-S`` from row -50000 down to row 0, unbounded,
    so the call is refused before tmux is asked anything (on the fake world, which
    fails any command it was not told to expect: issue 30.2)."""
    refused = await call_tool(
        fake, fake_runtime(fake), "capture_pane", {"pane_id": "%3", "end": -50000}
    )
    assert refused.error is not None, refused
    assert refused.error.startswith("[invalid-arguments]") and "`end`" in refused.error
    assert fake.calls == []


async def test_a_wide_history_is_read_only_as_far_as_the_byte_cap(
    private_tmux: PrivateTmux, filled_wide_pane: dict[str, str], byte_counter: ByteCounter
) -> None:
    """max_lines 100,000 over 20,000 rows of 2,000 columns: about 1 MiB read, not 40 MB."""
    pane = filled_wide_pane["pane_id"]
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
    assert got["truncated_by"] == "max_chars"
    assert len(got["text"].encode()) <= MAX_CAPTURE_BYTES
    assert "DONE" in got["text"].split("\n")[-3:]
    assert total <= MAX_CAPTURE_BYTES + (WINDOW_MARGIN + 1) * FULL_ROW_BYTES + SLACK, total


async def test_a_screen_taller_than_one_window_is_read_in_bounded_windows(
    private_tmux: PrivateTmux, byte_counter: ByteCounter
) -> None:
    """A visible screen of 2,000 rows (tmux allows 10,000) and max_lines 10."""
    private_tmux.new_session("seed")
    pane = private_tmux.new_session("tall", "tmuxmcp", "-x", "80", "-y", "2000", "sh")["pane_id"]
    private_tmux.bare("resize-window", "-t", pane, "-x", "80", "-y", "2000")
    private_tmux.bare("send-keys", "-t", pane, "clear; seq 1 3000; echo DO''NE", "Enter")
    await private_tmux.wait_for_screen(pane, "\nDONE\n")
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        byte_counter.reset()
        got = structured(
            await session.call_tool("capture_pane", {"pane_id": pane, "max_lines": 10})
        )
        spans = byte_counter.capture_spans()
    assert spans and all(span <= 10 + WINDOW_MARGIN for span in spans), spans
    screen = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout.rstrip("\n").split("\n")
    while screen and not screen[-1].strip():
        screen.pop()
    assert got["text"].split("\n") == screen[-10:]
    assert got["truncated_by"] == "max_lines"


async def test_an_end_below_the_screen_is_one_read(
    private_tmux: PrivateTmux, byte_counter: ByteCounter
) -> None:
    """tmux clamps an end below the screen to its last row: no window beyond it is planned."""
    pane = private_tmux.new_session("short")["pane_id"]
    private_tmux.bare("send-keys", "-t", pane, "clear; printf 'a\\nb\\n'", "Enter")
    await private_tmux.wait_for_screen(pane, "\nb\n")
    async with serve(private_tmux, "--tmux", byte_counter.wrapper) as session:
        byte_counter.reset()
        got = structured(
            await session.call_tool("capture_pane", {"pane_id": pane, "end": 30000, "max_lines": 5})
        )
        spans = byte_counter.capture_spans()
    assert len(spans) == 1, spans
    assert got["text"].split("\n")[-3:-1] == ["a", "b"]
