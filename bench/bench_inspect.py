"""Benchmark: each inspect tool over real stdio, next to the bare tmux command it wraps.

This is a benchmark, not a test: pytest collects ``tests/`` only, and nothing
here asserts a target. It prints a table, writes a JSON document and exits 0
whether or not the targets are met (it exits non-zero only when it could not
measure, e.g. a tool call failed).

What it measures, and the rules it keeps:

* Rule 1: never the user's tmux. A private ``TMUX_TMPDIR`` under /tmp makes the
  default dedicated label ``-L tmuxmcp`` resolve to a private socket; the
  server is killed and the directory removed at exit.
* Rule 2: a tool's latency is what an MCP client sees: the wall time of
  ``ClientSession.call_tool`` in this process (official SDK client, stdio,
  trio), so it includes JSON-RPC framing, both sides' pydantic models, the
  client's output-schema check, tmuxmcp and the tmux child it spawns.
* Rule 3: the baseline is the bare tmux command the tool wraps, started from
  this process the way any program would: ``subprocess.run`` on an argv with
  captured output, decoded as UTF-8. It asks tmux for the same format fields
  (no nonce framing, no identity probe), so tmux does the same work.
* Rule 4: tool and bare calls alternate within one loop, and the order flips
  every iteration (ABBA), so machine noise and drift hit both columns alike.
* Rule 5: processes are counted in a separate, short phase against a second
  server whose ``--tmux`` is a wrapper script that logs each exec, so the
  wrapper's cost never reaches the latency numbers.
* Rule 6: cold start is measured on fresh server processes: spawn to the
  ``initialize`` result, and spawn to a completed ``tools/list``. Each run is
  followed by interpreter-only runs (``python -c pass``, bare imports), so the
  import floor is read under the same load.
* Rule 7: CPU is accounted per tool call, to say which process pays: this
  process (SDK client) by ``process_time``; the server and the tmux clients
  it reaps from ``/proc/<pid>/stat`` (10 ms ticks, averaged over the loop);
  the bare tmux clients from ``os.times`` children. Off Linux, n/a.
* Rule 8: two round trips that spawn nothing (``ping``, ``tools/call`` of an
  unknown name) give the MCP stack's own floor on the same session.

Run ``python bench/bench_inspect.py --help``; bench/README.md explains the output.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import trio
from benchlib import (
    DEDICATED,
    Case,
    PrivateTmux,
    SpawnCounter,
    bare_call,
    bench_tmux,
    cases,
    fill_pane,
    proc_cpu,
    serve,
    server_params,
    server_pid,
    structured,
    summary,
    write_json,
)
from mcp import ClientSession
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

import tmuxmcp

TARGETS = (
    # (row, what is compared, limit)
    ("list_panes", "median ratio", 1.5),
    ("capture_pane visible", "median ratio", 1.5),
    ("capture_pane scrollback", "median ratio", 1.3),
)
COLD_START_TARGET_S = 0.7
PROCESSES_PER_CALL_TARGET = 1.0


# -- phases ----------------------------------------------------------------------


async def latency(
    tmux: PrivateTmux, todo: list[Case], iterations: int, warmup: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Per case: tool and bare latency, interleaved ABBA, and CPU per call; then the floor."""
    results: dict[str, Any] = {}
    async with serve(tmux.env) as session:
        pid = server_pid()
        for case in todo:
            argv = tmux.argv(*case.bare)
            for _ in range(warmup):
                first = structured(case.row, await session.call_tool(case.tool, case.arguments))
                bare_out = bare_call(tmux, argv)
            if not case.check(first):
                raise SystemExit(f"bench: {case.row} returned an unexpected result")
            tool_s: list[float] = []
            bare_s: list[float] = []
            client_cpu = 0.0
            gc.collect()
            server_before, children_before = proc_cpu(pid), os.times()
            for i in range(iterations):
                for side in ("tool", "bare") if i % 2 == 0 else ("bare", "tool"):
                    if side == "tool":
                        cpu = time.process_time()
                        start = time.perf_counter()
                        result = await session.call_tool(case.tool, case.arguments)
                        tool_s.append(time.perf_counter() - start)
                        client_cpu += time.process_time() - cpu
                        if result.is_error:
                            structured(case.row, result)
                    else:
                        start = time.perf_counter()
                        bare_call(tmux, argv)
                        bare_s.append(time.perf_counter() - start)
            server_after, children_after = proc_cpu(pid), os.times()
            tool, bare = summary(tool_s), summary(bare_s)
            bare_children = (
                children_after.children_user
                + children_after.children_system
                - children_before.children_user
                - children_before.children_system
            )
            cpu_ms: dict[str, float | None] = {
                "client_sdk": 1000 * client_cpu / iterations,
                "server": None,
                "tmux_client_of_tool": None,
                "tmux_client_bare": 1000 * bare_children / iterations,
            }
            if server_before is not None and server_after is not None:
                cpu_ms["server"] = 1000 * (server_after[0] - server_before[0]) / iterations
                cpu_ms["tmux_client_of_tool"] = (
                    1000 * (server_after[1] - server_before[1]) / iterations
                )
            results[case.row] = {
                "tool": case.tool,
                "arguments": case.arguments,
                "bare_argv": ["tmux", "-L", DEDICATED, *case.bare],
                "bare_stdout_bytes": len(bare_out.encode()),
                "tool_ms": tool,
                "bare_ms": bare,
                "ratio_median": tool["median_ms"] / bare["median_ms"],
                "ratio_p90": tool["p90_ms"] / bare["p90_ms"],
                "cpu_ms_per_call": cpu_ms,
            }
        floor = await transport_floor(session, iterations)
    ping = floor["ping"]["median_ms"]
    for r in results.values():
        # The MCP round trip itself is in the tool's time but not in bare's.
        r["server_added_ms"] = r["tool_ms"]["median_ms"] - r["bare_ms"]["median_ms"] - ping
    return results, floor


