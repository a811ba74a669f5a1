"""Benchmark: what a wait costs when the pane's program has thousands of threads (issue 27, N9).

A benchmark, not a test: it prints a table (and JSON with ``--json``) and
exits 0 when it could measure.

Rules:

* Rule 1: never the user's tmux. A private ``TMUX_TMPDIR``; the server is
  killed and the directory removed at exit.
* Rule 2: the pane runs a Python program that starts ``--threads`` threads,
  each blocked on one event (they sleep, and print nothing), and is waited
  for until ``/proc`` lists them all; a second pane runs the same program
  with no thread besides its main one, the baseline.
* Rule 3: the cost is the tmuxmcp server's CPU (utime+stime, plus the tmux
  clients it reaped) over one ``wait_for_text`` on that pane for a pattern
  never printed (``--seconds``), from ``/proc/<pid>/stat``: the activity hint
  watches the pane's process tree every 2 ms through it.

Run ``python bench/bench_threads.py --help``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import trio
from benchlib import bench_tmux, proc_cpu, serve, server_pid, structured

PROGRAM = (
    "import sys, threading\n"
    "stop = threading.Event()\n"
    "for _ in range(int(sys.argv[1])):\n"
    "    threading.Thread(target=stop.wait, daemon=True).start()\n"
    "print('threads up', flush=True)\n"
    "stop.wait()\n"
)


def _threads(pane_pid: int) -> int:
    """Threads of the pane's program (the shell's child, or the pane's process itself)."""
    counts = [len(os.listdir(f"/proc/{pane_pid}/task"))]
    try:
        with open(f"/proc/{pane_pid}/task/{pane_pid}/children") as f:
            counts += [len(os.listdir(f"/proc/{kid}/task")) for kid in f.read().split()]
    except OSError:
        pass
    return max(counts)


async def _cost(session: Any, pane: str, seconds: float) -> dict[str, float]:
    pid = server_pid()
    if pid is None:
        raise SystemExit("bench: could not find the tmuxmcp server process")
    before = proc_cpu(pid)
    assert before is not None
    began = time.perf_counter()
    result = await session.call_tool(
        "wait_for_text",
        {"pane_id": pane, "pattern": "never printed", "timeout": seconds},
    )
    wall = time.perf_counter() - began
    after = proc_cpu(pid)
    assert after is not None
    body = structured("wait_for_text", result)
    return {
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(after[0] - before[0] + after[1] - before[1], 3),
        "polls": body["polls"],
    }


async def run(ns: argparse.Namespace) -> dict[str, Any]:
    with bench_tmux("tmxt") as tmux:
        script = os.path.join(tmux.directory, "threads.py")
        with open(script, "w") as f:
            f.write(PROGRAM)
        async with serve(tmux.env) as session:
            panes: dict[str, tuple[str, int]] = {}
            for label, count in (("idle pane", 0), (f"{ns.threads} threads", ns.threads)):
                pane = tmux.new_session(label.replace(" ", "-"), "tmuxmcp", sys.executable,
                                        script, str(count))["pane_id"]  # fmt: skip
                pid = int(tmux.bare("display-message", "-p", "-t", pane, "#{pane_pid}").stdout)
                deadline = time.monotonic() + 60
                while _threads(pid) < count + 1:
                    if time.monotonic() > deadline:
                        raise SystemExit(f"bench: the program never started {count} threads")
                    await trio.sleep(0.05)
                panes[label] = (pane, _threads(pid))
            figures: dict[str, Any] = {}
            for label, (pane, threads) in panes.items():
                figures[label] = {"threads": threads, **await _cost(session, pane, ns.seconds)}
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=8000)
    parser.add_argument("--seconds", type=float, default=8.0, help="the wait's timeout")
    parser.add_argument("--json", help="also write the figures here")
    ns = parser.parse_args(argv)
    figures = trio.run(run, ns)
    text = json.dumps(figures, indent=2)
    sys.stdout.write(text + "\n")
    if ns.json:
        with open(ns.json, "w") as out:
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
