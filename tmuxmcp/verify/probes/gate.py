"""Probes of the binding gate and the per-call configuration check (CM-1, CM-4).

Claims ``no-server-start``, ``gate-foreign``, ``gate-copied-option``,
``configuration-check`` and ``alias-precedes-gate``: tmuxmcp's own
``driver.client`` never starts a server, refuses any server it did not
bind, refuses a call once a hook or alias is added, and the one limit of any
in-band check still holds. Each probe binds a client to a second server on its
own socket in the lab directory and kills it at the end.
"""

from __future__ import annotations

import contextlib
import os

import trio

from tmuxmcp.driver import binding
from tmuxmcp.driver.argv import cmd
from tmuxmcp.driver.client import (
    GATE_COMMAND,
    ConfigWatch,
    ServerIdentity,
    TmuxClient,
    parse_identity,
)
from tmuxmcp.driver.socket import SocketKind, SocketSelection
from tmuxmcp.errors import BoundServerLost, ConfigurationChanged, TmuxMcpError
from tmuxmcp.verify.lab import ClaimFailed, Lab


async def probe_no_server_start(lab: Lab) -> None:
    """tmuxmcp's client passes -N, and -N never starts a server."""
    path = os.path.join(lab.directory, "nostart")
    client = TmuxClient(lab.binary, SocketSelection(SocketKind.PATH, path), lab.env)
    if "-N" not in client.base_argv():
        raise ClaimFailed("tmuxmcp's tmux client does not pass -N")
    for command in (cmd("new-session", "-d"), cmd("start-server")):
        with contextlib.suppress(TmuxMcpError):
            await client.run_unbound([command])
    answered = await lab.tmux(["list-sessions"], socket=path)
    if answered.returncode == 0:
        raise ClaimFailed("a tmux server started although -N was given")


async def probe_gate_foreign(lab: Lab) -> None:
    """The gate refuses a server tmuxmcp did not bind, and nothing after it runs."""
    path = os.path.join(lab.directory, "foreign")
    await lab.tmux(["new-session", "-d", "-s", "foreign", "--", "sleep", "600"], socket=path)
    try:
        facts = await lab.tmux(["display-message", "-p", "#{pid}:#{start_time}"], socket=path)
        identity = parse_identity(facts.stdout.decode().strip())
        if identity is None:
            raise ClaimFailed("the foreign server did not report its identity")
        client = TmuxClient(lab.binary, SocketSelection(SocketKind.PATH, path), lab.env)
        # Even the foreign server's true identity must not pass: only the
        # option binding sets can open the gate.
        client.bind(ServerIdentity(identity.pid, identity.start_time))
        try:
            await client.run(cmd("set-buffer", b="gate", args=["ran"]))
        except BoundServerLost:
            pass
        else:
            raise ClaimFailed("a command ran through the gate on a foreign server")
        if (await lab.tmux(["show-buffer", "-b", "gate"], socket=path)).returncode == 0:
            raise ClaimFailed("the command after the gate ran on the foreign server")
    finally:
        await lab.tmux(["kill-server"], socket=path)


async def probe_gate_copied_option(lab: Lab) -> None:
    """A server holding a copy of the gate option (name and value) is refused."""
    path = os.path.join(lab.directory, "copy")
    await lab.tmux(["new-session", "-d", "-s", "copy", "--", "sleep", "600"], socket=path)
    try:
        client = TmuxClient(lab.binary, SocketSelection(SocketKind.PATH, path), lab.env)
        # The identity of a server that is gone, and the option it carried,
        # copied here as any reader of the socket could.
        gone = ServerIdentity(1, 1)
        await lab.tmux(["set-option", "-s", client.marker, "1:1"], socket=path)
        client.bind(gone)
        try:
            await client.run(cmd("set-buffer", b="gate", args=["ran"]))
        except BoundServerLost:
            pass
        else:
            raise ClaimFailed("a command ran on a server holding a copied gate option")
        if (await lab.tmux(["show-buffer", "-b", "gate"], socket=path)).returncode == 0:
            raise ClaimFailed("the command after the gate ran on the copying server")
    finally:
        await lab.tmux(["kill-server"], socket=path)


async def _checked_client(lab: Lab, path: str, *, or_bare: bool = False) -> TmuxClient | None:
    """A client bound to a fresh server at ``path`` with the per-call check on.

    If this tmux cannot run the check (no whole arrays in formats): None, or
    with ``or_bare`` the bound client without a check.
    """
    await lab.tmux(
        ["new-session", "-d", "-s", "c", "-x", "80", "-y", "24", "--", "sleep", "600"],
        socket=path,
    )
    client = TmuxClient(lab.binary, SocketSelection(SocketKind.PATH, path), lab.env)
    facts = await binding.establish(client)
    if facts.aliases is None:
        return client if or_bare else None
    client.watch = ConfigWatch(facts.aliases)
    return client


