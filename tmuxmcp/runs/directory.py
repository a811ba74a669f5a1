"""The private directory of ``run_command``'s files: where it is made and who it belongs to.

A tmuxmcp process keeps its runs' scripts, commands and FIFOs in one private
directory ``tmuxmcp-XXXX`` (mode 0700, ``tempfile.mkdtemp``) in
``directory_base``. It removes the directory when it stops, unless a command
it started still runs: that command's shell will still open the FIFOs and
source ``t<k>`` when it ends. A process killed (SIGKILL, the OOM killer)
removes nothing. So the directory records who may still use it, and a
tmuxmcp starting up removes the ones nobody can use any more
(``run_sweep``, which reads these records).

Rule 1: the first file of a directory is ``owner`` (``O_EXCL | O_NOFOLLOW``,
  0600): the boot id, the pid namespace, and the pid and start time of the
  tmuxmcp process that made it. A pid with another start time is another
  process: pids are reused, (pid, start time) on one boot is not.
Rule 2: before a run's line is typed, ``p<k>`` records the pid and start time
  of the shell that will source its files (rewritten, by rename, when the
  pane is checked again). It is removed when the run is closed and its script
  will not look for its files again; a run that outlives tmuxmcp keeps it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

import msgspec

from tmuxmcp.driver.proc import PROC, boot_id, pid_namespace, start_time

PREFIX = "tmuxmcp-"
OWNER_FILE = "owner"
SHELL_PREFIX = "p"


class ProcessMark(msgspec.Struct, frozen=True, kw_only=True):
    """A process as a directory records it (Rules 1 and 2)."""

    pid: int
    start: int
    """Start time in clock ticks after boot (field 22 of ``/proc/<pid>/stat``)."""
    boot: str = ""
    pid_namespace: int = 0


def directory_base(environ: dict[str, str] | None = None) -> str | None:
    """Where the private directory is made: ``$TMPDIR`` if set, else the first memory
    file system that suits (``$XDG_RUNTIME_DIR`` owned by this user and closed to
    others, or a sticky world-writable ``/dev/shm``), else None (tempfile's default).

    ``mkdtemp`` makes the directory itself 0700 with an unguessable name, so a
    shared sticky base is as safe as ``/tmp``.
    """
    env = os.environ if environ is None else environ
    if env.get("TMPDIR"):
        return None
    candidates = [env["XDG_RUNTIME_DIR"]] if env.get("XDG_RUNTIME_DIR") else []
    # S108: only the base of mkdtemp, which makes a private directory in it.
    for base in [*candidates, "/dev/shm"]:  # noqa: S108
        try:
            info = os.stat(base)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or not os.access(base, os.W_OK | os.X_OK):
            continue
        private = info.st_uid == os.getuid() and not info.st_mode & 0o077
        if private or info.st_mode & stat.S_ISVTX:
            return base
    return None


# -- processes ------------------------------------------------------------------------


def this_process(proc: Path = PROC) -> ProcessMark:
    """This process, as its directory's owner record names it."""
    pid = os.getpid()
    return ProcessMark(
        pid=pid,
        start=start_time(pid, proc) or 0,
        boot=boot_id(proc),
        pid_namespace=pid_namespace(proc),
    )


def running(mark: ProcessMark, proc: Path = PROC) -> bool:
    """Whether the process ``mark`` records still runs (same pid, same start time)."""
    return start_time(mark.pid, proc) == mark.start


# -- records ---------------------------------------------------------------------------


def _write_new(path: str, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def make(base: str | None = None, proc: Path = PROC) -> str:
    """A new private directory in ``base`` with this process's owner record (Rule 1)."""
    directory = tempfile.mkdtemp(prefix=PREFIX, dir=base)
    _write_new(os.path.join(directory, OWNER_FILE), msgspec.json.encode(this_process(proc)))
    return directory


def record_shell(path: str, pid: int, proc: Path = PROC) -> None:
    """Record (or replace) the shell that will source a run's files (Rule 2)."""
    mark = ProcessMark(pid=pid, start=start_time(pid, proc) or 0)
    fresh = f"{path}.new"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(fresh)
    _write_new(fresh, msgspec.json.encode(mark))
    os.replace(fresh, path)


MAX_MARK_BYTES = 4096
"""A record is a few dozen bytes of JSON; a longer file is not one of ours."""


def read_mark(directory_fd: int, name: str) -> ProcessMark | None:
    """The record ``name`` of the directory open as ``directory_fd``; None if unreadable.

    Any process of this user can plant a FIFO, a device, a symlink or a huge
    file under a record's name (issue 18 R4), so the open can never block or
    follow a link (``O_NONBLOCK``, ``O_NOFOLLOW``), and only a regular file of
    this user, no longer than ``MAX_MARK_BYTES``, is read (``fstat`` of what
    was opened, not of the name, which can change in between).
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=directory_fd)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            return None
        if info.st_size > MAX_MARK_BYTES:
            return None
        data = os.read(fd, MAX_MARK_BYTES + 1)
        if len(data) > MAX_MARK_BYTES:  # it grew since the fstat
            return None
        return msgspec.json.decode(data, type=ProcessMark)
    except (OSError, msgspec.DecodeError):
        return None
    finally:
        os.close(fd)
