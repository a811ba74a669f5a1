"""driver.tty on a real pseudo-terminal of the test's own (no tmux, no shell).

Rule 2: a partial line of a terminal in canonical mode is discarded; a
complete line, a terminal in raw mode and a path that names another device
are left as they are (Rule 1).
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import termios
import time
import tty as stdlib_tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from tmuxmcp.driver import tty


@pytest.fixture
def terminal() -> Iterator[tuple[int, int, str]]:
    """A pty: its master, its slave and the slave's path."""
    master, slave = pty.openpty()
    try:
        yield master, slave, os.ttyname(slave)
    finally:
        os.close(master)
        os.close(slave)


def _waiting(slave: int) -> bytes:
    """What a reader of the terminal gets now, read as raw bytes (the mode is put back;
    TCSANOW, since the default TCSAFLUSH would itself discard the input)."""
    saved = termios.tcgetattr(slave)
    stdlib_tty.setraw(slave, termios.TCSANOW)
    os.set_blocking(slave, False)
    try:
        return os.read(slave, 100)
    except BlockingIOError:
        return b""
    finally:
        os.set_blocking(slave, True)
        termios.tcsetattr(slave, termios.TCSANOW, saved)


def _typed(master: int, slave: int, data: bytes) -> None:
    """Write ``data`` as typed keys and wait (with a deadline) until the kernel's line
    discipline has taken it: the kernel hands a pty's input over asynchronously, so
    without this a check that ran at once could see an empty queue."""
    os.write(master, data)
    deadline = time.monotonic() + 5
    if termios.tcgetattr(slave)[3] & termios.ECHO:
        # Canonical with echo: the line discipline echoes what it took to the master.
        echoed = b""
        last = data.rstrip(b"\n")[-1:]
        while not (echoed.rstrip(b"\r\n").endswith(last) and len(echoed) >= len(data) - 1):
            assert time.monotonic() < deadline, f"no echo of {data!r}: {echoed!r}"
            if select.select([master], [], [], 0.05)[0]:
                echoed += os.read(master, 100)
        return
    # Raw: the queue counts every byte.
    while struct.unpack("i", fcntl.ioctl(slave, termios.FIONREAD, b"\0\0\0\0"))[0] < len(data):
        assert time.monotonic() < deadline, f"{data!r} never reached the terminal"
        time.sleep(0.01)


def test_a_partial_line_is_discarded(terminal: tuple[int, int, str]) -> None:
    master, slave, path = terminal
    _typed(master, slave, b"\x1b[24;1R")
    assert tty.discard_partial_line(path, os.fstat(slave).st_rdev) is True
    assert _waiting(slave) == b""


def test_a_complete_line_is_kept(terminal: tuple[int, int, str]) -> None:
    master, slave, path = terminal
    _typed(master, slave, b"echo typed\n")
    assert tty.discard_partial_line(path, os.fstat(slave).st_rdev) is False
    assert _waiting(slave) == b"echo typed\n"


def test_a_terminal_in_raw_mode_is_kept(terminal: tuple[int, int, str]) -> None:
    master, slave, path = terminal
    stdlib_tty.setraw(slave, termios.TCSANOW)
    _typed(master, slave, b"abc")
    assert tty.discard_partial_line(path, os.fstat(slave).st_rdev) is False
    assert _waiting(slave) == b"abc"


def test_another_device_is_not_touched(terminal: tuple[int, int, str]) -> None:
    master, slave, path = terminal
    _typed(master, slave, b"abc")
    assert tty.discard_partial_line(path, os.fstat(slave).st_rdev + 1) is False
    assert _waiting(slave) == b"abc"


def test_the_terminal_of_a_process_is_field_7_of_its_stat(tmp_path: Path) -> None:
    """tty_nr, after a command name holding ``) `` (proc Rule 1); 0 is no terminal."""
    for pid, number in ((70, 34817), (71, 0)):
        (tmp_path / str(pid)).mkdir()
        after = ["S", "1", str(pid), str(pid), str(number), str(pid)] + ["0"] * 40
        (tmp_path / str(pid) / "stat").write_text(f"{pid} (a) b) " + " ".join(after) + "\n")
    assert tty.terminal_of(70, tmp_path) == 34817
    assert tty.terminal_of(71, tmp_path) is None
    assert tty.terminal_of(72, tmp_path) is None