_LIST = cmd("list-panes", "-a", F="#{pane_id}")
_RENAME = cmd("rename-window", t="c", args=["renamed"])
_KILL = cmd("kill-window", t="c")

CHANGES_AFTER_STARTUP = (
    ("global hook", ["set-hook", "-g", "after-list-panes"], _LIST),
    ("session hook", ["set-hook", "-t", "c", "after-list-panes"], _LIST),
    ("window hook", ["set-hook", "-w", "-t", "c", "after-list-panes"], _LIST),
    ("pane hook", ["set-hook", "-p", "-t", "c", "after-list-panes"], _LIST),
    ("global window hook", ["set-hook", "-gw", "after-list-panes"], _LIST),
    ("gate hook", ["set-hook", "-g", "after-show-options"], _LIST),
    ("error hook", ["set-hook", "-g", "command-error"], _LIST),
    ("window event hook", ["set-hook", "-w", "-t", "c", "window-renamed"], _RENAME),
    ("pane event hook", ["set-hook", "-p", "-t", "c", "window-renamed"], _RENAME),
    ("unlink hook", ["set-hook", "-g", "window-unlinked"], _KILL),
    ("alias", ["set-option", "-s", "command-alias[100]", "list-panes={}"], _LIST),
)
"""Each kind of configured behaviour a later client can add, how (``{}`` or a
last argument: the command it would run), and the call it must refuse."""


async def probe_configuration_check(lab: Lab) -> None:
    """Every kind of hook and alias added after startup refuses the call (CM-4)."""
    path = os.path.join(lab.directory, "config")
    paths = [path]
    try:
        client = await _checked_client(lab, path)
        if client is None:
            # tmux < 3.5: premise that no format sees a hook, so no check exists
            # and tmuxmcp publishes no narrow hint here (annotations rule 3c).
            await lab.tmux(["set-hook", "-g", "after-list-panes", "display -p x"], socket=path)
            seen = await lab.tmux(["display-message", "-p", "#{after-list-panes}"], socket=path)
            if seen.stdout.strip():
                raise ClaimFailed("this tmux shows hooks in formats but the binding found no check")
            return
        for index, (kind, setter, call) in enumerate(CHANGES_AFTER_STARTUP):
            # A fresh server per kind (a refused client stays refused); each on
            # its own socket, so none can meet a predecessor still exiting.
            path = f"{paths[0]}-{index}"
            paths.append(path)
            client = await _checked_client(lab, path)
            assert client is not None
            name = kind.replace(" ", "-")
            # A command-error hook runs when the refusing gate fails (the limit
            # annotations rule 3b answers), so its mark is not a sentinel.
            target = os.path.join(lab.directory, name) if kind == "error hook" else None
            ran = f"run-shell 'touch {target or lab.sentinel(name)}'"
            if kind == "alias":
                argv = [*setter[:-1], setter[-1].format(f"{ran} ; list-panes")]
            else:
                argv = [*setter, ran]
            done = await lab.tmux(argv, socket=path)
            if done.returncode != 0:
                raise ClaimFailed(f"could not add the {kind}: {done.stderr.decode()[:200]}")
            try:
                await client.run(call)
            except ConfigurationChanged:
                pass
            else:
                raise ClaimFailed(f"a call ran after a {kind} was added")
            if lab.fired():
                raise ClaimFailed(f"the {kind} ran although the call was refused")
    finally:
        for used in paths:
            await lab.tmux(["kill-server"], socket=used)


async def probe_alias_precedes_gate(lab: Lab) -> None:
    """An alias named after the gate's command runs before any check (why rule 3b stays)."""
    path = os.path.join(lab.directory, "limit")
    mark = os.path.join(lab.directory, "limit-ran")  # not a sentinel: it must run
    try:
        client = await _checked_client(lab, path, or_bare=True)
        assert client is not None
        alias = f"{GATE_COMMAND}=run-shell 'touch {mark}' ; {GATE_COMMAND}"
        await lab.tmux(["set-option", "-s", "command-alias[100]", alias], socket=path)
        with contextlib.suppress(ConfigurationChanged):
            await client.run(cmd("list-sessions", F="#{session_id}"))
        if not await trio.Path(mark).exists():
            raise ClaimFailed(
                "an alias of the gate's command no longer runs before the gate: "
                "annotations rule 3b can be revisited"
            )
    finally:
        await lab.tmux(["kill-server"], socket=path)
