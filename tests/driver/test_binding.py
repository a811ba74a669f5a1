"""``driver.binding``: decide provenance once at startup and bind to one server.

ADR 0001 CM-1: a server that tmuxmcp creates uses a minimal configuration; a
server found already running MUST NOT be claimed as minimal. CM-3 depends on
that claim (teardown is enabled by default only for ``minimal``). Research §6:
``exit-empty`` is on by default, so a started server must turn it off to stay
up with zero sessions; ``-f`` is ignored when a server already exists.
Every claim is checked with bare tmux.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support import PrivateTmux
from tmuxmcp.driver import binding
from tmuxmcp.driver.argv import cmd
from tmuxmcp.driver.binding import Provenance, ServerFacts
from tmuxmcp.driver.client import ServerIdentity, TmuxClient
from tmuxmcp.driver.socket import SocketSelection, select_socket
from tmuxmcp.errors import ConfigError, TmuxMcpError, TmuxUnavailable


def _tmux_binary() -> str:
    found = shutil.which("tmux")
    assert found is not None
    return os.path.realpath(found)


def _client(tmux: PrivateTmux, socket: SocketSelection | None = None) -> TmuxClient:
    selection = select_socket(None, None) if socket is None else socket
    return TmuxClient(_tmux_binary(), selection, tmux.env, timeout=10)


def _exit_empty(tmux: PrivateTmux) -> str:
    return tmux.bare("show-options", "-s", "exit-empty").stdout.strip()


async def test_establish_on_an_empty_directory_starts_a_minimal_server(
    private_tmux: PrivateTmux,
) -> None:
    assert os.listdir(private_tmux.directory) == []
    client = _client(private_tmux)
    facts = await binding.establish(client)

    assert facts.provenance is Provenance.MINIMAL
    assert facts.created_by_tmuxmcp is True
    assert facts.config_files == "/dev/null"
    assert facts.socket_path == os.path.join(
        private_tmux.directory, f"tmux-{os.getuid()}", "tmuxmcp"
    )
    assert facts.version == private_tmux.bare("display-message", "-p", "#{version}").stdout.strip()
    assert client.bound == facts.identity
    # Read back with bare tmux: this is the server, it has no sessions, and it stays up.
    assert int(private_tmux.server_pid()) == facts.identity.pid
    start = private_tmux.bare("display-message", "-p", "#{start_time}").stdout.strip()
    assert int(start) == facts.identity.start_time
    assert private_tmux.bare("list-sessions").stdout == ""
    assert _exit_empty(private_tmux) == "exit-empty off"
    private_tmux.bare("new-session", "-d", "-s", "brief")
    private_tmux.bare("kill-session", "-t", "brief")
    assert int(private_tmux.server_pid()) == facts.identity.pid  # survived zero sessions


async def test_establish_on_a_running_server_claims_nothing_and_changes_nothing(
    private_tmux: PrivateTmux,
) -> None:
    """CM-1: an existing server is ``unknown`` even if it reports ``/dev/null`` as its config."""
    private_tmux.start_foreign_server()  # started with -f /dev/null, by someone else
    pid = private_tmux.server_pid()
    client = _client(private_tmux)
    facts = await binding.establish(client)

    assert facts.provenance is Provenance.UNKNOWN
    assert facts.created_by_tmuxmcp is False
    assert facts.config_files == "/dev/null"  # what it says is not evidence
    assert facts.identity.pid == int(pid)
    assert private_tmux.server_pid() == pid
    assert private_tmux.bare("list-sessions", "-F", "#{session_name}").stdout == "foreign\n"
    assert _exit_empty(private_tmux) == "exit-empty on"  # the foreign server was not reconfigured


async def test_a_second_establish_on_our_own_server_is_unknown(private_tmux: PrivateTmux) -> None:
    """A restarted tmuxmcp did not see the server start, so it cannot claim ``minimal``."""
    first = await binding.establish(_client(private_tmux))
    second = await binding.establish(_client(private_tmux))
    assert first.provenance is Provenance.MINIMAL
    assert second.provenance is Provenance.UNKNOWN
    assert second.created_by_tmuxmcp is False
    assert second.identity == first.identity


async def test_establish_after_a_server_died_starts_a_new_one(private_tmux: PrivateTmux) -> None:
    """tmux leaves its socket behind on exit (research §6); a stale socket is not a server."""
    private_tmux.start_foreign_server()
    old_pid = int(private_tmux.server_pid())
    private_tmux.kill_server()
    socket_file = Path(private_tmux.directory, f"tmux-{os.getuid()}", "tmuxmcp")
    assert socket_file.is_socket()  # stale

    facts = await binding.establish(_client(private_tmux))
    assert facts.provenance is Provenance.MINIMAL
    assert facts.created_by_tmuxmcp
    assert facts.identity.pid != old_pid
    assert int(private_tmux.server_pid()) == facts.identity.pid


async def test_losing_the_start_race_is_never_claimed_as_minimal(
    private_tmux: PrivateTmux, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CM-1 under the start race (research §6 "Race"): a server someone else started is unknown.

    The race is made deterministic: right after establish's first probe finds
    no server, another process starts one with ``-f /dev/null`` (as a second
    tmuxmcp, or anyone copying the documented command, would).

    ``start-server`` silently joins that server, which also reports
    ``/dev/null`` as its config; only the start nonce proves who started it
    (found by this test: the first version claimed ``minimal`` here).
    """
    real_probe = binding.probe
    raced: list[str] = []

    async def probe_then_lose_the_race(client: TmuxClient) -> dict[str, str] | None:
        found = await real_probe(client)
        if found is None and not raced:
            private_tmux.start_foreign_server()
            raced.append(private_tmux.server_pid())
        return found

    monkeypatch.setattr(binding, "probe", probe_then_lose_the_race)
    facts = await binding.establish(_client(private_tmux))
    assert raced == [str(facts.identity.pid)]  # the race really happened
    assert facts.provenance is Provenance.UNKNOWN
    assert facts.created_by_tmuxmcp is False


