"""The spool's bounds (issue 27 N4): ``put`` never waits, whatever the reader does.

A pipe whose buffer is full and which nobody reads stands for a client that
never reads stderr, or a log on a filesystem that hangs: the worker thread
blocks in its write, and the caller goes on. Pure logic over real pipes; no
tmux. The servers' use of it is ``tests/test_blocked_writers.py``.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import select
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import trio

from tmuxmcp.spool import Spool, SpoolHandler

_SPOOLS: list[Spool] = []
"""The spools a test made over a pipe: emptied before the pipe closes (``_full_pipe``)."""


def _spool(fd: int, **options: Any) -> Spool:
    spool = Spool(fd, **options)
    _SPOOLS.append(spool)
    return spool


def _drain(read_end: int) -> None:
    """Read the pipe until every spool of the test has written what it holds (30 s at most).

    A spool's thread still holding a line when its pipe is closed would write it
    later into whatever descriptor then has that number: another test's pipe
    (seen as a flake of the fast tier).
    """
    fcntl.fcntl(read_end, fcntl.F_SETFL, fcntl.fcntl(read_end, fcntl.F_GETFL) | os.O_NONBLOCK)
    deadline = time.monotonic() + 30
    while not all(spool.flush(0.01) for spool in _SPOOLS):
        assert time.monotonic() < deadline, "a spool kept a line the pipe had room for"
        with contextlib.suppress(BlockingIOError):
            while os.read(read_end, 1 << 16):
                pass
    _SPOOLS.clear()


@contextmanager
def _full_pipe() -> Iterator[tuple[int, int]]:
    """(read end, write end) of a pipe that holds not one more byte; the write end blocks."""
    read_end, write_end = os.pipe()
    try:
        flags = fcntl.fcntl(write_end, fcntl.F_GETFL)
        fcntl.fcntl(write_end, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        with pytest.raises(BlockingIOError):
            while True:
                os.write(write_end, b"x" * 65536)
        with pytest.raises(BlockingIOError):
            os.write(write_end, b"x")
        fcntl.fcntl(write_end, fcntl.F_SETFL, flags)
        yield read_end, write_end
        _drain(read_end)
    finally:
        _SPOOLS.clear()
        os.close(read_end)
        os.close(write_end)


def _lines_after_the_filler(fd: int, count: int) -> list[bytes]:
    """Read ``fd`` until ``count`` lines follow the pipe's filler of ``x``; those lines."""
    data = b""
    while data.replace(b"x", b"").count(b"\n") < count:
        ready, _, _ = select.select([fd], [], [], 30)
        assert ready, "the spool wrote nothing once the pipe had room"
        data += os.read(fd, 1 << 16)
    return data.replace(b"x", b"").splitlines()


def test_put_never_waits_on_a_reader_that_never_reads_and_counts_what_it_drops() -> None:
    """Rule 1 and 3: past the bound a line is dropped and counted, and reported once."""
    reports: list[str] = []
    with _full_pipe() as (read_end, write_end):
        spool = _spool(write_end, limit=4, on_loss=reports.append)
        for n in range(20):
            spool.put(b"line %d\n" % n)  # returns although nothing can be written
        assert spool.dropped >= 20 - 4 - 1  # the bound, and the line the thread holds
        assert spool.lost == spool.dropped
        assert len(reports) == 1 and "dropped" in reports[0]
        assert not spool.flush(0.01), "a flush is bounded while the writer is stuck"
        # The reader reads again: what was kept arrives whole and in order.
        kept = 20 - spool.dropped
        lines = _lines_after_the_filler(read_end, kept)
        assert spool.flush(30)
    numbers = [int(line.split()[1]) for line in lines]
    assert numbers == sorted(numbers) and len(numbers) == kept


def test_a_write_that_fails_is_counted_and_reported_once() -> None:
    """Rule 3: a descriptor that cannot be written loses each line, reported once."""
    reports: list[str] = []
    read_end, write_end = os.pipe()
    try:
        spool = Spool(read_end, on_loss=reports.append)  # the read end: EBADF on write
        for _ in range(3):
            spool.put(b"lost\n")
        assert spool.flush(30)
        assert (spool.failed, spool.dropped) == (3, 0)
        assert len(reports) == 1 and "write failed" in reports[0]
    finally:
        os.close(read_end)
        os.close(write_end)


def test_a_log_record_to_a_stuck_stderr_does_not_hold_the_event_loop() -> None:
    """The stderr handler in service: a warning logged on the trio loop while the pipe
    is full returns, and the loop answers its next checkpoint."""
    with _full_pipe() as (_, write_end):
        handler = SpoolHandler(_spool(write_end, limit=2), flush_timeout=0.01)
        logger = logging.getLogger("tmuxmcp.test-spool")
        logger.addHandler(handler)
        logger.propagate = False
        logged = threading.Event()

        async def main() -> None:
            with trio.fail_after(30):
                for n in range(10):
                    logger.warning("warning %d", n)
                    await trio.lowlevel.checkpoint()
                logged.set()

        try:
            trio.run(main)
        finally:
            logger.removeHandler(handler)
        handler.flush()  # bounded, although nothing was written
        assert logged.is_set()
        assert handler.spool.dropped >= 10 - 2 - 1


def test_a_non_blocking_descriptor_that_is_full_is_waited_for_not_lost() -> None:
    """Rule 2: stderr's pipe is shared with the client, which may make it non-blocking;
    a full one is waited for on the worker thread, and the line arrives whole."""
    reports: list[str] = []
    with _full_pipe() as (read_end, write_end):
        fcntl.fcntl(write_end, fcntl.F_SETFL, fcntl.fcntl(write_end, fcntl.F_GETFL) | os.O_NONBLOCK)
        spool = _spool(write_end, on_loss=reports.append)
        spool.put(b"line 1\n")
        assert not spool.flush(0.01)
        (line,) = _lines_after_the_filler(read_end, 1)
        assert spool.flush(30)
    assert (line, spool.lost, reports) == (b"line 1", 0, [])
