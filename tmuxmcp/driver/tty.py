"""A pane's terminal device, seen from outside: what waits in its input, and discarding it.

tmux writes into a pane's terminal (the pty's master side) whatever it has
to say to the program in it: a client's keys, and its answers to terminal
queries (``ESC [ 6 n`` is answered ``ESC [ row ; col R``). What the program
does not read stays in the terminal's input queue, and the next reader of
the terminal, the shell at its prompt, takes it as typed. This module is the
one place tmuxmcp opens a pane's terminal device (the slave side, never as
its controlling terminal), to look at that queue and to empty it, and to read
its line modes (canonical, echo). It starts no process and changes no
terminal setting.

Rules kept here:

* **Rule 1: the device opened is the process's own terminal.** The path
  (``#{pane_tty}``) is opened only if its device number is the ``tty_nr``
  that ``/proc`` gives for the pane's process (``driver.proc``), so a path
  that now names another terminal is never touched.
* **Rule 2: only a partial line in canonical mode is discarded.** In
  canonical mode the kernel counts (``FIONREAD``) the complete lines
  waiting, not a partial one; a complete line (someone pressed Enter) or a
  terminal in raw mode (where every byte counts) is never discarded here.
  The caller decides whether a partial line may go (``runs.pending``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
import termios
from pathlib import Path
from typing import NamedTuple

from tmuxmcp.driver import proc


def terminal_of(pid: int, procfs: Path = proc.PROC) -> int | None:
    """The device number of ``pid``'s controlling terminal, or ``None`` (none, or unreadable)."""
    return proc.controlling_terminal(pid, procfs)


class LineModes(NamedTuple):
    """What the terminal's line discipline does with what is typed (its ``termios``)."""

    canonical: bool
    """``ICANON``: the kernel collects a whole line (the program reads at Enter)."""
    echo: bool
    """``ECHO``: what is typed is shown; off for a password prompt and for programs that
    draw their own input (a line editor, a pager, an editor)."""


def line_modes(path: str, device: int) -> LineModes | None:
    """The terminal ``path``'s canonical and echo modes, when it is ``device`` (Rule 1);
    ``None`` when it cannot be opened or is another device now. Nothing is changed."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if os.fstat(fd).st_rdev != device:
            return None
        lflag = termios.tcgetattr(fd)[3]
    except (OSError, termios.error):
        return None
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    return LineModes(bool(lflag & termios.ICANON), bool(lflag & termios.ECHO))


def discard_partial_line(path: str, device: int) -> bool:
    """Discard what waits in the input of the terminal ``path`` when it is only a partial
    line of a terminal in canonical mode (Rule 2), and the path is ``device`` (Rule 1).

    True when the input was discarded (it may have been empty already).
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if os.fstat(fd).st_rdev != device:
            return False
        if not termios.tcgetattr(fd)[3] & termios.ICANON:
            return False
        (complete,) = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))
        if complete:
            return False
        termios.tcflush(fd, termios.TCIFLUSH)
        return True
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
