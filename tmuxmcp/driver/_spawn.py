"""The only place tmuxmcp starts a process (style rule 1; ruff TID251 enforces it).

Promises:
* argv only, never a shell; the executable is an absolute path resolved once;
* the child gets the environment it is given, no stdin unless bytes are
  passed, and captured stdout and stderr (while the MCP stdio server runs,
  fd 1 points at the client's stderr, so nothing may be left uncaptured);
* the child inherits no descriptor but 0, 1 and 2, and starts with default
  SIGPIPE/SIGXFSZ handling and an empty signal mask (what ``subprocess``
  gives it);
* every child has a deadline; on timeout or cancellation it is killed with
  SIGKILL and reaped before this function returns or raises;
* every descriptor opened here is close-on-exec and closed on every path;
* OS errors become ``TmuxUnavailable`` and deadlines ``TmuxTimeout``, here
  and nowhere else; running out of descriptors (``EMFILE``, ``ENFILE``) is
  ``DescriptorsExhausted``, which says so, not "is tmux installed" (issue 27,
  N8).

Two mechanisms keep these promises. On Linux (``pidfd_open``, kernel 5.3+)
the child is started with ``os.posix_spawn`` on the event loop's thread and
its exit is awaited on a pidfd. That saves the worker-thread hop and the
``Popen`` machinery of ``trio.run_process`` (0.3-0.5 ms of a 3 ms tmux call).
The price: ``posix_spawn`` returns once the child has exec'd, and the event
loop waits for that (0.1-0.3 ms on a quiet machine, more under load), so
concurrent calls start their children one after another. Everywhere else,
and for an argv[0] without a slash (posix_spawn does no PATH search),
``trio.run_process`` does the same job.

**Output in memory files** (issue 31.1). On the pidfd path the child's
stdout and stderr are two memfds (``memfd_create``, kernel 3.17+), not
pipes: the child writes into them at its own pace, nothing wakes the event
loop or switches to the child while it writes (through a pipe, a 370 KB
capture was 6-17 reads of up to 64 KiB, each after a wake-up), and each is
read with one ``os.pread`` once the pidfd says the child exited. What that
changes, and why it is sound for a tmux client:

* the call ends at the child's exit, not at EOF: a process the child left
  behind holding fd 1 or 2 (a tmux server forked by ``new-session`` holds
  them until it daemonizes) no longer keeps the call open. A process writes
  its own output before it exits, so the child's output is complete then;
  a tmux client prints only what its server sends it, itself;
* what a leftover process writes after that is refused: once the child is
  reaped, each memfd is sealed against growing (``F_SEAL_GROW``), read, and
  truncated to nothing before it is closed, so its memory is freed even
  while a leftover process still holds it, and its later writes fail
  (``EPERM``) instead of filling memory no one reads;
* a child whose output has no bound (the handlers bound what they ask tmux
  for; a runaway is a bug or a hostile binary) fills its memfd until the
  deadline, about as fast as it filled this process's memory through a
  pipe before; at the deadline it is SIGKILLed and reaped and the memfd
  truncated and closed, which frees all of it. A memfd's pages are in no
  process's resident set, so until then the OOM killer would not pick us;
  there is no per-call cap;
* we never ``read`` a memfd (only ``pread``): the file offset is shared with
  the child's fd 1 or 2, and moving it would make the child overwrite;
* ``USE_MEMFD`` is off where ``memfd_create`` or sealing is missing, and a
  call whose ``memfd_create`` fails with ``ENOSYS`` or ``EPERM`` (a seccomp
  filter) uses pipes instead; the pipes then end at EOF, as before.

The pidfd path, step by step (each step's failure is handled before the next
one starts):

1. outputs: two memfds, or else one pipe for stdout and one for stderr; a
   pipe for stdin only if bytes are given (the feed is a pipe either way);
   all close-on-exec, all numbered 3 or above so that no file action can
   clobber another;
2. spawn: file actions give the child /dev/null or the stdin pipe as fd 0 and
   the memfds or the pipes' write ends as fds 1 and 2, and close every other
   inheritable descriptor; the parent then closes the pipes' child ends at
   once (a memfd is both ends: it stays);
3. pidfd: opened right after the spawn; if that fails the child is killed and
   reaped synchronously (it is SIGKILLed, so the wait is short);
4. run: with memfds, the stdin feed (if any) runs in a nursery while this
   task awaits the pidfd, and is cancelled when the child has exited (a
   leftover process may hold the stdin pipe without reading it); then each
   memfd is sealed and read. With pipes, stdout is drained in this task,
   stderr (and the stdin feed) in a nursery, so a child that fills one pipe
   while we wait on another cannot deadlock; then the pidfd says the child
   exited. Either way ``waitpid`` reaps it;
5. on any exception, cancellation or deadline before the reap: SIGKILL via
   the pidfd, a shielded wait on the pidfd, ``waitpid``; then every
   descriptor is closed, every memfd truncated first.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
import trio

from tmuxmcp.driver import proc
from tmuxmcp.errors import EXHAUSTED, DescriptorsExhausted, TmuxTimeout, TmuxUnavailable

_READ_SIZE = 1 << 16
"""Bytes asked of one ``os.read``: what a Linux pipe holds by default."""

_DEFAULT_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, name)
)
"""Python ignores these; ``subprocess`` (restore_signals) resets them for the child."""


class Completed(msgspec.Struct, frozen=True):
    """A finished child process."""

    returncode: int
    stdout: bytes
    stderr: bytes


def _pidfd_available() -> bool:
    """Whether this platform and kernel give us pidfds and posix_spawn."""
    needed = (
        hasattr(os, "posix_spawn")
        and hasattr(os, "pidfd_open")
        and hasattr(signal, "pidfd_send_signal")
    )
    if not needed:
        return False
    try:
        probe = os.pidfd_open(os.getpid())
    except OSError:  # ENOSYS on kernels before 5.3, EPERM under some seccomp filters
        return False
    os.close(probe)
    return True


USE_PIDFD = _pidfd_available()
"""Which mechanism ``run_argv`` uses; tests switch it to cover the fallback."""

_MEMFD_FLAGS = os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING if hasattr(os, "memfd_create") else 0

_NO_MEMFD = frozenset({errno.ENOSYS, errno.EPERM})
"""``memfd_create`` errors that mean "not here" (an old kernel, a seccomp filter)."""


def _memfd_available() -> bool:
    """Whether this platform gives us sealable memfds for the child's output."""
    if not (hasattr(os, "memfd_create") and hasattr(fcntl, "F_ADD_SEALS")):
        return False
    try:
        probe = os.memfd_create("tmuxmcp-probe", _MEMFD_FLAGS)
    except OSError:
        return False
    os.close(probe)
    return True