async def test_establish_on_a_socket_path(private_tmux: PrivateTmux) -> None:
    path = os.path.join(private_tmux.directory, "explicit.sock")
    client = _client(private_tmux, select_socket(None, path))
    facts = await binding.establish(client)
    try:
        assert facts.socket_path == path
        assert facts.provenance is Provenance.MINIMAL
        assert Path(path).is_socket()
        out = await client.run(cmd("display-message", "-p", args=["#{socket_path}"]))
        assert out.stdout == path + "\n"
    finally:
        await client.run_unbound([cmd("kill-server")])


async def test_establish_never_replaces_a_file_that_is_not_a_socket(
    private_tmux: PrivateTmux,
) -> None:
    """An operator's mistyped ``--socket-path`` must not destroy a file.

    Connecting to a regular file fails, and a server started there would
    unlink it to bind its socket; ``select_socket`` refuses such a path
    (found by this test: the first version destroyed the file).
    """
    path = Path(private_tmux.directory, "notes.txt")
    path.write_text("precious\n")
    client = None
    try:
        client = _client(private_tmux, select_socket(None, str(path)))
        await binding.establish(client)
    except (ConfigError, TmuxMcpError):
        pass
    finally:
        if client is not None and path.is_socket():
            await client.run_unbound([cmd("kill-server")])
    assert not path.is_socket()
    assert path.read_text() == "precious\n"


async def test_a_missing_tmux_binary_is_unavailable(private_tmux: PrivateTmux) -> None:
    client = TmuxClient(
        os.path.join(private_tmux.directory, "no-tmux"), select_socket(None, None), private_tmux.env
    )
    with pytest.raises(TmuxUnavailable):
        await binding.establish(client)
    assert client.bound is None


async def test_probe_reports_no_server_without_starting_one(private_tmux: PrivateTmux) -> None:
    assert await binding.probe(_client(private_tmux)) is None
    assert private_tmux.bare("list-sessions", check=False).returncode != 0


def test_server_facts_are_frozen() -> None:
    facts = ServerFacts(
        identity=ServerIdentity(1, 2),
        version="3.3a",
        socket_path="/s",
        config_files="",
        provenance=Provenance.UNKNOWN,
        created_by_tmuxmcp=False,
    )
    with pytest.raises(AttributeError):
        facts.provenance = Provenance.MINIMAL  # type: ignore[misc]
    assert Provenance.MINIMAL.value == "minimal"
    assert Provenance.UNKNOWN.value == "unknown"
