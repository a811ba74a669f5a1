"""The stdio wire: claimed from fds 0 and 1, read and written without worker threads.

Rule 1: nothing but the protocol reaches the wire, and nothing but the client
reads it. While serving, the wire lives on private close-on-exec descriptors;
fd 0 points at /dev/null and fd 1 at stderr, so no child and no stray
``print`` can touch the protocol. Both are restored on exit. (The SDK's
``stdio_server`` does this for the streams it opens itself; for streams passed
to it, it does nothing, so ``open_stdio`` does it here.)

Rule 2: a pipe or a socket (how MCP clients start servers; Node clients use
socketpairs) is read and written on the event loop with
``trio.lowlevel.FdStream``. The SDK's own streams go through a worker thread
for every line read and for every response's write and flush, which cost
about 0.4 ms per call. FdStream puts the private descriptor's open file
description in non-blocking mode; a process sharing that description (a
wrapper that started us with its own stdio and waits) sees it non-blocking
until we exit, when the original mode is restored. A terminal or a file is
never switched: stdin is then read through a worker thread as before, and the
SDK claims fd 1 itself.

Rule 3: every request stays answerable. JSON can carry a lone UTF-16
surrogate (``"\\ud800"``) that is not valid Unicode. The SDK's parser rejects
such a line and silently drops it, so the client would wait forever for an
answer. ``guard_line`` re-encodes such a line with U+FFFD in place of each
lone surrogate, and marks a ``tools/call`` in its ``_meta`` so that the
dispatcher refuses it with an ``invalid-arguments`` result instead of acting
on altered text. Other lines pass through untouched.

Lines are split the way a text file in universal-newline mode splits them
(the SDK's reader): ``\\n``, ``\\r\\n`` and ``\\r`` each end a line and read
as ``\\n``; bytes that are not UTF-8 read as U+FFFD.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import trio

LONE_SURROGATE_META = "io.tmuxmcp/lone-surrogate"

_RECEIVE_SIZE = 1 << 16


# -- lone surrogates -------------------------------------------------------------


def _has_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


def _scrub(value: Any) -> tuple[Any, bool]:
    """``value`` with lone surrogates replaced, and whether any were found."""
    if isinstance(value, str):
        if not _has_surrogate(value):
            return value, False
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value), True
    if isinstance(value, list):
        items = [_scrub(v) for v in value]
        return [v for v, _ in items], any(found for _, found in items)
    if isinstance(value, dict):
        pairs = [(_scrub(k), _scrub(v)) for k, v in value.items()]
        scrubbed = {k: v for (k, _), (v, _) in pairs}
        return scrubbed, any(fk or fv for (_, fk), (_, fv) in pairs)
    return value, False


def guard_line(line: str) -> str:
    """The line to hand to the SDK."""
    if "\\u" not in line and "\\U" not in line:
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line
    scrubbed, found = _scrub(message)
    if not found:
        return line
    if isinstance(scrubbed, dict) and scrubbed.get("method") == "tools/call":
        params = scrubbed.get("params")
        if isinstance(params, dict):
            meta = params.get("_meta")
            params["_meta"] = {
                **(meta if isinstance(meta, dict) else {}),
                LONE_SURROGATE_META: True,
            }
    return json.dumps(scrubbed, ensure_ascii=False) + "\n"


# -- reading and writing -------------------------------------------------------------


def split_lines(text: str) -> list[str]:
    """``text`` as lines with their ends, in universal-newline mode.

    Not ``str.splitlines``: that also splits at U+2028, U+0085 and other
    characters a JSON string may hold unescaped.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