USE_MEMFD = _memfd_available()
"""Whether the pidfd path gives the child memfds for stdout and stderr, or
pipes; tests switch it to cover both."""


async def run_argv(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    seconds: float,
    stdin: bytes | None = None,
) -> Completed:
    """Run ``argv`` to completion within ``seconds``."""
    try:
        with trio.move_on_after(seconds) as scope:
            if USE_PIDFD and os.sep in argv[0]:
                done = await _run_spawned(argv, env, stdin)
            else:
                done = await _run_process(argv, env, stdin)
    except OSError as exc:
        if exc.errno in EXHAUSTED:
            raise DescriptorsExhausted.when("run tmux", exc.errno) from None
        raise TmuxUnavailable(
            f"could not run tmux ({exc.strerror or type(exc).__name__}); "
            "check that tmux is installed or pass --tmux PATH"
        ) from None
    if scope.cancelled_caught:
        raise TmuxTimeout(f"tmux did not answer within {seconds:g} s; the tmux client was killed")
    return done


# -- fallback: trio.run_process ---------------------------------------------------


async def _kill_now(process: trio.Process) -> None:
    # tmux clients hold no state worth a graceful shutdown: kill, then let
    # run_process reap the child.
    process.kill()


async def _run_process(
    argv: Sequence[str], env: Mapping[str, str], stdin: bytes | None
) -> Completed:
    done = await trio.run_process(
        list(argv),
        stdin=subprocess.DEVNULL if stdin is None else stdin,
        capture_stdout=True,
        capture_stderr=True,
        check=False,
        env=dict(env),
        deliver_cancel=_kill_now,
    )
    return Completed(done.returncode, done.stdout, done.stderr)


# -- Linux: posix_spawn and a pidfd -----------------------------------------------


class _Descriptors:
    """The descriptors one call owns; each is closed exactly once, a memfd emptied first."""

    def __init__(self) -> None:
        self._open: set[int] = set()
        self._memory: set[int] = set()

    def pipe(self) -> tuple[int, int]:
        """A close-on-exec pipe whose ends are both above the standard range."""
        ends = os.pipe()  # close-on-exec (PEP 446)
        self._open.update(ends)
        read, write = ends
        if read < 3 or write < 3:  # 0, 1 or 2 was closed in this process
            read, write = self._above_std(read), self._above_std(write)
        return read, write

    def memfd(self, name: str) -> int:
        """A close-on-exec, sealable memfd above the standard range."""
        fd = self.adopt(os.memfd_create(name, _MEMFD_FLAGS))
        self._memory.add(fd)
        return self._above_std(fd)

    def _above_std(self, fd: int) -> int:
        if fd >= 3:
            return fd
        moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        self._open.add(moved)
        if fd in self._memory:
            self._memory.add(moved)
            self._memory.discard(fd)  # the same file: only the copy we keep empties it
        self.close(fd)
        return moved

    def adopt(self, fd: int) -> int:
        """Own ``fd`` from now on."""
        self._open.add(fd)
        return fd

    def close(self, fd: int) -> None:
        """Close ``fd`` if this call still owns it; a memfd is emptied first."""
        if fd in self._open:
            self._open.discard(fd)
            if fd in self._memory:
                self._memory.discard(fd)
                _empty(fd)
            os.close(fd)

    def close_waited(self, fd: int) -> None:
        """Close an ``fd`` that trio may have registered (``wait_readable``/``writable``)."""
        if fd in self._open:
            trio.lowlevel.notify_closing(fd)
            self.close(fd)

    def close_all(self) -> None:
        """Close everything still owned; tell trio first, as some were waited on."""
        for fd in list(self._open):
            self.close_waited(fd)


