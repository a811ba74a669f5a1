"""A client that writes requests and does not read its answers: the repro of issue 27 N3.

``flood`` starts nothing itself: it takes a ``RawClient`` that has done its
handshake, writes every line from a thread (a server that stops reading
blocks the thread, never the caller), and samples the server's resident
memory (``VmRSS`` in ``/proc/<pid>/status``) while nothing is read. Once
the writer is done, or both pipes are full (the server stopped reading its
input and cannot write more output), it reads every answer, still sampling,
and returns what it saw. No sleep and no timing: each phase ends on a
condition, with a deadline.

Shared by ``tests/test_backpressure.py`` (which asserts a bound) and
``bench/probe_backpressure.py`` (which prints the figures).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import selectors
import termios
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.raw_client import RawClient

_GETPIPE_SIZE = getattr(fcntl, "F_GETPIPE_SZ", 1032)
_HEAD = re.compile(rb'\{"jsonrpc":"2\.0","id":(-?[0-9]+|"[^"\\]*"),')


def rss_kb(pid: int) -> int:
    """The resident memory of ``pid`` in KiB, from ``/proc/<pid>/status``."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def _queued(fd: int) -> int:
    """The bytes waiting in the pipe ``fd`` is an end of (``FIONREAD`` works on either end)."""
    out = bytearray(4)
    fcntl.ioctl(fd, termios.FIONREAD, out)
    return int.from_bytes(out, "little")


def pipe_full(fd: int) -> bool:
    """Whether the pipe ``fd`` is an end of holds at least half its capacity."""
    return _queued(fd) * 2 >= fcntl.fcntl(fd, _GETPIPE_SIZE)


@dataclass
class Flood:
    """What one flood showed: the server's memory and the answers it gave."""

    baseline_kb: int
    peak_unread_kb: int = 0
    """The most RSS seen while the client read nothing."""
    peak_kb: int = 0
    """The most RSS seen at any time, reading included."""
    stalled: bool = False
    """Whether the writer was held back (the server stopped reading) before it was done."""
    answers: list[bytes] = field(default_factory=list)
    """Every line the server wrote, as written (parsing 12,000 tool lists would cost the
    test more than the server)."""

    def ids(self) -> list[Any]:
        """The id of each answer, read from the line's head (the server writes it second)."""
        found = []
        for line in self.answers:
            head = _HEAD.match(line)
            assert head is not None, line[:200]
            found.append(json.loads(head.group(1)))
        return found

    @property
    def growth_mb(self) -> float:
        return (self.peak_kb - self.baseline_kb) / 1024


def flood(client: RawClient, lines: Sequence[bytes], wanted: int, timeout: float = 300) -> Flood:
    """Write ``lines`` without reading, then read until ``wanted`` answers arrived."""
    proc = client.proc
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin.fileno(), proc.stdout.fileno()
    seen = Flood(baseline_kb=rss_kb(proc.pid))
    seen.peak_kb = seen.peak_unread_kb = seen.baseline_kb
    data = b"".join(line + b"\n" for line in lines)
    written = threading.Event()

    def write() -> None:
        with contextlib.suppress(OSError):
            view = memoryview(data)
            while view:
                view = view[os.write(stdin, view) :]
        written.set()

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    deadline = time.monotonic() + timeout
    # Phase 1: nothing is read. It ends when every line was written, or when
    # the server holds the writer back with its output full.
    while not written.wait(0.01):
        sample = rss_kb(proc.pid)
        seen.peak_unread_kb = max(seen.peak_unread_kb, sample)
        if pipe_full(stdin) and pipe_full(stdout):
            seen.stalled = True
            break
        assert time.monotonic() < deadline, "the flood was neither written nor held back"
    seen.peak_unread_kb = max(seen.peak_unread_kb, rss_kb(proc.pid))
    # Phase 2: the client reads again, and gets everything.
    buffer = b""
    with selectors.DefaultSelector() as selector:
        selector.register(stdout, selectors.EVENT_READ)
        while len(seen.answers) < wanted:
            assert time.monotonic() < deadline, f"{len(seen.answers)} of {wanted} answers came"
            seen.peak_kb = max(seen.peak_kb, rss_kb(proc.pid))
            if not selector.select(timeout=0.5):
                continue
            chunk = os.read(stdout, 1 << 20)
            assert chunk, "the server closed its output"
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            seen.answers += complete
    writer.join(timeout=max(1.0, deadline - time.monotonic()))
    seen.peak_kb = max(seen.peak_kb, seen.peak_unread_kb)
    return seen


def requests(method: str, count: int, first_id: int = 100, params: str = "{}") -> list[bytes]:
    """``count`` requests of ``method``, ids from ``first_id`` up."""
    return [
        b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}'
        % (first_id + n, method.encode(), params.encode())
        for n in range(count)
    ]
