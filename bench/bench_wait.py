"""Benchmark: how fast wait_for_text notices output, and what waiting costs in CPU.

A benchmark, not a test: it prints tables, writes bench/results/wait.json and
exits 0 unless it could not measure (a tool call failed, tmux is missing).

Rules:

* Rule 1: never the user's tmux. A private ``TMUX_TMPDIR`` makes ``-L
  tmuxmcp`` a private socket; the server is killed and the directory removed.
* Rule 2: reaction is measured where an agent sees it: from the instant the
  benchmark writes a line that the pane's program prints at once, to the
  instant ``ClientSession.call_tool`` returns in this process. It includes
  the pane program's wakeup, tmux reading the output, the poll that sees it,
  matching, and the MCP reply over stdio.
* Rule 3: each wait has already been running for a random 0.2-1.0 s when the
  line is written, so the numbers describe a wait that has settled into its
  steady state (backed-off polling, or the activity hint), not its first
  millisecond.
* Rule 4: the floors come from the same trigger. ``bare capture-pane`` is one
  ``tmux capture-pane -p`` started from this process (what one poll cannot
  beat). ``bare tight loop`` runs bare ``capture-pane`` back to back from the
  trigger until the line shows: the best any capture-polling client could do.
* Rule 5: CPU while waiting is the tmuxmcp server's utime+stime plus that of
  the tmux clients it spawned and reaped (cutime+cstime), from
  /proc/<pid>/stat over a long wait that matches nothing, as a percentage of
  one core; the tmux server's own CPU in the same window is reported apart.
  It is measured on an idle socket and again with a busy neighbour pane
  printing 100 lines a second, which kept the server-wide activity hint firing.
* Rule 6: reaction is measured again with the busy neighbour, which keeps the
  server-wide hint firing for output that is not the awaited pane's.
* Rule 7: each mode runs in its own server process: the activity hint
  (default: per pane, with the server-wide counter as a fallback), the
  server-wide counter alone (``TMUXMCP_ACTIVITY_HINT=server``) and plain
  polling (``TMUXMCP_ACTIVITY_HINT=0``).

Run ``python bench/bench_wait.py --help``; bench/README.md explains the output.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio
from benchlib import PrivateTmux, bench_tmux, proc_cpu, serve, server_pid, structured, summary
from mcp import ClientSession


class Bench:
    """A pane that prints what is written to a FIFO, and a neighbour, on a private tmux."""

    def __init__(self, tmux: PrivateTmux) -> None:
        self.private = tmux
        self.env = tmux.env
        self.fifo = os.path.join(tmux.directory, "lines")
        os.mkfifo(self.fifo)
        self.pane = ""
        self.busy = ""

    def tmux(self, *args: str) -> str:
        return self.private.bare(*args).stdout

    def setup(self) -> None:
        """Called after tmuxmcp started the server: the echo pane and a quiet neighbour."""
        script = f'while :; do while IFS= read -r l; do echo "$l"; done < {self.fifo}; done'
        self.pane = self.tmux(
            "new-session", "-d", "-s", "bench", "-x", "120", "-y", "40",
            "-P", "-F", "#{pane_id}", "sh", "-c", script,
        ).strip()  # fmt: skip
        self.busy = self.tmux(
            "new-window", "-d", "-t", "bench", "-P", "-F", "#{pane_id}", "sh"
        ).strip()

    def busy_on(self) -> None:
        """Start the neighbour pane printing about 100 lines a second."""
        self.tmux("send-keys", "-t", self.busy, "while :; do date; sleep 0.01; done", "Enter")

    def busy_off(self) -> None:
        self.tmux("send-keys", "-t", self.busy, "C-c", "")

    def trigger(self, token: str) -> float:
        """Write ``token`` for the pane to print; the instant just before the write."""
        fd = os.open(self.fifo, os.O_WRONLY)
        started = time.perf_counter()
        os.write(fd, (token + "\n").encode())
        os.close(fd)
        return started

    def tmux_server_pid(self) -> int:
        return int(self.private.server_pid())


@asynccontextmanager
async def tmuxmcp(bench: Bench, hint: str) -> AsyncIterator[ClientSession]:
    """tmuxmcp in the activity-hint mode ``hint`` (Rule 7)."""
    async with serve({**bench.env, "TMUXMCP_ACTIVITY_HINT": hint}) as session:
        yield session


def _summary(seconds: list[float]) -> dict[str, float]:
    """Median, p90, min and max in milliseconds, under this benchmark's JSON keys."""
    return summary(seconds, suffix="")