def _inheritable_above_std() -> list[int]:
    """Descriptors 3 and up that a spawned child would inherit.

    Python opens everything close-on-exec, so these are only descriptors this
    process itself inherited or marked inheritable. ``subprocess`` closes them
    in the child (close_fds); so do we, with file actions.
    """
    found = []
    for fd in proc.open_descriptors():
        if fd > 2:
            try:
                if os.get_inheritable(fd):
                    found.append(fd)
            except OSError:  # the directory listing's own descriptor, closed by now
                continue
    return found


def _seal(fd: int) -> None:
    """No writer can make the memfd ``fd`` longer from now on (their writes fail, EPERM)."""
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_GROW)


def _empty(fd: int) -> None:
    """Free a memfd's memory now, even if a leftover process still holds it.

    Sealed first, so that process cannot grow it again. Neither call fails on
    a memfd made sealable, but closing must not depend on that.
    """
    with contextlib.suppress(OSError):
        _seal(fd)
        os.ftruncate(fd, 0)


def _read_memory(fd: int) -> bytes:
    """Everything written to the memfd ``fd``; call it once the child is reaped.

    Sealed before its size is read, so a leftover process cannot add to it
    after that. ``pread``, never ``read``: the offset is the child's too.
    """
    _seal(fd)
    size = os.fstat(fd).st_size
    if not size:
        return b""
    data = os.pread(fd, size, 0)
    if len(data) == size:
        return data
    parts = [data]  # one read returns at most about 2 GiB on Linux
    done = len(data)
    while done < size and (data := os.pread(fd, size - done, done)):
        parts.append(data)
        done += len(data)
    return b"".join(parts)


async def _drain(fd: int, chunks: list[bytes]) -> None:
    """Read a non-blocking pipe to EOF.

    Waiting before every read (rather than reading until EAGAIN) saves a
    syscall per wake-up: a tmux client writes its output in 16 KiB pieces, so
    the pipe is empty after almost every read. The wait is also the
    checkpoint that lets a deadline fire while a child writes without pause.
    """
    while True:
        await trio.lowlevel.wait_readable(fd)
        try:
            data = os.read(fd, _READ_SIZE)
        except BlockingIOError:  # a spurious wake-up
            continue
        if not data:
            return
        chunks.append(data)


async def _feed(fd: int, data: bytes, fds: _Descriptors) -> None:
    """Write ``data`` to a non-blocking pipe, then close it so the child sees EOF."""
    try:
        with memoryview(data) as view:
            sent = 0
            while sent < len(view):
                try:
                    sent += os.write(fd, view[sent:])
                except BlockingIOError:
                    await trio.lowlevel.wait_writable(fd)
    except BrokenPipeError:
        pass  # the child stopped reading; its exit status and output tell the rest
    finally:
        fds.close_waited(fd)


def _collect(pid: int, *, block: bool = True) -> int | None:
    """Reap the child: its exit code, or None if it is still running and not ``block``.

    Blocking is only used once the pidfd is readable or after SIGKILL, so
    the wait is short.
    """
    reaped, status = os.waitpid(pid, 0 if block else os.WNOHANG)
    return os.waitstatus_to_exitcode(status) if reaped else None


async def _wait_reaped(pid: int, pidfd: int) -> int:
    """Wait for the child to exit, then reap it; its exit code."""
    # By the time its pipes report EOF the child has usually exited already.
    code = _collect(pid, block=False)
    if code is None:
        await trio.lowlevel.wait_readable(pidfd)
        code = _collect(pid)
    assert code is not None  # a blocking waitpid returns the child or raises
    return code


class _Child(msgspec.Struct, frozen=True):
    pid: int
    pidfd: int
    stdout: int
    stderr: int
    stdin: int
    """Our end of the child's stdin pipe, or -1."""
    in_memory: bool
    """Whether ``stdout`` and ``stderr`` are memfds (else our ends of pipes)."""


