"""Where a raw-wire call's milliseconds go, stage by stage, from the client's write to its parse.

A companion to ``profile_call.py``, which times layers in one process: this
one serves tmuxmcp as its own process over pipes, as a client runs it, and
stamps each stage of one ``tools/call`` on the clock both processes share
(``time.monotonic_ns``, CLOCK_MONOTONIC). The server is this file run with
``--serve``: it wraps the functions each stage ends in (``transport.triage``,
``Dispatcher._request``, ``server.call_or_continue``, ``TmuxClient.run``,
``_spawn.run_argv`` and its ``posix_spawn``, ``server.tool_result``,
``messages.encode``, ``Outbox.put``, the writer's ``_send_all``) and writes
one line of stamps to stderr after each response it wrote. The client is
``tests.raw_client``'s, reading with ``os.read`` and parsing with
``json.loads``; each iteration also runs the bare ``capture-pane`` (the
baseline of ``bench_targets.py``). The call is ``bench_targets.py``'s
10,000-line capture; ``--protocol`` picks the version the client
negotiates (before 2025-06-18 the result is its text block alone).

A benchmark, not a test: it prints the medians and exits 0.

    python bench/profile_wire.py --iterations 60
    python bench/profile_wire.py --protocol 2025-03-26
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

STAMPED = "STAMPS"


def serve() -> int:
    """tmuxmcp serve, with every stage's end stamped (this process only)."""
    from tmuxmcp import server, transport
    from tmuxmcp.cli import main as cli_main
    from tmuxmcp.driver import _spawn
    from tmuxmcp.driver.client import TmuxClient
    from tmuxmcp.protocol import dispatch, messages, outbox

    stamps: list[tuple[str, int]] = []

    def stamp(name: str) -> None:
        stamps.append((name, time.monotonic_ns()))

    def around(owner: Any, attr: str, name: str) -> None:
        real = getattr(owner, attr)

        def sync(*a: Any, **k: Any) -> Any:
            stamp(f"{name}>")
            done = real(*a, **k)
            stamp(f"{name}<")
            return done

        async def asynchronous(*a: Any, **k: Any) -> Any:
            stamp(f"{name}>")
            done = await real(*a, **k)
            stamp(f"{name}<")
            return done

        setattr(owner, attr, asynchronous if inspect.iscoroutinefunction(real) else sync)

    around(transport, "triage", "triage")
    around(dispatch.Dispatcher, "_request", "request")
    around(server, "call_or_continue", "call")
    around(TmuxClient, "run", "client.run")
    around(_spawn, "run_argv", "run_argv")
    around(_spawn.os, "posix_spawn", "posix_spawn")
    around(server, "tool_result", "tool_result")
    around(messages, "encode", "encode")
    around(outbox.Outbox, "put", "put")
    real_send = transport.StreamWriter._send_all

    async def send_all(self: Any, data: bytes) -> None:
        stamp("write>")
        await real_send(self, data)
        stamp("write<")
        line = " ".join(f"{name}={at}" for name, at in stamps)
        os.write(2, f"{STAMPED} {line}\n".encode())
        stamps.clear()

    transport.StreamWriter._send_all = send_all  # type: ignore[method-assign]
    return cli_main(["serve"])


STAGES = (
    # (row, from, to): the last stamp of each name in a call (a warm capture is one tmux
    # invocation; the count is printed).
    ("client write -> server has the line", "sent", "triage>"),
    ("line -> request admitted", "triage>", "request>"),
    ("admitted -> tool call runs", "request>", "call>"),
    ("tool call -> tmux invocation", "call>", "client.run>"),
    ("invocation -> posix_spawn (gate, argv)", "client.run>", "posix_spawn>"),
    ("posix_spawn", "posix_spawn>", "posix_spawn<"),
    ("tmux runs, its output read, reaped", "posix_spawn<", "run_argv<"),
    ("output checked and decoded", "run_argv<", "client.run<"),
    ("handler: rows to result", "client.run<", "tool_result>"),
    ("result encoded (structuredContent)", "tool_result>", "tool_result<"),
    ("response line encoded", "encode>", "encode<"),
    ("line queued -> writer writes", "put>", "write>"),
    ("write()", "write>", "write<"),
    ("written -> client has its first bytes", "write>", "first"),
    ("client: first bytes -> whole line", "first", "line"),
    ("client: json.loads", "line", "parsed"),
    ("total (client write -> parsed)", "sent", "parsed"),
)


