"""Cheap hints that a pane has output: ``/proc/<pid>/io`` counters, no process started.

Every ``/proc`` read goes through ``driver.proc`` (the one reader; its Rule 4
is what keeps these reads cheap for a program with many threads).

Why: the waits must notice new output within milliseconds without spawning a
tmux client every millisecond (each costs about 1-2 ms of CPU). Two counters
are read every ``PERIOD`` (2 ms) from a worker thread (a trio wakeup costs
about 100 µs of CPU on the bench machine, a thread's sleep about 25 µs):

* per pane: ``wchar`` of the pane's processes. Whatever a pane program
  prints it writes with write(2), and Linux counts those bytes in ``wchar``
  of ``/proc/<pid>/io``; a child's counts are added to its parent's when the
  parent reaps it, so the sum over the pane's process (``#{pane_pid}``) and
  its descendants (``/proc/<pid>/task/<tid>/children``) only grows while the
  pane's programs write. A busy neighbour pane does not move it, which is the
  point: the server-wide counter below cannot tell panes apart, so with a
  neighbour printing 100 lines a second the waits fell back to 50 ms polls.
* per server: ``rchar`` of the tmux server. The server reads every pane's
  output from its pty with read(2); commands from tmux clients arrive with
  recvmsg(2), which ``rchar`` does not count, so tmuxmcp's own polls do not
  trigger it. It catches what the pane counter misses: the terminal's own
  echo of typed input (written by the kernel, not by a process), and writes
  to the pane's terminal by processes outside its tree.

A pane event fires at once. A server event that the pane counter does not
explain fires at once after a quiet spell (``QUIET_S``) and otherwise at most
every ``SERVER_GAP_S``, so a busy neighbour costs a poll every 50 ms, not one
per line it prints.

A quiet pane sleeps on its doorbell (issue 29's neighbour). Reading every
2 ms is a thread that wakes 500 times a second: about 2-3 % of a core for
each wait, also for an MCP Task waiting an hour on a pane that prints
nothing. So once no event came for ``IDLE_S``, the thread waits on the
pane's doorbell (``driver.doorbell``: inotify on its terminal device, which
every write(2) to it rings, whoever writes, and ``/dev/tty``) and reads the
counters when it rings, or every ``BACKSTOP`` (20 ms) for what rings
nothing: the terminal's own echo of typed input, written by the kernel and
seen by the server counter when tmux reads it. Input this process sends
(``send-keys``, ``paste-buffer``) stirs every doorbell (``driver.doorbell``
Rule 2a), so its echo is seen at once; only the echo of input another tmux
client sends waits for the backstop. A ring, a stir or an event brings back
the 2 ms readings until the pane is quiet again.
Without a doorbell (no inotify) the readings stay every ``PERIOD``.

Weighed and rejected as per-pane signals: control mode (``%output`` per
pane) attaches a client to a session, which changes tmux state and runs
``client-attached`` hooks, for an observe-only tool; ``pipe-pane`` and hooks
run a shell command on the tmux server (ADR CM-6: no host-shell execution,
and an effect the definition does not declare); ``#{window_activity}`` has
a resolution of one second and needs a tmux client per read; a pty's
timestamps are updated at most every 8 seconds (Linux, by design).

Promises and limits:

* they are only hints: a write to a file by a pane program moves the pane
  counter (a poll finds nothing new), and a change that involves no read or
  write (a resize, ``clear-history``, a pane's program exiting) moves
  neither; callers still poll on a slow safety interval;
* the server pid is the one the bound server reported, checked against
  ``/proc/<pid>/stat`` (its start time must agree with the server's
  ``start_time`` within 2 s, and its name must start with ``tmux``); when the
  check fails, or /proc is absent or unreadable (another OS, another pid
  namespace, another user), there is no hint and callers fall back to plain
  polling. The pane pid comes from the same server; a pane whose process
  cannot be read leaves the server counter alone in charge;
* the descendants are listed again every ``TREE_EVERY`` periods (20 ms); a
  new process's first output can be noticed that much later (its parent's
  counter moves as soon as it exits and is reaped); a listing reads at most
  ``MAX_TASK_READS`` thread ``children`` files, main threads first, so
  children of threads past that budget are left to the server counter;
* a cancelled watch's thread ends within one period, or one ``BACKSTOP``
  while it sleeps on the doorbell (it waits on its own duplicate of the
  doorbell's descriptor, so closing the hint never leaves it on a reused one);
* the cost does not grow with a program's threads (issue 27, N9): each
  process's thread count is read from its main thread's own ``stat``; a
  process with more than ``driver.proc.LISTED_THREADS`` threads has only its
  main thread's ``children`` read (its threads are not listed), and one with
  more than ``driver.proc.SUMMED_THREADS`` has only its main thread's
  counters followed, since the kernel adds up every thread on each read of
  the whole process's (an 8 s wait beside 8,000 sleeping threads cost 1.2 s
  more CPU than beside an idle pane; now about the same). What its other
  threads write, and its reaped children's counts, are then left to the
  server counter;
* reading the counters needs no authority beyond what the user running
  tmuxmcp has over its own processes; nothing is written, started or
  attached;
* descriptors are closed by ``close`` (use it as a context manager);
* ``TMUXMCP_ACTIVITY_HINT=0`` in tmuxmcp's environment turns the hints off,
  ``TMUXMCP_ACTIVITY_HINT=server`` keeps only the server counter
  (bench/bench_wait.py uses both to compare).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import NamedTuple

import trio

from tmuxmcp.driver import doorbell as bell
from tmuxmcp.driver import proc as procfs

_START_TOLERANCE_S = 2
PERIOD = 0.002
"""Seconds between two reads of the counters while watching."""
TREE_EVERY = 10
"""Periods between two listings of the pane's descendants."""
MAX_TREE = 64
"""Processes of a pane followed at most (the pane's own process first)."""
MAX_TASK_READS = 128
"""``children`` files read per listing of the tree, over all its processes' threads."""
QUIET_S = 0.05
"""A server event after this long without one fires at once."""
SERVER_GAP_S = 0.05
"""Otherwise server events fire at most this often."""
IDLE_S = 0.05
"""With a doorbell, no event for this long and the counters are read only when it rings,
or every ``BACKSTOP``."""
BACKSTOP = 0.02
"""Seconds between two readings of the counters while the doorbell is quiet: what does
not ring it (the terminal's own echo of typed input) is seen this late at most."""


