"""The targets of issue 19.4, side by side: tmuxmcp, mcp-tmux and bare tmux, one run.

A benchmark, not a test: it prints the table, writes JSON and exits 0 whether
or not a target is met (non-zero only when it could not measure: a server
missing, a call failing, a capture short of its lines).

What it measures, per server (the servers and their tools are
``bench_peers.py``'s, with its rules P1-P5: a private tmux, one SDK client
for all, each server's own equivalent tool, interleaved, every result
checked):

* cold start: spawn to a completed ``tools/list``, fresh process each time;
* idle RSS: ``VmRSS`` of that fresh server process right after ``tools/list``;
* list_panes, the visible capture, the 10,000-line capture and ``run echo
  hi`` through the SDK client, next to the bare tmux command doing the same
  (``list-panes -a -F``, ``capture-pane -p [-S -10000]``, and the
  send-keys / wait-for / capture script of ``bench_execute.py``);
* the 10,000-line capture over the raw wire (``tests.raw_client``: JSON-RPC
  lines, no client models, no schema check), next to bare tmux.

Rule T1: the 10,000-line capture must return every one of the 10,000 lines
(lines N-9999 to N of the pane, each by its number), in the text form and,
when the server sends one, in ``structuredContent``; it is checked before
and after the timed loop, through the SDK and over the raw wire. A server
that returns fewer measures nothing, and the run stops.

Rule T2: one iteration calls each server once and the bare command once, in
an order that reverses every iteration (ABC, CBA), so load hits all alike.

Rule T3: the targets are printed PASS/FAIL and never change the exit status:
cold start at most 0.5x mcp-tmux's; the 10,000-line capture (SDK, both
result forms) no slower than mcp-tmux's; the raw-wire 10,000-line capture
within 1.3x of bare tmux; idle RSS at most 40 MB; list_panes, the visible
capture and ``run echo hi`` faster than mcp-tmux's.

Run ``python bench/bench_targets.py --help``; bench/README.md has the table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from typing import Any, TextIO

from bench_execute import bare_round_trip
from bench_peers import (
    FILLER,
    HEIGHT,
    Server,
    all_lines,
    order,
    sdk_forms,
    servers,
    text_of,
    version_of,
)
from benchlib import (
    PrivateTmux,
    RawClient,
    bare_call,
    cases,
    children_of,
    fill_pane,
    loadavg,
    print_header,
    run_in_bench_tmux,
    run_meta,
    summary,
    write_json,
)
from mcp import ClientSession
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult

HERE = os.path.dirname(os.path.abspath(__file__))
BARE = "bare tmux"
SDK_OPERATIONS = ("list_panes", "capture visible", "capture 10,000 lines", "run echo hi")
RAW = "capture 10,000 lines, raw wire"


def raw_forms(result: dict[str, Any]) -> dict[str, str]:
    forms = {"text form": "\n".join(block.get("text", "") for block in result["content"])}
    if result.get("structuredContent") is not None:
        forms["structuredContent"] = json.dumps(result["structuredContent"])
    return forms


def rss_mb(pid: int) -> float:
    """``VmRSS`` of ``pid`` in MB (10**6 bytes)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024 / 1e6
    raise SystemExit(f"bench: no VmRSS for {pid}")


async def cold_start(chosen: list[Server], runs: int, errlog: TextIO) -> dict[str, dict[str, Any]]:
    """Spawn to a completed tools/list, and the idle RSS then; fresh processes, interleaved."""
    names = [s.name for s in chosen]
    by_name = {s.name: s for s in chosen}
    times: dict[str, list[float]] = {name: [] for name in names}
    rss: dict[str, list[float]] = {name: [] for name in names}
    for i in range(runs):
        for name in order(names, i):
            start = time.perf_counter()
            async with (
                stdio_client(by_name[name].params(), errlog=errlog) as (read, write),
                ClientSession(read, write, read_timeout_seconds=120) as session,
            ):
                await session.initialize()
                await session.list_tools()
                times[name].append(time.perf_counter() - start)
                (pid,) = children_of(os.getpid())  # the one server this loop has open
                rss[name].append(rss_mb(pid))
    return {
        name: {**summary(times[name]), "idle_rss_mb": statistics.median(rss[name])}
        for name in names
    }


