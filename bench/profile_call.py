"""Where a tool call's time goes: the same call, peeled one layer at a time.

A companion to ``bench_inspect.py`` (same private tmux, same pane, same
cases, from ``benchlib``). It runs in one process under trio, with tmuxmcp imported rather than
spawned, and times each case at these layers, innermost first:

=============  ==============================================================
layer          what runs
=============  ==============================================================
bare           ``subprocess.run`` of the bare tmux command (the benchmark's
               baseline)
exact argv     ``subprocess.run`` of the argv tmuxmcp really spawns
               (``-u -N``, identity probe, nonce-framed ``-F`` template)
run_argv       the same argv through ``driver._spawn.run_argv``
               (``posix_spawn`` + pidfd on Linux, else ``trio.run_process``)
client.run     ``TmuxClient.run``: renders argv, checks the identity, decodes
handler        the tool handler: parses records, builds the result Struct
server.call    ``tmuxmcp.server.call``: msgspec argument decoding, text form,
               the result encoded once (``server.tool_result``)
response line  ``server.call`` and the response line the protocol writes
               (``protocol.messages.encode``), without pipes
stdio          the benchmark's tool call: a ``python -m tmuxmcp`` child and
               the SDK stdio client, adding the dispatcher, pipes (read and
               written on the server's event loop), the client's parsing and
               output-schema check, and a second process
=============  ==============================================================

A last row times ``ping`` over stdio: the MCP stack with no tool at all.
Layers are timed round-robin within each iteration (the order rotates), so
noise is shared. ``--cprofile ROW`` additionally profiles
``server.call`` for one row.

Run: ``python bench/profile_call.py [--iterations N] [--cprofile "capture_pane scrollback"]``
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time
import warnings
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import msgspec
import trio
from benchlib import (
    Case,
    PrivateTmux,
    bare_call,
    bench_tmux,
    cases,
    fill_pane,
    rotated,
    serve,
    summary,
)
from mcp import ClientSession

from tmuxmcp import runtime, server
from tmuxmcp.capability.encode import encode_arguments
from tmuxmcp.config import Options, load
from tmuxmcp.definition import BY_NAME
from tmuxmcp.driver import _spawn
from tmuxmcp.driver.client import TmuxClient
from tmuxmcp.protocol.messages import Response, encode

Timed = Callable[[], Awaitable[object]]


class Recorder:
    """Records the argv and commands of the most recent tmux call of a tool."""

    def __init__(self) -> None:
        self.argv: list[str] = []
        self.commands: tuple[Any, ...] = ()

    def install(self) -> None:
        """Wrap ``_spawn.run_argv`` and ``TmuxClient.run`` (this process only)."""
        real_spawn, real_run = _spawn.run_argv, TmuxClient.run

        async def run_argv(argv: Sequence[str], **kw: Any) -> _spawn.Completed:
            self.argv = list(argv)
            return await real_spawn(argv, **kw)

        async def run(client: TmuxClient, *commands: Any, **kw: Any) -> Any:
            self.commands = commands
            return await real_run(client, *commands, **kw)

        self.real_spawn = real_spawn
        _spawn.run_argv = run_argv  # type: ignore[assignment]
        TmuxClient.run = run  # type: ignore[method-assign]


def layers(
    case: Case,
    tmux: PrivateTmux,
    state: runtime.Runtime,
    rec: Recorder,
    stdio: ClientSession,
) -> dict[str, Timed]:
    """The timed callables of one case, innermost first."""
    bare_argv = tmux.argv(*case.bare)
    exact = list(rec.argv)
    commands = rec.commands
    spec = BY_NAME[case.tool]
    args = encode_arguments(msgspec.convert(case.arguments, spec.args))
    client = state.context.client

    async def bare() -> object:
        return bare_call(tmux, bare_argv)

    async def exact_argv() -> object:
        return bare_call(tmux, exact)

    async def run_argv() -> object:
        return await rec.real_spawn(exact, env=client.env, seconds=10)

    async def client_run() -> object:
        return await client.run(*commands)

    async def handler() -> object:
        return await spec.handler(state.context, args)

    async def call() -> object:
        return await server.call(state, case.tool, case.arguments)

    async def response_line() -> object:
        return encode(Response(1, await server.call(state, case.tool, case.arguments)))

    async def over_stdio() -> object:
        return await stdio.call_tool(case.tool, case.arguments)

    return {
        "bare": bare,
        "exact argv": exact_argv,
        "run_argv": run_argv,
        "client.run": client_run,
        "handler": handler,
        "server.call": call,
        "response line": response_line,
        "stdio": over_stdio,
    }


async def measure(
    tmux: PrivateTmux, todo: list[Case], iterations: int, profile_row: str | None
) -> dict[str, dict[str, dict[str, float]]]:
    """Median and p90 per case and layer."""
    config = load(Options(), tmux.env)
    state = await runtime.start(config)
    rec = Recorder()
    rec.install()
    out: dict[str, dict[str, dict[str, float]]] = {}
    async with serve(tmux.env) as stdio:
        for case in todo:
            # Records argv and commands: of the second call, which is what every
            # later one does (a capture into history plans its first window from
            # what the pane's rows cost at the first, issue 31.1).
            await server.call(state, case.tool, case.arguments)
            await server.call(state, case.tool, case.arguments)
            timed = layers(case, tmux, state, rec, stdio)
            out[case.row] = await round_robin(timed, iterations)
            if case.row == profile_row:
                await profile(state, case, iterations)
        out["ping (no tool)"] = await round_robin({"stdio": stdio.send_ping}, iterations)
    return out


async def round_robin(timed: dict[str, Timed], iterations: int) -> dict[str, dict[str, float]]:
    """Time every layer once per iteration, rotating the order."""
    names = list(timed)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for name in names:  # warm-up
        for _ in range(5):
            await timed[name]()
    for i in range(iterations):
        for name in rotated(names, i):
            start = time.perf_counter()
            await timed[name]()
            samples[name].append(time.perf_counter() - start)
    return {name: summary(s) for name, s in samples.items()}


async def profile(state: runtime.Runtime, case: Case, iterations: int) -> None:
    """cProfile ``server.call`` for one case; print the top functions."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(iterations):
        await server.call(state, case.tool, case.arguments)
    profiler.disable()
    print(f"\ncProfile of server.call({case.tool}, {case.arguments}) x {iterations}")
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(18)


