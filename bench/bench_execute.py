"""Benchmark: run_command round trip over real stdio, next to its bare tmux floor.

A benchmark, not a test: it prints a table (and JSON with ``--json``) and
exits 0 whether or not the target is met.

* The tool: ``run_command`` with ``echo hi`` in a pane running plain ``sh``,
  timed as the MCP client sees it (official SDK client, stdio, trio).
* The floor: the same work done with bare tmux commands from this process, the
  way a careful script would: ``send-keys -l`` of an equivalent nonce-marked
  line, ``send-keys Enter``, ``wait-for`` on the channel the line signals, and
  ``capture-pane``. Four tmux processes from this process and one started by
  the pane's shell (``wait-for -S``), no MCP.
* Tool and floor alternate (ABBA) in one loop so noise hits both alike, on one
  private ``TMUX_TMPDIR`` (never the user's tmux).
* tmux processes per call are counted in a separate phase with a ``--tmux``
  wrapper script that logs each exec by tmuxmcp (the pane's own ``wait-for -S``
  client, which the floor runs too, is not counted).

Target (issues 4 and 11): tool median within 1.2x of the floor, at most three
tmux processes per call. The table names the tmux version and the load
average before and after, since on a shared machine both move the figure.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import subprocess
import time

import trio
from benchlib import PrivateTmux, SpawnCounter, bench_tmux, loadavg, p90, serve


def _tmux(tmux: PrivateTmux, *args: str) -> str:
    return tmux.bare(*args).stdout


def bare_round_trip(private: PrivateTmux, pane: str, tmux: str, socket: str) -> float:
    """send-keys + wait-for + capture-pane, as a script would do it."""
    nonce = secrets.token_hex(8)
    line = (
        f" printf '\\n%s%s\\n' TMXS {nonce}; {{ echo hi; }}; printf '%s%s %d\\n' TMXE {nonce} "
        f'"$?"; ({tmux} -S {socket} wait-for -S tmuxmcp-{nonce} &)'
    )
    began = time.perf_counter()
    _tmux(private, "send-keys", "-t", pane, "-l", "--", line)
    _tmux(private, "send-keys", "-t", pane, "Enter")
    _tmux(private, "wait-for", f"tmuxmcp-{nonce}")
    out = _tmux(private, "capture-pane", "-p", "-J", "-t", pane, "-S", "-200")
    elapsed = time.perf_counter() - began
    assert f"TMXE{nonce} 0" in out
    return elapsed


async def measure(iterations: int, count_processes: bool) -> dict[str, object]:
    with bench_tmux("tmxb") as private:
        args: list[str] = []
        counter = None
        if count_processes:
            # Count only tmuxmcp's own children: the pane's shell also runs the
            # wrapper (for wait-for -S) and has TMUX_PANE set; tmuxmcp's children don't.
            counter = SpawnCounter(private.directory, private.binary, skip_panes=True)
            args += ["--tmux", counter.wrapper]
        async with serve(private.env, *args) as session:
            pane = _tmux(
                private, "new-session", "-d", "-x", "120", "-y", "40",
                "-P", "-F", "#{pane_id}", "sh",
            ).strip()  # fmt: skip
            socket = _tmux(private, "display-message", "-p", "#{socket_path}").strip()
            tmux = private.binary
            tool: list[float] = []
            bare: list[float] = []

            async def tool_call() -> None:
                began = time.perf_counter()
                result = await session.call_tool(
                    "run_command", {"pane_id": pane, "command": "echo hi"}
                )
                tool.append(time.perf_counter() - began)
                assert result.structured_content, result
                assert result.structured_content["output"] == "hi", result.structured_content

            for _ in range(5):
                await tool_call()
                bare_round_trip(private, pane, tmux, socket)
            tool.clear()
            if counter is not None:
                counter.reset()
            for index in range(iterations):
                if index % 2:
                    await tool_call()
                    if counter is None:
                        bare.append(bare_round_trip(private, pane, tmux, socket))
                else:
                    if counter is None:
                        bare.append(bare_round_trip(private, pane, tmux, socket))
                    await tool_call()
            result: dict[str, object] = {"tool_ms": [t * 1000 for t in tool]}
            if counter is not None:
                result["tmux_per_call"] = counter.count() / iterations
            else:
                result["bare_ms"] = [b * 1000 for b in bare]
            return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--json", help="also write the results here")
    ns = parser.parse_args()
    load_before = loadavg()
    timing = trio.run(measure, ns.iterations, False)
    counting = trio.run(measure, 20, True)
    load_after = loadavg()
    version = subprocess.run(
        ["tmux", "-V"], capture_output=True, text=True, check=True
    ).stdout.strip()
    tool = timing["tool_ms"]
    bare = timing["bare_ms"]
    assert isinstance(tool, list) and isinstance(bare, list)
    ratio = statistics.median(tool) / statistics.median(bare)
    print(f"run_command 'echo hi', {ns.iterations} calls, milliseconds, {version}")
    print(f"load average {load_before} before, {load_after} after")
    print(f"{'':22}{'median':>10}{'p90':>10}")
    print(f"{'tool (MCP, stdio)':22}{statistics.median(tool):10.2f}{p90(tool):10.2f}")
    print(f"{'bare floor (4+1 tmux)':22}{statistics.median(bare):10.2f}{p90(bare):10.2f}")
    print(
        f"ratio (median)        {ratio:.2f}x   target <= 1.2x  {'PASS' if ratio <= 1.2 else 'FAIL'}"
    )
    per_call = counting["tmux_per_call"]
    print(
        f"tmux processes per call: {per_call}   target <= 3  "
        f"{'PASS' if isinstance(per_call, float) and per_call <= 3 else 'FAIL'}"
    )
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump(
                {
                    "timing": timing,
                    "processes": counting,
                    "ratio": ratio,
                    "tmux": version,
                    "load_before": load_before,
                    "load_after": load_after,
                },
                f,
                indent=2,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
