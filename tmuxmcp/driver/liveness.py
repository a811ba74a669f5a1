"""Whether the bound tmux server process has exited (issue 13, item 4).

A tmux client whose server goes away in the middle of its command list does
not always say so: with ``kill-server`` or SIGTERM the server tells its
clients to exit and they exit 0 (or 1, cut off) with nothing on stderr and
without the gate's line on stdout (recorded on 3.3a, 3.5a and 3.6a). Such a
silent failure is told apart from a tmux error here, by asking the kernel
about the server's process rather than by guessing from the missing text.

Rule 1: only a silent failure is examined; any tmux error prints text, and a
  server that printed an error is running.
Rule 2: a server that is going away may outlive its clients for a moment, so
  its exit is awaited, on a pidfd (readable once the process has exited, a
  zombie included), for at most ``EXIT_GRACE`` seconds. A process that is
  still running after that is a running server.
Rule 3: the pid is the one the bound server reported for itself at startup
  (``#{pid}``). A pid that names no process means the server is gone. (A
  server in another pid namespace reports a pid that means nothing here; a
  silent failure then reads as gone only if no process here has that pid,
  and otherwise as the failed command it also is.)
"""

from __future__ import annotations

import contextlib
import os

import trio

from tmuxmcp.driver.proc import running

EXIT_GRACE = 1.0
"""Seconds a silent failure waits for the server process to finish exiting."""
_POLL = 0.01
"""Where there is no pidfd: how often the process table is asked."""


async def wait_server_exited(pid: int, grace: float = EXIT_GRACE) -> bool:
    """True if the server process ``pid`` has exited, or exits within ``grace`` seconds."""
    if pid <= 0:
        return False
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    except (AttributeError, OSError):  # no pidfds here: ask the process table
        for _ in range(max(1, round(grace / _POLL))):
            if not running(pid):
                return True
            await trio.sleep(_POLL)
        return not running(pid)
    try:
        with trio.move_on_after(grace):
            await trio.lowlevel.wait_readable(pidfd)
            return True
        return False
    finally:
        with contextlib.suppress(OSError):
            trio.lowlevel.notify_closing(pidfd)
        os.close(pidfd)
