"""Decide provenance once, at startup, and bind to one tmux server (CM-1, CM-3).

* If a server already answers on the selected socket, its configuration is
  unknown, whatever ``#{config_files}`` says: configuration, hooks and aliases
  can all have been changed at runtime. Provenance is ``unknown``.
* Otherwise tmuxmcp starts one itself with a minimal configuration
  (``-f /dev/null``) and ``exit-empty off``, so the server stays up with zero
  sessions instead of exiting at once. When this process exits and the
  server holds nothing (no session, no other client, no other tmuxmcp), it
  ends it (``release``, ``tenancy``); otherwise the operator stops it with
  ``tmux -L tmuxmcp kill-server``. The starting client carries a random
  ``TMUXMCP_START`` value in its environment, which a new server copies into
  its global environment. Only if the server that then answers holds that
  value (and reports no configuration file but ``/dev/null``) did this
  process start it; otherwise another process won the start race and
  provenance is ``unknown``. The variable is removed again at once.
* A server this process started is minimal only if, at binding, it holds
  nothing but what tmux itself defines (``pristine``: the built-in alias
  list from tmux's source, no hook, no session, no ``default-command``).
  Another process of the same user can reach the new socket before binding;
  whatever it set there is a departure, and provenance is ``unknown``
  (issue 27 N1). For a minimal server the per-call check's alias baseline
  is tmux's built-in list, never the text the server held at binding.

Binding sets one server option, ``@tmuxmcp_<nonce>``, to the server's pid and
start time, and registers this process in ``@tmuxmcp-serving`` (``tenancy``
Rule 1). Every later call is gated on it *and* on the live server's own
``#{pid}`` and ``#{start_time}`` matching the bound identity (see ``client``;
a copy of the option on another server does not pass): when the server dies
or is replaced, calls fail with ``BoundServerLost`` and
nothing runs on a replacement. tmuxmcp never restarts a server by itself, so a
``minimal`` claim always refers to the server it started.
"""

from __future__ import annotations

import contextlib
import secrets
from enum import StrEnum

import msgspec
import trio

from tmuxmcp.driver import tenancy
from tmuxmcp.driver.argv import cmd, render
from tmuxmcp.driver.client import (
    IDENTITY_FORMAT,
    SAFE_ALIASES,
    ServerIdentity,
    TmuxClient,
    classify_failure,
    decode,
    parse_identity,
)
from tmuxmcp.driver.pristine import builtin_aliases, departures
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.driver.versions import version_tuple
from tmuxmcp.errors import ServerGone, ServerReplaced, TmuxCommandFailed, TmuxMcpError

MINIMAL_CONFIG = "/dev/null"


class Provenance(StrEnum):
    """What tmuxmcp knows about the configuration of the bound server."""

    MINIMAL = "minimal"
    """Started by this process with ``-f /dev/null``."""
    UNKNOWN = "unknown"
    """Found already running, started by someone else in a race, or changed by
    another client before this process bound to it (``pristine``)."""


class ServerFacts(msgspec.Struct, frozen=True):
    """What tmuxmcp learned about the server when it bound to it."""

    identity: ServerIdentity
    version: str
    socket_path: str
    config_files: str
    provenance: Provenance
    created_by_tmuxmcp: bool
    aliases: str | None = None
    """The alias text the per-call check compares with, if this tmux expands a
    whole array option in a format (3.5 and later) and the text is one the gate
    can compare; else None, and no per-call configuration check is possible
    (``client``). On a minimal server it is tmux's built-in list
    (``pristine``, Rule 1), on any other what the server expanded at binding."""
    departures: tuple[str, ...] = ()
    """What a server this process started held at binding beyond what tmux
    defines (``pristine``, Rule 2); any one makes its provenance ``unknown``."""


_FACTS = ("pid", "start_time", "version", "socket_path", "config_files")


async def probe(client: TmuxClient) -> dict[str, str] | None:
    """The answering server's facts, or None if no server answers."""
    frame = RecordFormat(_FACTS)
    try:
        out = await client.run_unbound([cmd("display-message", "-p", args=[frame.template])])
    except ServerGone:
        return None
    records = frame.parse(out.stdout)
    if len(records) != 1:
        raise TmuxCommandFailed("the tmux server did not report its identity")
    return records[0]


START_VARIABLE = "TMUXMCP_START"
HISTORY_LIMIT = 50_000
"""Lines of history per pane on a server tmuxmcp starts (tmux's default is 2,000), so a
long command's output stays readable. A full history costs the tmux server about
width x 50,000 cells: roughly 20 MB for an 80-column pane of plain text."""


async def start_minimal_server(client: TmuxClient) -> str:
    """Start a server with no configuration that stays up with zero sessions.

    Returns the start nonce that a server started by this call holds.
    """
    nonce = secrets.token_hex(16)
    argv = [
        client.binary,
        "-u",
        "-f",
        MINIMAL_CONFIG,
        *client.socket.argv(),
        *render(
            [
                cmd("start-server"),
                cmd("set-option", "-s", args=["exit-empty", "off"]),
                cmd("set-option", "-g", args=["history-limit", str(HISTORY_LIMIT)]),
            ]
        ),
    ]
    done = await client.runner(
        argv, env={**client.env, START_VARIABLE: nonce}, seconds=client.timeout
    )
    if done.returncode != 0:
        raise classify_failure(decode(done.stderr), client.socket)
    return nonce


