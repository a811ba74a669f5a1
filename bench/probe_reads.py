"""Probe: the peak memory one reading call takes over wide, long panes (issue 13.2).

A probe, not a test: it prints the rows of docs/reliability.md ("Bounded
reads") and asserts nothing. A private tmux server holds panes of 2,000
columns with 20,000 full rows of history each (``benchlib.bench_tmux``); for
every case a new ``python -m tmuxmcp`` is started over stdio
(``benchlib.RawClient``), and its ``VmHWM`` (peak RSS) is read from /proc
before and after the one call.

    python bench/probe_reads.py
"""

from __future__ import annotations

import time
from typing import Any

from benchlib import PrivateTmux, RawClient, bench_tmux

WIDTH, HEIGHT, ROWS = 2000, 40, 20_000
FILL = (
    "awk 'BEGIN{s=sprintf(\"%" + str(WIDTH) + 's","");gsub(/ /,"x",s);'
    f"for(i=0;i<{ROWS};i++)print s}}'; echo DO''NE"
)


def _wide_pane(tmux: PrivateTmux, name: str, fill: bool = True) -> str:
    pane = tmux.bare(
        "new-session", "-d", "-s", name, "-x", str(WIDTH), "-y", str(HEIGHT),
        "-P", "-F", "#{pane_id}", "sh",
    ).stdout.strip()  # fmt: skip
    tmux.bare("resize-window", "-t", pane, "-x", str(WIDTH), "-y", str(HEIGHT))
    if fill:
        _fill(tmux, pane)
    return pane


def _fill(tmux: PrivateTmux, pane: str) -> None:
    tmux.bare("send-keys", "-t", pane, FILL, "Enter")
    _wait_for(tmux, pane, "\nDONE\n")


def _wait_for(tmux: PrivateTmux, pane: str, text: str) -> None:
    deadline = time.monotonic() + 300
    while text not in tmux.bare("capture-pane", "-p", "-t", pane).stdout:
        if time.monotonic() > deadline:
            raise SystemExit("probe: the pane never filled")
        time.sleep(0.2)


def _peak_mb(client: RawClient) -> float:
    """VmHWM of the server process, in MB."""
    with open(f"/proc/{client.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise SystemExit("probe: no VmHWM in /proc")


def _call(client: RawClient, name: str, arguments: dict[str, Any]) -> Any:
    result = client.call(name, arguments)
    return result.get("structuredContent") or result["content"][0]["text"]


def _row(name: str, client: RawClient, before: float, result: Any) -> None:
    after = _peak_mb(client)
    summary = result if isinstance(result, str) else {
        k: result[k] for k in ("truncated_by", "outcome", "more", "lines_not_scanned")
        if k in result
    }  # fmt: skip
    print(f"| {name} | {before:.0f} | {after:.0f} | +{after - before:.0f} | {summary} |")


def main() -> int:
    """Print one table row per case."""
    with bench_tmux("tmxp") as tmux:
        tmux.bare("-f", "/dev/null", "new-session", "-d", "-s", "seed", "sh")
        tmux.bare("set-option", "-g", "history-limit", "30000")
        panes = [_wide_pane(tmux, f"wide{n}") for n in range(2)]
        print("| call | peak RSS before (MB) | after (MB) | growth | result |")
        print("|---|---|---|---|---|")
        search = {"pattern": "never-printed", "scrollback": 100_000}
        cases: list[tuple[str, str, dict[str, Any]]] = [
            ("search_panes, 2 panes, max_scan_bytes 1024", "search_panes",
             {**search, "max_scan_bytes": 1024}),
            ("search_panes, 2 panes, max_scan_bytes default (1 MiB)", "search_panes", search),
            ("search_panes, 2 panes, max_scan_bytes 16 MiB (the most)", "search_panes",
             {**search, "max_scan_bytes": 16 * 1024 * 1024}),
            ("capture_pane start -30000, max_lines 100000", "capture_pane",
             {"pane_id": panes[0], "start": -30000, "max_lines": 100_000}),
            ("capture_pane start -30000, max_lines 1", "capture_pane",
             {"pane_id": panes[0], "start": -30000, "max_lines": 1}),
        ]  # fmt: skip
        for name, tool, arguments in cases:
            with RawClient(tmux.env, name="probe") as client:
                before = _peak_mb(client)
                _row(name, client, before, _call(client, tool, arguments))
        # Full rows behind short ones: the short rows predict a long window, which
        # reaches the full rows (panetext/windows.py Rule 1a, issue 31.1); twice, since
        # the second capture plans its first window from the first's rows.
        behind = _wide_pane(tmux, "behind")
        tmux.bare("send-keys", "-t", behind, "seq 1 3000; echo EN''D", "Enter")
        _wait_for(tmux, behind, "\nEND\n")
        with RawClient(tmux.env, name="probe") as client:
            before = _peak_mb(client)
            arguments = {"pane_id": behind, "start": -30000, "max_lines": 100_000,
                         "max_chars": 1024 * 1024}  # fmt: skip
            for call in ("first", "second"):
                _row(
                    f"capture_pane, full rows behind 3,000 short ones, max_chars 1 MiB ({call})",
                    client,
                    before,
                    _call(client, "capture_pane", arguments),
                )
        for name, tool, extra in (
            ("capture_since, cursor before the 20,000 rows, max_lines 10000",
             "capture_since", {"max_lines": 10_000}),
            ("wait_for_text since a cursor before them, max_scan_bytes 16 MiB",
             "wait_for_text", {"pattern": "^DONE$", "regex": True, "timeout": 60,
                               "max_scan_bytes": 16 * 1024 * 1024}),
        ):  # fmt: skip
            pane = _wide_pane(tmux, f"since-{tool}", fill=False)
            with RawClient(tmux.env, name="probe") as client:
                cursor = _call(client, "capture_since", {"pane_id": pane})["cursor"]
                _fill(tmux, pane)
                before = _peak_mb(client)
                key = "cursor" if tool == "capture_since" else "since"
                _row(
                    name,
                    client,
                    before,
                    _call(client, tool, {"pane_id": pane, key: cursor, **extra}),
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
