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
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import trio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult

import tmuxmcp
from tmuxmcp.tools import inspect as inspect_tools

LABEL = "tmuxmcp"
FILLER = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod"
TARGETS = (
    # (row, what is compared, limit)
    ("list_panes", "median ratio", 1.5),
    ("capture_pane visible", "median ratio", 1.5),
    ("capture_pane scrollback", "median ratio", 1.3),
)
COLD_START_TARGET_S = 0.7
PROCESSES_PER_CALL_TARGET = 1.0


# -- statistics ----------------------------------------------------------------


def summary(seconds: Sequence[float]) -> dict[str, float]:
    """Median, p90, min and max in milliseconds."""
    ms = sorted(s * 1000 for s in seconds)
    return {
        "n": len(ms),
        "median_ms": statistics.median(ms),
        "p90_ms": statistics.quantiles(ms, n=10, method="inclusive")[8] if len(ms) > 1 else ms[0],
        "min_ms": ms[0],
        "max_ms": ms[-1],
    }


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def proc_cpu(pid: int | None) -> tuple[float, float] | None:
    """(own, reaped children) CPU seconds of ``pid`` from /proc; None off Linux."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
    except OSError:
        return None
    # After "pid (comm)": state is field 3, utime..cstime are fields 14..17.
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime) / _TICK, (cutime + cstime) / _TICK


def child_server_pid() -> int | None:
    """The pid of the tmuxmcp server this process spawned (Linux /proc only)."""
    me = os.getpid()
    try:
        tasks = os.listdir(f"/proc/{me}/task")
    except OSError:
        return None
    for task in tasks:
        try:
            with open(f"/proc/{me}/task/{task}/children") as f:
                kids = f.read().split()
        except OSError:
            continue
        for kid in kids:
            try:
                with open(f"/proc/{kid}/cmdline", "rb") as f:
                    if b"tmuxmcp" in f.read():
                        return int(kid)
            except OSError:
                continue
    return None


# -- private tmux ----------------------------------------------------------------


class PrivateTmux:
    """Bare tmux on ``-L tmuxmcp`` inside a private ``TMUX_TMPDIR``."""

    def __init__(self, directory: str) -> None:
        found = shutil.which("tmux")
        if found is None:
            raise SystemExit("bench: tmux is not installed")
        self.binary = os.path.realpath(found)
        self.directory = directory
        self.env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
        self.env["TMUX_TMPDIR"] = directory

    def argv(self, *args: str) -> list[str]:
        """``tmux -L tmuxmcp args``."""
        return [self.binary, "-L", LABEL, *args]

    def run(self, *args: str) -> str:
        """Run a setup command; fail loudly."""
        done = subprocess.run(
            self.argv(*args), capture_output=True, env=self.env, check=False, timeout=20
        )
        if done.returncode != 0:
            raise SystemExit(f"bench: tmux {shlex.join(args)} failed: {done.stderr.decode()}")
        return done.stdout.decode("utf-8", errors="replace")

    def kill(self) -> None:
        """Kill the private server (best effort)."""
        subprocess.run(self.argv("kill-server"), capture_output=True, env=self.env, check=False)


def fill_pane(
    tmux: PrivateTmux, lines: int, width: int, height: int, filler: str = FILLER
) -> dict[str, str]:
    """Start a minimal server with a session whose pane holds ``lines`` lines of output."""
    program = f"seq -f 'line %g {filler}' 1 {lines}; exec cat"
    ids = tmux.run(
        "-f", "/dev/null",
        "start-server", ";",
        "set-option", "-g", "history-limit", str(lines + 5000), ";",
        "new-session", "-d", "-s", "bench", "-x", str(width), "-y", str(height),
        "-P", "-F", "#{session_id} #{window_id} #{pane_id}", program,
    ).split()  # fmt: skip
    pane = ids[2]
    # Bounded poll: seq writes faster than tmux parses; wait for the last line.
    deadline = time.monotonic() + 30
    want = lines - height + 1
    while True:
        size = int(tmux.run("display-message", "-p", "-t", pane, "#{history_size}").strip())
        if size >= want and f"line {lines} " in tmux.run("capture-pane", "-p", "-t", pane):
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"bench: pane history reached only {size} of {want} lines")
        time.sleep(0.02)
    return {"session_id": ids[0], "window_id": ids[1], "pane_id": pane, "history_size": str(size)}


# -- the cases -------------------------------------------------------------------


def _template(table: str) -> str:
    """A plain ``-F`` template of the tmux variables one of the tools asks for.

    Reading the tool's own field table keeps the baseline asking tmux for
    exactly the same fields (the tables were private before they were public).
    """
    fields = getattr(inspect_tools, table, None) or getattr(inspect_tools, f"_{table}")
    return "\x1f".join(f"#{{{variable}}}" for variable in fields.values())


@dataclass(frozen=True)
class Case:
    """One tool call and the bare tmux command it wraps."""

    row: str
    tool: str
    arguments: dict[str, Any]
    bare: tuple[str, ...]
    check: Callable[[dict[str, Any]], bool]


def cases(ids: dict[str, str], scrollback: int) -> list[Case]:
    """The benchmarked calls."""
    pane = ids["pane_id"]
    return [
        Case("list_sessions", "list_sessions", {},
             ("list-sessions", "-F", _template("SESSION_FIELDS")),
             lambda s: len(s["sessions"]) == 1),
        Case("list_windows", "list_windows", {},
             ("list-windows", "-a", "-F", _template("WINDOW_FIELDS")),
             lambda s: len(s["windows"]) == 1),
        Case("list_panes", "list_panes", {},
             ("list-panes", "-a", "-F", _template("PANE_FIELDS")),
             lambda s: len(s["panes"]) == 1),
        Case("get_pane_info", "get_pane_info", {"pane_id": pane},
             ("list-panes", "-t", pane, "-F", _template("PANE_FIELDS")),
             lambda s: s["pane"]["pane_id"] == pane),
        Case("capture_pane visible", "capture_pane", {"pane_id": pane},
             ("capture-pane", "-p", "-t", pane),
             lambda s: not s["truncated"] and s["lines"] > 0),
        Case("capture_pane scrollback", "capture_pane",
             {"pane_id": pane, "start": -scrollback,
              "max_lines": inspect_tools.MAX_CAPTURE_LINES},  # the default keeps 500
             ("capture-pane", "-p", "-t", pane, "-S", str(-scrollback)),
             lambda s: not s["truncated"] and s["captured_lines"] >= scrollback),
        Case("server_info", "server_info", {},
             ("display-message", "-p", "#{pid}:#{start_time}"),
             lambda s: s["server_state"] == "bound"),
    ]  # fmt: skip


# -- tmuxmcp over stdio ------------------------------------------------------------


def server_params(env: dict[str, str], *args: str) -> StdioServerParameters:
    """How to start ``python -m tmuxmcp serve args``."""
    return StdioServerParameters(
        command=sys.executable, args=["-m", "tmuxmcp", "serve", *args], env=env
    )


@asynccontextmanager
async def serve(env: dict[str, str], *args: str) -> AsyncIterator[ClientSession]:
    """An initialized SDK client session on a fresh tmuxmcp process."""
    async with (
        stdio_client(server_params(env, *args)) as (read, write),
        ClientSession(read, write, read_timeout_seconds=60) as session,
    ):
        await session.initialize()
        await session.list_tools()  # caches output schemas for the client's result check
        yield session


def structured(case: Case, result: CallToolResult) -> dict[str, Any]:
    """The structured result, or stop the benchmark: failed calls measure nothing."""
    if result.is_error or not isinstance(result.structured_content, dict):
        text = " ".join(getattr(block, "text", "") for block in result.content)
        raise SystemExit(f"bench: {case.row} failed: {text[:300]}")
    return result.structured_content


def bare_call(tmux: PrivateTmux, argv: list[str]) -> str:
    """The baseline: what any program does to run a tmux command and read its output."""
    done = subprocess.run(
        argv, stdin=subprocess.DEVNULL, capture_output=True, env=tmux.env, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"bench: {shlex.join(argv)} failed: {done.stderr.decode()}")
    return done.stdout.decode("utf-8", errors="replace")


# -- phases ----------------------------------------------------------------------


async def latency(
    tmux: PrivateTmux, todo: list[Case], iterations: int, warmup: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Per case: tool and bare latency, interleaved ABBA, and CPU per call; then the floor."""
    results: dict[str, Any] = {}
    async with serve(tmux.env) as session:
        pid = child_server_pid()
        for case in todo:
            argv = tmux.argv(*case.bare)
            for _ in range(warmup):
                first = structured(case, await session.call_tool(case.tool, case.arguments))
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
                            structured(case, result)
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
                "bare_argv": ["tmux", "-L", LABEL, *case.bare],
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
    counter = os.path.join(tmux.directory, "spawns")
    wrapper = os.path.join(tmux.directory, "tmux-count")
    with open(wrapper, "w") as f:
        f.write(
            f'#!/bin/sh\necho x >> {shlex.quote(counter)}\nexec {shlex.quote(tmux.binary)} "$@"\n'
        )
    os.chmod(wrapper, 0o700)  # owner only, inside our private directory

    def spawned() -> int:
        try:
            with open(counter) as f:
                return sum(1 for _ in f)
        except FileNotFoundError:
            return 0

    per_call: dict[str, Any] = {}
    async with serve(tmux.env, "--tmux", wrapper) as session:
        startup = spawned()
        for case in todo:
            structured(case, await session.call_tool(case.tool, case.arguments))
            before = spawned()
            for _ in range(calls):
                structured(case, await session.call_tool(case.tool, case.arguments))
            per_call[case.row] = (spawned() - before) / calls
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
    # Unix socket paths are short (108 bytes): keep the directory near the root.
    directory = tempfile.mkdtemp(prefix="tmb", dir="/tmp")
    tmux = PrivateTmux(directory)
    try:
        result = trio.run(run, tmux, ns)
    finally:
        tmux.kill()
        shutil.rmtree(directory, ignore_errors=True)
    print(table(result))
    os.makedirs(os.path.dirname(os.path.abspath(ns.json)), exist_ok=True)
    with open(ns.json, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print(f"\nJSON written to {ns.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
