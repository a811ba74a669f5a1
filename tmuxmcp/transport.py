"""The stdio wire: claimed from fds 0 and 1, read and written without worker threads.

Rule 1: nothing but the protocol reaches the wire, and nothing but the client
reads it. While serving, the wire lives on private close-on-exec descriptors;
fd 0 points at /dev/null and fd 1 at stderr, so no child and no stray
``print`` can touch the protocol. Both are restored on exit.

Rule 2: a pipe or a socket (how MCP clients start servers; Node clients use
socketpairs) is read and written on the event loop with
``trio.lowlevel.FdStream`` (the SDK's stdio streams, which served before
issue 19, went through a worker thread for every line read and for every
write and flush, about 0.4 ms per call). FdStream puts the private
descriptor's open file description in non-blocking mode; a process sharing
that description (a wrapper that started us with its own stdio and waits)
sees it non-blocking until we exit, when the original mode is restored. A terminal or a file is
never switched: it is read or written through a worker thread.

Rule 3: every request stays answerable. Lines are cut, bounded and turned
into messages by ``wire`` (pure); a line that is not a message is answered
there with a JSON-RPC error, which goes out through the same single writer
as every response.

Rule 5: a response is written in as few rounds as it can be: it arrives
here encoded (``protocol.messages``), goes out with its newline in one
write, and an output pipe is widened so a large result fits it.

Rule 4: stopping is always possible. A wire whose reader is gone (the
client closed its end) raises ``OutputClosed``, on which the dispatcher
stops serving: there is nobody to answer. A terminal or file is read by a worker
thread that is abandoned on cancellation, so a signal ends serving at once
even while a read is blocked (see ``cli``).

Rule 6: the client's pace sets the reading. Lines are read only as the
dispatcher asks for them, and it stops asking while it holds too much for
a client that does not read (``protocol.outbox``): the wire is read in
chunks of at most 64 KiB, so what is read and not yet asked for is bounded
by one chunk and one line.
"""

from __future__ import annotations

import abc
import contextlib
import fcntl
import os
import stat
import sys
from collections.abc import AsyncIterator, Callable

import trio

from tmuxmcp.protocol.dispatch import Arrival, OutputClosed
from tmuxmcp.protocol.wire import Inbound, Oversized, Splitter, triage

_RECEIVE_SIZE = 1 << 16


# -- reading and writing -------------------------------------------------------------


class ThreadReceive(trio.abc.ReceiveStream):
    """A terminal or file read through a worker thread, abandoned on cancellation.

    The descriptor is never closed: an abandoned thread may still be blocked
    reading it, and a reused descriptor number would be read instead.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        """The next bytes, or b"" at end of input."""
        size = max_bytes or _RECEIVE_SIZE
        return await trio.to_thread.run_sync(os.read, self._fd, size, abandon_on_cancel=True)

    async def aclose(self) -> None:
        """Nothing to release (see the class docstring)."""
        await trio.lowlevel.checkpoint()


class StreamLines:
    """The lines of a byte stream, bounded by ``wire.Splitter``."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[Inbound]:
        splitter = Splitter()
        while True:
            data = await self._stream.receive_some(_RECEIVE_SIZE)
            if not data:
                break
            for line in splitter.feed(data):
                yield line
        for line in splitter.close():
            yield line


class _LineWriter(abc.ABC):
    """Whole lines out, one writer at a time, never cut by cancellation."""

    def __init__(self) -> None:
        self._lock = trio.Lock()

    async def write(self, text: str) -> int:
        """Send ``text`` whole: a response cut by cancellation would corrupt the wire."""
        await self.send(text.encode("utf-8"))
        return len(text)

    async def write_line(self, data: bytes) -> None:
        """Send one encoded message and its newline whole, in one write."""
        await self.send(data + b"\n")

    async def send(self, data: bytes) -> None:
        """Send ``data`` whole, even under cancellation; ``OutputClosed`` once nobody reads."""
        with trio.CancelScope(shield=True):
            async with self._lock:
                try:
                    await self._send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as gone:
                    raise OutputClosed from gone

    @abc.abstractmethod
    async def _send_all(self, data: bytes) -> None:
        """Write every byte of ``data`` to the wire."""


class StreamWriter(_LineWriter):
    """Whole lines to a pipe or socket, on the event loop (in one ``send_all``)."""

    def __init__(self, stream: trio.abc.SendStream) -> None:
        super().__init__()
        self._stream = stream

    async def _send_all(self, data: bytes) -> None:
        await self._stream.send_all(data)


class ThreadWriter(_LineWriter):
    """Whole lines to a terminal or file, written by a worker thread."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    async def _send_all(self, data: bytes) -> None:
        await trio.to_thread.run_sync(self._write_all, data)


Writer = StreamWriter | ThreadWriter


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


PIPE_BYTES = 1 << 20
"""The output pipe's capacity asked for: a large result in one write (Linux's default
ceiling for an unprivileged process, /proc/sys/fs/pipe-max-size)."""


def _widen_pipe(fd: int) -> None:
    """Let one large response fit the output pipe, if it is a pipe (best effort).

    With the default 64 KiB, a 750 KB response is written in a dozen rounds,
    each waiting for the client to read; in one write the server is back on
    its loop at once and the client reads without waking it.
    """
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None)
    if set_size is None or not stat.S_ISFIFO(os.fstat(fd).st_mode):
        return
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, set_size, PIPE_BYTES)


def _null_for_reading() -> int:
    return os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)


def _stderr_for_writing() -> int:
    try:
        return os.dup(2)
    except OSError:
        return os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)


@contextlib.asynccontextmanager
async def claim_stdio() -> AsyncIterator[tuple[StreamLines, Writer]]:
    """The wire's lines and writer, with fds 0 and 1 diverted until exit (Rule 1)."""
    claims: list[Claim] = []
    streams: list[trio.lowlevel.FdStream] = []
    try:
        stdin_claim = Claim(0, _null_for_reading)
        claims.append(stdin_claim)
        receive: trio.abc.ReceiveStream
        if is_pipe_or_socket(stdin_claim.private):
            streams.append(trio.lowlevel.FdStream(stdin_claim.private))
            receive = streams[-1]
        else:
            receive = ThreadReceive(stdin_claim.private)
        stdout_claim = Claim(1, _stderr_for_writing)
        claims.append(stdout_claim)
        writer: Writer
        if is_pipe_or_socket(stdout_claim.private):
            _widen_pipe(stdout_claim.private)
            streams.append(trio.lowlevel.FdStream(stdout_claim.private))
            writer = StreamWriter(streams[-1])
        else:
            writer = ThreadWriter(stdout_claim.private)
        yield StreamLines(receive), writer
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


async def triaged(lines: StreamLines) -> AsyncIterator[Arrival]:
    """Each line's message, or the error that answers it, with the line's size; blank
    lines skipped (Rule 3).

    The dispatcher pulls one at a time and stops pulling while it holds too
    much for the client (``protocol.outbox``): then nothing more is read from
    the descriptor, and the client's writes wait in the kernel (Rule 6).
    """
    async for line in lines:
        message = triage(line)
        if message is not None:
            size = line.size if isinstance(line, Oversized) else len(line)
            yield Arrival(message, size)


@contextlib.asynccontextmanager
async def open_stdio() -> AsyncIterator[tuple[AsyncIterator[Arrival], Writer]]:
    """The claimed wire (Rule 1): its inbound messages, and the one writer of every line."""
    async with claim_stdio() as (lines, out):
        yield triaged(lines), out
