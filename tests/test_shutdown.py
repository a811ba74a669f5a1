"""Stopping tmuxmcp: signals, a terminal, a closed stdin, a failed start (issue 13, items 3-4).

Each test runs a real ``python -m tmuxmcp`` process against a private tmux
server and checks what is left afterwards: the exit status, stderr (one
banner line at most, never a traceback), the gate option (removed), the
tmux children (all gone) and, for a failed start, the tmux server itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import select
import signal
import subprocess
import sys
import termios
import time
from typing import Any

import pytest

from tests.process_support import alive, gate_options, stalled_call, wait_exit
from tests.raw_client import RawClient, handshake
from tests.support import PrivateTmux, logged_pids, stalling_tmux, tmux_wrapper


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n"


_INIT = b"".join(_line(message) for message in handshake())


def _read_reply(fd: int, wanted: int, seconds: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    buffer = b""
    while time.monotonic() < deadline:
        readable, _, _ = select.select([fd], [], [], 0.1)
        if not readable:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            reply: dict[str, Any] = json.loads(line)
            if reply.get("id") == wanted:
                return reply
    raise AssertionError(f"no reply to request {wanted}")


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_ends_serving_cleanly(
    private_tmux: PrivateTmux, signum: signal.Signals, status: int
) -> None:
    private_tmux.start_foreign_server()
    with RawClient(private_tmux.env) as client:
        assert client.request("ping", {})["result"] == {}
        assert "@tmuxmcp_" in gate_options(private_tmux)
        client.proc.send_signal(signum)
        assert wait_exit(client.proc) == status
    stderr = client.stderr()
    assert "Traceback" not in stderr
    assert "stdin/stdout" not in stderr, "stdin is a pipe: no banner"
    assert "@tmuxmcp_" not in gate_options(private_tmux)


def _on_a_terminal(tmux: PrivateTmux, *args: str) -> tuple[subprocess.Popen[bytes], int]:
    """tmuxmcp with a pty as its stdin and controlling terminal; returns it and the master."""
    master, slave = pty.openpty()

    def controlling_terminal() -> None:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(
        [sys.executable, "-m", "tmuxmcp", *args],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=tmux.env,
        start_new_session=True,
        preexec_fn=controlling_terminal,  # noqa: PLW1509 - test only, no threads yet
    )
    os.close(slave)
    return proc, master


def test_on_a_terminal_a_banner_then_ctrl_c_exits_130(private_tmux: PrivateTmux) -> None:
    """By hand: one line says what this is; Ctrl-C ends it while a read is blocked."""
    private_tmux.start_foreign_server()
    wrapper, log, _ = stalling_tmux(private_tmux.directory)
    proc, master = _on_a_terminal(private_tmux, "--tmux", wrapper)
    assert proc.stdout is not None and proc.stderr is not None
    try:
        with proc:
            os.write(master, _INIT + _line({"id": 2, "method": "ping"}))
            assert _read_reply(proc.stdout.fileno(), 2)["result"] == {}
            os.write(master, b"\x03")  # the line discipline sends SIGINT
            assert wait_exit(proc) == 130
            stderr = proc.stderr.read().decode()
    finally:
        os.close(master)
    banners = [line for line in stderr.splitlines() if "stdin/stdout" in line]
    assert len(banners) == 1, stderr
    assert "MCP" in banners[0] and "Ctrl-C" in banners[0]
    assert "Traceback" not in stderr
    assert "@tmuxmcp_" not in gate_options(private_tmux)
    assert logged_pids(log), "the wrapper ran"
    assert not [pid for pid in logged_pids(log) if alive(pid)]


def test_on_a_terminal_ctrl_d_exits_0(private_tmux: PrivateTmux) -> None:
    proc, master = _on_a_terminal(private_tmux)
    assert proc.stdout is not None and proc.stderr is not None
    try:
        with proc:
            os.write(master, _INIT + _line({"id": 2, "method": "ping"}))
            assert _read_reply(proc.stdout.fileno(), 2)["result"] == {}
            os.write(master, b"\x04")  # EOF at the start of a line
            assert wait_exit(proc) == 0
            stderr = proc.stderr.read().decode()
    finally:
        os.close(master)
    assert "Traceback" not in stderr
    assert len([line for line in stderr.splitlines() if "stdin/stdout" in line]) == 1


def test_sigint_then_sigterm_as_claude_code_stops_servers(private_tmux: PrivateTmux) -> None:
    """SIGINT, then SIGTERM 100 ms later: a clean exit with SIGINT's status.

    On a server tmuxmcp did not start, so that the server stays for the read-back
    (one tmuxmcp started and left empty ends: tests/driver/test_tenancy.py)."""
    private_tmux.start_foreign_server()
    with RawClient(private_tmux.env) as client:
        client.request("ping", {})
        client.proc.send_signal(signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            client.proc.wait(timeout=0.1)
        if client.proc.poll() is None:
            client.proc.send_signal(signal.SIGTERM)
        assert wait_exit(client.proc) == 130
    stderr = client.stderr()
    assert "Traceback" not in stderr
    assert "@tmuxmcp_" not in gate_options(private_tmux)


def test_stdin_closed_during_a_call_exits_0_leaving_no_child(private_tmux: PrivateTmux) -> None:
    with stalled_call(private_tmux) as call:
        assert call.client.proc.stdin is not None
        call.client.proc.stdin.close()
        assert wait_exit(call.client.proc, 5) == 0
    stderr = call.client.stderr()
    assert "Traceback" not in stderr
    assert not [pid for pid in logged_pids(call.log) if alive(pid)]


def _start_unbindable(tmux: PrivateTmux) -> subprocess.CompletedProcess[bytes]:
    """tmuxmcp on a tmux whose binding step fails: its stdin at EOF, run to its exit."""
    wrapper = tmux_wrapper(
        os.path.join(tmux.directory, "unbindable-tmux"),
        # Binding reads the gate option back with show-options; fail exactly that.
        'case "$*" in *show-options*) echo "no" >&2; exit 1;; esac',
    )
    return subprocess.run(
        [sys.executable, "-m", "tmuxmcp", "--tmux", wrapper],
        input=b"",
        capture_output=True,
        env=tmux.env,
        timeout=60,
        check=False,
    )


def test_a_failed_start_kills_the_server_it_started(private_tmux: PrivateTmux) -> None:
    """tmuxmcp started the server, then failed to bind: that server must not outlive it."""
    done = _start_unbindable(private_tmux)
    assert done.returncode == 1, done.stderr
    assert b"Traceback" not in done.stderr
    probe = private_tmux.bare("list-sessions", check=False)
    assert probe.returncode != 0, "no server answers on the socket"
    assert "no server running" in probe.stderr or "error connecting" in probe.stderr


def test_a_failed_start_leaves_a_found_server_alone(private_tmux: PrivateTmux) -> None:
    private_tmux.start_foreign_server()
    done = _start_unbindable(private_tmux)
    assert done.returncode == 1
    assert "foreign" in private_tmux.bare("list-sessions").stdout


_SPIN = '''
"""Test-only: makes capture_since compute forever without yielding (issue 18 R1)."""
import os
import tmuxmcp.tools.since as since


def _spin(*args, **kwargs):
    os.write(2, b"spinning\\n")
    while True:
        pass


since.decode_cursor = _spin
'''


def test_sigterm_ends_a_server_whose_handler_computes_without_yielding(
    private_tmux: PrivateTmux, tmp_path: Any
) -> None:
    """A handler stuck in a CPU loop never yields to trio; SIGTERM still ends the process."""
    (tmp_path / "sitecustomize.py").write_text(_SPIN)
    env = private_tmux.env | {"PYTHONPATH": str(tmp_path)}
    pane = private_tmux.new_session("spin")["pane_id"]
    with RawClient(env) as client:
        assert client.request("ping", {})["result"] == {}
        client.send(
            {
                "jsonrpc": "2.0",
                "id": "stuck",
                "method": "tools/call",
                "params": {"name": "capture_since", "arguments": {"pane_id": pane, "cursor": "A"}},
            }
        )
        deadline = time.monotonic() + 20
        while "spinning" not in client.stderr():
            assert time.monotonic() < deadline, "the handler never started"
            select.select([], [], [], 0.02)
        client.proc.send_signal(signal.SIGTERM)
        assert wait_exit(client.proc, 30) == 143
    stderr = client.stderr()
    assert "Traceback" not in stderr
    assert "did not stop" in stderr