def _children(pid: int, budget: int, proc: Path) -> tuple[list[int], int, int | None]:
    """The children of ``pid``'s threads, reading at most ``budget`` ``children`` files;
    the children, how many files were read, and how many threads ``pid`` has.

    The main thread (tid = pid, where shells and most programs fork) is read
    first, then the others while the budget lasts, and only for a process
    with at most ``driver.proc.LISTED_THREADS`` threads (``driver.proc`` Rule 4): a
    process with thousands of threads costs two reads, not a listing of every
    thread (issue 18 R5, issue 27 N9).
    """
    count = procfs.threads(pid, proc)
    if budget <= 0:
        return [], 0, count
    found = procfs.thread_children(pid, pid, proc)
    others = procfs.other_threads(pid, count, budget - 1, proc)
    for tid in others:
        found += procfs.thread_children(pid, tid, proc)
    return found, 1 + len(others), count


class PaneTree:
    """The bytes written so far by a pane's process and its descendants.

    Owned by one watching thread at a time; ``total`` and ``refresh`` are not
    thread-safe.
    """

    def __init__(self, root: int, proc: Path = procfs.PROC) -> None:
        self.root = root
        self._proc = proc
        self._fds: dict[int, int] = {}
        self._whole: dict[int, bool] = {}
        """Whether each followed process's counters are the whole process's (``driver.proc``
        Rule 4: up to ``SUMMED_THREADS`` threads) or its main thread's."""
        self._last: dict[int, int] = {}
        self.refresh()
        self.changed()  # the counts so far are the baseline

    @classmethod
    def open(cls, root: int, proc: Path = procfs.PROC) -> PaneTree | None:
        """The tree under ``root``, or None when its counters cannot be read."""
        if root <= 1:
            return None
        tree = cls(root, proc)
        if root not in tree._fds:
            tree.close()
            return None
        return tree

    def refresh(self) -> None:
        """List the descendants again: follow new processes, drop gone ones.

        At most ``MAX_TASK_READS`` ``children`` files per listing, so the cost
        is bounded in threads as well as in processes. What that loses: a
        child forked by a thread past the budget is not followed until it
        exits (its counts then reach its parent's); until then only the server
        counter sees its output (a hint at most every ``SERVER_GAP_S``). The
        same for what the other threads of a process with more than
        ``SUMMED_THREADS`` threads write: only its main thread's counters are
        read, since the whole process's cost a step per thread on every read
        (``driver.proc`` Rule 4).
        """
        pids = [self.root]
        counts: dict[int, int | None] = {}
        index = 0
        budget = MAX_TASK_READS
        while index < len(pids) and len(pids) < MAX_TREE and budget > 0:
            kids, used, counts[pids[index]] = _children(pids[index], budget, self._proc)
            pids += kids
            budget -= used
            index += 1
        keep = set(pids[:MAX_TREE])
        for pid in [p for p in self._fds if p not in keep]:
            self._drop(pid)
        for pid in keep:
            count = counts.get(pid) if pid in counts else procfs.threads(pid, self._proc)
            whole = count is not None and count <= procfs.SUMMED_THREADS
            if pid in self._fds and self._whole[pid] == whole:
                continue
            switched = pid in self._fds
            if switched:
                self._drop(pid)
            fd = procfs.counters(pid, count, self._proc)
            if fd is None:
                continue
            self._fds[pid], self._whole[pid] = fd, whole
            if switched:
                # Other counters, not new output: their value now is the baseline.
                with contextlib.suppress(OSError, ValueError):
                    self._last[pid] = procfs.counter(fd, b"wchar:")

    def _drop(self, pid: int) -> None:
        os.close(self._fds.pop(pid))
        self._whole.pop(pid, None)
        self._last.pop(pid, None)

    def changed(self) -> bool:
        """True if any followed process wrote since the last call (a new one counts)."""
        moved = False
        for pid, fd in list(self._fds.items()):
            try:
                now = procfs.counter(fd, b"wchar:")
            except (OSError, ValueError):
                now = -1  # gone: its counts move to its parent when it is reaped
            if now < 0:
                self._drop(pid)
                moved = moved or pid == self.root  # the pane's own process ended
                continue
            if self._last.get(pid) != now:
                moved = moved or pid in self._last or now > 0
                self._last[pid] = now
        return moved

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        self._whole.clear()


