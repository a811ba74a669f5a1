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
* **Rule 4: what the kernel adds up over every thread is read only where it
  is cheap** (issue 27, N9). ``<pid>/stat`` and ``<pid>/io`` sum every
  thread of the process on each read, so for a program with thousands of
  threads each costs thousands of steps, and listing ``<pid>/task`` makes
  an entry for every thread. ``threads`` reads the count from the main
  thread's own ``task/<pid>/stat``, which sums nothing; ``counters`` opens
  the whole process's write counters only up to ``SUMMED_THREADS`` threads,
  and the main thread's own beyond; ``other_threads`` lists a process's
  threads only up to ``LISTED_THREADS``.
* Every function takes the procfs root (``proc``), so a test can point it at
  a directory of its own; the default is the real ``/proc``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, NamedTuple

PROC = Path("/proc")
"""The real procfs root."""

_EXITED = frozenset({"Z", "X"})
_START_TIME = 19
"""Index of ``starttime`` (proc(5) field 22) after the command name."""
_NUM_THREADS = 17
"""Index of ``num_threads`` (proc(5) field 20) after the command name."""

SUMMED_THREADS = 64
"""Threads up to which ``counters`` follows the whole process (Rule 4)."""
LISTED_THREADS = 128
"""Threads up to which ``other_threads`` lists a process's threads (Rule 4)."""


def _fields(path: Path) -> list[str] | None:
    try:
        text = path.read_bytes().decode("ascii", "replace")
    except OSError:
        return None
    head, closing, tail = text.rpartition(")")
    fields = tail.split()
    return fields if closing and head and fields else None


def stat_fields(pid: int, proc: Path = PROC) -> list[str] | None:
    """The fields of ``pid``'s ``stat`` after its command name (Rule 1), or ``None``."""
    return _fields(proc / str(pid) / "stat")


def threads(pid: int, proc: Path = PROC) -> int | None:
    """How many threads ``pid`` has, or ``None`` if unreadable; from its main thread's own
    ``stat``, whose read costs the same for one thread or thousands (Rule 4)."""
    fields = _fields(proc / str(pid) / "task" / str(pid) / "stat")
    if fields is None or len(fields) <= _NUM_THREADS or not fields[_NUM_THREADS].isdigit():
        return None
    return int(fields[_NUM_THREADS])


def thread_children(pid: int, tid: int | str, proc: Path = PROC) -> list[int]:
    """The children that thread ``tid`` of ``pid`` forked (none if unreadable)."""
    try:
        data = (proc / str(pid) / "task" / str(tid) / "children").read_bytes()
        return [int(kid) for kid in data.split()]
    except (OSError, ValueError):
        return []


def other_threads(pid: int, count: int | None, limit: int, proc: Path = PROC) -> list[str]:
    """At most ``limit`` thread ids of ``pid`` besides its main thread, in listing order.

    ``count`` is what ``threads`` said: with one thread there is nothing to
    list, and past ``LISTED_THREADS`` (or unknown) the listing is not made,
    since the kernel would make an entry for every thread (Rule 4).
    """
    if count is None or count <= 1 or count > LISTED_THREADS or limit <= 0:
        return []
    found: list[str] = []
    try:
        with os.scandir(proc / str(pid) / "task") as tasks:
            for task in tasks:
                if len(found) >= limit:
                    break
                if task.name != str(pid):
                    found.append(task.name)
    except OSError:
        pass
    return found


def counters(pid: int, count: int | None, proc: Path = PROC) -> int | None:
    """A descriptor on ``pid``'s I/O counters (``io``), or ``None`` if it cannot be opened.

    Up to ``SUMMED_THREADS`` threads, the whole process's: every thread's,
    its ended threads' and its reaped children's. Beyond (or unknown), the
    main thread's own, which costs one thread's read; what its other threads
    write is not in it (Rule 4).
    """
    whole = count is not None and count <= SUMMED_THREADS
    path = proc / str(pid) / "io" if whole else proc / str(pid) / "task" / str(pid) / "io"
    try:
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None


def counter(fd: int, name: bytes) -> int:
    """The value of the counter ``name`` (``b"wchar:"``, ``b"rchar:"``) on an ``io``
    descriptor, read from its start; -1 if it is not there. Raises ``OSError`` when
    the process is gone."""
    for line in os.pread(fd, 1024, 0).split(b"\n"):
        if line.startswith(name):
            return int(line.split()[1])
    return -1


