"""Probe: does starting tmux on a worker thread free trio's loop for concurrent calls (issue 31.1)?

A probe, not a test: it prints medians and asserts nothing. ``_spawn`` calls
``posix_spawn`` on the event loop's thread, which returns once the child has
exec'd (0.1 ms idle, milliseconds under load), so concurrent calls start their
children one after another. Variant ``loop`` is ``_spawn`` as it is; variant
``thread`` is the same steps with ``_start`` (pipes, ``posix_spawn``, pidfd)
run by ``trio.to_thread.run_sync``. Each variant runs, alternately:

* one ``display-message`` at a time (paired per iteration);
* eight at once, with a task that yields to the loop in a tight loop and
  records its longest wait (the loop's longest stall while they start).

    python bench/probe_spawn_thread.py --iterations 400
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import time
from collections.abc import Mapping, Sequence

import trio
from benchlib import bench_tmux

from tmuxmcp.driver import _spawn
from tmuxmcp.driver._spawn import Completed, _Descriptors, _drain, _start, _wait_reaped

LOOP = _spawn._run_spawned


async def _threaded(argv: Sequence[str], env: Mapping[str, str], stdin: bytes | None) -> Completed:
    """``_spawn._run_spawned`` with the spawn on a worker thread (no stdin: the probe
    sends none)."""
    assert stdin is None
    fds = _Descriptors()
    out: list[bytes] = []
    err: list[bytes] = []
    try:
        child = await trio.to_thread.run_sync(_start, argv, env, False, fds)
        returncode: int | None = None
        try:
            for fd in (child.stdout, child.stderr):
                os.set_blocking(fd, False)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_drain, child.stderr, err)
                await _drain(child.stdout, out)
            returncode = await _wait_reaped(child.pid, child.pidfd)
        finally:
            if returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(child.pidfd, signal.SIGKILL)
                with trio.CancelScope(shield=True), contextlib.suppress(ChildProcessError):
                    await _wait_reaped(child.pid, child.pidfd)
    finally:
        fds.close_all()
    return Completed(returncode, b"".join(out), b"".join(err))


VARIANTS = {"loop": LOOP, "thread": _threaded}


async def _call(argv: list[str], env: Mapping[str, str], variant: str) -> float:
    _spawn._run_spawned = VARIANTS[variant]  # type: ignore[assignment]
    began = time.perf_counter()
    done = await _spawn.run_argv(argv, env=env, seconds=10)
    if done.returncode != 0:
        raise SystemExit(f"bench: tmux failed: {done.stderr!r}")
    return (time.perf_counter() - began) * 1000


async def _at_once(
    argv: list[str], env: Mapping[str, str], variant: str, count: int
) -> tuple[float, float, float]:
    """Wall time of ``count`` calls started together, their median, the longest stall."""
    times: list[float] = []
    gaps: list[float] = []
    done = trio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await trio.sleep(0)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    async def one() -> None:
        times.append(await _call(argv, env, variant))

    async with trio.open_nursery() as outer:
        outer.start_soon(ticker)
        began = time.perf_counter()
        async with trio.open_nursery() as calls:
            for _ in range(count):
                calls.start_soon(one)
        wall = (time.perf_counter() - began) * 1000
        done.set()
    return wall, statistics.median(times), max(gaps) * 1000


async def _measure(argv: list[str], env: Mapping[str, str], ns: argparse.Namespace) -> None:
    single: dict[str, list[float]] = {name: [] for name in VARIANTS}
    together: dict[str, list[tuple[float, float, float]]] = {name: [] for name in VARIANTS}
    for _ in range(10):  # warm-up
        for name in VARIANTS:
            await _call(argv, env, name)
    for index in range(ns.iterations):
        for name in list(VARIANTS)[:: 1 if index % 2 == 0 else -1]:
            single[name].append(await _call(argv, env, name))
    for index in range(ns.iterations // 4):
        for name in list(VARIANTS)[:: 1 if index % 2 == 0 else -1]:
            together[name].append(await _at_once(argv, env, name, ns.concurrent))
    print(f"{'variant':<8} {'one call':>9} {'p90':>7} {'all ' + str(ns.concurrent):>8} "
          f"{'per call':>9} {'stall':>7}  (medians, ms)")  # fmt: skip
    for name in VARIANTS:
        rows = together[name]
        print(
            f"{name:<8} {statistics.median(single[name]):>9.3f} "
            f"{sorted(single[name])[int(len(single[name]) * 0.9)]:>7.3f} "
            f"{statistics.median(r[0] for r in rows):>8.3f} "
            f"{statistics.median(r[1] for r in rows):>9.3f} "
            f"{statistics.median(r[2] for r in rows):>7.3f}"
        )
    paired = [a - b for a, b in zip(single["loop"], single["thread"], strict=True)]
    print(f"one call, paired loop - thread: {statistics.median(paired):.3f} ms")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=400)
    p.add_argument("--concurrent", type=int, default=8)
    ns = p.parse_args()
    if not _spawn.USE_PIDFD:
        raise SystemExit("bench: this platform has no pidfd; _spawn uses trio.run_process")
    with bench_tmux("tps") as tmux:
        tmux.bare("-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50")
        argv = tmux.argv("display-message", "-p", "#{pane_id}")
        print(f"load {os.getloadavg()}")
        trio.run(_measure, argv, tmux.env, ns)
        print(f"load {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
