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
the child is started with ``os.posix_spawn`` on the event loop's thread, its
pipes are read with non-blocking ``os.read`` and ``trio.lowlevel.wait_readable``,
and its exit is awaited on a pidfd. That saves the worker-thread hop and the
``Popen`` machinery of ``trio.run_process`` (0.3-0.5 ms of a 3 ms tmux call).
The price: ``posix_spawn`` returns once the child has exec'd, and the event
loop waits for that (0.1-0.3 ms on a quiet machine, more under load), so
concurrent calls start their children one after another. Everywhere else,
and for an argv[0] without a slash (posix_spawn does no PATH search),
``trio.run_process`` does the same job.

The pidfd path, step by step (each step's failure is handled before the next
one starts):

1. pipes: one for stdout, one for stderr, one for stdin only if bytes are
   given; all close-on-exec, all numbered 3 or above so that no file action
   can clobber another;
2. spawn: file actions give the child /dev/null or the stdin pipe as fd 0 and
   the write ends as fds 1 and 2, and close every other inheritable
   descriptor; the parent then closes the child's ends at once;
3. pidfd: opened right after the spawn; if that fails the child is killed and
   reaped synchronously (it is SIGKILLed, so the wait is short);
4. run: stdout is drained in this task, stderr (and the stdin feed) in a
   nursery, so a child that fills one pipe while we wait on another cannot
   deadlock; then the pidfd says the child exited and ``waitpid`` reaps it;
5. on any exception, cancellation or deadline before the reap: SIGKILL via
   the pidfd, a shielded wait on the pidfd, ``waitpid``; then every
   descriptor is closed.
"""

from __future__ import annotations

import contextlib
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
    """The descriptors one call owns; each is closed exactly once."""

    def __init__(self) -> None:
        self._open: set[int] = set()

    def pipe(self) -> tuple[int, int]:
        """A close-on-exec pipe whose ends are both above the standard range."""
        ends = os.pipe()  # close-on-exec (PEP 446)
        self._open.update(ends)
        read, write = ends
        if read < 3 or write < 3:  # 0, 1 or 2 was closed in this process
            read, write = self._above_std(read), self._above_std(write)
        return read, write

    def _above_std(self, fd: int) -> int:
        if fd >= 3:
            return fd
        moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        self._open.add(moved)
        self.close(fd)
        return moved

    def adopt(self, fd: int) -> int:
        """Own ``fd`` from now on."""
        self._open.add(fd)
        return fd

    def close(self, fd: int) -> None:
        """Close ``fd`` if this call still owns it."""
        if fd in self._open:
            self._open.discard(fd)
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


def _start(argv: Sequence[str], env: Mapping[str, str], feed: bool, fds: _Descriptors) -> _Child:
    """Spawn the child with its pipes and open its pidfd (steps 1 to 3).

    ``posix_spawn`` returns once the child has called exec (glibc reports exec
    failures as OSError), so this is quick even though it is synchronous.
    """
    out_read, out_write = fds.pipe()
    err_read, err_write = fds.pipe()
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
    for child_end in (out_write, err_write, in_read):
        fds.close(child_end)
    try:
        pidfd = fds.adopt(os.pidfd_open(pid))
    except OSError:
        os.kill(pid, signal.SIGKILL)
        _collect(pid)  # SIGKILLed: the wait is short
        raise
    return _Child(pid, pidfd, out_read, err_read, in_write)


async def _run_spawned(
    argv: Sequence[str], env: Mapping[str, str], stdin: bytes | None
) -> Completed:
    fds = _Descriptors()
    try:
        child = _start(argv, env, stdin is not None, fds)
        returncode: int | None = None
        try:
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
    return Completed(returncode, b"".join(out), b"".join(err))