async def latency(
    tmux: PrivateTmux,
    chosen: list[Server],
    panes: dict[str, str],
    ns: argparse.Namespace,
    errlog: TextIO,
) -> dict[str, dict[str, Any]]:
    """Each SDK operation: every server and the bare command, interleaved (Rule T2)."""
    wanted = range(ns.lines - ns.scrollback + 1, ns.lines + 1)
    expect = {
        "list_panes": panes["pane"],
        "capture visible": f"line {ns.lines} ",
        "run echo hi": "hi",
    }
    list_bare = next(
        c for c in cases({"pane_id": panes["pane"]}, ns.scrollback) if c.row == "list_panes"
    )
    bare_argv = {
        "list_panes": tmux.argv(*list_bare.bare),
        "capture visible": tmux.argv("capture-pane", "-p", "-t", panes["pane"]),
        "capture 10,000 lines": tmux.argv(
            "capture-pane", "-p", "-t", panes["pane"], "-S", str(-ns.scrollback)
        ),
    }  # fmt: skip
    socket = tmux.bare("display-message", "-p", "#{socket_path}").stdout.strip()
    names = [s.name for s in chosen]
    times: dict[str, dict[str, Any]] = {}

    def checked(name: str, operation: str, result: CallToolResult) -> None:
        if operation == "capture 10,000 lines":
            if result.is_error:
                raise SystemExit(f"bench: {name} {operation} failed: {text_of(result)[:300]}")
            all_lines(name, sdk_forms(result), wanted)
        elif result.is_error or expect[operation] not in text_of(result):
            raise SystemExit(f"bench: {name} {operation} failed: {text_of(result)[:300]}")

    def bare(operation: str) -> str:
        if operation == "run echo hi":
            bare_round_trip(tmux, panes[f"run:{BARE}"], tmux.binary, socket)
            return "hi"
        return bare_call(tmux, bare_argv[operation])

    def bare_checked(operation: str) -> None:
        out = bare(operation)
        if operation == "capture 10,000 lines":
            all_lines(BARE, {"output": out}, wanted)

    async with AsyncExitStack() as stack:
        sessions: dict[str, ClientSession] = {}
        for server in chosen:
            read, write = await stack.enter_async_context(
                stdio_client(server.params(), errlog=errlog)
            )
            session = await stack.enter_async_context(
                ClientSession(read, write, read_timeout_seconds=120)
            )
            await session.initialize()
            await session.list_tools()
            sessions[server.name] = session
        for operation in SDK_OPERATIONS:
            if operation == "run echo hi":
                for name in [*names, BARE]:
                    panes[f"run:{name}"] = tmux.bare(
                        "new-window", "-d", "-t", "bench", "-P", "-F", "#{pane_id}", "sh"
                    ).stdout.strip()
            calls = {s.name: s.tools[operation](panes) for s in chosen}

            for name in names:
                for _ in range(ns.warmup):
                    checked(name, operation, await sessions[name].call_tool(*calls[name]))
            bare_checked(operation)
            per: dict[str, list[float]] = {name: [] for name in [*names, BARE]}
            for i in range(ns.iterations):
                for name in order([*names, BARE], i):
                    start = time.perf_counter()
                    if name == BARE:
                        bare(operation)
                    else:
                        result = await sessions[name].call_tool(*calls[name])
                    per[name].append(time.perf_counter() - start)
                    if name != BARE and result.is_error:
                        checked(name, operation, result)
            for name in names:
                checked(name, operation, await sessions[name].call_tool(*calls[name]))
            bare_checked(operation)
            times[operation] = {name: summary(values) for name, values in per.items()}
            print(f"  {operation}: done, load {loadavg()}", flush=True)
    return times


