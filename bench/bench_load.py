"""Load, soak and hostile-sweep harness: many mixed calls from two tmuxmcp processes.

A benchmark, not a test: it prints a report (and JSON with ``--json``) and
exits 0 when it could measure, whatever the figures. ``tests/test_bench_load.py``
runs a short smoke of it.

What it does, and the rules it keeps:

* Rule 1: never the user's tmux. A private ``TMUX_TMPDIR``; the server is
  killed and the directory removed at exit.
* Rule 2: real clients. Two ``python -m tmuxmcp`` processes on one socket
  (two agents), each driven by the official SDK client over stdio; ``--inflight``
  workers share them and pick panes at random, so two processes contend for
  one pane (run_command serializes across processes). With ``--one-pane``,
  one process and one pane: every call of one stdio session names the same
  pane, half of them runs (timeout ``--run-timeout``), so the runs queue in
  that process (issue 27, item 2), and a ``pane-not-ready`` refusal counts
  as an error (nothing else types there; that mix sends no keys).
* Rule 3: a bounded load. ``--calls`` mixed calls (lists, captures,
  run_command, waits, sends, wait_for_command), or ``--soak-seconds`` at a
  steady ``--rate``; every call has a deadline; the loop stops by itself.
* Rule 4: what is reported: errors (a tool result with ``isError`` that the
  mix did not ask for, or an exception), p50/p99 latency per tool, each
  server's RSS, open descriptors and child processes before and after, and
  the tmux server's CPU time.
* Rule 5: the hostile sweep (``--hostile N``) sends N hostile strings (the fuzz
  suite's strategy) to every string parameter of every tool, over the raw
  wire, while a bystander session nobody names is read back with bare tmux
  before and after: it must not change, and every line must be answered.

Run ``python bench/bench_load.py --help``; docs/reliability.md records figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import trio
from benchlib import PrivateTmux, RawClient, children_of, proc_cpu, serve, server_pids
from mcp import ClientSession


class Lab(PrivateTmux):
    """The shared private tmux of the tests (``tests.support``), plus the load's panes."""

    def __init__(self) -> None:
        super().__init__(tempfile.mkdtemp(prefix="tmxl", dir="/tmp"))
        self.panes: list[str] = []

    def tmux(self, *args: str) -> str:
        return self.bare(*args).stdout

    def make_panes(self, count: int) -> None:
        for index in range(count):
            self.panes.append(self.new_session(f"load{index}")["pane_id"])

    def snapshot(self, session: str) -> str:
        """Everything bare tmux shows about one session (for the bystander check)."""
        return "\n".join(
            [
                self.tmux("list-windows", "-t", session, "-F", "#{window_id} #{window_name}"),
                self.tmux("list-panes", "-s", "-t", session, "-F", "#{pane_id} #{pane_title}"),
                self.tmux("capture-pane", "-p", "-t", f"{session}:"),
                self.tmux("show-options", "-t", session),
            ]
        )


def _process_facts(pid: int) -> dict[str, int]:
    rss = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return {"rss_bytes": rss, "fds": fds, "children": len(children_of(pid))}


def _cpu_seconds(pid: int) -> float:
    cpu = proc_cpu(pid)
    assert cpu is not None, f"no /proc/{pid}/stat"
    return cpu[0]


@asynccontextmanager
async def _serve(lab: Lab) -> AsyncIterator[ClientSession]:
    with open(os.devnull, "w") as errlog:
        async with serve(lab.env, errlog=errlog) as session:
            yield session


# -- the mix ------------------------------------------------------------------------


def _call(rng: random.Random, pane: str) -> tuple[str, dict[str, Any], bool]:
    """One call of the mix: tool, arguments, and whether an error result is expected."""
    roll = rng.random()
    if roll < 0.25:
        return "list_panes", {}, False
    if roll < 0.45:
        return "capture_pane", {"pane_id": pane}, False
    if roll < 0.60:
        return (
            "run_command",
            {"pane_id": pane, "command": "echo load-$((6*7))", "timeout": 30},
            False,
        )
    if roll < 0.75:
        return (
            "wait_for_text",
            {"pane_id": pane, "pattern": "$", "scope": "screen", "timeout": 1},
            False,
        )
    if roll < 0.85:
        # A literal word, then nothing: the shell's line editor keeps it until
        # the next Enter; run_command's readiness check may then refuse (expected).
        return "send_keys", {"pane_id": pane, "keys": ["C-u"]}, False
    if roll < 0.95:
        return "list_sessions", {}, False
    return "wait_for_command", {"pane_id": pane, "run_id": "0123456789ab", "timeout": 1}, True


