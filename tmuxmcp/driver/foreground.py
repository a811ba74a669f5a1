"""Who holds a pane's terminal, and whether it is reading it: the kernel's facts (issue 28.1).

A program's text decides nothing here (``style.md`` rule 20): a prompt can
say "Password:" or "$ " whatever it waits for. What the terminal waits for
is in the kernel: the terminal's foreground process group (``tpgid``), what
each of its processes is blocked in (``/proc/<pid>/syscall``), which file a
read is on, and the line discipline's modes (``termios``). This module reads
those facts for one pane, once; ``panes.pane_state`` decides the state from
them. It starts no process and writes nothing.

Rules kept here:

* **Rule 1: one ``tpgid`` decides.** The foreground group is read once, from
  the pane's own process, and every later fact is read for that group, so a
  job ending between two reads cannot mix two foregrounds.
* **Rule 2: the whole group, bounded.** Under ``git log`` or ``man`` the
  group's leader waits for a child and the child (the pager) reads the
  terminal: every member below the pane's process is looked at, at most
  ``proc.MAX_DESCENDANTS`` processes.
* **Rule 3: a read of the terminal is proven by its device.** A member
  blocked in ``read`` on a descriptor whose device is the pane's terminal (or
  ``/dev/tty`` while its controlling terminal is the pane's) is a *proven*
  reader; one blocked in ``poll``/``select`` with the terminal open is an
  *inferred* one (the call's descriptor sets are not in ``/proc``).
* **Rule 4: a hidden member is not a reader we can see.** Another user's
  process (``su``, ``sudo``) shows its state but not its system call; it is
  reported ``hidden`` and the caller decides from the line modes alone,
  which the kernel shows for any terminal this user can open.
* **Rule 5: the terminal is opened only as itself** (``driver.tty`` Rule 1):
  a dead pane's ``pane_tty`` may name a terminal since given to another pane.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Final, Literal

import msgspec

from tmuxmcp.driver import proc, tty

READS: Final = {"x86_64": frozenset({0, 19, 17}), "aarch64": frozenset({63, 65, 67})}
"""System calls that read one descriptor (first argument): read, readv, pread64."""
WAITS: Final = {
    "x86_64": frozenset({7, 23, 270, 271, 232, 281, 441}),
    "aarch64": frozenset({72, 73, 22, 441}),
}
"""System calls that wait on several descriptors: poll, select, pselect6, ppoll,
epoll_wait, epoll_pwait, epoll_pwait2 (arm64 has only the p- forms)."""
_DEV_TTY: Final = os.makedev(5, 0)
"""``/dev/tty``: the calling process's own controlling terminal."""

POSIX_SHELLS: Final = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "ksh93", "mksh", "ash", "yash", "oksh", "busybox"}
)
"""Executables of POSIX shells, by base name (``/bin/sh`` is ``dash`` on Debian)."""
LINE_EDITING_SHELLS: Final = frozenset({"bash", "zsh", "ksh", "ksh93", "mksh", "yash", "oksh"})
"""Shells whose prompt reads keys through their own line editor (the terminal raw):
reading a line in canonical mode, such a shell is in its ``read`` builtin."""


def interactive_arguments(argv: tuple[str, ...]) -> bool:
    """Options only, and no ``-c``: a shell reading commands from its terminal."""
    for arg in argv[1:]:
        if not arg.startswith(("-", "+")) or arg in {"-", "--"}:
            return False
        if arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]:
            return False
    return True


Reading = Literal["terminal", "terminal-inferred", "other", "running", "hidden"]


