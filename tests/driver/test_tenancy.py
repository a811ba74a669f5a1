"""``driver.tenancy``: an exit ends the server tmuxmcp started if it holds nothing (issue 27.3).

ADR 0001: socket-wide termination is an operator action, because it may
destroy sessions the caller does not own. A server with no session, no other
client and no other tmuxmcp serving holds nothing of anyone, so the tmuxmcp
that started it ends it when it exits; anything in it keeps it up. Each test
runs real ``python -m tmuxmcp`` processes and reads the socket back with bare
tmux after they exited.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.process_support import wait_exit
from tests.raw_client import RawClient
from tests.support import PrivateTmux
from tmuxmcp.driver import proc, tenancy
from tmuxmcp.driver.tenancy import Tenant
from tmuxmcp.driver.versions import version_tuple


@contextmanager
def _watched(pid: int) -> Iterator[int]:
    """A pidfd of ``pid``: readable once the process has exited."""
    fd = os.pidfd_open(pid)
    try:
        yield fd
    finally:
        os.close(fd)


def _exits(fd: int, seconds: float = 10) -> bool:
    """Whether the pidfd's process exits within ``seconds`` (a deadline, not a sleep)."""
    readable, _, _ = select.select([fd], [], [], seconds)
    return bool(readable)


def _no_server(tmux: PrivateTmux) -> bool:
    probe = tmux.bare("list-sessions", check=False)
    return probe.returncode != 0 and (
        "no server running" in probe.stderr or "error connecting" in probe.stderr
    )


def _registry(tmux: PrivateTmux) -> str:
    return tmux.bare("display-message", "-p", f"#{{{tenancy.REGISTRY}}}").stdout.rstrip("\n")


def _provenance(client: RawClient) -> str:
    info = client.call("server_info", {})["structuredContent"]["info"]
    provenance: str = info["server"]["provenance"]
    return provenance


def _tools(client: RawClient) -> set[str]:
    return {tool["name"] for tool in client.request("tools/list", {})["result"]["tools"]}