async def transport_floor(session: ClientSession, iterations: int) -> dict[str, Any]:
    """Round trips that spawn nothing: what the MCP stack alone costs."""
    ping: list[float] = []
    unknown: list[float] = []
    for i in range(iterations + 10):
        start = time.perf_counter()
        await session.send_ping()
        elapsed = time.perf_counter() - start
        if i >= 10:
            ping.append(elapsed)
        start = time.perf_counter()
        try:
            await session.call_tool("no_such_tool", {})
        except MCPError:
            pass
        else:
            raise SystemExit("bench: a call to an unknown tool did not fail")
        elapsed = time.perf_counter() - start
        if i >= 10:
            unknown.append(elapsed)
    return {"ping": summary(ping), "tools/call of an unknown name": summary(unknown)}


async def processes(tmux: PrivateTmux, todo: list[Case], calls: int) -> dict[str, Any]:
    """tmux processes started per tool call, via a counting ``--tmux`` wrapper."""
    counter = SpawnCounter(tmux.directory, tmux.binary)
    per_call: dict[str, Any] = {}
    async with serve(tmux.env, "--tmux", counter.wrapper) as session:
        startup = counter.count()
        for case in todo:
            structured(case.row, await session.call_tool(case.tool, case.arguments))
            before = counter.count()
            for _ in range(calls):
                structured(case.row, await session.call_tool(case.tool, case.arguments))
            per_call[case.row] = (counter.count() - before) / calls
    return {"calls_per_tool": calls, "startup_spawns": startup, "per_call": per_call}


# Each snippet ends in os._exit: interpreter teardown of the SDK's module graph
# takes a few hundred ms and is not part of a cold start (see shutdown instead).
FLOOR_SNIPPETS = (
    ("python -c pass", "import os; os._exit(0)"),
    ("import tmuxmcp.cli", "import os, tmuxmcp.cli; os._exit(0)"),
    ("import tmuxmcp.server (mcp SDK)", "import os, tmuxmcp.server; os._exit(0)"),
)