def _one_pane_call(
    rng: random.Random, pane: str, run_timeout: float
) -> tuple[str, dict[str, Any], bool]:
    """One call of the one-pane mix: half of it runs, the rest reads the same pane; no
    keys are sent, so nothing but the queue can hold a run back."""
    roll = rng.random()
    if roll < 0.5:
        command = {"pane_id": pane, "command": "echo load-$((6*7))", "timeout": run_timeout}
        return "run_command", command, False
    if roll < 0.7:
        return "list_panes", {}, False
    if roll < 0.85:
        return "capture_pane", {"pane_id": pane}, False
    if roll < 0.95:
        return (
            "wait_for_text",
            {"pane_id": pane, "pattern": "$", "scope": "screen", "timeout": 1},
            False,
        )
    return "list_sessions", {}, False


EXPECTED_REFUSALS = ("[pane-not-ready]",)
"""run_command may find a pane busy with the other process's command: a refusal, not an error."""


async def load(
    lab: Lab,
    sessions: Sequence[ClientSession],
    *,
    calls: int,
    inflight: int,
    seconds: float | None,
    rate: float | None,
    seed: int,
    one_pane: bool = False,
    run_timeout: float = 30,
) -> dict[str, Any]:
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: list[str] = []
    refusals = 0
    done = 0
    rng = random.Random(seed)
    stop_at = None if seconds is None else time.monotonic() + seconds

    async def worker(index: int) -> None:
        nonlocal done, refusals
        session = sessions[index % len(sessions)]
        interval = None if rate is None else inflight / rate
        while (stop_at is None and done < calls) or (
            stop_at is not None and time.monotonic() < stop_at
        ):
            done += 1
            pane = rng.choice(lab.panes)
            tool, arguments, expect_error = (
                _one_pane_call(rng, pane, run_timeout) if one_pane else _call(rng, pane)
            )
            began = time.perf_counter()
            try:
                with trio.fail_after(300 if one_pane else 60):
                    result = await session.call_tool(tool, arguments)
            except Exception as exc:
                errors.append(f"{tool}: {type(exc).__name__}: {exc}"[:300])
                continue
            latencies[tool].append(time.perf_counter() - began)
            text = getattr(result.content[0], "text", "") if result.content else ""
            if result.is_error and not expect_error:
                if text.startswith(EXPECTED_REFUSALS) and not one_pane:
                    refusals += 1
                else:
                    errors.append(f"{tool}: {text}"[:300])
            elif expect_error and not result.is_error:
                errors.append(f"{tool}: expected an error result")
            if interval is not None:
                await trio.sleep(max(0.0, interval - (time.perf_counter() - began)))

    async with trio.open_nursery() as nursery:
        for index in range(inflight):
            nursery.start_soon(worker, index)
    return {
        "calls": done,
        "errors": len(errors),
        "error_samples": errors[:10],
        "refusals": refusals,
        "latency_ms": {
            tool: {
                "n": len(values),
                "p50": round(statistics.median(values) * 1000, 2),
                "p99": round(sorted(values)[int(len(values) * 0.99) - 1] * 1000, 2),
            }
            for tool, values in sorted(latencies.items())
        },
    }


# -- the hostile sweep ----------------------------------------------------------------