async def reaction(session: ClientSession, bench: Bench, trials: int) -> dict[str, Any]:
    """Trigger -> call_tool returns, for waits already 0.2-1.0 s old."""
    rng = random.Random(1)
    seen: list[float] = []
    server_side: list[float] = []
    polls: list[int] = []
    watch = ""
    for trial in range(trials):
        token = f"TOKEN_{trial}_{rng.randrange(10**9)}"
        box: dict[str, Any] = {}

        async def call(token: str = token, box: dict[str, Any] = box) -> None:
            args = {"pane_id": bench.pane, "pattern": token, "timeout": 10}
            box["result"] = await session.call_tool("wait_for_text", args)
            box["returned"] = time.perf_counter()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(call)
            await trio.sleep(rng.uniform(0.2, 1.0))
            started = bench.trigger(token)
        body = structured("wait_for_text", box["result"])
        if body["outcome"] != "matched":
            raise SystemExit(f"trial {trial}: outcome {body['outcome']}")
        seen.append(box["returned"] - started)
        server_side.append(body["elapsed_ms"] / 1000)
        polls.append(body["polls"])
        watch = body["watch"]
    return {
        "watch": watch,
        "reaction": _summary(seen),
        "polls_per_call": statistics.mean(polls),
    }


def floors(bench: Bench, trials: int) -> dict[str, Any]:
    """One bare capture-pane; and a tight bare capture loop from the trigger."""
    argv = bench.private.argv("capture-pane", "-p", "-t", bench.pane)
    single: list[float] = []
    loop: list[float] = []
    for trial in range(trials):
        started = time.perf_counter()
        subprocess.run(argv, capture_output=True, env=bench.env, check=True)
        single.append(time.perf_counter() - started)
        token = f"FLOOR_{trial}"
        started = bench.trigger(token)
        while (
            token
            not in subprocess.run(
                argv, capture_output=True, text=True, env=bench.env, check=True
            ).stdout
        ):
            pass
        loop.append(time.perf_counter() - started)
        time.sleep(0.02)
    return {"bare capture-pane": _summary(single), "bare tight loop": _summary(loop)}


async def idle_cpu(
    session: ClientSession, bench: Bench, seconds: float, busy: bool
) -> dict[str, Any]:
    """CPU of tmuxmcp (with reaped tmux clients) and of the tmux server over a long wait."""
    if busy:
        bench.busy_on()
    server = server_pid()
    if server is None:
        raise SystemExit("could not find the tmuxmcp server process")
    tmux_server = bench.tmux_server_pid()
    box: dict[str, Any] = {}

    async def call() -> None:
        args = {"pane_id": bench.pane, "pattern": "never printed", "timeout": seconds + 1}
        box["result"] = await session.call_tool("wait_for_text", args)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(call)
        await trio.sleep(0.5)  # past the first fast polls
        own0, kids0 = _cpu(server)
        srv0, _ = _cpu(tmux_server)
        wall0 = time.perf_counter()
        await trio.sleep(seconds - 0.5)
        own1, kids1 = _cpu(server)
        srv1, _ = _cpu(tmux_server)
        wall = time.perf_counter() - wall0
    if busy:
        bench.busy_off()
    body = structured("wait_for_text", box["result"])
    return {
        "seconds": round(wall, 2),
        "tmuxmcp_pct": round(100 * (own1 - own0) / wall, 2),
        "its_tmux_clients_pct": round(100 * (kids1 - kids0) / wall, 2),
        "total_pct": round(100 * (own1 - own0 + kids1 - kids0) / wall, 2),
        "tmux_server_pct": round(100 * (srv1 - srv0) / wall, 2),
        "polls_per_s": round(body["polls"] / (body["elapsed_ms"] / 1000), 1),
    }


