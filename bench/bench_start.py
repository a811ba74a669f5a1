"""Cold start and idle memory: spawn to ``tools/list`` answered, and RSS after it.

A benchmark, not a test: it prints a table (and JSON with ``--json``) and
exits 0 whatever the figures. The rules it keeps:

* Rule 1: never the user's tmux (``benchlib.bench_tmux``); one private tmux
  server for every run, started by the first, so each later start finds it
  running, as an agent's second server does.
* Rule 2: what a client waits for. The clock starts before the process is
  spawned and stops when the ``tools/list`` reply has been read; the client
  sends ``initialize``, ``notifications/initialized`` and ``tools/list`` at
  once, raw (``tests.raw_client``), so no client library's own import or
  validation is counted.
* Rule 3: idle RSS is the server's ``VmRSS`` read from ``/proc`` right after
  that reply, before anything else is asked (Linux only).
* Rule 4: trees are compared in the same run: each ``--tree NAME=DIR`` (a
  directory holding a ``tmuxmcp`` package, served with it as working
  directory and ``PYTHONPATH``) starts once per round, in a rotating order,
  so they share the moments of load.

    python bench/bench_start.py --runs 20
    mkdir -p /tmp/ab/main && git archive main | tar -x -C /tmp/ab/main
    python bench/bench_start.py --runs 20 --tree main=/tmp/ab/main --tree here=.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Sequence
from typing import Any

from benchlib import RawClient, bench_tmux, loadavg, p90, rotated, write_json

from tests.raw_client import handshake


def _status(pid: int, field: str) -> int:
    """A ``VmRSS``-like field of ``/proc/<pid>/status``, in bytes (0 off Linux)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except FileNotFoundError:
        pass
    return 0


def one_start(env: dict[str, str], tree: str) -> tuple[float, int]:
    """Seconds from spawn to the ``tools/list`` reply, and the server's RSS then."""
    env = {**env, "PYTHONPATH": os.path.abspath(tree)}
    began = time.perf_counter()
    with RawClient(env, cwd=tree, initialize=False) as client:
        for message in [*handshake("bench"), {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]:
            client.send(message)
        reply = client.reply(2)
        seconds = time.perf_counter() - began
        assert reply["result"]["tools"], reply
        rss = _status(client.proc.pid, "VmRSS")
    return seconds, rss


def run(trees: dict[str, str], runs: int) -> dict[str, Any]:
    times: dict[str, list[float]] = {name: [] for name in trees}
    rss: dict[str, list[int]] = {name: [] for name in trees}
    before = loadavg()
    with bench_tmux("tms") as tmux:
        one_start(tmux.env, next(iter(trees.values())))  # starts the tmux server
        for index in range(runs):
            for name in rotated(list(trees), index):
                seconds, resident = one_start(tmux.env, trees[name])
                times[name].append(seconds)
                rss[name].append(resident)
    return {
        "meta": {"runs": runs, "load_before": before, "load_after": loadavg()},
        "trees": {
            name: {
                "spawn_to_tools_list_ms": {
                    "median": statistics.median(times[name]) * 1000,
                    "p90": p90(times[name]) * 1000,
                },
                "idle_rss_mb": {
                    "median": statistics.median(rss[name]) / 2**20,
                    "max": max(rss[name]) / 2**20,
                },
            }
            for name in trees
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=20, help="starts per tree (20)")
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--json", metavar="PATH", help="also write the result as JSON")
    ns = parser.parse_args(argv)
    trees = dict(t.split("=", 1) for t in ns.tree) or {"here": "."}
    result = run(trees, ns.runs)
    print(f"load average {result['meta']['load_before']} -> {result['meta']['load_after']}")
    print(f"{'tree':<12} {'start med ms':>13} {'p90':>8} {'RSS med MB':>11} {'max':>7}")
    for name, row in result["trees"].items():
        start, memory = row["spawn_to_tools_list_ms"], row["idle_rss_mb"]
        print(
            f"{name:<12} {start['median']:>13.1f} {start['p90']:>8.1f} "
            f"{memory['median']:>11.1f} {memory['max']:>7.1f}"
        )
    if ns.json:
        write_json(ns.json, result)
    else:
        print(json.dumps(result["meta"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