def hostile_sweep(lab: Lab, per_parameter: int, seed: int) -> dict[str, Any]:
    """Hostile strings into every string parameter of every tool, over the raw wire."""
    from hypothesis.errors import NonInteractiveExampleWarning

    from fuzz.strategies import hostile_text
    from tmuxmcp.capability.model import params_of
    from tmuxmcp.definition import DEFINITION

    bystander = lab.new_session("bystander")["pane_id"]
    # "before" must not race the new pane settling: its shell drawing the
    # prompt (a blank screen right after new_session in 2 of 40 tries,
    # measured) and automatic-rename replacing the window's first name
    # ("bash" before, "sh" after, seen in a failed run).
    settled = "#{==:#{window_name},#{pane_current_command}}"
    deadline = time.monotonic() + 10
    while (
        not lab.tmux("capture-pane", "-p", "-t", bystander).strip()
        or lab.tmux("display-message", "-p", "-t", bystander, settled).strip() != "1"
    ):
        if time.monotonic() > deadline:
            raise RuntimeError("the bystander's shell never drew its prompt")
        time.sleep(0.01)
    before = lab.snapshot("bystander")
    base = {
        "pane_id": lab.panes[0],
        "session_id": lab.tmux(
            "display-message", "-p", "-t", lab.panes[0], "#{session_id}"
        ).strip(),
        "window_id": lab.tmux("display-message", "-p", "-t", lab.panes[0], "#{window_id}").strip(),
    }
    random.seed(seed)
    sent = unanswered = 0
    client = RawClient(lab.env, "--toolsets", "inspect,manage,execute", cwd=lab.directory)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NonInteractiveExampleWarning)
            strategy = hostile_text()
            for spec in DEFINITION:
                if spec.name in ("run_command", "send_keys", "paste_buffer"):
                    continue  # they type into panes by design; the bystander is not named anyway
                for param in params_of(spec):
                    for _ in range(per_parameter):
                        arguments = {k: v for k, v in base.items()}
                        arguments[param.name] = strategy.example()
                        if "timeout" in {p.name for p in params_of(spec)}:
                            arguments["timeout"] = 0
                        sent += 1
                        reply = client.request(
                            "tools/call", {"name": spec.name, "arguments": arguments}
                        )
                        if "result" not in reply and "error" not in reply:
                            unanswered += 1
    finally:
        client.close()
    after = lab.snapshot("bystander")
    return {"sent": sent, "unanswered": unanswered, "bystander_unchanged": before == after}


# -- main -----------------------------------------------------------------------------


async def run(ns: argparse.Namespace) -> dict[str, Any]:
    lab = Lab()
    try:
        async with AsyncExitStack() as stack:
            sessions = [
                await stack.enter_async_context(_serve(lab)) for _ in range(1 if ns.one_pane else 2)
            ]
            lab.make_panes(1 if ns.one_pane else ns.panes)
            await trio.sleep(0.5)
            pids = server_pids()
            tmux_pid = int(lab.tmux("display-message", "-p", "#{pid}").strip())
            before = {pid: _process_facts(pid) for pid in pids}
            cpu0 = _cpu_seconds(tmux_pid)
            began = time.monotonic()
            figures = await load(
                lab,
                sessions,
                calls=ns.calls,
                inflight=ns.inflight,
                seconds=ns.soak_seconds,
                rate=ns.rate,
                seed=ns.seed,
                one_pane=ns.one_pane,
                run_timeout=ns.run_timeout,
            )
            wall = time.monotonic() - began
            await trio.sleep(1.0)  # let the last tmux clients be reaped
            after = {pid: _process_facts(pid) for pid in pids}
            figures.update(
                wall_seconds=round(wall, 1),
                servers=[{"before": before[p], "after": after[p]} for p in pids],
                tmux_cpu_seconds=round(_cpu_seconds(tmux_pid) - cpu0, 2),
                loadavg=os.getloadavg(),
            )
        if ns.hostile:
            figures["hostile"] = hostile_sweep(lab, ns.hostile, ns.seed)
        return figures
    finally:
        lab.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=100_000, help="calls in all (load mode)")
    parser.add_argument("--inflight", type=int, default=64, help="calls in flight at once")
    parser.add_argument("--panes", type=int, default=32)
    parser.add_argument(
        "--one-pane",
        action="store_true",
        help="one process, every call on one pane; a pane-not-ready refusal is an error",
    )
    parser.add_argument(
        "--run-timeout", type=float, default=30, help="run_command's timeout (--one-pane)"
    )
    parser.add_argument("--soak-seconds", type=float, help="run for this long instead of --calls")
    parser.add_argument("--rate", type=float, help="calls per second in all (soak mode)")
    parser.add_argument("--hostile", type=int, default=0, help="hostile strings per parameter")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="also write the figures here")
    ns = parser.parse_args(argv)
    figures = trio.run(run, ns)
    text = json.dumps(figures, indent=2)
    sys.stdout.write(text + "\n")
    if ns.json:
        with open(ns.json, "w") as out:
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
