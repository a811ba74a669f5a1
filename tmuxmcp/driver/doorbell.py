"""A doorbell on a pane's terminal: the kernel says when someone writes to it (inotify).

Why: the activity hint (``panes.activity``) reads its counters every 2 ms,
and a thread that wakes 500 times a second costs about 2-3 % of a core for
each wait, also on a pane that prints nothing for an hour (issue 29's
neighbour: an MCP Task waiting on a quiet pane). Linux tells a write to a
file to whoever watches its inode (``fsnotify_modify`` in ``vfs_write``),
and a terminal device is a file: every write(2) to the pane's terminal, by
the pane's programs or by any other process, and the last close of a
writer (the pane's program exiting), ring a watch on the device's inode. So a
quiet hint can sleep on the doorbell instead of polling, and wakes at once.

Rules:

Rule 1: only a ring, never the news. A ring means "read the counters now":
  what changed is still decided by the counters (``panes.activity``), so a
  ring from something else (``/dev/tty`` is shared by every terminal) costs
  one reading, never a poll of tmux by itself.
Rule 2: what does not ring is the kernel's own echo of typed input (the
  terminal's line discipline writes it, not a process), and writes to the
  pty's master side (tmux itself). The hint keeps reading its counters on a
  slow backstop for those (``panes.activity.BACKSTOP``).
Rule 3: watched: the pane's terminal, found as what its process's
  descriptor 0, 1 or 2 names when that is a character device, and
  ``/dev/tty`` (a program that writes its prompt through ``/dev/tty``, as
  ``sudo`` and ``getpass`` do, writes to that inode, not to the pane's). The
  watch is on the inode: nothing is opened, read or written on the terminal.
Rule 2a: input this process sends stirs every doorbell. Most echo follows
  input tmuxmcp itself typed (``send-keys``, ``paste-buffer``), and the
  driver knows when it sends it: ``stir`` writes a byte to each open
  doorbell's own pipe, which its sleeping watchers wait on beside the
  inotify instance, so they read their counters at once and the echo is
  seen as before. Input another tmux client sends still waits for the
  backstop. The pipes' write ends are written and closed only under one
  lock, so a byte never lands on a descriptor number reused meanwhile.
Rule 4: where inotify is missing (another OS, no libc symbol, no room for a
  watch) there is no doorbell, and the hint polls as it always did.
  Descriptors: one inotify instance per doorbell, closed by ``close`` (in a
  thread: the last close of an instance waits for the kernel's grace
  period); a watcher thread waits on its own duplicate, so a doorbell closed
  under an abandoned thread never leaves it waiting on a reused descriptor.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import stat
import threading
from typing import Final

from tmuxmcp.driver import proc

DESCRIPTORS: Final = 5
"""Descriptors one doorbell holds at most: its inotify instance, its stir pipe's two
ends, and a watcher's duplicates of the instance and the pipe's read end."""
IN_MODIFY: Final = 0x002
IN_CLOSE_WRITE: Final = 0x008
_MASK: Final = IN_MODIFY | IN_CLOSE_WRITE
_SHARED_TERMINAL: Final = "/dev/tty"


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.inotify_init1  # noqa: B018 (raises AttributeError where there is none)
        libc.inotify_add_watch  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


_LIBC: Final = _libc()


def _terminal_of(pid: int) -> str | None:
    """The path of the terminal ``pid`` holds as descriptor 0, 1 or 2 (Rule 3)."""
    for fd in (0, 1, 2):
        path = proc.terminal_path(pid, fd=fd)
        try:
            if stat.S_ISCHR(os.stat(path).st_mode):
                return path
        except OSError:
            continue
    return None


_STIRRED: set[int] = set()
"""The write ends of the open doorbells' stir pipes (Rule 2a)."""
_STIR_LOCK = threading.Lock()


def stir() -> None:
    """This process just sent input to a pane: wake every doorbell (Rule 2a)."""
    with _STIR_LOCK:
        for fd in _STIRRED:
            with contextlib.suppress(OSError):  # full: it is stirred already
                os.write(fd, b"\0")


class Doorbell:
    """An inotify instance watching one pane's terminal and ``/dev/tty``, and the pipe
    ``stir`` writes to."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.stirred, self._stir = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        with _STIR_LOCK:
            _STIRRED.add(self._stir)

    @property
    def fds(self) -> tuple[int, int]:
        """What a watcher waits on: the inotify instance and the stir pipe's read end."""
        return self.fd, self.stirred

    @classmethod
    def open(cls, pane_pid: int) -> Doorbell | None:
        """A doorbell on the terminal of the pane whose process is ``pane_pid``, or None
        (Rule 4)."""
        if _LIBC is None or pane_pid <= 1:
            return None
        terminal = _terminal_of(pane_pid)
        if terminal is None:
            return None
        fd = _LIBC.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            return None
        if _LIBC.inotify_add_watch(fd, os.fsencode(terminal), _MASK) < 0:
            os.close(fd)
            return None
        # Best effort: without it a /dev/tty prompt is seen by the counters' backstop.
        _LIBC.inotify_add_watch(fd, os.fsencode(_SHARED_TERMINAL), IN_MODIFY)
        return cls(fd)

    def close(self) -> None:
        """Close the instance, in a thread of its own: the kernel waits for an RCU grace
        period when the last descriptor of an inotify instance closes (measured: about
        20 ms), which would hold up the caller, the server's event loop."""
        if self.fd >= 0:
            threading.Thread(target=os.close, args=(self.fd,), daemon=True).start()
            self.fd = -1
            with _STIR_LOCK:
                _STIRRED.discard(self._stir)
                os.close(self._stir)
            os.close(self.stirred)


def drain(fd: int) -> None:
    """Read away the rings so far (non-blocking)."""
    with contextlib.suppress(BlockingIOError, OSError):
        while os.read(fd, 4096):
            pass


def wait_ring(fds: tuple[int, ...], seconds: float) -> bool:
    """Wait on duplicates ``fds`` of a doorbell's ``fds`` for up to ``seconds``; whether
    it rang or was stirred. What woke it is read away, so the next wait waits anew."""
    try:
        ready, _, _ = select.select(list(fds), [], [], max(0.0, seconds))
    except (OSError, ValueError):
        return True  # cannot wait on them: let the caller read its counters
    for fd in ready:
        drain(fd)
    return bool(ready)
