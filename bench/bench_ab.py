"""A/B benchmark: two or more tmuxmcp source trees, interleaved call by call.

``bench_inspect.py`` measures one tree; comparing two of its runs on a shared
machine compares two different moments of load as much as two versions. This
script serves every tree at once, from one private tmux server, and in each
iteration runs the bare command and each tree's tool call in a rotating
order, so load hits all of them alike. The result it reports per row is the
median of the paired per-iteration differences between each tree and the
first, besides each tree's median and its ratio to bare.

Rules: the same as ``bench_inspect.py`` (private tmux, SDK client over stdio,
bare ``subprocess.run`` baseline), plus:

* Rule A1: a tree is a directory holding a ``tmuxmcp`` package; its server
  runs as ``python -m tmuxmcp serve`` with that directory as working directory
  and ``PYTHONPATH``, in this venv.
* Rule A2: the floor (``ping``) and cold starts (spawn to ``tools/list``, and
  the shutdown after stdin EOF) are interleaved between trees the same way.

Make trees from commits without touching a work tree, for example::

    mkdir -p /tmp/ab/old && git archive HEAD~3 | tar -x -C /tmp/ab/old
    python bench/bench_ab.py --tree old=/tmp/ab/old --tree new=.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from typing import Any

import trio
from benchlib import (
    PrivateTmux,
    bare_call,
    bench_tmux,
    cases,
    fill_pane,
    loadavg,
    rotated,
    serve,
    structured,
)
from mcp import ClientSession


def paired_delta_ms(a: list[float], b: list[float]) -> float:
    """Median of the per-iteration differences b - a, in ms."""
    return statistics.median((y - x) * 1000 for x, y in zip(a, b, strict=True))


async def latency(
    tmux: PrivateTmux, trees: dict[str, str], todo: list[Any], iterations: int, warmup: int
) -> dict[str, Any]:
    """Per case: bare and every tree's tool call, rotating order each iteration."""
    out: dict[str, Any] = {}
    async with AsyncExitStack() as stack:
        sessions: dict[str, ClientSession] = {}
        for name, tree in trees.items():
            sessions[name] = await stack.enter_async_context(serve(tmux.env, tree=tree))
        sides = ["bare", *trees]
        for case in todo:
            argv = tmux.argv(*case.bare)
            for _ in range(warmup):
                bare_call(tmux, argv)
                for session in sessions.values():
                    structured(case.row, await session.call_tool(case.tool, case.arguments))
            times: dict[str, list[float]] = {side: [] for side in sides}
            for i in range(iterations):
                for side in rotated(sides, i):
                    start = time.perf_counter()
                    if side == "bare":
                        bare_call(tmux, argv)
                    else:
                        result = await sessions[side].call_tool(case.tool, case.arguments)
                        if result.is_error:
                            structured(case.row, result)
                    times[side].append(time.perf_counter() - start)
            out[case.row] = times
        pings: dict[str, list[float]] = {name: [] for name in trees}
        for i in range(iterations):
            for name in rotated(list(trees), i):
                start = time.perf_counter()
                await sessions[name].send_ping()
                pings[name].append(time.perf_counter() - start)
        out["ping"] = pings
    return out


async def cold(tmux: PrivateTmux, trees: dict[str, str], runs: int) -> dict[str, Any]:
    """Spawn to tools/list, and stdin EOF to exit, alternating trees."""
    start_s: dict[str, list[float]] = {name: [] for name in trees}
    stop_s: dict[str, list[float]] = {name: [] for name in trees}
    for i in range(runs):
        for name in rotated(list(trees), i):
            start = time.perf_counter()
            async with serve(tmux.env, tree=trees[name]):
                start_s[name].append(time.perf_counter() - start)
                closing = time.perf_counter()
            stop_s[name].append(time.perf_counter() - closing)
    return {"spawn_to_tools_list": start_s, "shutdown": stop_s}


def report(trees: dict[str, str], lat: dict[str, Any], starts: dict[str, Any]) -> str:
    """Medians per tree, ratios to bare, and paired deltas against the first tree."""
    names = list(trees)
    first = names[0]
    head = f"{'call':<25} {'bare':>7}" + "".join(f" {n:>9} {'ratio':>6}" for n in names)
    head += "".join(f" {'d(' + n + ')':>11}" for n in names[1:])
    lines = [
        "median ms; ratio = tool / bare; d(x) = median of paired per-iteration "
        f"differences x - {first}",
        "",
        head,
    ]
    for row, times in lat.items():
        if row == "ping":
            continue
        bare = statistics.median(times["bare"]) * 1000
        cells = f"{row:<25} {bare:>7.2f}"
        for n in names:
            med = statistics.median(times[n]) * 1000
            cells += f" {med:>9.2f} {med / bare:>5.2f}x"
        for n in names[1:]:
            cells += f" {paired_delta_ms(times[first], times[n]):>+11.2f}"
        lines.append(cells)
    ping = lat["ping"]
    cells = f"{'ping (no tool)':<25} {'':>7}"
    for n in names:
        cells += f" {statistics.median(ping[n]) * 1000:>9.2f} {'':>6}"
    for n in names[1:]:
        cells += f" {paired_delta_ms(ping[first], ping[n]):>+11.2f}"
    lines.append(cells)
    for label, key in (("cold start -> tools/list", "spawn_to_tools_list"),
                       ("shutdown (stdin EOF)", "shutdown")):  # fmt: skip
        cells = f"{label:<25} {'':>7}"
        for n in names:
            cells += f" {statistics.median(starts[key][n]) * 1000:>9.0f} {'':>6}"
        for n in names[1:]:
            cells += f" {paired_delta_ms(starts[key][first], starts[key][n]):>+11.0f}"
        lines.append(cells)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse options, set up the pane, measure, print."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", action="append", required=True, metavar="NAME=DIR")
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--cold-starts", type=int, default=10)
    p.add_argument("--lines", type=int, default=12000)
    p.add_argument("--scrollback", type=int, default=10000)
    ns = p.parse_args(argv)
    trees: dict[str, str] = {}
    for spec in ns.tree:
        name, _, directory = spec.partition("=")
        if not directory or not os.path.isdir(os.path.join(directory, "tmuxmcp")):
            p.error(f"--tree {spec}: expected NAME=DIR with DIR/tmuxmcp")
        trees[name] = os.path.abspath(directory)
    if len(trees) < 2:
        p.error("give at least two --tree")
    with bench_tmux("tmab") as tmux:
        ids = fill_pane(tmux, ns.lines, 200, 50)
        todo = cases(ids, ns.scrollback)
        lat = trio.run(latency, tmux, trees, todo, ns.iterations, ns.warmup)
        starts = trio.run(cold, tmux, trees, ns.cold_starts)
    print(f"load {loadavg()}; {ns.iterations} iterations")
    print(report(trees, lat, starts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
