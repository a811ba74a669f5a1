"""One guard mechanism (issue 21.4): refusals recognised from tmux's own line, raised typed.

Real tmux on a private socket for the guards; pure checks for the line
recognition (``driver.guards``, Rule 1). The gate's refusals are covered by
``test_client.py`` (ConfigurationChanged, BoundServerLost).
"""

from __future__ import annotations

import os
import shutil

import pytest

from tests.support import PrivateTmux
from tmuxmcp.driver import binding
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.driver.client import TmuxClient
from tmuxmcp.driver.guards import GuardRefused, Refusal, guard_name, refusal_in
from tmuxmcp.driver.socket import select_socket
from tmuxmcp.tools.teardown import zoom_guard


def test_a_refusal_is_tmux_s_whole_line() -> None:
    assert refusal_in("invalid option: tmuxmcp-pane-changed\n") is Refusal.PANE_CHANGED
    assert refusal_in("x\ninvalid option: tmuxmcp-window-zoomed") is Refusal.WINDOW_ZOOMED


@pytest.mark.parametrize(
    "stderr",
    [
        "can't find session: invalid option: tmuxmcp-pane-changed",
        "invalid option: tmuxmcp-pane-changed-not",
        "invalid option: tmuxmcp-something-else",
        "invalid option: mouse",
        "",
    ],
)
def test_text_that_only_contains_a_refusal_name_is_no_refusal(stderr: str) -> None:
    """Rule 1: another error quoting the name, or another name, is not a guard's refusal."""
    assert refusal_in(stderr) is None


async def _bound(tmux: PrivateTmux) -> TmuxClient:
    found = shutil.which("tmux")
    assert found is not None
    client = TmuxClient(os.path.realpath(found), select_socket(None, None), tmux.env, timeout=10)
    await binding.establish(client)
    return client


async def test_a_refused_typing_guard_raises_typed_and_runs_nothing_after_it(
    private_tmux: PrivateTmux,
) -> None:
    """Rule 2: a pane that is not the pid readiness saw refuses; the command after it never runs."""
    client = await _bound(private_tmux)
    pane = private_tmux.new_session("g")["pane_id"]
    pid = int(private_tmux.bare("display-message", "-p", "-t", pane, "#{pane_pid}").stdout)
    after = cmd("set-option", "-g", args=["@after", "ran"])

    def typing_guard(seen_pid: int) -> Command:
        name = guard_name(client.marker, pane, seen_pid, rows=False)
        return cmd("show-options", "-s", "-v", t=pane, args=[name])

    with pytest.raises(GuardRefused) as refused:
        await client.run(typing_guard(pid + 1), after)
    assert refused.value.refusal is Refusal.PANE_CHANGED
    assert private_tmux.bare("show-options", "-gqv", "@after").stdout.strip() == ""
    await client.run(typing_guard(pid), after)
    assert private_tmux.bare("show-options", "-gqv", "@after").stdout.strip() == "ran"


async def test_the_typing_guard_refuses_a_cursor_moved_off_the_prompts_end(
    private_tmux: PrivateTmux,
) -> None:
    """Rule 4 with ``cursor_x``: text typed after the prompt moves the cursor, and the
    guard (runs.pending Rule 4) then stops the paste."""
    client = await _bound(private_tmux)
    pane = private_tmux.new_session("c")["pane_id"]
    pid = int(private_tmux.bare("display-message", "-p", "-t", pane, "#{pane_pid}").stdout)
    column = int(private_tmux.bare("display-message", "-p", "-t", pane, "#{cursor_x}").stdout)
    after = cmd("set-option", "-g", args=["@after", "ran"])

    def typing_guard(at: int) -> Command:
        name = guard_name(client.marker, pane, pid, rows=False, cursor_x=at)
        return cmd("show-options", "-s", "-v", t=pane, args=[name])

    with pytest.raises(GuardRefused) as refused:
        await client.run(typing_guard(column + 2), after)
    assert refused.value.refusal is Refusal.PANE_CHANGED
    assert private_tmux.bare("show-options", "-gqv", "@after").stdout.strip() == ""
    await client.run(typing_guard(column), after)
    assert private_tmux.bare("show-options", "-gqv", "@after").stdout.strip() == "ran"


async def test_the_zoom_guard_refuses_a_session_with_a_zoomed_window(
    private_tmux: PrivateTmux,
) -> None:
    """The guard itself is version independent; kill_session uses it on tmux 3.4 only."""
    client = await _bound(private_tmux)
    session = private_tmux.new_session("z")["session_id"]
    window = private_tmux.bare(
        "display-message", "-p", "-t", session, "#{window_id}"
    ).stdout.strip()
    private_tmux.bare("split-window", "-d", "-t", window)
    private_tmux.bare("resize-pane", "-Z", "-t", window)
    kill = cmd("kill-session", t=session)
    with pytest.raises(GuardRefused) as refused:
        await client.run(zoom_guard(client.marker, session), kill)
    assert refused.value.refusal is Refusal.WINDOW_ZOOMED
    assert private_tmux.bare("has-session", "-t", session, check=False).returncode == 0
    private_tmux.bare("resize-pane", "-Z", "-t", window)
    await client.run(zoom_guard(client.marker, session), kill)
    assert private_tmux.bare("has-session", "-t", session, check=False).returncode != 0