async def cold_start(tmux: PrivateTmux, runs: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fresh servers (spawn to initialize, to tools/list), interleaved with import floors."""
    to_init: list[float] = []
    to_list: list[float] = []
    shutdown: list[float] = []
    floors: dict[str, list[float]] = {label: [] for label, _ in FLOOR_SNIPPETS}
    params = server_params(tmux.env)
    for _ in range(runs):
        start = time.perf_counter()
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, read_timeout_seconds=60) as session,
        ):
            await session.initialize()
            to_init.append(time.perf_counter() - start)
            listed = await session.list_tools()
            to_list.append(time.perf_counter() - start)
            closing = time.perf_counter()
        shutdown.append(time.perf_counter() - closing)
        # Interpreter start and import cost alone, for reading the numbers above.
        for label, code in FLOOR_SNIPPETS:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], env=tmux.env, check=True)
            floors[label].append(time.perf_counter() - start)
    cold = {
        "runs": runs,
        "tools_listed": len(listed.tools),
        "spawn_to_initialize_ms": summary(to_init),
        "spawn_to_tools_list_ms": summary(to_list),
        "shutdown_ms": summary(shutdown),
    }
    return cold, {label: summary(times) for label, times in floors.items()}


# -- report ----------------------------------------------------------------------


def verdicts(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target, its measured value and pass/fail."""
    out = []
    for row, measure, limit in TARGETS:
        value = result["latency"][row]["ratio_median"]
        out.append(
            {"target": f"{row}: tool/bare {measure} <= {limit}", "value": round(value, 3),
             "pass": value <= limit}
        )  # fmt: skip
    worst = max(result["processes"]["per_call"].values())
    out.append(
        {"target": "tmux processes per tool call <= 1", "value": worst,
         "pass": worst <= PROCESSES_PER_CALL_TARGET}
    )  # fmt: skip
    cold = result["cold_start"]["spawn_to_tools_list_ms"]["median_ms"] / 1000
    out.append(
        {"target": f"cold start (spawn to tools/list, median) < {COLD_START_TARGET_S} s",
         "value": round(cold, 3), "pass": cold < COLD_START_TARGET_S}
    )  # fmt: skip
    return out


def _ms(value: float | None) -> str:
    return "   n/a" if value is None else f"{value:>6.2f}"


def table(result: dict[str, Any]) -> str:
    """The plain-text report."""
    meta = result["meta"]
    lines = [
        f"tmuxmcp {meta['tmuxmcp']} ({meta['commit']}{', dirty' if meta['dirty'] else ''})  "
        f"{meta['tmux']}  mcp {meta['mcp']}  Python {meta['python']}  {meta['cpus']} CPUs  "
        f"load {meta['loadavg']}",
        f"latency: {meta['iterations']} calls per row after {meta['warmup']} warm-up, "
        "tool and bare interleaved (ABBA); milliseconds",
        "",
        f"{'call':<25} {'tool med':>9} {'p90':>7} {'bare med':>9} {'p90':>7} "
        f"{'ratio med':>9} {'p90':>6} {'added':>6} {'tmux/call':>9} {'out KiB':>8}",
    ]
    per_call = result["processes"]["per_call"]
    for row, r in result["latency"].items():
        lines.append(
            f"{row:<25} {r['tool_ms']['median_ms']:>9.2f} {r['tool_ms']['p90_ms']:>7.2f} "
            f"{r['bare_ms']['median_ms']:>9.2f} {r['bare_ms']['p90_ms']:>7.2f} "
            f"{r['ratio_median']:>8.2f}x {r['ratio_p90']:>5.2f}x "
            f"{r['server_added_ms']:>6.2f} {per_call[row]:>9.2f} "
            f"{r['bare_stdout_bytes'] / 1024:>8.1f}"
        )
    ping = result["floor"]["ping"]["median_ms"]
    lines += [
        f"added: tool med - bare med - ping med ({ping:.2f} ms), i.e. what tmuxmcp and the "
        "SDK's tools/call path add over a round trip that does nothing"
    ]
    lines += [
        "",
        "CPU ms per tool call (means over the same loop)",
        f"{'call':<25} {'SDK client':>10} {'server':>8} {'its tmux':>9} {'bare tmux':>10}",
    ]
    for row, r in result["latency"].items():
        c = r["cpu_ms_per_call"]
        lines.append(
            f"{row:<25} {_ms(c['client_sdk']):>10} {_ms(c['server']):>8} "
            f"{_ms(c['tmux_client_of_tool']):>9} {_ms(c['tmux_client_bare']):>10}"
        )
    lines += ["", "MCP round trips that spawn nothing (same session)"]
    for label, s in result["floor"].items():
        lines.append(f"  {label:<40} {s['median_ms']:>6.2f} ms   p90 {s['p90_ms']:>6.2f} ms")
    cold = result["cold_start"]
    lines += [
        "",
        f"processes: {result['processes']['calls_per_tool']} calls per tool through a "
        f"counting --tmux wrapper; startup spawned {result['processes']['startup_spawns']}",
        "",
        f"cold start ({cold['runs']} fresh servers, {cold['tools_listed']} tools)"
        f"{'median':>14} {'p90':>9}",
    ]
    for label, key in (
        ("spawn -> initialize", "spawn_to_initialize_ms"),
        ("spawn -> tools/list", "spawn_to_tools_list_ms"),
        ("shutdown (stdin EOF)", "shutdown_ms"),
    ):
        s = cold[key]
        lines.append(f"  {label:<42} {s['median_ms']:>7.0f} ms {s['p90_ms']:>6.0f} ms")
    for label, s in result["import_floor"].items():
        lines.append(f"  {'floor: ' + label:<42} {s['median_ms']:>7.0f} ms {s['p90_ms']:>6.0f} ms")
    lines += ["", "targets"]
    for v in result["targets"]:
        lines.append(f"  {'PASS' if v['pass'] else 'FAIL'}  {v['target']}  (measured {v['value']})")
    return "\n".join(lines)


def metadata(tmux: PrivateTmux, ns: argparse.Namespace) -> dict[str, Any]:
    """Where and how the numbers were taken."""
    from importlib.metadata import version

    tmux_version = subprocess.run(
        [tmux.binary, "-V"], capture_output=True, text=True, check=False
    ).stdout.strip()
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", repo, *args], capture_output=True, text=True, check=False
        ).stdout.strip()

    commit = git("rev-parse", "--short", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no", "--", "tmuxmcp"))
    return {
        "tmuxmcp": tmuxmcp.__version__,
        "commit": commit or None,
        "dirty": dirty,
        "tmux": tmux_version,
        "mcp": version("mcp"),
        "trio": version("trio"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "iterations": ns.iterations,
        "warmup": ns.warmup,
        "pane_lines": ns.lines,
        "scrollback": ns.scrollback,
        "pane_size": f"{ns.width}x{ns.height}",
    }


# -- main ------------------------------------------------------------------------


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options."""
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=200, help="calls per row (default 200)")
    p.add_argument("--warmup", type=int, default=20, help="warm-up calls per row (default 20)")
    p.add_argument("--cold-starts", type=int, default=10, help="fresh servers (default 10)")
    p.add_argument("--count-calls", type=int, default=20, help="calls per tool when counting")
    p.add_argument("--lines", type=int, default=12000, help="lines printed into the pane")
    p.add_argument("--scrollback", type=int, default=10000, help="lines captured by start=-N")
    p.add_argument("--width", type=int, default=200)
    p.add_argument("--height", type=int, default=50)
    p.add_argument(
        "--json",
        default=os.path.join(here, "results", "inspect.json"),
        help="where to write the JSON result (default bench/results/inspect.json)",
    )
    ns = p.parse_args(argv)
    if ns.iterations < 2 or ns.warmup < 1 or ns.cold_starts < 1 or ns.count_calls < 1:
        p.error("--iterations must be >= 2; --warmup, --cold-starts, --count-calls >= 1")
    if ns.lines < ns.scrollback + ns.height:
        p.error("--lines must be at least --scrollback + --height")
    return ns


async def run(tmux: PrivateTmux, ns: argparse.Namespace) -> dict[str, Any]:
    """Every phase, in an order that keeps the latency phase free of wrapper cost."""
    ids = fill_pane(tmux, ns.lines, ns.width, ns.height)
    todo = cases(ids, ns.scrollback)
    result: dict[str, Any] = {"meta": metadata(tmux, ns), "pane": ids}
    result["latency"], result["floor"] = await latency(tmux, todo, ns.iterations, ns.warmup)
    result["processes"] = await processes(tmux, todo, ns.count_calls)
    result["cold_start"], result["import_floor"] = await cold_start(tmux, ns.cold_starts)
    result["targets"] = verdicts(result)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; 0 unless it could not measure."""
    ns = arguments(argv)
    with bench_tmux("tmb") as tmux:
        result = trio.run(run, tmux, ns)
    print(table(result))
    write_json(ns.json, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