def raw_capture(
    tmux: PrivateTmux, chosen: list[Server], panes: dict[str, str], ns: argparse.Namespace
) -> dict[str, Any]:
    """The 10,000-line capture over raw JSON-RPC, no client models, next to bare tmux."""
    wanted = range(ns.lines - ns.scrollback + 1, ns.lines + 1)
    argv = tmux.argv("capture-pane", "-p", "-t", panes["pane"], "-S", str(-ns.scrollback))
    names = [s.name for s in chosen]
    per: dict[str, list[float]] = {name: [] for name in [*names, BARE]}
    sizes: dict[str, int] = {}
    clients = {s.name: RawClient(s.env, cwd=s.cwd, command=s.command, name="bench") for s in chosen}
    try:
        calls = {s.name: s.tools["capture 10,000 lines"](panes) for s in chosen}

        def call(name: str) -> dict[str, Any]:
            tool, arguments = calls[name]
            reply = clients[name].request("tools/call", {"name": tool, "arguments": arguments})
            if "result" not in reply or reply["result"].get("isError"):
                raise SystemExit(f"bench: {name} raw capture failed: {str(reply)[:300]}")
            return reply["result"]  # type: ignore[no-any-return]

        for name in names:
            for _ in range(ns.warmup):
                all_lines(name, raw_forms(call(name)), wanted)
            sizes[name] = len(json.dumps(call(name)))
        for i in range(ns.iterations):
            for name in order([*names, BARE], i):
                start = time.perf_counter()
                if name == BARE:
                    bare_call(tmux, argv)
                else:
                    call(name)
                per[name].append(time.perf_counter() - start)
        for name in names:
            all_lines(name, raw_forms(call(name)), wanted)
        all_lines(BARE, {"output": bare_call(tmux, argv)}, wanted)
        sizes[BARE] = len(bare_call(tmux, argv).encode())
    finally:
        for client in clients.values():
            client.close()
    return {"times": {name: summary(values) for name, values in per.items()}, "bytes": sizes}


def _ms(result: dict[str, Any], row: str, name: str) -> float | None:
    cell = result["rows"].get(row, {}).get(name)
    return None if cell is None else float(cell["median_ms"])


def targets(result: dict[str, Any]) -> list[tuple[str, bool | None, str]]:
    """Rule T3: each target, met or not (None: a server to compare with is missing)."""
    rows = result["rows"]
    out: list[tuple[str, bool | None, str]] = []

    def ratio(row: str, other: str, limit: float, label: str) -> None:
        ours, theirs = _ms(result, row, "tmuxmcp"), _ms(result, row, other)
        if ours is None or theirs is None:
            out.append((label, None, f"no {other} to compare with"))
            return
        out.append(
            (label, ours <= limit * theirs, f"{ours:.1f} / {theirs:.1f} ms = {ours / theirs:.2f}x")
        )

    ratio("cold start (spawn to tools/list)", "mcp-tmux", 0.5, "cold start <= 0.5x mcp-tmux")
    ratio("capture 10,000 lines", "mcp-tmux", 1.0, "10,000-line capture (SDK) <= mcp-tmux")
    ratio(RAW, BARE, 1.3, "10,000-line capture (raw wire) <= 1.3x bare tmux")
    rss = rows["idle RSS after tools/list, MB"]["tmuxmcp"]["median_ms"]
    out.append(("idle RSS <= 40 MB", rss <= 40, f"{rss:.1f} MB"))
    for row in ("list_panes", "capture visible", "run echo hi"):
        ratio(row, "mcp-tmux", 1.0, f"{row} <= mcp-tmux")
    return out


