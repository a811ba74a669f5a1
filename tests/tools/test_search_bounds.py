"""search_panes reads bounded windows, newest first, and still reaches the top (issue 13.2).

The bound is checked where it is decided: a wrapper around tmux logs the
bytes each tmux invocation wrote to stdout and its argv, so the test counts
what the server read from tmux for one call, not its RSS.
"""

from __future__ import annotations

import os
import shutil

from tests.support import PrivateTmux, serve, structured, tmux_wrapper
from tmuxmcp.tools.windows import MIN_WINDOW_ROWS


def _byte_counting_tmux(directory: str) -> tuple[str, str]:
    """A tmux wrapper that logs ``<stdout bytes> <argv>`` per invocation.

    It runs tmux itself and exits with its status, so it never reaches the
    wrapper's own exec: the output has to pass through it to be counted.
    """
    real = shutil.which("tmux") or "tmux"
    log = os.path.join(directory, "reads")
    counting = (
        f'out="{directory}/out.$$"\n'
        f'"{real}" "$@" > "$out"; rc=$?\n'
        f'printf "%s %s\\n" "$(wc -c < "$out")" "$*" >> "{log}"\n'
        'cat "$out"; rm -f "$out"; exit $rc'
    )
    return tmux_wrapper(os.path.join(directory, "counting-tmux"), counting, real), log


def _reads(log: str) -> list[tuple[int, str]]:
    with open(log) as f:
        return [(int(line.split(" ", 1)[0]), line) for line in f if line.strip()]


async def test_a_small_byte_cap_reads_a_small_window_of_a_wide_long_history(
    private_tmux: PrivateTmux,
) -> None:
    """2,000 columns, 20,000 full rows of history, max_scan_bytes 1024: a few KB read."""
    private_tmux.new_session("seed")
    private_tmux.bare("set-option", "-g", "history-limit", "30000")
    pane = private_tmux.new_session("wide", "tmuxmcp", "-x", "2000", "-y", "40", "sh")["pane_id"]
    private_tmux.bare("resize-window", "-t", pane, "-x", "2000", "-y", "40")
    fill = 'awk \'BEGIN{s=sprintf("%2000s","");gsub(/ /,"x",s);for(i=0;i<20000;i++)print s}\''
    private_tmux.bare("send-keys", "-t", pane, f"clear; {fill}; echo DO''NE", "Enter")
    await private_tmux.wait_for_screen(pane, "\nDONE\n")
    history = int(private_tmux.bare("display-message", "-p", "-t", pane, "#{history_size}").stdout)
    assert history >= 19_000
    wrapper, log = _byte_counting_tmux(private_tmux.directory)
    async with serve(private_tmux, "--tmux", wrapper) as session:
        open(log, "w").close()
        found = structured(
            await session.call_tool(
                "search_panes",
                {
                    "pattern": "DONE",
                    "window_id": private_tmux.bare(
                        "display-message", "-p", "-t", pane, "#{window_id}"
                    ).stdout.strip(),
                    "scrollback": 30000,
                    "max_scan_bytes": 1024,
                },
            )
        )
        reads = _reads(log)
    assert any("capture-pane" in line for _, line in reads), "the wrapper counted the reads"
    total = sum(size for size, _ in reads)
    # The listing, plus windows planned to fill 1 KiB: at most MIN_WINDOW_ROWS full rows.
    assert total <= 1024 + MIN_WINDOW_ROWS * 2001 + 4096, (total, [r[1][:200] for r in reads])
    assert found["truncated_by"] == "max_scan_bytes"
    assert found["scanned_bytes"] <= 1024
    assert [m["line"] for m in found["matches"]] == ["DONE"]


async def test_rows_at_the_top_of_a_long_history_are_found_when_the_caps_allow(
    private_tmux: PrivateTmux,
) -> None:
    private_tmux.new_session("seed")
    private_tmux.bare("set-option", "-g", "history-limit", "30000")
    ids = private_tmux.new_session("long")
    pane = ids["pane_id"]
    private_tmux.bare("send-keys", "-t", pane, "clear; seq 1 20000; echo DO''NE", "Enter")
    await private_tmux.wait_for_screen(pane, "\nDONE\n")
    wrapper, log = _byte_counting_tmux(private_tmux.directory)
    async with serve(private_tmux, "--tmux", wrapper) as session:
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
        open(log, "w").close()
        run = structured(
            await session.call_tool(
                "search_panes",
                {
                    "pattern": "^19[0-9]{3}$",
                    "regex": True,
                    "max_matches": 1000,
                    "max_scan_bytes": 16384,
                    **scope,
                },
            )
        )
        captures = [line for _, line in _reads(log) if "capture-pane" in line]
    assert len(captures) > 3, captures
    assert run["truncated_by"] == "max_scan_bytes"
    assert [m["line"] for m in run["matches"]] == [str(n) for n in range(19000, 20000)]
    rows = [m["row"] for m in run["matches"]]
    assert rows == list(range(rows[0], rows[0] + 1000))
