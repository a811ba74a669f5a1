"""Probe: does reading a tmux client's output from memfds beat pipes (issue 31.1)?

A probe, not a test: it prints medians and asserts nothing. One tmux call,
the same argv, run in turn (rotated each iteration, so load hits all alike) by:

* ``bare``: ``subprocess.run(argv, capture_output=True)``, the floor;
* ``pipes``: ``_spawn.run_argv`` with ``USE_MEMFD`` off: stdout and stderr
  are pipes, drained with ``trio.lowlevel.wait_readable`` to EOF;
* ``memfd``: ``_spawn.run_argv`` as shipped: stdout and stderr are memfds,
  read once after the pidfd says the child exited;
* ``memfd+pipe``: stdout a memfd, stderr a pipe drained to EOF meanwhile
  (the alternative that was measured against two memfds, not shipped).

Three calls: ``display-message -p``, ``list-panes -a -F`` (five fields),
and a capture of 10,000 history lines of 37 characters
(``capture-pane -p -S -10000 -E -1``, about 370 KB).

    python bench/probe_spawn_output.py --iterations 200
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import time
from collections.abc import Mapping, Sequence

import trio
from benchlib import bench_tmux, fill_pane, loadavg, p90, rotated

from tmuxmcp.driver import _spawn
from tmuxmcp.driver._spawn import Completed, _Descriptors, _drain, _read_memory, _wait_reaped

SHIPPED = _spawn._run_spawned
LIST_FORMAT = "#{pane_id} #{pane_pid} #{pane_current_command} #{window_id} #{session_name}"


async def _memfd_stdout_pipe_stderr(
    argv: Sequence[str], env: Mapping[str, str], stdin: bytes | None
) -> Completed:
    """``_spawn._run_spawned`` with stdout a memfd and stderr a pipe (no stdin: the
    probe sends none)."""
    assert stdin is None
    fds = _Descriptors()
    err: list[bytes] = []
    try:
        out_fd = fds.memfd("probe-stdout")
        err_read, err_write = fds.pipe()
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, out_fd, 1),
            (os.POSIX_SPAWN_DUP2, err_write, 2),
        ]
        pid = os.posix_spawn(argv[0], list(argv), dict(env), file_actions=actions)
        fds.close(err_write)
        pidfd = fds.adopt(os.pidfd_open(pid))
        returncode: int | None = None
        try:
            os.set_blocking(err_read, False)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_drain, err_read, err)
                returncode = await _wait_reaped(pid, pidfd)
            out = _read_memory(out_fd)
        finally:
            if returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                with trio.CancelScope(shield=True), contextlib.suppress(ChildProcessError):
                    await _wait_reaped(pid, pidfd)
    finally:
        fds.close_all()
    assert returncode is not None
    return Completed(returncode, out, b"".join(err))


async def _call(argv: list[str], env: Mapping[str, str], variant: str) -> tuple[float, bytes]:
    began = time.perf_counter()
    if variant == "bare":
        done = subprocess.run(argv, capture_output=True, env=dict(env), check=False)
        code, out = done.returncode, done.stdout
    else:
        _spawn.USE_MEMFD = variant != "pipes"
        _spawn._run_spawned = _memfd_stdout_pipe_stderr if variant == "memfd+pipe" else SHIPPED
        got = await _spawn.run_argv(argv, env=env, seconds=10)
        code, out = got.returncode, got.stdout
    elapsed = (time.perf_counter() - began) * 1000
    if code != 0:
        raise SystemExit(f"bench: tmux failed in {variant}")
    return elapsed, out


async def _measure(
    calls: dict[str, list[str]], env: Mapping[str, str], variants: list[str], iterations: int
) -> None:
    print(f"{'call':<12} {'variant':<11} {'median':>8} {'p90':>8} {'out bytes':>10}  (ms)")
    for label, argv in calls.items():
        times: dict[str, list[float]] = {name: [] for name in variants}
        sizes: dict[str, set[int]] = {name: set() for name in variants}
        for index in range(-10, iterations):  # ten untimed rounds first
            for name in rotated(variants, index):
                elapsed, out = await _call(argv, env, name)
                sizes[name].add(len(out))
                if index >= 0:
                    times[name].append(elapsed)
        for name in variants:
            shown = ",".join(str(n) for n in sorted(sizes[name]))
            print(
                f"{label:<12} {name:<11} {statistics.median(times[name]):>8.3f} "
                f"{p90(times[name]):>8.3f} {shown:>10}"
            )
        paired = [a - b for a, b in zip(times["memfd"], times["pipes"], strict=True)]
        print(f"{label:<12} memfd - pipes, median of paired differences: "
              f"{statistics.median(paired):+.3f} ms")  # fmt: skip


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--lines", type=int, default=10000)
    p.add_argument("--stderr-pipe", action="store_true", help="also the memfd+pipe variant")
    ns = p.parse_args()
    if not (_spawn.USE_PIDFD and _spawn.USE_MEMFD):
        raise SystemExit("bench: this platform has no pidfd or no memfd")
    variants = ["bare", "pipes", "memfd"] + (["memfd+pipe"] if ns.stderr_pipe else [])
    with bench_tmux("tpo") as tmux:
        # 37 characters a line with seq's "line N ": the probe of the issue.
        fill_pane(tmux, ns.lines + 60, 200, 50, filler="x" * 26)
        calls = {
            "display -p": tmux.argv("display-message", "-p", "#{pane_id}"),
            "list-panes": tmux.argv("list-panes", "-a", "-F", LIST_FORMAT),
            "capture 10k": tmux.argv(
                "capture-pane", "-p", "-t", "bench", "-S", f"-{ns.lines}", "-E", "-1"
            ),
        }
        print(f"load {loadavg()}")
        trio.run(_measure, calls, tmux.env, variants, ns.iterations)
        print(f"load {loadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