def server_counters(pid: int, proc: Path = PROC) -> int | None:
    """A descriptor on the whole of ``pid``'s I/O counters (a tmux server: one thread)."""
    try:
        return os.open(proc / str(pid) / "io", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None


def start_epoch(pid: int, proc: Path = PROC) -> float | None:
    """When ``pid`` started, in seconds since the epoch, and only if its name starts with
    ``tmux`` (the bound server's check); ``None`` otherwise or if unreadable."""
    fields = stat_fields(pid, proc)
    try:
        boot = (proc / "stat").read_bytes().decode("ascii", "replace")
        name = (proc / str(pid) / "comm").read_bytes().decode("ascii", "replace")
    except OSError:
        return None
    if not name.startswith("tmux") or fields is None:
        return None
    btime = [line.split()[1] for line in boot.splitlines() if line.startswith("btime ")]
    if len(fields) <= _START_TIME or not fields[_START_TIME].isdigit():
        return None
    if not btime or not btime[0].isdigit():
        return None
    return int(btime[0]) + int(fields[_START_TIME]) / os.sysconf("SC_CLK_TCK")


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


# -- what a process waits on (pane state, issue 28.1) -----------------------------

_PGRP = 2
"""Index of ``pgrp`` (proc(5) field 5) after the command name."""
_TPGID = 5
"""Index of ``tpgid`` (proc(5) field 8): the foreground process group of the terminal."""
_TTY_NR = 4
"""Index of ``tty_nr`` (proc(5) field 7): the process's controlling terminal."""


def process_group(pid: int, proc: Path = PROC) -> int | None:
    """``pid``'s process group, or ``None`` if unreadable."""
    fields = stat_fields(pid, proc)
    if fields is None or len(fields) <= _PGRP or not fields[_PGRP].lstrip("-").isdigit():
        return None
    return int(fields[_PGRP])


def foreground_group(pid: int, proc: Path = PROC) -> int | None:
    """The foreground process group of ``pid``'s terminal (``tpgid``; -1 or 0 when the
    terminal has none yet), or ``None`` if unreadable."""
    fields = stat_fields(pid, proc)
    if fields is None or len(fields) <= _TPGID or not fields[_TPGID].lstrip("-").isdigit():
        return None
    return int(fields[_TPGID])


def controlling_terminal(pid: int, proc: Path = PROC) -> int | None:
    """The device number of ``pid``'s controlling terminal, or ``None`` (none, or unreadable)."""
    fields = stat_fields(pid, proc)
    if fields is None or len(fields) <= _TTY_NR or not fields[_TTY_NR].isdigit():
        return None
    return int(fields[_TTY_NR]) or None


def executable(pid: int, proc: Path = PROC) -> str | None:
    """The base name of ``pid``'s executable (``/proc/<pid>/exe``, symlinks resolved),
    or ``None`` when it cannot be read (gone, a kernel thread, another user's process).

    The program's own choice of ``argv[0]`` and ``comm`` plays no part: ``exec -a bash
    sleep`` is ``sleep`` here.
    """
    try:
        target = os.readlink(proc / str(pid) / "exe")
    except OSError:
        return None
    return os.path.basename(target.removesuffix(" (deleted)"))


def owner(pid: int, proc: Path = PROC) -> int | None:
    """The uid ``pid`` runs as (its effective uid: the owner of its ``/proc`` entry), or
    ``None`` if gone."""
    try:
        return os.stat(proc / str(pid)).st_uid
    except OSError:
        return None


def arguments(pid: int, proc: Path = PROC, limit: int = 4096) -> tuple[str, ...] | None:
    """``pid``'s arguments (at most ``limit`` bytes of them), or ``None`` if unreadable."""
    try:
        with (proc / str(pid) / "cmdline").open("rb") as file:
            raw = file.read(limit)
    except OSError:
        return None
    return tuple(a.decode("utf-8", "replace") for a in raw.split(b"\0")[:-1])


MAX_DESCENDANTS = 256
"""The most processes one walk below a pane's process visits: a pane holding a fork
bomb or a build with thousands of jobs costs a bounded read."""
MAX_TASKS_WALKED = 16
"""The most threads of one process whose children one walk lists (a process with
thousands of threads costs a bounded read; its children are almost always under its
main thread)."""


def descendants(pid: int, proc: Path = PROC, limit: int = MAX_DESCENDANTS) -> list[int]:
    """``pid`` and the processes below it, breadth first, at most ``limit`` of them.

    Read from ``/proc/<pid>/task/<tid>/children`` of the first ``MAX_TASKS_WALKED``
    threads of each process; a process gone while it is read is skipped.
    """
    found = [pid]
    seen = {pid}
    index = 0
    while index < len(found) and len(found) < limit:
        parent = found[index]
        index += 1
        try:
            tasks = sorted(os.listdir(proc / str(parent) / "task"), key=len)[:MAX_TASKS_WALKED]
        except OSError:
            continue
        for task in tasks:
            try:
                children = (proc / str(parent) / "task" / task / "children").read_text().split()
            except OSError:
                continue
            for child in children:
                if child.isdigit() and int(child) not in seen and len(found) < limit:
                    seen.add(int(child))
                    found.append(int(child))
    return found


class Syscall(NamedTuple):
    """The system call a sleeping process is blocked in, from ``/proc/<pid>/syscall``."""

    number: int
    args: tuple[int, ...]


def syscall(pid: int, proc: Path = PROC) -> Syscall | None:
    """The system call ``pid`` is blocked in; ``None`` when it is running (not in a
    system call), or when that cannot be read (another user's process, a kernel
    without the file, ptrace rights denied)."""
    try:
        words = (proc / str(pid) / "syscall").read_text().split()
    except OSError:
        return None
    if not words or not words[0].lstrip("-").isdigit() or int(words[0]) < 0:
        return None
    try:
        args = tuple(int(word, 16) for word in words[1:7])
    except ValueError:
        return None
    return Syscall(int(words[0]), args)


def descriptor_device(pid: int, fd: int, proc: Path = PROC) -> int | None:
    """The device number of the character device ``pid`` has open as ``fd``, or ``None``
    (not open, not a device, unreadable)."""
    try:
        found = os.stat(proc / str(pid) / "fd" / str(fd))
    except OSError:
        return None
    return found.st_rdev or None


def descriptors(pid: int, proc: Path = PROC, limit: int = 64) -> list[int]:
    """The lowest ``limit`` descriptors ``pid`` has open, or none if unreadable."""
    try:
        names = os.listdir(proc / str(pid) / "fd")
    except OSError:
        return []
    return sorted(int(name) for name in names if name.isdigit())[:limit]


# -- the run wing's readings (issue 30.3: read here, not in tools/run) ----------------


def available(proc: Path = PROC) -> bool:
    """True where process facts can be read from ``proc`` (Linux)."""
    return (proc / "self" / "stat").exists()


class Leader(NamedTuple):
    """The leader of a terminal's foreground process group, from one reading."""

    pid: int
    program: str
    """Base name of the executable (symlinks resolved): ``dash`` for /bin/sh on Debian."""
    argv: tuple[str, ...]
    uid: int
    """Its real uid (``status``'s first ``Uid:`` field)."""
    state: str
    """One letter, as in ``stat``: S sleeping, R running, T stopped, ..."""


Unseen = Literal["pane-gone", "starting", "leader-gone", "hidden"]
"""Why a terminal's foreground leader could not be read (``panes.readiness.Unseen``)."""


def _is_gone(error: OSError) -> bool:
    # ENOENT: the entry (or, for a zombie, its exe link) is gone; ESRCH: the
    # process went while it was read (measured on a login shell's `mesg`).
    return isinstance(error, (FileNotFoundError, ProcessLookupError))


def foreground_leader(pane_pid: int, proc: Path = PROC) -> Leader | Unseen:
    """The foreground process group leader of ``pane_pid``'s terminal, or why it is unseen.

    One reading of ``tpgid`` decides: every later fact is read for that
    process, so a job exiting between two reads cannot turn a transient state
    into a refusal (the shell took the terminal back while a second look
    re-read ``tpgid``: "cannot see which process", seen in CI).
    """
    try:
        # Read as text, as the leader's stat below: a line that is not UTF-8 is no answer.
        text = (proc / str(pane_pid) / "stat").read_text()
        tpgid = int(text[text.rindex(")") + 2 :].split()[_TPGID])
    except (OSError, ValueError, IndexError):
        return "pane-gone"
    if tpgid <= 0:
        return "starting"
    base = proc / str(tpgid)
    try:
        text = (base / "stat").read_text()
        leader = text[text.rindex(")") + 2 :].split()
        if leader[0] in _EXITED:
            return "leader-gone"
        exe = os.path.basename(os.readlink(base / "exe"))
        argv = tuple(
            a.decode("utf-8", "replace") for a in (base / "cmdline").read_bytes().split(b"\0")[:-1]
        )
        uid = next(
            int(line.split()[1])
            for line in (base / "status").read_text().splitlines()
            if line.startswith("Uid:")
        )
    except OSError as error:
        return "leader-gone" if _is_gone(error) else "hidden"
    except (ValueError, IndexError, StopIteration):
        return "hidden"
    return Leader(tpgid, exe.removesuffix(" (deleted)"), argv, uid, leader[0])


def has_group_child(shell_pid: int, proc: Path = PROC) -> bool:
    """True when ``shell_pid`` has a child, not exited, in its own process group.

    Read from ``<pid>/task/<pid>/children``; where that file is missing (a
    kernel without it), from the shell's ``wchan`` (asleep in ``do_wait``).
    """
    base = proc / str(shell_pid)
    try:
        children = (base / "task" / str(shell_pid) / "children").read_text().split()
    except OSError:
        try:
            return (base / "wchan").read_text().strip() in ("do_wait", "kernel_wait4")
        except OSError:
            return False
    for child in children:
        fields = _fields(proc / child / "stat")
        if fields is None or len(fields) <= _PGRP:
            continue  # gone since the listing
        if fields[_PGRP] == str(shell_pid) and fields[0] not in _EXITED:
            return True
    return False


def holds_open(pid: int, path: str, proc: Path = PROC) -> bool | None:
    """Whether process ``pid`` has the file ``path`` open, compared by device and inode
    (so a symlink in the path does not matter); None when that cannot be read."""
    try:
        wanted = os.stat(path)
        links = list((proc / str(pid) / "fd").iterdir())
    except OSError:
        return None
    for link in links:
        try:
            found = os.stat(link)
        except OSError:
            continue
        if (found.st_dev, found.st_ino) == (wanted.st_dev, wanted.st_ino):
            return True
    return False


def boot_id(proc: Path = PROC) -> str:
    """This boot's id (``sys/kernel/random/boot_id``), or ``""`` if unreadable."""
    try:
        return (proc / "sys" / "kernel" / "random" / "boot_id").read_text().strip()
    except OSError:
        return ""


def pid_namespace(proc: Path = PROC) -> int:
    """The inode of this process's pid namespace (``self/ns/pid``), or 0 if unreadable."""
    try:
        return os.stat(proc / "self" / "ns" / "pid").st_ino
    except OSError:
        return 0


def terminal_path(pid: int, proc: Path = PROC, *, fd: int = 0) -> str:
    """A path that opens the terminal ``pid`` reads (its ``fd/0``, or descriptor ``fd``),
    for ``driver.tty`` when tmux's ``pane_tty`` is not at hand, and ``driver.doorbell``."""
    return f"{proc}/{pid}/fd/{fd}"


# -- the sweep's census of this user's processes (issue 30.3) ---------------------------
# These raise ``OSError`` where the others answer None: the sweep keeps a directory
# when a process cannot be read, and skips one that is gone (``FileNotFoundError``,
# ``ProcessLookupError``), so it must tell the two apart.

Inode = tuple[int, int]
"""A file as (device, inode)."""


def pids(proc: Path = PROC) -> list[int]:
    """The pid of every process listed in ``proc``; raises ``OSError`` if it cannot be listed."""
    return [int(entry.name) for entry in proc.iterdir() if entry.name.isdigit()]


def entry_uid(pid: int, proc: Path = PROC) -> int:
    """The uid owning ``pid``'s entry (its effective uid); raises ``OSError``."""
    return os.stat(proc / str(pid)).st_uid


def command_line(pid: int, proc: Path = PROC) -> bytes:
    """``pid``'s ``cmdline``, as the kernel keeps it; raises ``OSError``."""
    return (proc / str(pid) / "cmdline").read_bytes()


def held_files(pid: int, proc: Path = PROC) -> set[Inode]:
    """Every file ``pid`` has open, and its working directory; raises ``OSError`` when
    they cannot be listed. A descriptor closed while it is read is left out."""
    links = [proc / str(pid) / "cwd", *(proc / str(pid) / "fd").iterdir()]
    found: set[Inode] = set()
    for link in links:
        try:
            info = os.stat(link)
        except OSError:
            continue
        found.add((info.st_dev, info.st_ino))
    return found


def boot_time(proc: Path = PROC) -> int | None:
    """When the machine booted (``stat``'s ``btime``, seconds since the epoch), or None."""
    try:
        for line in (proc / "stat").read_text().splitlines():
            if line.startswith("btime "):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None
