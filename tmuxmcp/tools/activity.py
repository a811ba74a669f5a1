"""A cheap hint that the tmux server has read pane output: ``/proc/<pid>/io``.

Why: wait_for_text must notice new output within milliseconds without
spawning a tmux client every millisecond (each costs about 1-2 ms of CPU).
The tmux server reads every pane's output from its pty with read(2), and
Linux counts those bytes in ``rchar`` of ``/proc/<server pid>/io``; commands
from tmux clients arrive with recvmsg(2), which ``rchar`` does not count, so
tmuxmcp's own polls do not trigger it. Reading the counter costs about 2 µs
and starts no process. The 2 ms checks run in a worker thread (``watch``):
a trio wakeup costs about 100 µs of CPU on the bench machine, a thread's
sleep about 25 µs, so checking from the event loop would cost 5% of a core
and from a thread about 1.5%. The thread owns a duplicate of the descriptor
and stops within one period when the waiting task ends or is cancelled.

Promises and limits:

* it is only a hint: any pane's output moves it (so a poll may find nothing
  new), and a change that involves no read (a resize, ``clear-history``, a
  pane's program exiting) does not; the caller still polls on a slow safety
  interval;
* the pid is the one the bound server reported, checked against
  ``/proc/<pid>/stat`` (its start time must agree with the server's
  ``start_time`` within 2 s, and its name must start with ``tmux``); when the
  check fails, or /proc is absent or unreadable (another OS, another pid
  namespace, another user), there is no hint and callers fall back to plain
  polling;
* the file descriptor is closed by ``close`` (use it as a context manager);
* ``TMUXMCP_ACTIVITY_HINT=0`` in tmuxmcp's environment turns the hint off
  (bench/bench_wait.py uses it to measure plain polling).
"""

from __future__ import annotations

import os
import threading
import time
from types import TracebackType

import trio

_START_TOLERANCE_S = 2
PERIOD = 0.002
"""Seconds between two reads of the counter while watching."""


def _proc_start_epoch(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
        with open("/proc/stat", "rb") as f:
            boot = f.read().decode("ascii", "replace")
        with open(f"/proc/{pid}/comm", "rb") as f:
            name = f.read().decode("ascii", "replace")
    except OSError:
        return None
    if not name.startswith("tmux"):
        return None
    fields = stat.rpartition(")")[2].split()
    btime = [line.split()[1] for line in boot.splitlines() if line.startswith("btime ")]
    if len(fields) < 20 or not fields[19].isdigit() or not btime or not btime[0].isdigit():
        return None
    return int(btime[0]) + int(fields[19]) / os.sysconf("SC_CLK_TCK")


def _rchar(data: bytes) -> int:
    for line in data.split(b"\n"):
        if line.startswith(b"rchar:"):
            return int(line.split()[1])
    return -1


class ActivityHint:
    """Reports whether the tmux server has read any pane output since last asked."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._last = self._read()

    @classmethod
    def open(cls, pid: int, start_time: int) -> ActivityHint | None:
        """A hint for the server with this identity, or None if none is available."""
        if os.environ.get("TMUXMCP_ACTIVITY_HINT", "1") == "0":
            return None
        started = _proc_start_epoch(pid)
        if started is None or abs(started - start_time) > _START_TOLERANCE_S:
            return None
        try:
            fd = os.open(f"/proc/{pid}/io", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            hint = cls(fd)
        except (OSError, ValueError):
            os.close(fd)
            return None
        if hint._last < 0:
            hint.close()
            return None
        return hint

    def _read(self, fd: int | None = None) -> int:
        return _rchar(os.pread(self._fd if fd is None else fd, 1024, 0))

    def changed(self, fd: int | None = None) -> bool:
        """True if the server read pane output since the last call (or since opening)."""
        try:
            now = self._read(fd)
        except (OSError, ValueError):
            return True  # the server may be gone: let the caller poll and find out
        if now == self._last:
            return False
        self._last = now
        return True

    def _watch(
        self, fd: int, seconds: float, stop: threading.Event, first_change: bool
    ) -> float | None:
        try:
            end = time.monotonic() + seconds
            last: float | None = None
            while True:
                if self.changed(fd):
                    last = time.monotonic()
                    if first_change:
                        break
                remaining = end - time.monotonic()
                if remaining <= 0 or stop.wait(min(PERIOD, remaining)):
                    break
            return None if last is None else time.monotonic() - last
        finally:
            os.close(fd)

    async def watch(self, seconds: float, *, first_change: bool) -> float | None:
        """Check the counter every ``PERIOD`` for up to ``seconds``, in a worker thread.

        Returns how many seconds ago the last change was seen (None: no
        change). With ``first_change`` it returns at the first change.
        """
        if seconds <= 0:
            return None
        stop = threading.Event()
        fd = os.dup(self._fd)
        try:
            return await trio.to_thread.run_sync(
                self._watch, fd, seconds, stop, first_change, abandon_on_cancel=True
            )
        finally:
            stop.set()  # an abandoned (cancelled) thread ends within one period

    def close(self) -> None:
        """Close the descriptor."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> ActivityHint:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