class Member(msgspec.Struct, frozen=True, kw_only=True):
    """One process of the terminal's foreground group."""

    pid: int
    program: str | None
    """The base name of its executable; ``None`` when hidden (another user's process)."""
    uid: int | None
    state: str
    """One letter as in ``/proc/<pid>/stat``: ``S`` sleeping, ``R`` running, ``D`` in IO,
    ``T`` stopped, ``Z`` exited."""
    reading: Reading
    """``terminal``: blocked in a read of the pane's terminal (proven); ``terminal-inferred``:
    waiting in poll/select with the terminal open; ``other``: blocked on something else
    (a timer, a child, a pipe); ``running``: on a CPU or in IO; ``hidden``: its system
    call cannot be read."""
    argv: tuple[str, ...] | None = None
    """A shell's arguments (at most 4,096 bytes); ``None`` for other programs and when
    hidden. The program's own choice, used only to tell an interactive shell from one
    running a script."""
    read_size: int | None = None
    """The byte count of a proven read (dash reads one byte in its ``read`` builtin and
    8,192 at its prompt)."""


class TerminalReading(msgspec.Struct, frozen=True, kw_only=True):
    """The kernel's facts about one pane's terminal, from one reading."""

    group: int
    """The foreground process group (``tpgid``); 0 or less: none yet."""
    members: tuple[Member, ...]
    """The group's processes, its leader first when it is below the pane's process."""
    modes: tty.LineModes | None
    """The line discipline's modes; ``None`` when the terminal could not be opened."""
    walk_complete: bool
    """False when the walk stopped at its bound (Rule 2)."""


def _arch() -> str:
    return platform.machine()


def _reads_terminal(pid: int, fd: int, device: int, procfs: Path) -> bool:
    found = proc.descriptor_device(pid, fd, procfs)
    if found == device:
        return True
    return found == _DEV_TTY and proc.controlling_terminal(pid, procfs) == device


def _has_terminal_open(pid: int, device: int, procfs: Path) -> bool:
    return any(_reads_terminal(pid, fd, device, procfs) for fd in proc.descriptors(pid, procfs))


def _member(pid: int, state: str, device: int, procfs: Path) -> Member:
    program = proc.executable(pid, procfs)
    uid = proc.owner(pid, procfs)
    # Only a shell's arguments matter (script or prompt): read no other program's.
    argv = proc.arguments(pid, procfs) if (program or "").lstrip("-") in POSIX_SHELLS else None
    if state in ("R", "D"):
        return Member(pid=pid, program=program, uid=uid, argv=argv, state=state, reading="running")
    call = proc.syscall(pid, procfs)
    if call is None:
        # Unreadable (another user's process), or not in a system call at all.
        return Member(pid=pid, program=program, uid=uid, argv=argv, state=state, reading="hidden")
    arch = _arch()
    reading: Reading = "other"
    size: int | None = None
    if call.number in READS.get(arch, ()) and call.args:
        if _reads_terminal(pid, call.args[0], device, procfs):
            reading = "terminal"
            size = call.args[2] if len(call.args) > 2 else None
    elif call.number in WAITS.get(arch, ()) and _has_terminal_open(pid, device, procfs):
        reading = "terminal-inferred"
    return Member(
        pid=pid, program=program, uid=uid, argv=argv, state=state, reading=reading, read_size=size
    )


def read_terminal(pane_pid: int, pane_tty: str, procfs: Path = proc.PROC) -> TerminalReading | None:
    """The facts of the terminal ``pane_pid`` runs on; ``None`` when its process is gone
    or ``/proc`` cannot be read (not Linux)."""
    group = proc.foreground_group(pane_pid, procfs)
    device = proc.controlling_terminal(pane_pid, procfs)
    if group is None or device is None:
        return None
    if group <= 0:
        return TerminalReading(group=group, members=(), modes=None, walk_complete=True)
    walked = proc.descendants(pane_pid, procfs)
    members: list[Member] = []
    for pid in walked:
        fields = proc.stat_fields(pid, procfs)
        if fields is None or len(fields) < 3 or fields[2] != str(group):
            continue
        members.append(_member(pid, fields[0], device, procfs))
    members.sort(key=lambda member: member.pid != group)
    return TerminalReading(
        group=group,
        members=tuple(members),
        modes=tty.line_modes(pane_tty, device),
        walk_complete=len(walked) < proc.MAX_DESCENDANTS,
    )
