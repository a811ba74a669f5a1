"""What the server holds for its client: requests not yet answered, lines not yet written.

Theory: a client that writes requests and never reads its output must not
grow the server without bound (issue 27 N3: 12,000 ``tools/list`` lines
unread took the server from 34 MB to 1.2 GB, each request's task holding
its answer while it waited for the writer). So everything the connection
holds for the client is counted here, and past a bound the reader stops
reading: the client's writes then block in the kernel's pipe, which is
the only queue that grows, and it does not grow without bound either.

Rule 1: one writer, in order. Every line the server writes is put here and
  written by ``drain``, one at a time and whole, in the order it was put.
  Putting never blocks: the line already exists, and holding its producer
  back would free nothing.
Rule 2: memory is bounded whatever the client does. What is held is counted
  in items (requests admitted and not yet answered, lines not yet written)
  and in bytes (each request's line, each unwritten line). ``wait_room``
  returns only while both are under ``MAX_HELD`` and ``MAX_HELD_BYTES``;
  the reader calls it before it reads the next line, so past the bound it
  stops reading until the client reads (or a call ends). Nothing is dropped
  and nothing reordered: a client that reads again gets every answer. The
  overshoot is bounded too: one more line is admitted at most, and each
  request admitted before the bound adds one answer.
Rule 3: progress never waits and never piles up. A progress notification put
  while an earlier one of the same request is still unwritten takes that
  one's place in the queue (only the latest says anything), so a slow
  reader holds at most one per request, and none is written after its
  request's answer (the answer is put after the last progress, behind it).
Rule 4: nothing here deadlocks on its own: a held request is released when
  its task ends, answered or cancelled, and a written line when it is
  written. While the reader waits, the requests in flight go on, and their
  answers go out as the client reads.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable, Hashable

import trio

MAX_HELD = 128
"""The most requests in flight plus lines unwritten before the reader stops reading
(the load probe runs 64 calls in flight)."""

MAX_HELD_BYTES = 16 * 1024 * 1024
"""The most bytes of request lines in flight plus lines unwritten before the reader
stops reading: two requests of the longest line (``wire.MAX_LINE_BYTES``)."""


class _Line:
    """One unwritten line; a progress line remembers its request, so a newer one can
    replace it."""

    __slots__ = ("data", "progress_of")

    def __init__(self, data: bytes, progress_of: Hashable | None = None) -> None:
        self.data = data
        self.progress_of = progress_of


class Outbox:
    """The connection's unwritten lines and held requests: see the module docstring."""

    def __init__(self, send: Callable[[bytes], Awaitable[None]]) -> None:
        self._send = send
        self._queue: deque[_Line] = deque()
        self._progress: dict[Hashable, _Line] = {}
        self._held = 0
        self._bytes = 0
        self._changed = trio.Event()

    @property
    def held(self) -> tuple[int, int]:
        """What is held now: items and bytes."""
        return self._held, self._bytes

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def _wait_change(self) -> None:
        await self._changed.wait()

    # -- requests ------------------------------------------------------------------

    def hold(self, size: int) -> None:
        """A request of ``size`` bytes was admitted; ``release`` it when its task ends."""
        self._held += 1
        self._bytes += size

    def release(self, size: int) -> None:
        """A request ``hold`` counted has ended (its answer, if any, was put first)."""
        self._held -= 1
        self._bytes -= size
        self._notify()

    async def wait_room(self) -> None:
        """Return once the connection holds less than its bounds (Rule 2)."""
        while self._held >= MAX_HELD or self._bytes >= MAX_HELD_BYTES:
            await self._wait_change()

    # -- lines ---------------------------------------------------------------------

    def put(self, data: bytes) -> None:
        """Queue one line for the writer (Rule 1)."""
        self._queue.append(_Line(data))
        self._held += 1
        self._bytes += len(data)
        self._notify()

    def put_progress(self, request: Hashable, data: bytes) -> None:
        """Queue a progress line of ``request``, in place of one still unwritten (Rule 3)."""
        waiting = self._progress.get(request)
        if waiting is not None:
            self._bytes += len(data) - len(waiting.data)
            waiting.data = data
            return
        line = _Line(data, progress_of=request)
        self._progress[request] = line
        self._queue.append(line)
        self._held += 1
        self._bytes += len(data)
        self._notify()

    async def drain(self) -> None:
        """Write every line as it is put, until cancelled; ``send``'s errors propagate."""
        while True:
            while not self._queue:
                await self._wait_change()
            line = self._queue[0]
            if line.progress_of is not None:
                # Being written: a newer progress line goes behind it.
                del self._progress[line.progress_of]
            data = line.data
            await self._send(data)
            self._queue.popleft()
            self._held -= 1
            self._bytes -= len(data)
            self._notify()

    async def wait_empty(self) -> None:
        """Return once every line put has been written."""
        while self._queue:
            await self._wait_change()
