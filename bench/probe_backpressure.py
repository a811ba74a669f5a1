"""Probe: what a client that writes and never reads costs the server (issue 27 N3).

A probe, not a test: it prints one row per case and asserts nothing. Each
case starts ``python -m tmuxmcp`` on a private ``TMUX_TMPDIR``, writes the
case's lines from a thread while reading nothing, then reads every answer
(``tests/flood.py``). RSS is ``VmRSS`` from ``/proc``.

    python bench/probe_backpressure.py                 # every case
    python bench/probe_backpressure.py tools/list      # cases whose name holds the word
"""

from __future__ import annotations

import sys
import time

from benchlib import RawClient, bench_tmux

from tests.flood import flood, requests

BIG = "{" + '"x":"' + "a" * (8 * 1024 * 1024 - 200) + '"}'

CASES = {
    "12,000 tools/list": lambda: requests("tools/list", 12_000),
    "150,000 ping": lambda: requests("ping", 150_000),
    "200 pings of 8 MiB": lambda: requests("ping", 200, params=BIG),
}


def main(words: list[str]) -> None:
    print(
        "| case | lines | RSS before (MB) | peak unread (MB) | peak (MB) | held back"
        " | answers | s |"
    )
    with bench_tmux("tmbp") as tmux:
        for name, make in CASES.items():
            if words and not any(word in name for word in words):
                continue
            lines = make()
            began = time.monotonic()
            with RawClient(tmux.env, name="probe") as client:
                seen = flood(client, lines, wanted=len(lines), timeout=600)
            print(
                f"| {name} | {len(lines)} | {seen.baseline_kb // 1024} | "
                f"{seen.peak_unread_kb // 1024} | {seen.peak_kb // 1024} | {seen.stalled} | "
                f"{len(seen.answers)} | {time.monotonic() - began:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:])
