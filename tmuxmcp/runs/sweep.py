"""The sweep a tmuxmcp runs at startup: the run directories nobody can use any more go.

A directory of ``run_command``'s files stays behind when its tmuxmcp was
killed, or stopped while a command it started still ran
(``run_directory``). The sweep reads the records such a directory holds and
the processes in /proc, and removes it only when no process can still use it.

Rule 1: a directory of ``base`` is removed only when all of these hold: its
  name begins ``tmuxmcp-``; ``lstat`` finds a real directory (never a
  symlink), owned by this user, closed to everyone else, and opening it
  without following links finds that same directory; its owner record is of
  this boot and this pid namespace (a process elsewhere cannot be judged) and
  names a process that is gone; and no shell it records can still use it.
Rule 2: a recorded shell can still use its directory while it runs and
  either holds a file of it open (the script holds ``g<k>`` open from its
  start to its end) or was recorded less than ``SHELL_GRACE`` ago (the
  moments, before the script opens ``g<k>`` and after it closes it, in which
  it holds nothing). A record that cannot be read keeps the directory.
Rule 3: a directory without an owner record was made by a tmuxmcp before
  these records, or is being made this instant (``mkdtemp``, then
  ``owner``): it is removed only when it last changed ``UNOWNED_GRACE`` ago
  or more, no other process of this user has a file of it open or works in
  it, and none that names ``tmuxmcp`` on its command line and started before
  the directory last changed still runs (its owner may be one, idle between
  runs and holding nothing open).
Rule 4: the sweep never raises: a directory it cannot judge is kept. Two
  processes sweeping at once remove a directory at most once between them
  (the loser finds it gone); a directory whose owner is gone gains no new run,
  so a verdict once reached stays true while the directory is removed
  (``shutil.rmtree`` relative to the opened base, which does not follow links).
  /proc is read once per sweep for Rule 3, and only when a directory needs it.
Rule 5: the sweep opens nothing that can block and reads nothing unbounded
  (issue 18 R4): any process of this user can plant entries under a base.
  Records are read by ``run_directory.read_mark`` (regular files only,
  non-blocking, checked after the open); an ``owner`` that is there but is
  not such a record keeps its directory (Rule 4), never sends it to Rule 3.
  At most ``MAX_CANDIDATES`` names of a base and ``MAX_ENTRIES`` entries of a
  directory are looked at; a directory with more is kept, and the rest of a
  base waits for a later start.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

from tmuxmcp.driver import proc as procfs
from tmuxmcp.driver.proc import PROC, Inode
from tmuxmcp.runs.directory import (
    OWNER_FILE,
    PREFIX,
    SHELL_PREFIX,
    read_mark,
    running,
    this_process,
)

SHELL_GRACE = 60.0
"""Seconds a recorded shell that holds nothing open still keeps its directory (Rule 2)."""
UNOWNED_GRACE = 600.0
"""Seconds after its last change a directory without an owner record is kept (Rule 3)."""

START_SLACK = 2.0
"""Seconds a process may have started after a directory's last change and still count
as started before it (Rule 3): start times are known to a second (``btime``)."""

MAX_CANDIDATES = 256
"""Most ``tmuxmcp-`` names of a base one sweep judges (Rule 5)."""
MAX_ENTRIES = 1024
"""Most entries of a directory the sweep lists; a run directory holds a few per run."""


def _holds(pid: int, inodes: set[Inode], proc: Path) -> bool:
    """Whether ``pid`` has one of ``inodes`` open or as its working directory (True when
    that cannot be read: the caller keeps the directory)."""
    try:
        held = procfs.held_files(pid, proc)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return bool(held & inodes)


class _Census:
    """This user's other processes, read from /proc once: what they hold open, and when
    each one naming tmuxmcp started (None: unknown)."""

    def __init__(self, proc: Path) -> None:
        self.held: set[Inode] = set()
        self.unreadable = False
        self.tmuxmcp_starts: list[float | None] = []
        uid, me = os.getuid(), os.getpid()
        boot = procfs.boot_time(proc)
        ticks = os.sysconf("SC_CLK_TCK")
        try:
            others = [pid for pid in procfs.pids(proc) if pid != me]
        except OSError:
            self.unreadable = True
            return
        for pid in others:
            try:
                if procfs.entry_uid(pid, proc) != uid:
                    continue
                held = procfs.held_files(pid, proc)
                command = procfs.command_line(pid, proc)
            except (FileNotFoundError, ProcessLookupError):
                continue  # it exited meanwhile
            except OSError:
                self.unreadable = True
                continue
            self.held |= held
            if b"tmuxmcp" in command:
                started = procfs.start_time(pid, proc)
                if boot is None or started is None:
                    self.tmuxmcp_starts.append(None)
                else:
                    self.tmuxmcp_starts.append(boot + started / ticks)

    def may_use(self, inodes: set[Inode], changed: float) -> bool:
        """Whether a process could use a directory of ``inodes`` that last changed at
        ``changed`` (Rule 3)."""
        if self.unreadable or self.held & inodes:
            return True
        return any(start is None or start <= changed + START_SLACK for start in self.tmuxmcp_starts)


class _Sweep:
    def __init__(self, proc: Path, now: float) -> None:
        self.proc = proc
        self.now = now
        self.ours = this_process(proc)
        self._census: _Census | None = None

    def census(self) -> _Census:
        if self._census is None:
            self._census = _Census(self.proc)
        return self._census

    def unused(self, directory_fd: int, info: os.stat_result) -> bool:
        """Whether nobody can use the directory any more (Rules 1 to 3)."""
        entries = _entries(directory_fd)
        if entries is None:  # more than tmuxmcp writes: not judged (Rule 5)
            return False
        inodes = {(info.st_dev, info.st_ino)} | {(e.st_dev, e.st_ino) for e in entries.values()}
        if OWNER_FILE not in entries:  # Rule 3
            changed = max(info.st_mtime, info.st_ctime)
            if self.now - changed < UNOWNED_GRACE:
                return False
            return not self.census().may_use(inodes, changed)
        owner = read_mark(directory_fd, OWNER_FILE)
        ours = self.ours
        # An owner that is there but is not a record cannot be judged (Rules 4, 5).
        if (
            owner is None
            or not ours.boot
            or (owner.boot, owner.pid_namespace) != (ours.boot, ours.pid_namespace)
            or running(owner, self.proc)
        ):
            return False
        # The owner is gone, so no shell record is written after this read.
        return not any(
            name.startswith(SHELL_PREFIX) and self._shell_may_use(directory_fd, name, entry, inodes)
            for name, entry in entries.items()
        )

    def _shell_may_use(
        self, directory_fd: int, name: str, entry: os.stat_result, inodes: set[Inode]
    ) -> bool:
        """Whether the shell recorded in ``name`` can still use the directory (Rule 2)."""
        if not stat.S_ISREG(entry.st_mode):
            return False
        shell = read_mark(directory_fd, name)
        if shell is None:
            return True
        if not running(shell, self.proc):
            return False
        return self.now - entry.st_mtime < SHELL_GRACE or _holds(shell.pid, inodes, self.proc)


def _entries(directory_fd: int) -> dict[str, os.stat_result] | None:
    """The directory's entries, not followed; None past ``MAX_ENTRIES`` (Rule 5)."""
    entries: dict[str, os.stat_result] = {}
    with os.scandir(directory_fd) as listing:
        for entry in listing:
            if len(entries) >= MAX_ENTRIES:
                return None
            with contextlib.suppress(OSError):
                entries[entry.name] = entry.stat(follow_symlinks=False)
    return entries


