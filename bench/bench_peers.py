"""Side by side: tmuxmcp and the peer tmux MCP servers from PyPI, one client, one run.

A benchmark, not a test: it prints a table, writes JSON and exits 0 whether or
not tmuxmcp is ahead (non-zero only when it could not measure: a server missing,
a call failing or returning the wrong thing).

Rules:

* Rule P1: never the user's tmux. One private ``TMUX_TMPDIR`` under /tmp holds
  one tmux server on ``-L tmuxmcp``; every server under test is pointed at it
  (tmuxmcp by default, libtmux-mcp by ``LIBTMUX_SOCKET``, mcp-tmux by a private
  ``MCP_TMUX_CONFIG`` file with ``socket_name``). ``HOME`` and
  ``XDG_CONFIG_HOME`` point into the same directory, so no user configuration
  is read.
* Rule P2: one client for all: the official ``mcp`` SDK client of this venv
  (``stdio_client`` + ``ClientSession``, trio), so client-side cost is equal.
  Each peer runs from its own virtual environment (``--peers DIR``, default
  ``bench/.peers``; see bench/README.md for how to make them).
* Rule P3: each server gets its own equivalent tool with its defaults, except
  what is needed to ask for the same thing (the 10,000 lines; no 500-line cap).
* Rule P4: interleaved: in every iteration each server makes the call once,
  in an order that reverses every iteration (ABC, CBA: ABBA for three), so
  load hits all of them alike. Cold starts alternate the same way.
* Rule P5: every result is checked (not an error, holds what was asked for;
  the 10,000-line capture every one of its 10,000 lines, by number, in each
  result form); a failed call measures nothing and stops the run.

Run ``python bench/bench_peers.py --help``; bench/README.md shows a table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, TextIO

from benchlib import (
    DEDICATED,
    PrivateTmux,
    fill_pane,
    loadavg,
    print_header,
    run_in_bench_tmux,
    run_meta,
    summary,
    write_json,
)
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult

from tmuxmcp.tools.capture import MAX_CAPTURE_BYTES

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
# Shorter than bench_inspect's lines: libtmux-mcp refuses results over 1 MB, and
# 10,000 of these lines stay well under that in both of its result forms.
FILLER = "lorem ipsum dolor sit amet"
HEIGHT = 50
OPERATIONS = ("list_panes", "capture visible", "capture 10,000 lines", "run echo hi")


@dataclass
class Server:
    """One MCP server under test and its tool for each operation."""

    name: str
    command: list[str]
    env: dict[str, str]
    cwd: str | None
    package: str | None  # PyPI distribution whose version is reported
    # operation -> (tool name, arguments given the pane ids)
    tools: dict[str, Callable[[dict[str, str]], tuple[str, dict[str, Any]]]] = field(
        default_factory=dict
    )

    def params(self) -> StdioServerParameters:
        return StdioServerParameters(
            command=self.command[0], args=self.command[1:], env=self.env, cwd=self.cwd
        )


def tmuxmcp_tools(scrollback: int, name: str) -> dict[str, Any]:
    """tmuxmcp's tools for the operations (run in the pane made for ``name``)."""
    return {
        "list_panes": lambda p: ("list_panes", {}),
        "capture visible": lambda p: ("capture_pane", {"pane_id": p["pane"]}),
        "capture 10,000 lines": lambda p: (
            "capture_pane",
            # Its defaults keep the last 500 lines and 36,000 characters; ask for all of them.
            {
                "pane_id": p["pane"],
                "start": -scrollback,
                "max_lines": scrollback + HEIGHT,
                "max_chars": MAX_CAPTURE_BYTES,
            },
        ),
        "run echo hi": lambda p: (
            "run_command",
            {"pane_id": p[f"run:{name}"], "command": "echo hi"},
        ),
    }


