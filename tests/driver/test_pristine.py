"""``driver.pristine``: a server tmuxmcp starts is held to what tmux itself defines (CM-1, CM-4).

Issue 27 N1: between tmuxmcp starting its server and binding to it, another
process of the same user can reach the new socket. What it sets there must
not become the baseline of the per-call check, nor be published as minimal
provenance. The race is made deterministic: the runner (``driver.runner``,
the interface below the client) injects the change right after the
invocation that starts the server returns, before any binding step runs,
which is the widest the real window can be.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from tests.support import PrivateTmux
from tmuxmcp import runtime
from tmuxmcp.capability.annotations import CAUTIOUS
from tmuxmcp.config import Options, load
from tmuxmcp.driver import binding, pristine
from tmuxmcp.driver.binding import Provenance
from tmuxmcp.driver.client import TmuxClient
from tmuxmcp.driver.runner import Completed, Runner, spawn
from tmuxmcp.driver.socket import select_socket
from tmuxmcp.driver.versions import version_tuple
from tmuxmcp.tools.server_info import server_info_prose


def _client(tmux: PrivateTmux, runner: Runner = spawn) -> TmuxClient:
    found = shutil.which("tmux")
    assert found is not None
    return TmuxClient(
        os.path.realpath(found), select_socket(None, None), tmux.env, timeout=10, runner=runner
    )


def test_the_builtin_alias_table_is_what_this_tmux_defines(private_tmux: PrivateTmux) -> None:
    """Rule 1: the table read from tmux's source is what the running tmux starts with,
    and a server started with -f /dev/null has no hook and no default-command."""
    private_tmux.bare(
        "start-server", ";", "set-option", "-s", "exit-empty", "off", config="/dev/null"
    )
    version = version_tuple(private_tmux.bare("-V").stdout)
    listed = private_tmux.bare("show-options", "-s", "-v", "command-alias").stdout.splitlines()
    assert tuple(listed) == pristine.builtin_aliases(version)
    hooks = private_tmux.bare("show-hooks", "-g", ";", "show-hooks", "-gw").stdout
    assert "[" not in hooks, hooks
    assert private_tmux.bare("show-options", "-g", "-v", "default-command").stdout.strip() == ""
    options = private_tmux.bare(
        "show-options", "-s", ";", "show-options", "-g", ";", "show-options", "-gw"
    ).stdout
    assert "#(" not in options, "tmux's own defaults hold no shell job"


def test_no_alias_list_is_assumed_for_an_unknown_version() -> None:
    """Rule 2, fail closed: a tmux older than the table, or unrecognised, has none."""
    assert pristine.builtin_aliases(None) is None
    assert pristine.builtin_aliases((3, 1)) is None
    assert pristine.builtin_aliases((3, 9)) == pristine.BUILTIN_ALIASES[(3, 6)]


INJECTIONS: dict[str, tuple[Sequence[str], str]] = {
    "alias": (
        ("set-option", "-s", "command-alias[90]", "list-sessions=new-session -d"),
        "command-alias",
    ),
    "alias-replaced": (
        ("set-option", "-s", "command-alias[0]", "split-pane=kill-server"),
        "command-alias",
    ),
    "ambient-hook": (("set-hook", "-g", "client-attached", "run-shell true"), "client-attached"),
    "window-hook": (("set-hook", "-gw", "pane-focus-in", "run-shell true"), "pane-focus-in"),
    "session": (("new-session", "-d", "-s", "planted"), "session"),
    "default-command": (("set-option", "-g", "default-command", "sh -c true"), "default-command"),
    "status-job": (("set-option", "-g", "status-right", "#(true)"), "status-right"),
    "user-option-job": (("set-option", "-s", "@planted", "#(true)"), "@planted"),
}
"""What a same-user process can set in the start-to-bind window, and a word of the
departure it must be reported as."""


def _racing(tmux: PrivateTmux, change: Sequence[str]) -> Runner:
    """A runner that applies ``change`` with bare tmux as soon as the invocation that
    starts the server has returned: after the start, before every binding step."""

    async def run(
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        seconds: float,
        stdin: bytes | None = None,
    ) -> Completed:
        done = await spawn(argv, env=env, seconds=seconds, stdin=stdin)
        if "start-server" in argv:
            tmux.bare(*change)
        return done

    return run


@pytest.mark.parametrize("injected", sorted(INJECTIONS))
async def test_a_change_made_before_binding_is_not_minimal_provenance(
    private_tmux: PrivateTmux, injected: str
) -> None:
    """Issue 27 N1, CM-1: a server tmuxmcp started but another client changed before
    binding is never claimed as minimal, and the departure is named."""
    change, word = INJECTIONS[injected]
    client = _client(private_tmux, _racing(private_tmux, change))
    facts = await binding.establish(client)
    try:
        assert facts.created_by_tmuxmcp is True
        assert facts.provenance is Provenance.UNKNOWN, facts
        assert any(word in departure for departure in facts.departures), facts.departures
    finally:
        await binding.release(client, facts)


async def test_a_server_nobody_changed_is_minimal_with_the_builtin_baseline(
    private_tmux: PrivateTmux,
) -> None:
    """The same start with nothing injected: minimal, no departure; where the gate can
    compare aliases, its baseline is tmux's built-in list (Rule 1)."""
    client = _client(private_tmux, _racing(private_tmux, ("display-message", "-p", "x")))
    facts = await binding.establish(client)
    try:
        assert facts.provenance is Provenance.MINIMAL
        assert facts.departures == ()
        version = version_tuple(facts.version)
        builtin = pristine.builtin_aliases(version)
        assert builtin is not None
        assert facts.aliases in (None, " ".join(builtin))
    finally:
        await binding.release(client, facts)


