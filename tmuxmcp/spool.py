"""Lines written to a descriptor by a thread of their own, so that no reader can stop serving.

The server writes to two places that a reader, not the server, can block:
stderr (a client that never reads it fills the pipe) and the audit log (a
regular file on a filesystem that hangs: a hard NFS mount, a stuck FUSE
daemon). A write there on the event loop would stop every call, every
ping and the handling of SIGTERM (issue 27 N4). A ``Spool`` takes each line
without waiting and writes it from one worker thread.

Rule 1: ``put`` never blocks and never raises. It queues the line, or, when
  ``limit`` lines already wait, drops it and counts it (``dropped``).
Rule 2: one daemon thread, started at the first ``put``, writes the lines in
  the order they were put, each one whole (a short write is resumed, and a
  descriptor that is non-blocking is waited for), so lines from one spool
  never interleave.
Rule 3: a write that fails (an ``OSError``) loses that line, counted in
  ``failed``; the next line is tried again. The first line lost, dropped or
  failed, is reported once through ``on_loss`` (called on the worker thread,
  or on the caller's for a drop), so an operator hears of it without a
  report per line.
Rule 4: ``flush(timeout)`` waits at most ``timeout`` seconds for the lines
  put so far to be written; a thread blocked in a write is abandoned with the
  process (it is a daemon), never waited for without a bound.
"""

from __future__ import annotations

import logging
import os
import queue
import select
import threading
from collections.abc import Callable
from typing import Final

DEFAULT_LIMIT: Final = 4096
"""Lines waiting at most, per spool (Rule 1): a few MB of audit records at most."""


class Spool:
    """A bounded queue of lines written to ``fd`` by a worker thread (module docstring)."""

    def __init__(
        self,
        fd: int,
        *,
        limit: int = DEFAULT_LIMIT,
        on_loss: Callable[[str], None] | None = None,
    ) -> None:
        self.fd = fd
        self.dropped = 0
        """Lines refused because ``limit`` lines were waiting (Rule 1)."""
        self.failed = 0
        """Lines whose write failed (Rule 3)."""
        self._on_loss = on_loss
        self._reported = False
        self._lines: queue.Queue[bytes] = queue.Queue(maxsize=limit)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def lost(self) -> int:
        """Lines that never reached ``fd``: dropped or failed."""
        return self.dropped + self.failed

    def put(self, line: bytes) -> None:
        """Queue ``line`` for writing, or drop it when the queue is full (Rule 1)."""
        self._start()
        try:
            self._lines.put_nowait(line)
        except queue.Full:
            self.dropped += 1
            self._report(f"{self.dropped} line(s) dropped: the writer is not keeping up")

    def flush(self, timeout: float) -> bool:
        """Wait at most ``timeout`` seconds for every line put so far to be written or lost
        (Rule 4); whether they all were."""
        # all_tasks_done is the queue's own condition, notified when the count of
        # lines put and not yet written or lost reaches zero.
        with self._lines.all_tasks_done:
            return self._lines.all_tasks_done.wait_for(
                lambda: self._lines.unfinished_tasks == 0, timeout
            )

    def _start(self) -> None:
        if self._thread is not None:
            return
        with self._lock:
            if self._thread is None:
                # A daemon: a write blocked for good must not keep the process
                # alive once serving is over (Rule 4).
                self._thread = threading.Thread(
                    target=self._write_forever, name=f"tmuxmcp-spool-{self.fd}", daemon=True
                )
                self._thread.start()

    def _write_forever(self) -> None:
        while True:
            line = self._lines.get()
            try:
                self._write(line)
            except OSError as exc:
                self.failed += 1
                self._report(f"a write failed: {exc.strerror or exc}")
            finally:
                self._lines.task_done()

    def _write(self, line: bytes) -> None:
        view = memoryview(line)
        while view:
            try:
                written = os.write(self.fd, view)
            except BlockingIOError:
                # A descriptor someone made non-blocking (stderr's pipe is shared
                # with the client): wait for room here, on this thread.
                select.select([], [self.fd], [])
                continue
            view = view[written:]

    def _report(self, why: str) -> None:
        if self._reported or self._on_loss is None:
            return
        self._reported = True
        self._on_loss(why)


class SpoolHandler(logging.Handler):
    """A logging handler whose records go through a ``Spool`` (stderr, in service)."""

    def __init__(self, spool: Spool, flush_timeout: float = 1.0) -> None:
        super().__init__()
        self.spool = spool
        self.flush_timeout = flush_timeout

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record) + "\n"
        except Exception:  # a record that cannot be formatted is logging's error to report
            self.handleError(record)
            return
        self.spool.put(text.encode("utf-8", "backslashreplace"))

    def flush(self) -> None:
        """Wait a bounded time for the lines logged so far (``logging.shutdown`` calls it)."""
        self.spool.flush(self.flush_timeout)
