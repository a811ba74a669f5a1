"""One typist per pane, across every tmuxmcp process on a socket.

Two tmuxmcp processes (two agents) on one socket must never type into the
same shell at once: their lines would interleave. Each run holds an advisory
``flock`` on a per-pane file in a private directory beside the socket
(``<socket>.tmuxmcp-locks``, mode 0700, owned by this user). The kernel drops
the lock when its holder exits, however it exits, so a crashed tmuxmcp never
leaves a pane locked (tmux's ``wait-for -L`` locks would stay held).

Rules: the lock is taken with a bounded wait (polling a non-blocking
``flock``; it is held for whole commands, so the wait is seconds, not
microseconds) and released by closing its descriptor; a directory that is a
symlink or belongs to someone else is refused, not used.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat

import trio

from tmuxmcp.errors import EXHAUSTED, DescriptorsExhausted, PaneNotReady, TmuxMcpError

POLL_SECONDS = 0.02


class LockDirUnsafe(TmuxMcpError):
    """You get this when the pane lock directory beside the socket is not tmuxmcp's own."""

    reference = "lock-directory-unsafe"


def lock_directory(socket_path: str) -> str:
    """The private directory beside the socket, created if needed and checked."""
    path = socket_path + ".tmuxmcp-locks"
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise LockDirUnsafe(
            f"{path} is not a private directory of this user; remove it so tmuxmcp can "
            "create its pane locks there"
        )
    return path


async def acquire(directory: str, name: str, *, seconds: float, busy: str) -> int:
    """A descriptor holding the lock ``name`` (close it to release); waits at most ``seconds``."""
    try:
        fd = os.open(
            os.path.join(directory, name),
            os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o600,
        )
    except OSError as exc:
        if exc.errno in EXHAUSTED:
            raise DescriptorsExhausted.when("open the pane lock", exc.errno) from None
        raise
    try:
        with trio.move_on_after(seconds):
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return fd
                except BlockingIOError:
                    await trio.sleep(POLL_SECONDS)
    except BaseException:
        os.close(fd)
        raise
    os.close(fd)
    raise PaneNotReady(busy)