class Seen(NamedTuple):
    """A change the hint saw: how many seconds ago, and whether it was the pane's."""

    age: float
    pane: bool


class ActivityHint:
    """Reports whether a pane (or the tmux server) has had output since last asked."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._last = self._read()
        self._tree: PaneTree | None = None
        self._server_seen = 0.0
        """When the server counter last moved (monotonic)."""
        self._fired = 0.0
        """When the last event fired (monotonic)."""
        self._bell: bell.Doorbell | None = None
        """The pane's doorbell (``driver.doorbell``), opened with its tree."""
        self._stirred = 0.0
        """When the last event fired or the doorbell last rang (monotonic): until ``IDLE_S``
        after it the counters are read every ``PERIOD``."""
        self._lock = threading.Lock()
        """Guards the tree: a cancelled wait's thread may still run one period after close."""

    def follow(self, pane_pid: int) -> None:
        """Follow the processes of the pane whose process is ``pane_pid`` (again if it changed)."""
        if os.environ.get("TMUXMCP_ACTIVITY_HINT", "1") == "server":
            return
        with self._lock:
            if self._tree is not None:
                if self._tree.root == pane_pid:
                    return
                self._tree.close()
            if self._bell is not None:
                self._bell.close()
            self._tree = PaneTree.open(pane_pid)
            self._bell = None if self._tree is None else bell.Doorbell.open(pane_pid)

    @classmethod
    def open(cls, pid: int, start_time: int) -> ActivityHint | None:
        """A hint for the server with this identity, or None if none is available."""
        if os.environ.get("TMUXMCP_ACTIVITY_HINT", "1") == "0":
            return None
        started = procfs.start_epoch(pid)
        if started is None or abs(started - start_time) > _START_TOLERANCE_S:
            return None
        fd = procfs.server_counters(pid)
        if fd is None:
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
        return procfs.counter(self._fd if fd is None else fd, b"rchar:")

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

    def _event(self, fd: int, now: float, periods: int) -> bool | None:
        """One period's reading: True for a pane event, False for a server event, or None."""
        with self._lock:
            tree = self._tree
            if tree is not None and periods % TREE_EVERY == 0:
                tree.refresh()
            pane = tree is not None and tree.changed()
        server = self.changed(fd)
        quiet = False
        if server:
            quiet = now - self._server_seen >= QUIET_S
            self._server_seen = now
        if pane or tree is None:
            # Without a tree every server event is the pane's (the old, server-wide hint).
            if pane or server:
                self._fired = now
                return True
            return None
        if server and (quiet or now - self._fired >= SERVER_GAP_S):
            self._fired = now
            return False
        return None

    def _watch(
        self,
        fd: int,
        ring: tuple[int, ...] | None,
        seconds: float,
        stop: threading.Event,
        first_change: bool,
    ) -> Seen | None:
        """The watching thread: the counters every ``PERIOD`` while the pane stirs; once
        quiet for ``IDLE_S``, when the doorbell ``ring`` rings, or every ``BACKSTOP``."""
        try:
            end = time.monotonic() + seconds
            last: float | None = None
            pane = False
            periods = 0
            asleep = False
            while True:
                now = time.monotonic()
                event = self._event(fd, now, periods)
                periods += 1
                if event is not None:
                    last, pane, self._stirred = now, pane or event, now
                    if first_change:
                        break
                remaining = end - time.monotonic()
                if remaining <= 0 or stop.is_set():
                    break
                if ring is None or now - self._stirred < IDLE_S:
                    asleep = False
                    if stop.wait(min(PERIOD, remaining)):
                        break
                elif not asleep:
                    # Rings so far came while the counters were read anyway; read them
                    # once more after forgetting those, so no write falls between.
                    for one in ring:
                        bell.drain(one)
                    asleep = True
                elif bell.wait_ring(ring, min(BACKSTOP, remaining)):
                    self._stirred = time.monotonic()
            return None if last is None else Seen(time.monotonic() - last, pane)
        finally:
            os.close(fd)
            for one in ring or ():
                os.close(one)

    async def watch(self, seconds: float, *, first_change: bool) -> Seen | None:
        """Check the counters every ``PERIOD`` for up to ``seconds``, in a worker thread.

        Returns how many seconds ago the last event was seen and whether any
        was the pane's (None: no event). With ``first_change`` it returns at
        the first event.
        """
        if seconds <= 0:
            return None
        stop = threading.Event()
        fd = os.dup(self._fd)
        with self._lock:
            ring = None if self._bell is None else tuple(os.dup(one) for one in self._bell.fds)
        try:
            return await trio.to_thread.run_sync(
                self._watch, fd, ring, seconds, stop, first_change, abandon_on_cancel=True
            )
        finally:
            stop.set()  # an abandoned (cancelled) thread ends within one period

    def settle(self) -> None:
        """Forget what happened so far: only events from now on fire the next watch."""
        self.changed()
        with self._lock:
            if self._tree is not None:
                self._tree.changed()

    def close(self) -> None:
        """Close the descriptors."""
        with self._lock:
            if self._tree is not None:
                self._tree.close()
                self._tree = None
            if self._bell is not None:
                self._bell.close()
                self._bell = None
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