@pytest.mark.parametrize("how", ["stdin", signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_an_exit_ends_the_empty_server_it_started(
    private_tmux: PrivateTmux, how: str | signal.Signals
) -> None:
    """The README's first command (start, then Ctrl-D) and a client's health check
    (start, list, exit) leave no server behind."""
    with RawClient(private_tmux.env) as client:
        assert _provenance(client) == "minimal"
        pid = int(private_tmux.server_pid())
        with _watched(pid) as server:
            if how == "stdin":
                assert client.close() == 0
            else:
                assert isinstance(how, signal.Signals)
                client.proc.send_signal(how)
                assert wait_exit(client.proc) == 128 + how
            assert _exits(server), "the empty server tmuxmcp started outlived it"
    assert _no_server(private_tmux)
    assert "Traceback" not in client.stderr()


def test_the_next_start_is_minimal_with_teardown_on(private_tmux: PrivateTmux) -> None:
    """The first start used nothing up: the second one starts its own server again."""
    with RawClient(private_tmux.env) as first:
        pid = int(private_tmux.server_pid())
        with _watched(pid) as server:
            first.close()
            assert _exits(server)
    with RawClient(private_tmux.env) as second:
        assert _provenance(second) == "minimal"
        assert "kill_session" in _tools(second), "teardown is on"
        assert "toolset" not in second.stderr(), "no warning about a toolset left off"


def test_a_server_holding_a_session_stays(private_tmux: PrivateTmux) -> None:
    with RawClient(private_tmux.env, "--toolsets", "all") as client:
        made = client.call("create_session", {"name": "work"})
        assert not made.get("isError"), made
        assert client.close() == 0
    assert "work" in private_tmux.bare("list-sessions", "-F", "#{session_name}").stdout
    assert _registry(private_tmux) == "", "the leaving process unregistered itself"
    assert "@tmuxmcp_" not in private_tmux.bare("show-options", "-s").stdout.replace(
        tenancy.REGISTRY, ""
    ), "the gate option is removed"


def test_a_server_another_tmuxmcp_serves_on_stays(private_tmux: PrivateTmux) -> None:
    """Two tmuxmcp share the dedicated socket; the one that started it exits first."""
    first = RawClient(private_tmux.env)
    with first:
        pid = int(private_tmux.server_pid())
        with RawClient(private_tmux.env) as second:
            assert _provenance(second) == "unknown"
            assert len(tenancy.registered(_registry(private_tmux))) == 2
            assert first.close() == 0
            # The second still serves on the same server: its calls reach tmux.
            listed = second.call("list_sessions", {})
            assert not listed.get("isError"), listed
            assert int(private_tmux.server_pid()) == pid
            left = tenancy.registered(_registry(private_tmux))
            assert [(t.pid, t.start_time) for t in left] == [
                (second.proc.pid, _start_time(second.proc.pid))
            ]
        # The second did not start the server: it never ends it, empty or not.
        assert int(private_tmux.server_pid()) == pid
        assert _registry(private_tmux) == ""


def _start_time(pid: int) -> int:
    found = proc.start_time(pid)
    assert found is not None
    return found


def test_a_server_tmuxmcp_did_not_start_is_never_ended(private_tmux: PrivateTmux) -> None:
    """Found running (here with no session at all): provenance unknown, and never ended."""
    private_tmux.bare("-f", "/dev/null", "start-server", ";", "set", "-s", "exit-empty", "off")
    pid = int(private_tmux.server_pid())
    with RawClient(private_tmux.env) as client:
        assert _provenance(client) == "unknown"
        assert client.close() == 0
    assert int(private_tmux.server_pid()) == pid
    assert private_tmux.bare("list-sessions").stdout == ""


def test_a_stale_registration_is_removed_and_a_live_one_keeps_the_server(
    private_tmux: PrivateTmux,
) -> None:
    """Rule 2: a tmuxmcp killed by SIGKILL leaves its token; a live process's token stands."""
    with RawClient(private_tmux.env) as client:
        gone = subprocess.Popen(["true"])
        gone.wait()
        dead = Tenant(gone.pid, 1, "dead")  # a pid that no longer runs (or started later)
        live = Tenant(os.getpid(), _start_time(os.getpid()), "11fe")
        private_tmux.bare("set-option", "-s", "-a", tenancy.REGISTRY, dead.token())
        private_tmux.bare("set-option", "-s", "-a", tenancy.REGISTRY, live.token())
        pid = int(private_tmux.server_pid())
        assert client.close() == 0
    assert int(private_tmux.server_pid()) == pid, "a live registration keeps the server"
    assert tenancy.registered(_registry(private_tmux)) == [live]
    # Now only stale registrations are left: the next start's exit ends its server.
    private_tmux.kill_server()
    with RawClient(private_tmux.env) as client:
        private_tmux.bare("set-option", "-s", "-a", tenancy.REGISTRY, dead.token())
        with _watched(int(private_tmux.server_pid())) as server:
            assert client.close() == 0
            assert _exits(server)


def test_a_waiting_command_client_keeps_the_server_on_3_4_and_later(
    private_tmux: PrivateTmux,
) -> None:
    """Rule 3: from tmux 3.4 the guard sees clients; a ``wait-for`` client is one."""
    found = version_tuple(private_tmux.bare("-V").stdout)
    if found is None or found < tenancy.CLIENT_LOOP:
        pytest.skip("tmux before 3.4 cannot loop over clients in a format")
    with RawClient(private_tmux.env) as client:
        pid = int(private_tmux.server_pid())
        waiting = subprocess.Popen(private_tmux.argv("wait-for", "go"), env=private_tmux.env)
        try:
            deadline = time.monotonic() + 10
            while "cc" not in private_tmux.bare("display-message", "-p", "#{L:c}").stdout:
                assert waiting.poll() is None, "wait-for ended early"
                assert time.monotonic() < deadline, "wait-for never reached the server"
            assert client.close() == 0
            assert int(private_tmux.server_pid()) == pid
        finally:
            private_tmux.bare("wait-for", "-S", "go")
            wait_exit(waiting)
    assert waiting.returncode == 0, "the waiting client was never cut off"


def test_the_empty_guard_reads_sessions_registry_and_clients_by_version() -> None:
    """Rule 3 and 4: constants and the process's own token only; ``#{L:}`` from 3.4."""
    old = str(tenancy.empty_guard("3.3a").args[-1])
    new = str(tenancy.empty_guard("3.6").args[-1])
    assert "#{S:s}" in old and "#{@tmuxmcp-serving}" in old and "#{L:" not in old
    assert "#{L:c}" in new
    assert tenancy.registered(" 12-34-ab- 5-6-c- junk 7-8-") == [
        Tenant(12, 34, "ab"),
        Tenant(5, 6, "c"),
    ]
    assert Tenant(12, 34, "ab").token() == " 12-34-ab-"
    assert tenancy.unregister(Tenant(12, 34, "ab")).args[-1] == "#{s/ 12-34-ab-//:@tmuxmcp-serving}"
    with pytest.raises(ValueError, match="hex"):
        Tenant(1, 2, "a}b").token()