def servers(
    tmux: PrivateTmux, peers: str, scrollback: int, only: Sequence[str], trees: Sequence[str]
) -> list[Server]:
    """tmuxmcp, every ``--tree``, and every peer whose venv exists (only ``only`` if given)."""
    home = os.path.join(tmux.directory, "home")
    os.makedirs(os.path.join(home, ".config"), exist_ok=True)
    base = {**tmux.env, "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config")}
    config = os.path.join(tmux.directory, "mcp-tmux.toml")
    with open(config, "w") as f:
        f.write(f'[defaults]\nsocket_name = "{DEDICATED}"\n')
    out = [
        Server(
            "tmuxmcp",
            [sys.executable, "-m", "tmuxmcp", "serve"],
            {**base, "PYTHONPATH": REPO},
            REPO,
            None,
            tmuxmcp_tools(scrollback, "tmuxmcp"),
        ),
        *(
            Server(
                name,
                [sys.executable, "-m", "tmuxmcp", "serve"],
                {**base, "PYTHONPATH": os.path.abspath(tree)},
                os.path.abspath(tree),
                None,
                tmuxmcp_tools(scrollback, name),
            )
            for name, _, tree in (t.partition("=") for t in trees)
        ),
        Server(
            "mcp-tmux",
            [os.path.join(peers, "mcp-tmux", "bin", "mcp-tmux")],
            {**base, "MCP_TMUX_CONFIG": config},
            None,
            "mcp-tmux",
            {
                "list_panes": lambda p: ("tmux_list_panes", {}),
                "capture visible": lambda p: ("tmux_capture_pane", {"target_pane": p["pane"]}),
                "capture 10,000 lines": lambda p: (
                    "tmux_capture_pane",
                    {"target_pane": p["pane"], "start": -scrollback},
                ),
                "run echo hi": lambda p: (
                    "tmux_run",
                    {"target_pane": p["run:mcp-tmux"], "command": "echo hi"},
                ),
            },
        ),
        Server(
            "libtmux-mcp",
            [os.path.join(peers, "libtmux-mcp", "bin", "libtmux-mcp")],
            {**base, "LIBTMUX_SOCKET": DEDICATED},
            None,
            "libtmux-mcp",
            {
                "list_panes": lambda p: ("list_panes", {}),
                "capture visible": lambda p: ("capture_pane", {"pane_id": p["pane"]}),
                "capture 10,000 lines": lambda p: (
                    "capture_pane",
                    {"pane_id": p["pane"], "start": -scrollback, "max_lines": None},
                ),
                "run echo hi": lambda p: (
                    "run_command",
                    {"pane_id": p["run:libtmux-mcp"], "command": "echo hi"},
                ),
            },
        ),
    ]
    chosen = []
    for server in out:
        if only and server.name not in only:
            continue
        if not os.access(server.command[0], os.X_OK):
            if only:
                raise SystemExit(f"bench: {server.name}: {server.command[0]} is not installed")
            print(f"bench: skipping {server.name}: {server.command[0]} is not installed")
            continue
        chosen.append(server)
    if len({s.name for s in chosen}) != len(chosen):
        raise SystemExit("bench: two servers share a name")
    return chosen