def _cpu(pid: int) -> tuple[float, float]:
    cpu = proc_cpu(pid)
    if cpu is None:
        raise SystemExit(f"bench: no /proc/{pid}/stat (CPU is measured on Linux only)")
    return cpu


MODES = (
    ("activity-hint", "1", "activity-hint"),
    ("server-wide hint", "server", "activity-hint"),
    ("polling", "0", "polling"),
)
"""(label, TMUXMCP_ACTIVITY_HINT, the watch the server reports): the per-pane hint
(the default), the server-wide counter alone (the hint before it was per pane),
and plain polling."""


def _row(name: str, s: dict[str, float]) -> str:
    return f"{name:34} {s['median']:8.2f} {s['p90']:8.2f} {s['min']:8.2f} {s['max']:8.2f}"


async def run(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"modes": {}}
    with bench_tmux("tmxw") as tmux:
        bench = Bench(tmux)
        for mode, hint, watch in MODES:
            async with tmuxmcp(bench, hint) as session:
                if not bench.pane:
                    bench.setup()
                    results["floors"] = floors(bench, args.trials)
                measured = await reaction(session, bench, args.trials)
                if measured["watch"] != watch:
                    raise SystemExit(f"expected {watch}, the server used {measured['watch']}")
                bench.busy_on()
                try:
                    busy = await reaction(session, bench, max(10, args.trials // 2))
                finally:
                    bench.busy_off()
                measured["reaction_busy_neighbour"] = busy["reaction"]
                measured["cpu_idle"] = await idle_cpu(session, bench, args.cpu_seconds, False)
                measured["cpu_busy_neighbour"] = await idle_cpu(
                    session, bench, args.cpu_seconds, True
                )
                results["modes"][mode] = measured
    return results


def report(results: dict[str, Any]) -> None:
    print(f"{'reaction, ms':34} {'median':>8} {'p90':>8} {'min':>8} {'max':>8}")
    for name, s in results["floors"].items():
        print(_row(name, s))
    for mode, m in results["modes"].items():
        print(_row(f"wait_for_text ({mode})", m["reaction"]))
        print(_row("  same, busy neighbour pane", m["reaction_busy_neighbour"]))
    print()
    print(
        f"{'CPU while waiting, % of a core':34} {'tmuxmcp':>8} {'+tmux cl':>8} "
        f"{'total':>8} {'tmux srv':>8} {'polls/s':>8}"
    )
    for mode, m in results["modes"].items():
        for key, label in (("cpu_idle", "idle"), ("cpu_busy_neighbour", "busy neighbour")):
            c = m[key]
            print(
                f"{mode + ', ' + label:34} {c['tmuxmcp_pct']:8.2f} "
                f"{c['its_tmux_clients_pct']:8.2f} {c['total_pct']:8.2f} "
                f"{c['tmux_server_pct']:8.2f} {c['polls_per_s']:8.1f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=50, help="reaction trials per mode")
    parser.add_argument("--cpu-seconds", type=float, default=10.0, help="length of a CPU window")
    parser.add_argument(
        "--json", default=os.path.join(os.path.dirname(__file__), "results", "wait.json")
    )
    args = parser.parse_args()
    results = trio.run(run, args)
    results["meta"] = {
        "tmux": subprocess.run(
            ["tmux", "-V"], capture_output=True, text=True, check=False
        ).stdout.strip(),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "loadavg": os.getloadavg(),
        "trials": args.trials,
    }
    report(results)
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(results, f, indent=2)
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
