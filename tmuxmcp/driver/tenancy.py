"""Who serves on the bound server, and ending an empty server tmuxmcp started (issue 27.3).

A server tmuxmcp starts runs with ``exit-empty off``, so nothing else ever
stops it. Left behind with no session, it used up the next start: the next
tmuxmcp found a server it did not start (provenance unknown, teardown off,
a warning) although the server held nothing. So at an orderly exit (stdin
closed, SIGINT, SIGTERM, SIGHUP) a tmuxmcp that started its server ends it
when the server holds nothing: no session, no other client, no other
tmuxmcp serving on it. A server with anything in it is left alone.

Why this is not the socket-wide termination ADR 0001 keeps an operator action
("it may destroy sessions the caller does not own"): a server with no session
holds no session, window, pane or attached client of anyone, so ending it
destroys nothing; and only the process that proved it started the server
(``binding``'s start nonce) ever does it. No tool can; this is not a tool.

Rules kept here:

* **Rule 1: every serving tmuxmcp is registered on the server.** Binding
  appends its token (`` <pid>-<start time>-<gate option's hex>-``: the
  process, and which of its bindings, should one process bind twice) to the server
  option ``@tmuxmcp-serving`` (``set-option -a``, in the invocation that sets
  the gate option), and leaving removes it (``#{s/...//:}``, in the
  invocation that ends the server). tmux runs one client's command list
  without running another's in between (no command here waits), so both
  edits are atomic.
* **Rule 2: a registration whose process is gone is stale.** A tmuxmcp
  killed by SIGKILL leaves its token. Leaving reads the tokens first and
  removes, with its own, each whose pid no longer runs with the start time
  it registered (``proc``); a live one, or one that cannot be read, stands
  and keeps the server up. Only processes in this pid namespace can be told
  apart: a tmuxmcp in another one that shares the socket may read as gone.
  A tmuxmcp older than this module registers nothing and is not seen.
* **Rule 3: check and kill in one invocation.** The leaving invocation is
  the gate (the bound server: pid, start time, the gate option), the
  registry edits, the gate option's removal, then a guard that refuses
  (``Refusal.SERVER_IN_USE``) unless the server has no session, the
  registry is empty, and (tmux 3.4 and later, which can loop over clients
  in a format) the only client is this invocation's own; only then
  ``kill-server``. A session, a client or a tmuxmcp that arrives before the
  invocation is seen by the guard; one that arrives after finds no server,
  as if it had come a moment after the exit. tmux 3.2 and 3.3 have no
  client loop (``#{L:}``, tmux 3.4); with no session no client can be
  attached (an attached client needs a session), so what the guard cannot
  see there is a command client waiting in the server (``wait-for``), which
  ends with the server.
* **Rule 4: the guard and the edits are built from constants and tokens**
  (digits, hex and ``-``, parsed back by a strict pattern): nothing a pane
  program or a caller chose.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

import msgspec

from tmuxmcp.driver import guards, proc
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.driver.guards import Refusal
from tmuxmcp.driver.versions import version_tuple

REGISTRY = "@tmuxmcp-serving"
"""The server option listing the tmuxmcp processes serving on the server."""

CLIENT_LOOP = (3, 4)
"""The first tmux release whose formats loop over clients (``#{L:}``)."""

PRESENT_OPTION = "exit-empty"
"""A server option every tmux of the matrix has: the guard's name when it passes
(the gate option is already removed in the leaving invocation)."""

_TOKEN = re.compile(r" ([0-9]+)-([0-9]+)-([0-9a-f]+)-")
_HEX = re.compile(r"[0-9a-f]+")


class Tenant(msgspec.Struct, frozen=True):
    """One serving tmuxmcp binding, as registered: its process's pid and start time,
    and the hex of its gate option."""

    pid: int
    start_time: int
    binding: str

    def token(self) -> str:
        """The registry text: a space, then pid, start time and binding, each ended
        by ``-`` (Rule 4); the ending keeps one token from matching the start of
        another."""
        if not _HEX.fullmatch(self.binding):
            raise ValueError("a binding is the hex of a gate option")
        return f" {int(self.pid)}-{int(self.start_time)}-{self.binding}-"

    def runs(self) -> bool:
        """Whether this process still runs (Rule 2): its pid, with the start time it had."""
        return proc.running(self.pid) and proc.start_time(self.pid) in (self.start_time, None)


def this_process(marker: str) -> Tenant:
    """This process's binding with the gate option ``marker`` (``@tmuxmcp_<hex>``), as
    it registers (start time 0 where ``/proc`` cannot tell)."""
    pid = os.getpid()
    return Tenant(pid, proc.start_time(pid) or 0, marker.removeprefix("@tmuxmcp_"))


def register(tenant: Tenant) -> Command:
    """The command that adds ``tenant`` to the registry (Rule 1)."""
    return cmd("set-option", "-s", "-a", args=[REGISTRY, tenant.token()])


def unregister(tenant: Tenant) -> Command:
    """The command that removes ``tenant``'s token from the registry (Rule 1)."""
    return cmd("set-option", "-s", "-F", args=[REGISTRY, f"#{{s/{tenant.token()}//:{REGISTRY}}}"])


def registered(text: str) -> list[Tenant]:
    """The tenants a registry's text lists (anything else in it is ignored here,
    and keeps the server up: the guard wants the registry empty)."""
    return [Tenant(int(pid), int(start), binding) for pid, start, binding in _TOKEN.findall(text)]


def read_registry() -> Command:
    """The command that prints the registry (empty when unset)."""
    return cmd("display-message", "-p", args=[f"#{{{REGISTRY}}}"])


def empty_guard(version: str) -> Command:
    """The guard that passes only on a server holding nothing (Rule 3)."""
    release = version_tuple(version)
    seen = "#{S:s}." + f"#{{{REGISTRY}}}"
    want = "."
    if release is not None and release >= CLIENT_LOOP:
        seen += ".#{L:c}"
        want += ".c"  # this invocation's own client
    return guards.guard(
        guards.choose(f"#{{==:{seen},{want}}}", PRESENT_OPTION, Refusal.SERVER_IN_USE)
    )


def leaving(
    me: Tenant, stale: Sequence[Tenant], marker: str, *, end_if_empty: bool, version: str
) -> list[Command]:
    """The commands of the leaving invocation, after the gate (Rule 3)."""
    commands = [unregister(me), *(unregister(t) for t in stale)]
    commands.append(cmd("set-option", "-s", "-u", args=[marker]))
    if end_if_empty:
        commands += [empty_guard(version), cmd("kill-server")]
    return commands
