"""No reader can stop serving through the audit log or stderr (issue 27 N4).

The audit log is a regular file or nothing: a FIFO (with or without a
reader), ``/dev/stderr`` and a symbolic link are refused at start, at once,
with an error that says what to name instead, and before any tmux server is
started. stderr is written by a thread of its own (``tmuxmcp.spool``): with
a pipe that is already full and never read, the server still answers
``initialize`` and pings and ends on SIGTERM. Over real stdio, against a
private tmux. The spool's own bounds are ``tests/test_spool.py``.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.raw_client import RawClient, initialize_params
from tests.support import PrivateTmux

START = 60.0
"""Deadline for a refused start: a start that waits on its log never meets it."""


def _start(tmux: PrivateTmux, *args: str) -> subprocess.CompletedProcess[str]:
    """``tmuxmcp`` with ``args`` and an empty stdin; fails if it has not exited by START."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "tmuxmcp", *args],
            input="",
            capture_output=True,
            text=True,
            env=tmux.env,
            timeout=START,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(f"tmuxmcp {args} neither served nor exited: it waits") from None


def _refused(tmux: PrivateTmux, path: str, what: str) -> None:
    """The start with ``--audit-log path`` exits 2 naming ``what`` and a regular file, and
    no tmux server was started (the log is opened before tmux is contacted)."""
    done = _start(tmux, "--audit-log", path)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert f"--audit-log {path} is {what}" in done.stderr, done.stderr
    assert "name a regular file" in done.stderr or "name the regular file" in done.stderr
    assert tmux.bare("list-sessions", check=False).returncode != 0, "a server was started"


def test_a_fifo_without_a_reader_is_refused_at_start_instead_of_hanging(
    private_tmux: PrivateTmux,
) -> None:
    """On 7563819 the open waited for a reader: `initialize` was never answered."""
    fifo = os.path.join(private_tmux.directory, "audit.fifo")
    os.mkfifo(fifo)
    _refused(private_tmux, fifo, "a FIFO")


def test_a_fifo_whose_reader_never_reads_is_refused(private_tmux: PrivateTmux) -> None:
    """On 7563819 it was opened, and after some 365 records a write blocked the loop."""
    fifo = os.path.join(private_tmux.directory, "audit.fifo")
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        _refused(private_tmux, fifo, "a FIFO")
    finally:
        os.close(reader)


def test_dev_stderr_is_refused(private_tmux: PrivateTmux) -> None:
    """A link to the client's stderr pipe (on 7563819, a client that never read stderr
    froze the server), refused as a link; its target, a device or a pipe, as such."""
    _refused(private_tmux, "/dev/stderr", "a symbolic link")
    _refused(private_tmux, "/dev/null", "a character device")


def test_a_symbolic_link_is_refused_and_its_target_left_alone(private_tmux: PrivateTmux) -> None:
    """Even to a regular file: the operator names the file itself."""
    target = os.path.join(private_tmux.directory, "real.jsonl")
    link = os.path.join(private_tmux.directory, "audit.jsonl")
    with open(target, "w"):
        pass
    os.symlink(target, link)
    _refused(private_tmux, link, "a symbolic link")
    assert os.path.getsize(target) == 0
    dangling = os.path.join(private_tmux.directory, "dangling.jsonl")
    os.symlink(os.path.join(private_tmux.directory, "nowhere.jsonl"), dangling)
    _refused(private_tmux, dangling, "a symbolic link")
    assert not os.path.exists(os.path.join(private_tmux.directory, "nowhere.jsonl"))


def test_a_regular_file_is_still_the_log(private_tmux: PrivateTmux) -> None:
    """The refusals leave the ordinary case: a new file is created 0600 and written."""
    log = os.path.join(private_tmux.directory, "audit.jsonl")
    done = _start(private_tmux, "--audit-log", log)
    assert done.returncode == 0, done.stderr
    assert os.stat(log).st_mode & 0o777 == 0o600


@contextmanager
def _full_pipe() -> Iterator[tuple[int, int]]:
    """A pipe whose buffer is full and which nobody reads: (read end, write end), the
    write end blocking again, as a client's stderr pipe is."""
    read_end, write_end = os.pipe()
    try:
        flags = fcntl.fcntl(write_end, fcntl.F_GETFL)
        fcntl.fcntl(write_end, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        chunk = b"x" * 65536
        with pytest.raises(BlockingIOError):
            while True:
                os.write(write_end, chunk)
        with pytest.raises(BlockingIOError):  # not even one byte fits
            os.write(write_end, b"x")
        fcntl.fcntl(write_end, fcntl.F_SETFL, flags)
        yield read_end, write_end
    finally:
        os.close(read_end)
        os.close(write_end)


def test_a_full_stderr_nobody_reads_does_not_stop_pings_or_sigterm(
    private_tmux: PrivateTmux,
) -> None:
    """A server already on the socket makes the start log a warning (teardown is off):
    on 7563819 that write blocked the event loop, so `initialize` was never answered."""
    private_tmux.new_session("existing")
    with _full_pipe() as (_, stderr):
        client = RawClient(private_tmux.env, initialize=False, stderr=stderr)
        try:
            reply = client.request("initialize", initialize_params(), timeout=START)
            assert "result" in reply, reply
            client.notify("notifications/initialized")
            for _ in range(3):
                assert client.request("ping", {}, timeout=START)["result"] == {}
            client.proc.send_signal(signal.SIGTERM)
            try:
                status = client.proc.wait(timeout=START)
            except subprocess.TimeoutExpired:
                raise AssertionError("SIGTERM did not end the server") from None
            assert status == 128 + signal.SIGTERM
        finally:
            client.close()