async def started_by_us(client: TmuxClient, nonce: str) -> bool:
    """True if the answering server holds our start nonce; removes the variable."""
    try:
        out = await client.run_unbound([cmd("show-environment", "-g", args=[START_VARIABLE])])
    except TmuxCommandFailed:
        return False  # "unknown variable": a server someone else started
    await client.run_unbound([cmd("set-environment", "-g", "-u", args=[START_VARIABLE])])
    return out.stdout.strip() == f"{START_VARIABLE}={nonce}"


async def mark(client: TmuxClient) -> ServerIdentity:
    """Set the gate option to the answering server's identity, register this process
    as serving there (``tenancy`` Rule 1), and return the identity."""
    out = await client.run_unbound(
        [
            cmd("set-option", "-s", "-F", args=[client.marker, IDENTITY_FORMAT]),
            tenancy.register(tenancy.this_process(client.marker)),
            cmd("show-options", "-s", "-v", args=[client.marker]),
        ]
    )
    identity = parse_identity(out.stdout.strip())
    if identity is None:
        raise TmuxCommandFailed("the tmux server did not report its identity")
    return identity


async def readable_aliases(client: TmuxClient) -> str | None:
    """``#{command-alias}`` if it expands to the whole list ``show-options`` prints.

    tmux before 3.5 expands an array option without an index to nothing, so a
    format cannot see hooks or aliases there; the two then differ (a server
    has default aliases) and the answer is None.
    """
    out = await client.run_unbound(
        [
            cmd("display-message", "-p", args=["#{command-alias}"]),
            cmd("show-options", "-s", "-v", args=["command-alias"]),
        ]
    )
    expanded, *listed = out.stdout.splitlines()
    if not listed or expanded != " ".join(listed) or not SAFE_ALIASES.fullmatch(expanded):
        return None
    return expanded


BIND_ATTEMPTS = 3
"""How often ``establish`` looks again when the server it found ended before
binding: another tmuxmcp that started it may end it when it exits empty
(``tenancy``), between this process's probe and its registration."""


async def establish(client: TmuxClient) -> ServerFacts:
    """Find or start the server, decide provenance, and bind ``client`` to it."""
    for _ in range(BIND_ATTEMPTS - 1):
        with contextlib.suppress(ServerGone):
            return await _establish(client)
    return await _establish(client)


async def _establish(client: TmuxClient) -> ServerFacts:
    facts = await probe(client)
    if facts is not None:
        return await _bind(client, facts, created=False)
    nonce = await start_minimal_server(client)
    created = await started_by_us(client, nonce)
    try:
        facts = await probe(client)
        if facts is None:
            raise ServerGone(f"tmux exited right after starting on {client.socket.describe()}")
        return await _bind(client, facts, created=created)
    except BaseException:
        if created:
            await _abandon(client)
        raise


async def _abandon(client: TmuxClient) -> None:
    """Kill the server this process started and then failed to bind to.

    It was started with ``exit-empty off``, so nothing else would ever stop
    it. Unbound (binding is what failed), but only a server holding this
    process's start nonce a moment ago is ever killed; shielded, so that a
    signal during startup still cleans up.
    """
    with trio.CancelScope(shield=True), contextlib.suppress(TmuxMcpError):
        await client.run_unbound([cmd("kill-server")], seconds=2)


async def _bind(client: TmuxClient, facts: dict[str, str], *, created: bool) -> ServerFacts:
    identity = await mark(client)
    if identity != ServerIdentity(int(facts["pid"]), int(facts["start_time"])):
        raise ServerReplaced("the tmux server changed while tmuxmcp was binding to it")
    client.bind(identity, facts["socket_path"])
    version = version_tuple(facts["version"])
    found: tuple[str, ...] = ()
    if created:
        found = await departures(client, version)
        if facts["config_files"] not in ("", MINIMAL_CONFIG):
            found = (f"it reports configuration files {facts['config_files']!r}", *found)
    minimal = created and not found
    aliases = await readable_aliases(client)
    builtin = builtin_aliases(version)
    if minimal and aliases is not None and builtin is not None:
        aliases = " ".join(builtin)  # Rule 1 of pristine: tmux's list, not the server's
    return ServerFacts(
        identity=identity,
        version=facts["version"],
        socket_path=facts["socket_path"],
        config_files=facts["config_files"],
        provenance=Provenance.MINIMAL if minimal else Provenance.UNKNOWN,
        created_by_tmuxmcp=created,
        aliases=aliases,
        departures=found,
    )


async def release(client: TmuxClient, facts: ServerFacts) -> bool:
    """Best effort at clean shutdown: unregister this process and remove the gate
    option from the bound server; end that server if this process started it
    and it holds nothing (``tenancy``). True if the server was ended.

    Only the bound server is touched (every call is gated); a server that is
    gone or replaced is left alone. Two tmux calls of at most 2 s each, within
    the stop signal's grace (``cli.STOP_GRACE``).
    """
    me = tenancy.this_process(client.marker)
    stale: list[tenancy.Tenant] = []
    with contextlib.suppress(TmuxMcpError):
        out = await client.run(tenancy.read_registry(), seconds=2)
        stale = [t for t in tenancy.registered(out.stdout) if t != me and not t.runs()]
    commands = tenancy.leaving(
        me,
        stale,
        client.marker,
        end_if_empty=facts.created_by_tmuxmcp,
        version=facts.version,
    )
    try:
        await client.run(*commands, seconds=2)
    except TmuxMcpError:
        # The empty guard refused (the server holds something: it stays, and the
        # edits before the guard were made), or the server is gone or replaced.
        return False
    return facts.created_by_tmuxmcp
