"""A server that went away is ``ServerGone``, exactly (issue 13, item 4; CM-1).

The lines below are what the tmux client printed on stderr, recorded on
3.3a, 3.5a and 3.6a (the same on all three; ``tmux -u -N -L x`` on a private
``TMUX_TMPDIR``): with no socket, with the socket of a SIGKILLed server left
behind (tmux reports the refused connection as "no server running"), with the
socket directory removed, and with the server SIGKILLed while the client's
command list ran. With ``kill-server`` or SIGTERM in the middle of a command
list the client printed nothing at all and exited 0: that silent failure is
told apart by asking whether the server process exited (``driver.liveness``).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
import trio

from tmuxmcp.driver import liveness
from tmuxmcp.driver.client import classify_failure
from tmuxmcp.driver.socket import select_socket
from tmuxmcp.errors import ServerGone, TmuxCommandFailed

RECORDED_GONE = {
    "no socket (3.3a, 3.5a, 3.6a)": (
        "error connecting to /tmp/robust-rec/d.8Myj/tmux-0/x (No such file or directory)\n"
    ),
    "socket left by a killed server (3.3a, 3.5a, 3.6a)": (
        "no server running on /tmp/robust-rec/d.8Myj/tmux-0/x\n"
    ),
    "socket directory removed (3.3a, 3.5a, 3.6a)": (
        "error connecting to /tmp/robust-rec/d.Atik/tmux-0/x (No such file or directory)\n"
    ),
    "-S path whose directory is gone (3.3a, 3.5a, 3.6a)": (
        "error connecting to /tmp/robust-rec/d.x57d/nope/sock (No such file or directory)\n"
    ),
    "server SIGKILLed during a command list (3.3a, 3.5a, 3.6a)": "server exited unexpectedly\n",
    "a refused connection, as the reason tmux gives": (
        "error connecting to /tmp/tmux-0/x (Connection refused)\n"
    ),
    "server exited (client.c CLIENT_EXIT_SERVER_EXITED)": "server exited\n",
    "lost server (releases before 3.0)": "lost server\n",
}

NOT_GONE = {
    "a name quoting a gone line": "duplicate session: no server running on x\n",
    "a title quoting a gone line": "can't find window: server exited unexpectedly x\n",
    "a socket tmuxmcp may not use": "error connecting to /tmp/tmux-0/x (Permission denied)\n",
    "a protocol mismatch": "protocol version mismatch (client 8, server 7)\n",
    "an unknown command": "unknown command: frobnicate\n",
}


@pytest.mark.parametrize("stderr", RECORDED_GONE.values(), ids=RECORDED_GONE.keys())
def test_every_recorded_gone_message_is_server_gone(stderr: str) -> None:
    assert type(classify_failure(stderr, select_socket(None, None))) is ServerGone


@pytest.mark.parametrize("stderr", NOT_GONE.values(), ids=NOT_GONE.keys())
def test_text_that_only_quotes_a_gone_message_is_not_server_gone(stderr: str) -> None:
    assert type(classify_failure(stderr, select_socket(None, None))) is not ServerGone


def test_a_gone_line_among_other_lines_is_still_gone() -> None:
    stderr = "some warning\nserver exited unexpectedly\n"
    assert type(classify_failure(stderr, select_socket(None, None))) is ServerGone


def test_a_silent_failure_alone_is_a_failed_command() -> None:
    """Without the liveness check, no text says nothing: not gone by itself."""
    assert type(classify_failure("", select_socket(None, None))) is TmuxCommandFailed


@contextlib.contextmanager
def _child_until_stdin_closes() -> Iterator[subprocess.Popen[bytes]]:
    """A real process that runs until its stdin is closed, reaped on the way out."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    try:
        yield child
    finally:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(timeout=20)


async def test_liveness_sees_an_exited_process_and_a_running_one() -> None:
    with _child_until_stdin_closes() as child:
        assert await liveness.wait_server_exited(child.pid, grace=0.05) is False
        assert child.stdin is not None
        child.stdin.close()
        with trio.fail_after(20):
            # The exit is awaited on the pidfd, within the grace.
            assert await liveness.wait_server_exited(child.pid, grace=10) is True
    assert await liveness.wait_server_exited(child.pid, grace=0.05) is True  # reaped: no such pid


async def test_liveness_without_pidfds_asks_the_process_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_pidfd(pid: int) -> int:
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(os, "pidfd_open", no_pidfd)
    with _child_until_stdin_closes() as child:
        assert await liveness.wait_server_exited(child.pid, grace=0.05) is False
        assert child.stdin is not None
        child.stdin.close()
        with trio.fail_after(20):
            while not await liveness.wait_server_exited(child.pid, grace=0.05):
                pass  # a zombie until reaped: seen as exited
    assert await liveness.wait_server_exited(child.pid, grace=0.05) is True