class StreamLines:
    """The guarded lines of a pipe or socket, read on the event loop."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[str]:
        pending = bytearray()
        while True:
            data = await self._stream.receive_some(_RECEIVE_SIZE)
            if not data:
                break
            searched = len(pending)
            pending += data
            end = pending.rfind(b"\n", searched)
            if end < 0:
                continue
            # Cutting after a b"\n" never splits a UTF-8 sequence, and a "\r"
            # before it stays with it, so "\r\n" is always seen whole.
            complete = bytes(pending[: end + 1])
            del pending[: end + 1]
            for line in split_lines(complete.decode("utf-8", errors="replace")):
                yield guard_line(line)
        for line in split_lines(pending.decode("utf-8", errors="replace")):
            yield guard_line(line)


class ThreadLines:
    """The guarded lines of a terminal or file, read through a worker thread."""

    def __init__(self, fd: int) -> None:
        # closefd=False: a worker thread may still be blocked reading when
        # serving ends, so the descriptor must never be closed and reused.
        self._file = anyio.wrap_file(
            open(fd, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
        )

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self._file:
            yield guard_line(line)


class StreamWriter:
    """The SDK's stdout interface (``write`` then ``flush``) over a pipe or socket."""

    def __init__(self, stream: trio.abc.SendStream) -> None:
        self._stream = stream

    async def write(self, text: str) -> int:
        """Send ``text`` whole: a response cut by cancellation would corrupt the wire."""
        data = text.encode("utf-8")
        with trio.CancelScope(shield=True):
            await self._stream.send_all(data)
        return len(text)

    async def flush(self) -> None:
        """Nothing is buffered: ``write`` returns once the kernel holds the bytes."""
        await trio.lowlevel.checkpoint()


# -- claiming the descriptors ----------------------------------------------------------


def is_pipe_or_socket(fd: int) -> bool:
    """Whether ``fd`` can be driven by the event loop (not a terminal, file or closed)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class Claim:
    """``fd``'s wire moved to a private descriptor, and ``fd`` diverted until ``restore``."""

    def __init__(self, fd: int, diversion: Callable[[], int]) -> None:
        self.fd = fd
        self.private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        try:
            divert = diversion()
            try:
                os.dup2(divert, fd)
            finally:
                os.close(divert)
        except OSError:
            os.close(self.private)
            raise

    def restore(self) -> None:
        """Point ``fd`` at the wire again (the private descriptor stays open)."""
        os.dup2(self.private, self.fd)


def _null_for_reading() -> int:
    return os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)


def _stderr_for_writing() -> int:
    try:
        return os.dup(2)
    except OSError:
        return os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)


@contextlib.asynccontextmanager
async def open_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """``(stdin, stdout)`` for the SDK's ``stdio_server(stdin=..., stdout=...)``.

    ``stdout`` is None when fd 1 is not a pipe or socket: the SDK then claims
    fd 1 itself, with its thread-backed writer.
    """
    claims: list[Claim] = []
    streams: list[trio.lowlevel.FdStream] = []
    try:
        stdin_claim = Claim(0, _null_for_reading)
        claims.append(stdin_claim)
        stdin: Any
        if is_pipe_or_socket(stdin_claim.private):
            streams.append(trio.lowlevel.FdStream(stdin_claim.private))
            stdin = StreamLines(streams[-1])
        else:
            stdin = ThreadLines(stdin_claim.private)
        stdout: Any = None
        if is_pipe_or_socket(1):
            stdout_claim = Claim(1, _stderr_for_writing)
            claims.append(stdout_claim)
            streams.append(trio.lowlevel.FdStream(stdout_claim.private))
            stdout = StreamWriter(streams[-1])
        yield stdin, stdout
    finally:
        # A stray print buffered while serving belongs on stderr, where fd 1
        # points until it is restored, never on the wire.
        if len(claims) == 2 and sys.stdout is not None:
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()
        for claim in reversed(claims):
            with contextlib.suppress(OSError):  # left diverted: the safe side
                claim.restore()
        # Each stream restores the blocking mode it found, and closes its
        # descriptor. Last opened, first closed: when fds 0 and 1 share one
        # socket (one open file description), the stdout stream found it
        # already non-blocking, and the stdin stream must have the last word.
        for stream in reversed(streams):
            stream.close()