def _outputs(fds: _Descriptors, in_memory: bool) -> tuple[int, int, int, int] | None:
    """Two memfds as (ours, the child's) for stdout, then for stderr; None where
    ``memfd_create`` is refused (the caller uses pipes)."""
    if not in_memory:
        return None
    try:
        out = fds.memfd("tmuxmcp-stdout")
    except OSError as exc:
        if exc.errno in _NO_MEMFD:
            return None
        raise
    err = fds.memfd("tmuxmcp-stderr")  # the first one worked: so will this, or it is an error
    return out, out, err, err


def _start(
    argv: Sequence[str],
    env: Mapping[str, str],
    feed: bool,
    fds: _Descriptors,
    *,
    in_memory: bool = False,
) -> _Child:
    """Spawn the child with its outputs and open its pidfd (steps 1 to 3).

    ``posix_spawn`` returns once the child has called exec (glibc reports exec
    failures as OSError), so this is quick even though it is synchronous.
    """
    memory = _outputs(fds, in_memory)
    if memory is None:
        out_read, out_write = fds.pipe()
        err_read, err_write = fds.pipe()
    else:
        out_read, out_write, err_read, err_write = memory
    actions: list[tuple[Any, ...]] = []
    if feed:
        in_read, in_write = fds.pipe()
        actions.append((os.POSIX_SPAWN_DUP2, in_read, 0))
    else:
        in_read = in_write = -1
        actions.append((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
    actions.append((os.POSIX_SPAWN_DUP2, out_write, 1))
    actions.append((os.POSIX_SPAWN_DUP2, err_write, 2))
    actions.extend((os.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable_above_std())
    pid = os.posix_spawn(
        argv[0],
        list(argv),
        dict(env),
        file_actions=actions,
        setsigdef=_DEFAULT_SIGNALS,
        setsigmask=(),
    )
    # The child holds its ends now; ours would keep the pipes open forever.
    # A memfd is both ends, and ours is how we read it.
    for child_end in (in_read,) if memory else (out_write, err_write, in_read):
        fds.close(child_end)
    try:
        pidfd = fds.adopt(os.pidfd_open(pid))
    except OSError:
        os.kill(pid, signal.SIGKILL)
        _collect(pid)  # SIGKILLed: the wait is short
        raise
    return _Child(pid, pidfd, out_read, err_read, in_write, memory is not None)


async def _exited(child: _Child) -> int:
    """Wait on the pidfd for the child's exit, then reap it; its exit code."""
    await trio.lowlevel.wait_readable(child.pidfd)  # it has just started: no point asking first
    code = _collect(child.pid)
    assert code is not None  # a blocking waitpid returns the child or raises
    return code


async def _run_in_memory(child: _Child, stdin: bytes | None, fds: _Descriptors) -> int:
    """Await the child's exit, feeding its stdin meanwhile; its exit code (step 4)."""
    if stdin is None:
        return await _exited(child)
    os.set_blocking(child.stdin, False)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_feed, child.stdin, stdin, fds)
        code = await _exited(child)
        # The output is complete at exit; a leftover process may hold stdin
        # without reading it, so the feed ends here (it closes its pipe).
        nursery.cancel_scope.cancel()
    return code


async def _run_piped(child: _Child, stdin: bytes | None, fds: _Descriptors) -> tuple[bytes, bytes]:
    """Drain the child's pipes to EOF, feeding its stdin meanwhile (step 4)."""
    for fd in (child.stdout, child.stderr, child.stdin):
        if fd >= 0:
            os.set_blocking(fd, False)  # our ends only: the child's stay blocking
    out: list[bytes] = []
    err: list[bytes] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_drain, child.stderr, err)
        if stdin is not None:
            nursery.start_soon(_feed, child.stdin, stdin, fds)
        await _drain(child.stdout, out)
    return b"".join(out), b"".join(err)


async def _run_spawned(
    argv: Sequence[str], env: Mapping[str, str], stdin: bytes | None
) -> Completed:
    fds = _Descriptors()
    try:
        child = _start(argv, env, stdin is not None, fds, in_memory=USE_MEMFD)
        returncode: int | None = None
        try:
            if child.in_memory:
                returncode = await _run_in_memory(child, stdin, fds)
                out, err = _read_memory(child.stdout), _read_memory(child.stderr)
            else:
                out, err = await _run_piped(child, stdin, fds)
                returncode = await _wait_reaped(child.pid, child.pidfd)
        finally:
            if returncode is None:
                # Timeout, cancellation or an error: kill, and reap before leaving.
                # A child that already exited is a zombie until reaped, and
                # SIGKILL to a zombie succeeds; only a reaped pid is gone.
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(child.pidfd, signal.SIGKILL)
                with trio.CancelScope(shield=True), contextlib.suppress(ChildProcessError):
                    await _wait_reaped(child.pid, child.pidfd)
    finally:
        fds.close_all()
    return Completed(returncode, out, err)
