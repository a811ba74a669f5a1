"""run_command's output against the cases of issue 22 that break where it starts or what it keeps.

Real tmux on a private socket, real shells (bash; dash and zsh too where the
shell's line editor matters), the SDK client over stdio. Each
test names its item of issue 22; each failed on main at 84eb450. Panes are
200x50 with history-limit 2000 unless the item names another size.
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest
import trio
from mcp import ClientSession

from tests.support import PrivateTmux, serve, structured
from tmuxmcp.driver.versions import version_tuple

SHELLS = {
    "bash": ("bash", "--norc", "--noprofile"),
    "dash": ("dash",),
    "zsh": ("zsh", "-f"),
}
"""The shells where the shell matters: bash, dash (no line editor) and zsh (its own)."""


async def _bash_pane(
    tmux: PrivateTmux, name: str, width: int = 200, height: int = 50, shell: str = "bash"
) -> str:
    """A ``shell`` pane ``width`` x ``height`` with history-limit 2000, at its prompt."""
    if shutil.which(SHELLS[shell][0]) is None:
        pytest.skip(f"{shell} is not installed")
    tmux.bare("set-option", "-g", "history-limit", "2000")
    # Made at its size (tmux takes the last -x and -y), never resized: a resize
    # while the shell starts can reach it before its line editor watches for one,
    # which then wraps at 80 columns, scrolls the screen down a row (ESC M) and
    # writes over the row above (seen in bash on 3.5a under CI load).
    size = ("-x", str(width), "-y", str(height))
    ids = tmux.new_session(name, "tmuxmcp", *size, *SHELLS[shell])
    pane = ids["pane_id"]
    if tmux.bare("display-message", "-p", "-t", pane, "#{pane_width}").stdout.strip() != str(
        width
    ):  # tmux before 3.3 sized it 80x24 all the same (``PrivateTmux.new_session``)
        tmux.bare("resize-window", "-t", ids["window_id"], *size)
    with trio.fail_after(10):
        while tmux.bare("display-message", "-p", "-t", pane, "#{cursor_x}").stdout.strip() in (
            "",
            "0",
        ):
            await trio.sleep(0.02)
    return pane


async def _run(session: ClientSession, pane: str, command: str, **extra: object) -> dict[str, Any]:
    return structured(
        await session.call_tool("run_command", {"pane_id": pane, "command": command, **extra})
    )


async def test_a_line_longer_than_the_budget_keeps_its_start_and_its_end(
    private_tmux: PrivateTmux,
) -> None:
    # Issue 22.4: `short` and "[... 1 lines omitted ...]", output_truncated false.
    async with serve(private_tmux) as session:
        pane = await _bash_pane(private_tmux, "longline")
        done = await _run(session, pane, "echo short; head -c 100000 /dev/zero | tr '\\0' x; echo")
        assert (done["exit_status"], done["output_truncated"], done["lines_omitted"]) == (
            0,
            True,
            0,
        )
        first, start, marker, end = done["output"].split("\n")
        assert first == "short"
        assert set(start) == set(end) == {"x"}
        cut = 100_000 - len(start) - len(end)
        assert marker == f"[... {cut:,} of this line's 100,000 characters cut ...]"
        assert len(start) < len(end)


def _lines(done: dict[str, Any]) -> list[str]:
    text: str = done["output"]
    return text.split("\n")


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_scroll_region_left_set_gives_every_line_and_no_false_clear(
    private_tmux: PrivateTmux, shell: str
) -> None:
    # Issue 22.6: "screen and history cleared" (false), the typed line, then 2..17.
    # The region's reset homes the cursor to the top row, above lines 18-20, and
    # "1" was written over the prompt row.
    async with serve(private_tmux) as session:
        pane = await _bash_pane(private_tmux, "region", shell=shell)
        done = await _run(session, pane, "printf '\\033[1;5r'; seq 1 20; printf '\\033[r'")
        assert done["exit_status"] == 0
        assert _lines(done) == [str(n) for n in range(1, 21)]
        assert (done["output_truncated"], done["lines_lost"]) == (False, 0)


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_cursor_moved_to_the_top_row_leaks_no_typed_line_and_no_false_clear(
    private_tmux: PrivateTmux, shell: str
) -> None:
    # Issue 22.7: "cleared" (false), then `TOP{ : 'echo first…`.
    async with serve(private_tmux) as session:
        pane = await _bash_pane(private_tmux, "cup", shell=shell)
        done = await _run(session, pane, "echo first; tput cup 0 0; echo TOP")
        assert done["exit_status"] == 0
        # The screen's order: TOP is on the prompt row, above `first`. In dash, whose
        # prompt `# ` is shorter than TOP, TOP reaches into the shown command.
        assert _lines(done) == ["TOP", "first"]
        assert done["output_truncated"] is False
        after = await _run(session, pane, "echo next")
        assert _lines(after) == ["next"]


async def test_output_written_above_the_typed_line_is_said_not_read(
    private_tmux: PrivateTmux,
) -> None:
    # A neighbour of 22.6: with the prompt on row 30, a region over rows 1-5
    # takes all of seq's output above the typed line. On main: "" and nothing said.
    async with serve(private_tmux) as session:
        pane = await _bash_pane(private_tmux, "above")
        await _run(session, pane, "seq 1 30")
        done = await _run(session, pane, "printf '\\033[1;5r'; seq 1 20; printf '\\033[r'")
        assert done["exit_status"] == 0
        assert done["output_truncated"] is True
        assert _lines(done) == [
            "[... the command moved the cursor above its typed line or wrote above it; rows "
            "there were on the screen before it ran, so what it wrote there is not read ...]"
        ]


async def test_lines_lost_to_the_history_limit_are_counted_from_the_typed_line(
    private_tmux: PrivateTmux,
) -> None:
    # Issue 22.9: after 161 lines the prompt is row 162; `seq 1 2040` needs
    # 162 + 1 + 2040 + 1 rows of the 2,050 the pane holds, so tmux trims 200
    # once: rows 0-161 (earlier output), 162 (the typed line) and 1..37 of seq
    # go. main said 38: it counted the typed line as output.
    async with serve(private_tmux) as session:
        pane = await _bash_pane(private_tmux, "lost")
        await _run(session, pane, "seq 1 161")
        done = await _run(session, pane, "seq 1 2040", timeout=60)
        assert done["lines_lost"] == 37
        lines = _lines(done)
        assert lines[0] == "[... at least 37 earlier lines scrolled out of the pane's history ...]"
        assert (lines[1], lines[-1]) == ("38", "2040")


@pytest.mark.parametrize("count", [2500, 30_000, 200_000])
async def test_lines_lost_in_more_trims_than_the_counters_show_are_a_true_lower_bound(
    private_tmux: PrivateTmux, count: int
) -> None:
    # Issue 22.9: `seq 1 2500` in a fresh pane loses 599 lines (three trims of
    # 200, less the typed line's row), 30,000 loses 27,999, 200,000 197,999;
    # tmux's counters show only that at least one trim reached the typed line,
    # so the bound is 200 - 1 = 199, never more than was lost (main said "at
    # least 200" for all three).
    async with serve(private_tmux) as session:
        pane = await _bash_pane(private_tmux, "bound")
        done = await _run(session, pane, f"seq 1 {count}", timeout=120)
        lines = _lines(done)
        first_kept = int(lines[1])
        assert done["lines_lost"] == 199 <= first_kept - 1
        assert lines[0] == "[... at least 199 earlier lines scrolled out of the pane's history ...]"
        assert lines[-1] == str(count)


WIDE = "x" + "あ" * 40


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_wide_character_on_the_wrap_column_leaks_no_typed_line(
    private_tmux: PrivateTmux, shell: str
) -> None:
    # Issue 22.3: in an 80x24 pane the wrapper line ` { : …; . …/r5; }…` came first:
    # a wide character that does not fit a row's last cell leaves it blank, and
    # the joined rows then hold a space the typed line does not have.
    async with serve(private_tmux) as session:
        pane = await _bash_pane(private_tmux, "wide", width=80, height=24, shell=shell)
        done = await _run(session, pane, f"echo '{WIDE}'")
        assert (done["exit_status"], _lines(done)) == (0, [WIDE])


async def test_wide_characters_at_the_edge_of_narrow_and_wide_panes(
    private_tmux: PrivateTmux,
) -> None:
    # The width neighbours of 22.3: 20 columns (every row of the typed line ends
    # on a wide character's edge) and 500 (the line fits one row).
    async with serve(private_tmux) as session:
        for width in (20, 21, 500):
            pane = await _bash_pane(private_tmux, f"w{width}", width=width, height=50)
            done = await _run(session, pane, f"echo '{WIDE}'; echo 'あい'")
            assert (done["exit_status"], _lines(done)) == (0, [WIDE, "あい"]), width


async def test_bytes_the_screen_replaced_are_said_not_dropped_silently(
    private_tmux: PrivateTmux,
) -> None:
    # Issue 22.11: the bytes vanished without a trace. tmux 3.6 draws U+FFFD for
    # each byte that is not UTF-8; before 3.6 it drops them, and nothing on the
    # screen shows that any were there (docs/patterns.md says so).
    async with serve(private_tmux) as session:
        pane = await _bash_pane(private_tmux, "bytes")
        done = await _run(session, pane, "printf '\\xff\\xfe ok\\n'")
        lines = _lines(done)
        version = version_tuple(private_tmux.bare("-V").stdout)
        if version is not None and version >= (3, 6):
            assert lines[0].startswith("[... 2 characters of this output are U+FFFD")
            assert lines[1:] == ["\ufffd\ufffd ok"]
        else:
            assert lines == [" ok"]


async def test_a_scroll_region_over_rows_above_the_prompt_says_they_are_not_read(
    private_tmux: PrivateTmux,
) -> None:
    # A neighbour of 22.6: with the prompt on row 4, seq writes 1-4 over the
    # rows above it and 5 over the prompt. On main "5".."20" came back, and
    # nothing said 1-4 were missing.
    async with serve(private_tmux) as session:
        pane = await _bash_pane(private_tmux, "over")
        await _run(session, pane, "seq 1 3")
        done = await _run(session, pane, "printf '\\033[1;5r'; seq 1 20; printf '\\033[r'")
        lines = _lines(done)
        assert lines[0].startswith("[... the command moved the cursor above its typed line")
        assert lines[1:] == [str(n) for n in range(5, 21)]
        assert done["output_truncated"] is True