def report(results: dict[str, dict[str, dict[str, float]]]) -> str:
    """Median ms per layer, and each layer's added median over the one inside it."""
    names = list(next(iter(results.values())))
    lines = ["median ms (added over the previous layer)", ""]
    lines.append(f"{'call':<25}" + "".join(f"{n:>16}" for n in names))
    for row, by_layer in results.items():
        cells, previous = [], None
        for name in names:
            if name not in by_layer:
                cells.append(f"{'':>16}")
                continue
            med = by_layer[name]["median_ms"]
            added = "" if previous is None else f"({med - previous:+.2f})"
            cells.append(f"{med:>8.2f}{added:>8}")
            previous = med
        lines.append(f"{row:<25}" + "".join(cells))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Set up the pane, measure every layer, print the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--cprofile", metavar="ROW", help="also cProfile server.call for this row")
    p.add_argument("--lines", type=int, default=12000)
    p.add_argument("--scrollback", type=int, default=10000)
    ns = p.parse_args(argv)
    # The SDK client warns that ping is legacy-only; this client is legacy.
    warnings.filterwarnings("ignore", message="ping is removed")
    os.environ.pop("TMUX", None)
    os.environ.pop("TMUX_PANE", None)
    with bench_tmux("tmp") as tmux:
        ids = fill_pane(tmux, ns.lines, 200, 50)
        todo = cases(ids, ns.scrollback)
        results = trio.run(measure, tmux, todo, ns.iterations, ns.cprofile)
    print(report(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
