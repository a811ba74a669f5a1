"""Startup assembly: from a Config to the frozen state every call shares.

Order (each step can stop startup with a clear error):
1. tool and toolset names are checked, and the audit log opened (a regular
   file only: ``audit.open_log``), before tmux is contacted;
2. the tmux binary's version is checked against the oldest supported one
   (``driver.versions``; only ``tmux -V`` runs, no server is asked);
3. the socket's server is found or started, and provenance decided;
4. the surface is resolved, annotation evidence gathered, and the published
   surface built, all by ``decide``. None of it changes afterwards.

``serve`` (``start`` -> ``build``) and ``surface`` (``predict``) differ only
in how they learn the server's provenance; both then call ``decide``, so the
prediction cannot drift from what is served (tests/test_runtime.py).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any, NamedTuple

import msgspec

from tmuxmcp.audit import AuditLog
from tmuxmcp.capability.annotations import Evidence, gather_evidence
from tmuxmcp.capability.manifest import published_surface
from tmuxmcp.capability.surface import (
    OTHER_SOCKET,
    UNKNOWN_PROVENANCE,
    Surface,
    altered_provenance,
    check_names,
    resolve,
)
from tmuxmcp.config import Config
from tmuxmcp.definition import BY_NAME, DEFINITION, RESOURCES
from tmuxmcp.driver import binding, versions
from tmuxmcp.driver.binding import Provenance, ServerFacts
from tmuxmcp.driver.client import ConfigWatch, TmuxClient, arrays_in_formats
from tmuxmcp.driver.kernel import HOST, Kernel
from tmuxmcp.driver.runner import Runner, spawn
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.run import RunRegistry

log = logging.getLogger("tmuxmcp")


class Runtime(msgspec.Struct, frozen=True, kw_only=True):
    """Everything decided at startup."""

    config: Config
    surface: Surface
    evidence: Evidence
    context: ToolContext
    runs: RunRegistry
    """run_command's runs: the registry the context carries, with its whole type, for
    the server that sweeps, watches and shuts them down."""
    audit: AuditLog | None = None


def socket_report(config: Config, socket_path: str | None) -> dict[str, Any]:
    """The selected socket, as published."""
    return {
        "kind": config.socket.kind.value,
        "value": config.socket.value,
        "tmux_flags": config.socket.argv(),
        "path": socket_path,
        "dedicated_default": config.socket.is_dedicated_default,
    }


def server_report(config: Config, facts: ServerFacts, self_pane: str | None) -> dict[str, Any]:
    """The bound server, as published."""
    return {
        "self_teardown_guard": (
            f"tmuxmcp runs in pane {self_pane}: teardown tools refuse it and its window "
            "and session (teardown tools only; not pane commands or other clients)"
            if self_pane
            else "tmuxmcp does not run in a pane of this server"
        ),
        "provenance": facts.provenance.value,
        "created_by_tmuxmcp": facts.created_by_tmuxmcp,
        "pid": facts.identity.pid,
        "start_time": facts.identity.start_time,
        "tmux_version": facts.version,
        "tmux_binary": config.tmux_binary,
        "config_files": facts.config_files,
        **(
            {"departures": list(facts.departures)}  # why a server tmuxmcp started is not minimal
            if facts.departures
            else {}
        ),
    }


def own_pane(environ: Mapping[str, str], facts: ServerFacts) -> str | None:
    """The pane this process runs in, if it is a pane of the bound server.

    tmux sets ``TMUX=<socket path>,<server pid>,<session index>`` and
    ``TMUX_PANE`` for pane processes; both must point at the bound server. The
    socket path may itself contain commas, so the two numeric fields are split
    off the right (tmux's environ_for_session writes exactly three fields).
    """
    tmux, pane = environ.get("TMUX", ""), environ.get("TMUX_PANE", "")
    parts = tmux.rsplit(",", 2)
    if len(parts) != 3 or not pane:
        return None
    path, pid, _index = parts
    try:
        same_socket = os.path.realpath(path) == os.path.realpath(facts.socket_path)
    except (OSError, ValueError):
        return None
    if same_socket and pid == str(facts.identity.pid):
        return pane
    return None


def not_minimal_because(
    config: Config, provenance: Provenance, departures: tuple[str, ...] = ()
) -> str:
    """Why the bound server is not the dedicated socket's minimal server."""
    if not config.socket.is_dedicated_default:
        return OTHER_SOCKET
    if departures:
        return altered_provenance(departures)
    if provenance is not Provenance.MINIMAL:
        return UNKNOWN_PROVENANCE
    return "the server is the dedicated socket's minimal server"


def announce(surface: Surface) -> None:
    """One stderr line at startup naming every toolset that is off, and why."""
    if surface.off:
        log.warning("%s", " ".join(o.sentence() for o in surface.off))


class Decision(NamedTuple):
    """The surface, its annotation evidence and what is published about them."""

    surface: Surface
    evidence: Evidence
    published: dict[str, Any]


def decide(
    config: Config,
    provenance: Provenance,
    *,
    per_call_check: bool,
    socket_path: str | None,
    server: dict[str, Any],
    departures: tuple[str, ...] = (),
) -> Decision:
    """The one surface decision that ``serve`` (``build``) and ``surface`` (``predict``) share.

    CM-3: the surface follows from the request, the socket and the server's
    provenance; CM-4: the evidence for narrowing annotations from the served
    tools, the provenance and whether tmux re-checks aliases and hooks per call.
    """
    minimal = provenance is Provenance.MINIMAL
    surface = resolve(
        DEFINITION,
        config.request,
        dedicated_minimal=config.socket.is_dedicated_default and minimal,
        not_minimal_because=not_minimal_because(config, provenance, departures),
    )
    evidence = gather_evidence(
        [BY_NAME[name] for name in surface.tools],
        minimal_provenance=minimal,
        per_call_check=per_call_check,
    )
    published = published_surface(
        DEFINITION,
        surface,
        evidence,
        socket=socket_report(config, socket_path),
        server=server,
        resources=RESOURCES,
    )
    return Decision(surface, evidence, published)


def build(
    config: Config,
    facts: ServerFacts,
    client: TmuxClient,
    environ: Mapping[str, str] | None = None,
    audit: AuditLog | None = None,
    *,
    kernel: Kernel = HOST,
) -> Runtime:
    """Resolve the surface for a bound server and freeze it; ``audit`` is the log
    ``start`` opened before binding, ``kernel`` where the tools read the panes'
    processes (``driver.kernel``: this machine's, or a fake world's)."""
    self_pane = own_pane(os.environ if environ is None else environ, facts)
    decision = decide(
        config,
        facts.provenance,
        per_call_check=facts.aliases is not None,
        socket_path=facts.socket_path,
        server=server_report(config, facts, self_pane),
        departures=facts.departures,
    )
    if decision.evidence.sufficient and facts.aliases is not None:
        client.watch = ConfigWatch(facts.aliases)  # rule 3c: every call re-checks it
    runs = RunRegistry()
    context = ToolContext(
        client=client,
        facts=facts,
        published=decision.published,
        nested=decision.surface.nested,
        self_pane=self_pane,
        runs=runs,
        kernel=kernel,
    )
    return Runtime(
        config=config,
        surface=decision.surface,
        evidence=decision.evidence,
        context=context,
        runs=runs,
        audit=audit,
    )


def new_client(config: Config, runner: Runner = spawn) -> TmuxClient:
    """A tmux client for the configured socket; ``runner`` runs its argv (``driver.runner``)."""
    return TmuxClient(
        config.tmux_binary, config.socket, config.env, timeout=config.timeout, runner=runner
    )


async def start(config: Config, *, runner: Runner = spawn) -> Runtime:
    """Bind to (or start) the server and freeze the surface.

    ``runner`` is real tmux unless a test passes ``driver.fake.FakeTmux``.
    """
    check_names(DEFINITION, config.request)
    # Before tmux is contacted: a log that cannot be one refuses the start
    # before a server is started or bound (issue 27 N4).
    audit = AuditLog(config.audit_log) if config.audit_log else None
    client = new_client(config, runner)
    await versions.require_supported(client.binary, client.env, client.timeout, runner=runner)
    facts = await binding.establish(client)
    if facts.departures:
        log.warning(
            "tmuxmcp started the tmux server, but another client changed it before tmuxmcp "
            "bound to it (%s): its provenance is unknown",
            "; ".join(facts.departures),
        )
    built = build(config, facts, client, audit=audit)
    announce(built.surface)
    return built


async def predict(config: Config, *, runner: Runner = spawn) -> dict[str, Any]:
    """What ``serve`` would publish, without starting a server (``tmuxmcp surface``)."""
    check_names(DEFINITION, config.request)
    client = new_client(config, runner)
    await versions.require_supported(client.binary, client.env, client.timeout, runner=runner)
    found = await binding.probe(client)
    if found is None:
        provenance, server = (
            Provenance.MINIMAL,
            {
                "provenance": Provenance.MINIMAL.value,
                "running": False,
                "note": "no server is running; `tmuxmcp serve` would start one with -f /dev/null",
                "tmux_binary": config.tmux_binary,
            },
        )
        socket_path = None
    else:
        provenance, server = (
            Provenance.UNKNOWN,
            {
                "provenance": Provenance.UNKNOWN.value,
                "running": True,
                "pid": int(found["pid"]),
                "tmux_version": found["version"],
                "tmux_binary": config.tmux_binary,
                "config_files": found["config_files"],
            },
        )
        socket_path = found["socket_path"]
    decision = decide(
        config,
        provenance,
        per_call_check=await arrays_in_formats(client),
        socket_path=socket_path,
        server=server,
    )
    return decision.published