def measure(ns: argparse.Namespace) -> dict[str, Any]:
    from bench_peers import FILLER, HEIGHT
    from benchlib import bench_tmux, fill_pane

    from tests.raw_client import RawClient

    with bench_tmux("tpw") as tmux:
        ids = fill_pane(tmux, ns.lines, 200, HEIGHT, FILLER)
        pane = ids["pane_id"]
        arguments = {
            "pane_id": pane,
            "start": -ns.scrollback,
            "max_lines": ns.scrollback + 50,
            "max_chars": 1024 * 1024,
        }
        bare_argv = tmux.argv("capture-pane", "-p", "-t", pane, "-S", str(-ns.scrollback))
        errors = os.path.join(tmux.directory, "server.err")
        with open(errors, "w+b") as err:
            client = RawClient(
                tmux.env,
                command=[sys.executable, os.path.abspath(__file__), "--serve"],
                stderr=err.fileno(),
                initialize=False,
            )
            try:
                opened = client.request(
                    "initialize",
                    {
                        "protocolVersion": ns.protocol,
                        "capabilities": {},
                        "clientInfo": {"name": "profile_wire", "version": "0"},
                    },
                )
                assert opened["result"]["protocolVersion"] == ns.protocol, opened
                client.notify("notifications/initialized")
                samples = list(_calls(client, tmux, bare_argv, arguments, ns.iterations))
            finally:
                client.close()
            err.seek(0)
            lines = [ln for ln in err.read().decode().splitlines() if ln.startswith(STAMPED)]
    served = [_stamps(line) for line in lines[-len(samples) :]]
    rows: dict[str, list[float]] = {"bare capture-pane (subprocess.run)": []}
    invocations = []
    for (client_side, bare_ns), (server_side, count) in zip(samples, served, strict=True):
        at = {**server_side, **client_side}
        rows["bare capture-pane (subprocess.run)"].append(bare_ns / 1e6)
        invocations.append(count)
        for row, begin, end in STAGES:
            rows.setdefault(row, []).append((at[end] - at[begin]) / 1e6)
    return {
        "rows": {row: statistics.median(v) for row, v in rows.items()},
        "p10": {row: sorted(v)[len(v) // 10] for row, v in rows.items()},
        "bytes": samples[-1][0]["bytes"],
        "tmux_per_call": statistics.median(invocations),
    }


def _stamps(line: str) -> tuple[dict[str, int], int]:
    found: dict[str, int] = {}
    count = 0
    for pair in line.split()[1:]:
        name, _, at = pair.partition("=")
        found[name] = int(at)  # the last of each name
        count += name == "posix_spawn>"
    return found, count


def _calls(
    client: Any, tmux: Any, bare_argv: list[str], arguments: dict[str, Any], iterations: int
) -> Any:
    from benchlib import bare_call

    fd = client.proc.stdout.fileno()
    for index in range(iterations + 5):  # 5 warm-up calls
        began = time.monotonic_ns()
        bare_call(tmux, bare_argv)
        bare_ns = time.monotonic_ns() - began
        client._next += 1
        request = {
            "jsonrpc": "2.0",
            "id": client._next,
            "method": "tools/call",
            "params": {"name": "capture_pane", "arguments": arguments},
        }
        line = json.dumps(request).encode() + b"\n"
        sent = time.monotonic_ns()
        os.write(client.proc.stdin.fileno(), line)
        buffer = b""
        first = 0
        while b"\n" not in buffer:
            client._selector.select(timeout=30)
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise SystemExit("bench: tmuxmcp closed its output")
            first = first or time.monotonic_ns()
            buffer += chunk
        whole = time.monotonic_ns()
        reply = json.loads(buffer)
        parsed = time.monotonic_ns()
        if "result" not in reply or reply["result"].get("isError"):
            raise SystemExit(f"bench: the capture failed: {str(reply)[:300]}")
        if index >= 5:
            yield (
                {"sent": sent, "first": first, "line": whole, "parsed": parsed,
                 "bytes": len(buffer)},
                bare_ns,
            )  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--iterations", type=int, default=60)
    p.add_argument("--lines", type=int, default=12000)
    p.add_argument("--scrollback", type=int, default=10000)
    p.add_argument("--protocol", default="2025-11-25", help="the version the client negotiates")
    ns = p.parse_args(argv)
    if ns.serve:
        return serve()
    from benchlib import loadavg

    os.environ.pop("TMUX", None)
    os.environ.pop("TMUX_PANE", None)
    before = loadavg()
    result = measure(ns)
    print(
        f"capture_pane of {ns.scrollback:,} lines over the raw wire, protocol {ns.protocol}: "
        f"{result['bytes']:,} bytes a response line, {result['tmux_per_call']:g} tmux "
        f"invocation(s) a call, {ns.iterations} calls, load {before} -> {loadavg()}"
    )
    print(f"{'stage':<44} {'median ms':>10} {'p10 ms':>8}")
    for row, median in result["rows"].items():
        print(f"{row:<44} {median:>10.3f} {result['p10'][row]:>8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