async def test_an_alias_planted_before_binding_narrows_no_annotation(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 27 N1, the red team's repro made deterministic: ``list-sessions`` aliased
    to ``new-session -d`` between start and bind, tmuxmcp serving ``inspect`` only.
    On 7563819 ``server_info`` said minimal and ``list_sessions`` was published
    read-only and closed-world, with the alias as the per-call baseline (CM-4)."""
    change, _ = INJECTIONS["alias"]
    config = load(Options(toolsets="inspect"), private_tmux.env)
    served = await runtime.start(config, runner=_racing(private_tmux, change))
    try:
        published: dict[str, Any] = served.context.published
        server = published["server"]
        assert server["provenance"] == "unknown"
        assert server["created_by_tmuxmcp"] is True
        assert any("command-alias" in d for d in server["departures"])
        assert served.evidence.sufficient is False
        prose = "\n".join(server_info_prose("bound", {}, published))
        assert "another client had changed it: its command-alias list" in prose
        assert served.context.client.watch is None
        tools = {tool["name"]: tool for tool in published["surface"]["tools"]}
        hints = tools["list_sessions"]["annotations"]
        assert hints["readOnlyHint"] is CAUTIOUS.read_only
        assert hints["openWorldHint"] is CAUTIOUS.open_world
    finally:
        await binding.release(served.context.client, served.context.facts)


async def test_teardown_waits_for_the_operator_on_a_server_changed_before_binding(
    private_tmux: PrivateTmux,
) -> None:
    """CM-3: the default surface on such a server leaves teardown off, and says why."""
    change, _ = INJECTIONS["ambient-hook"]
    config = load(Options(), private_tmux.env)
    served = await runtime.start(config, runner=_racing(private_tmux, change))
    try:
        surface = served.context.published["surface"]
        off = {o["toolset"]: o["reason"] for o in surface["toolsets_off"]}
        assert "another client had changed it" in off["teardown"], off
        assert "client-attached" in off["teardown"]
    finally:
        await binding.release(served.context.client, served.context.facts)
