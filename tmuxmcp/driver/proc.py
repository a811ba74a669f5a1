"""The one reader of ``/proc``, Linux's process table (issue 21.4).

Every question tmuxmcp asks the kernel about a process by reading ``/proc``
is answered here, so its parsing (the ``stat`` line, whose second field is a
command name that may hold spaces and parentheses) is written once. No
process is started and nothing is written.

Rules kept here:

* **Rule 1: ``stat`` is split after the last ``)``.** The fields before it
  are the pid and the command name a program can choose; the fields after it
  are numbered from the state (index 0), as ``proc(5)`` numbers them from 3.
* **Rule 2: a zombie has exited.** It runs nothing, whatever its entry says;
  ``running`` and ``start_time`` treat it as gone (``Z``, and ``X``, dead).
* **Rule 3: no procfs is not an answer.** Where ``/proc`` cannot be read (not
  Linux, another mount), each function says what it falls back to: ``running``
  keeps what ``kill(pid, 0)`` said, the others return ``None`` or nothing.
* Every function takes the procfs root (``proc``), so a test can point it at
  a directory of its own; the default is the real ``/proc``.
"""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")
"""The real procfs root."""

_EXITED = frozenset({"Z", "X"})
_START_TIME = 19
"""Index of ``starttime`` (proc(5) field 22) after the command name."""


def stat_fields(pid: int, proc: Path = PROC) -> list[str] | None:
    """The fields of ``pid``'s ``stat`` after its command name (Rule 1), or ``None``."""
    try:
        text = (proc / str(pid) / "stat").read_bytes().decode("ascii", "replace")
    except OSError:
        return None
    head, closing, tail = text.rpartition(")")
    fields = tail.split()
    return fields if closing and head and fields else None


def state(pid: int, proc: Path = PROC) -> str | None:
    """``pid``'s state letter (``R``, ``S``, ``T``, ``Z``, ...), or ``None`` if unreadable."""
    fields = stat_fields(pid, proc)
    return None if fields is None else fields[0]


def start_time(pid: int, proc: Path = PROC) -> int | None:
    """When ``pid`` started, in clock ticks after boot; ``None`` if gone or a zombie (Rule 2).

    With the pid, it names one process for as long as the machine runs: a
    later process given the same pid has another start time.
    """
    fields = stat_fields(pid, proc)
    if fields is None or len(fields) <= _START_TIME or fields[0] in _EXITED:
        return None
    value = fields[_START_TIME]
    return int(value) if value.isdigit() else None


_IMAGE = (25, 45, 46, 47, 48)
"""Indexes of ``startstack``, ``arg_start``, ``arg_end``, ``env_start`` and ``env_end``
(proc(5) fields 28 and 48-51) after the command name."""


def image(pid: int, proc: Path = PROC) -> tuple[int, ...] | None:
    """Where ``pid``'s program keeps its stack, arguments and environment in memory; a
    new program (``exec``) gets other addresses under address-space randomization.

    ``None`` if unreadable, or when the kernel hides the addresses (they read as 0
    to a reader not allowed to trace the process): nothing can be told then.
    """
    fields = stat_fields(pid, proc)
    if fields is None or len(fields) <= max(_IMAGE) or fields[0] in _EXITED:
        return None
    values = tuple(int(fields[i]) if fields[i].isdigit() else 0 for i in _IMAGE)
    return values if any(values) else None


def running(pid: int, proc: Path = PROC) -> bool:
    """Whether ``pid`` names a process that has not exited (a zombie has, Rule 2).

    Asked of the kernel with ``kill(pid, 0)`` first; ``/proc`` then tells a
    zombie from a running process, and where it cannot be read the signal's
    answer stands (Rule 3). A pid of 0 or less names no single process and is
    reported running, as ``kill`` would.
    """
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process of that pid: it exists
    letter = state(pid, proc)
    return letter not in _EXITED


def visible(pid: int, proc: Path = PROC) -> bool:
    """Whether ``pid`` has an entry in this procfs (a pid of another pid namespace has none)."""
    return pid > 0 and (proc / str(pid)).is_dir()


def open_descriptors(proc: Path = PROC) -> list[int]:
    """This process's open file descriptors (``self/fd``), the listing's own included."""
    return [int(name) for name in os.listdir(proc / "self" / "fd") if name.isdigit()]