def _judge(base_fd: int, name: str, sweep: _Sweep) -> bool:
    """Whether ``name`` in the base is a directory of this user that nobody can use."""
    info = os.stat(name, dir_fd=base_fd, follow_symlinks=False)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return False
    if stat.S_IMODE(info.st_mode) & 0o077:
        return False
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    directory_fd = os.open(name, flags, dir_fd=base_fd)
    try:
        return os.path.samestat(info, os.fstat(directory_fd)) and sweep.unused(directory_fd, info)
    finally:
        os.close(directory_fd)


def sweep(base: str | None = None, proc: Path = PROC, now: float | None = None) -> list[str]:
    """Remove the directories of ``base`` that nobody can use any more; their paths.

    ``base`` None: tempfile's default directory, where ``run_directory.make``
    puts them then. ``proc`` and ``now`` are for tests (another view of the
    processes, a later moment).
    """
    base = tempfile.gettempdir() if base is None else base
    judge = _Sweep(proc, time.time() if now is None else now)
    removed: list[str] = []
    try:
        base_fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return removed
    try:
        names: list[str] = []
        with os.scandir(base_fd) as listing:
            for entry in listing:
                if entry.name.startswith(PREFIX):
                    names.append(entry.name)
                    if len(names) >= MAX_CANDIDATES:
                        break
        for name in names:
            with contextlib.suppress(OSError):
                if _judge(base_fd, name, judge):
                    shutil.rmtree(name, dir_fd=base_fd)
                    removed.append(os.path.join(base, name))
    except OSError:
        pass
    finally:
        os.close(base_fd)
    return removed