def table(result: dict[str, Any]) -> str:
    """Markdown: medians per server, and tmuxmcp's ratios to mcp-tmux and bare tmux."""
    names = result["columns"]
    head = "| | " + " | ".join(names) + " | tmuxmcp / mcp-tmux | tmuxmcp / bare |"
    lines = [head, "|---|" + "---:|" * (len(names) + 2)]
    for row, per in result["rows"].items():
        unit = " MB" if "MB" in row else ""
        cells = [f"{per[n]['median_ms']:.1f}{unit}" if n in per else "-" for n in names]
        ratios = []
        for other in ("mcp-tmux", BARE):
            ours, theirs = _ms(result, row, "tmuxmcp"), _ms(result, row, other)
            ratios.append(f"{ours / theirs:.2f}x" if ours and theirs else "-")
        lines.append(f"| {row} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    return "\n".join(lines)


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=100, help="calls per operation and server")
    p.add_argument("--warmup", type=int, default=5, help="untimed, checked calls first")
    p.add_argument("--cold-starts", type=int, default=10, help="fresh processes per server")
    p.add_argument("--lines", type=int, default=12000, help="lines printed into the pane")
    p.add_argument("--scrollback", type=int, default=10000, help="lines captured by start=-N")
    p.add_argument("--peers", default=os.path.join(HERE, ".peers"), help="the peers' venvs")
    p.add_argument(
        "--tree", action="append", default=[], metavar="NAME=DIR",
        help="also serve the tmuxmcp package in DIR as NAME (e.g. a git archive of main)",
    )  # fmt: skip
    p.add_argument("--json", default=os.path.join(HERE, "results", "targets.json"))
    ns = p.parse_args(argv)
    if ns.iterations < 2 or ns.warmup < 1 or ns.cold_starts < 1:
        p.error("--iterations must be >= 2; --warmup and --cold-starts >= 1")
    if ns.lines < ns.scrollback + HEIGHT:
        p.error(f"--lines must be at least --scrollback + {HEIGHT}")
    return ns


async def run(tmux: PrivateTmux, ns: argparse.Namespace, errlog: TextIO) -> dict[str, Any]:
    ids = fill_pane(tmux, ns.lines, 200, HEIGHT, FILLER)
    only = ["tmuxmcp", "mcp-tmux", *(t.partition("=")[0] for t in ns.tree)]
    chosen = [s for s in servers(tmux, os.path.abspath(ns.peers), ns.scrollback, [], ns.tree)
              if s.name in only]  # fmt: skip
    result: dict[str, Any] = {
        "meta": run_meta("bench_targets.py", tmux, ns.iterations, ns.cold_starts),
        "servers": {s.name: version_of(s) for s in chosen},
        "columns": [*(s.name for s in chosen), BARE],
    }
    panes = {"pane": ids["pane_id"]}
    rows: dict[str, dict[str, Any]] = {}
    started = await cold_start(chosen, ns.cold_starts, errlog)
    rows["cold start (spawn to tools/list)"] = started
    rows["idle RSS after tools/list, MB"] = {
        name: {"median_ms": cell["idle_rss_mb"]} for name, cell in started.items()
    }
    sdk = await latency(tmux, chosen, panes, ns, errlog)
    raw = raw_capture(tmux, chosen, panes, ns)
    rows.update(sdk)
    rows[RAW] = raw["times"]
    result["rows"] = rows
    result["raw_bytes"] = raw["bytes"]
    result["meta"]["load_after"] = loadavg()
    result["targets"] = [
        {"target": t, "met": met, "measured": said} for t, met, said in targets(result)
    ]
    return result


def main(argv: Sequence[str] | None = None) -> int:
    ns = arguments(argv)
    result = run_in_bench_tmux("tmt", run, ns)
    print_header(result, "medians, ms")
    print(table(result))
    print()
    print(
        "raw-wire result bytes: " + ", ".join(f"{k} {v:,}" for k, v in result["raw_bytes"].items())
    )
    print()
    for target in result["targets"]:
        verdict = {True: "PASS", False: "FAIL", None: "n/a"}[target["met"]]
        print(f"{verdict:4}  {target['target']}: {target['measured']}")
    write_json(ns.json, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