def version_of(server: Server) -> str:
    """The installed version of the server's distribution (and of its mcp)."""
    if server.package is None:
        from importlib.metadata import version

        commit = subprocess.run(
            ["git", "-C", server.cwd or REPO, "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=False,
        ).stdout.strip()  # fmt: skip
        where = commit if server.cwd == REPO and commit else server.cwd
        return f"from {where} (mcp {version('mcp')})"
    python = os.path.join(os.path.dirname(server.command[0]), "python")
    code = (
        "import importlib.metadata as m; "
        f"print(m.version({server.package!r}), '(mcp', m.version('mcp') + ')')"
    )
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "unknown"


def text_of(result: CallToolResult) -> str:
    """Everything a result says, text blocks and structuredContent, as one string."""
    parts = [getattr(block, "text", "") for block in result.content]
    if result.structured_content is not None:
        parts.append(json.dumps(result.structured_content))
    return "\n".join(parts)


def check(server: str, operation: str, result: CallToolResult, expect: str) -> None:
    """Stop the run unless the call succeeded and its result holds ``expect``."""
    said = text_of(result)
    if result.is_error or expect not in said:
        raise SystemExit(f"bench: {server} {operation} failed or lacks {expect!r}: {said[:300]}")


NUMBERED = re.compile(r"line (\d+) " + re.escape(FILLER))


def numbers_in(text: str) -> set[int]:
    """The line numbers of the filled pane that ``text`` holds."""
    return {int(n) for n in NUMBERED.findall(text)}


def all_lines(name: str, forms: dict[str, str], wanted: range) -> None:
    """Stop the run unless every form of a result holds every wanted line, by number."""
    for form, text in forms.items():
        missing = set(wanted) - numbers_in(text)
        if missing:
            raise SystemExit(
                f"bench: {name} capture 10,000 lines: the {form} lacks {len(missing)} of "
                f"{len(wanted)} lines (first missing: line {min(missing)})"
            )


def sdk_forms(result: CallToolResult) -> dict[str, str]:
    """A result's text form and, if it has one, its ``structuredContent``, as text."""
    forms = {"text form": "\n".join(getattr(block, "text", "") for block in result.content)}
    if result.structured_content is not None:
        forms["structuredContent"] = json.dumps(result.structured_content)
    return forms


def order(names: list[str], i: int) -> list[str]:
    """ABC, CBA, ABC, ...: each server first and last equally often."""
    return names if i % 2 == 0 else names[::-1]


async def open_sessions(
    stack: AsyncExitStack, chosen: list[Server], errlog: TextIO
) -> dict[str, ClientSession]:
    """One initialized session per server, its tool list fetched (the client caches schemas)."""
    sessions: dict[str, ClientSession] = {}
    for server in chosen:
        read, write = await stack.enter_async_context(stdio_client(server.params(), errlog=errlog))
        session = await stack.enter_async_context(
            ClientSession(read, write, read_timeout_seconds=120)
        )
        await session.initialize()
        await session.list_tools()
        sessions[server.name] = session
    return sessions


async def latency(
    tmux: PrivateTmux,
    chosen: list[Server],
    panes: dict[str, str],
    ns: argparse.Namespace,
    errlog: TextIO,
) -> dict[str, dict[str, Any]]:
    """Every operation, every server, interleaved."""
    expect = {
        "list_panes": panes["pane"],
        "capture visible": f"line {ns.lines} ",
        "capture 10,000 lines": f"line {ns.lines - ns.scrollback + 1} ",
        "run echo hi": "hi",
    }
    every_line = range(ns.lines - ns.scrollback + 1, ns.lines + 1)

    def verify(name: str, operation: str, result: CallToolResult) -> None:
        """``check``, and for the 10,000-line capture every one of the lines (Rule P5)."""
        check(name, operation, result, expect[operation])
        if operation == "capture 10,000 lines":
            all_lines(name, sdk_forms(result), every_line)

    times: dict[str, dict[str, list[float]]] = {}
    names = [s.name for s in chosen]
    async with AsyncExitStack() as stack:
        sessions = await open_sessions(stack, chosen, errlog)
        for operation in OPERATIONS:
            if operation == "run echo hi":
                # The run panes appear only now, so the read operations above
                # all saw the same one-pane server.
                for name in names:
                    panes[f"run:{name}"] = tmux.bare(
                        "new-window", "-d", "-t", "bench", "-P", "-F", "#{pane_id}", "sh"
                    ).stdout.strip()
            calls = {s.name: s.tools[operation](panes) for s in chosen}
            for name in names:
                for _ in range(ns.warmup):
                    tool, arguments = calls[name]
                    verify(name, operation, await sessions[name].call_tool(tool, arguments))
            per: dict[str, list[float]] = {name: [] for name in names}
            for i in range(ns.iterations):
                for name in order(names, i):
                    tool, arguments = calls[name]
                    start = time.perf_counter()
                    result = await sessions[name].call_tool(tool, arguments)
                    per[name].append(time.perf_counter() - start)
                    if result.is_error:
                        check(name, operation, result, expect[operation])
            check_last = {n: calls[n] for n in names}
            for name, (tool, arguments) in check_last.items():
                verify(name, operation, await sessions[name].call_tool(tool, arguments))
            times[operation] = {name: summary(per[name]) for name in names}
            print(f"  {operation}: done, load {loadavg()}", flush=True)
    return times


async def cold_start(chosen: list[Server], runs: int, errlog: TextIO) -> dict[str, dict[str, Any]]:
    """Spawn to a completed tools/list, fresh process each time, interleaved."""
    names = [s.name for s in chosen]
    by_name = {s.name: s for s in chosen}
    per: dict[str, list[float]] = {name: [] for name in names}
    tools: dict[str, int] = {}
    for i in range(runs):
        for name in order(names, i):
            start = time.perf_counter()
            async with (
                stdio_client(by_name[name].params(), errlog=errlog) as (read, write),
                ClientSession(read, write, read_timeout_seconds=120) as session,
            ):
                await session.initialize()
                listed = await session.list_tools()
                per[name].append(time.perf_counter() - start)
            tools[name] = len(listed.tools)
    return {name: {**summary(per[name]), "tools": tools[name]} for name in names}


def table(result: dict[str, Any]) -> str:
    """Markdown: one row per operation, median / p90 ms per server."""
    names = list(result["servers"])
    head = "| operation | " + " | ".join(f"{n} med / p90" for n in names) + " |"
    lines = [head, "|---|" + "---:|" * len(names)]
    rows = [*result["latency"].items(), ("cold start (spawn to tools/list)", result["cold_start"])]
    for operation, per in rows:
        fastest = min(per[n]["median_ms"] for n in names)
        cells = []
        for n in names:
            s = per[n]
            cell = f"{s['median_ms']:.1f} / {s['p90_ms']:.1f}"
            cells.append(f"**{cell}**" if s["median_ms"] == fastest else cell)
        lines.append(f"| {operation} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=100, help="calls per operation and server")
    p.add_argument("--warmup", type=int, default=10, help="untimed calls first (default 10)")
    p.add_argument("--cold-starts", type=int, default=10, help="fresh processes per server")
    p.add_argument("--lines", type=int, default=12000, help="lines printed into the pane")
    p.add_argument("--scrollback", type=int, default=10000, help="lines captured by start=-N")
    p.add_argument("--peers", default=os.path.join(HERE, ".peers"), help="the peers' venvs")
    p.add_argument("--only", action="append", default=[], help="a server to include (repeat)")
    p.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="also serve the tmuxmcp package in DIR as NAME (e.g. a git archive of main)",
    )
    p.add_argument("--json", default=os.path.join(HERE, "results", "peers.json"))
    ns = p.parse_args(argv)
    if ns.iterations < 2 or ns.warmup < 1 or ns.cold_starts < 1:
        p.error("--iterations must be >= 2; --warmup and --cold-starts >= 1")
    if ns.lines < ns.scrollback + HEIGHT:
        p.error(f"--lines must be at least --scrollback + {HEIGHT}")
    return ns


async def run(tmux: PrivateTmux, ns: argparse.Namespace, errlog: TextIO) -> dict[str, Any]:
    ids = fill_pane(tmux, ns.lines, 200, HEIGHT, FILLER)
    chosen = servers(tmux, os.path.abspath(ns.peers), ns.scrollback, ns.only, ns.tree)
    result: dict[str, Any] = {
        "meta": run_meta("bench_peers.py", tmux, ns.iterations, ns.cold_starts),
        "servers": {s.name: version_of(s) for s in chosen},
    }
    result["latency"] = await latency(tmux, chosen, {"pane": ids["pane_id"]}, ns, errlog)
    result["cold_start"] = await cold_start(chosen, ns.cold_starts, errlog)
    result["meta"]["load_after"] = loadavg()
    return result


def main(argv: Sequence[str] | None = None) -> int:
    ns = arguments(argv)
    result = run_in_bench_tmux("tmp", run, ns)
    print_header(result, "ms")
    print(table(result))
    write_json(ns.json, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
