"""Panes tmuxmcp starts print instead of paging (issue 28.7): real tmux, read back from /proc.

The tools that declare ``starts_panes`` (create_session, create_window,
split_pane, respawn_pane) give the program they start the pager-safe
environment (``capability.environment``); every other pane keeps its own,
and ``--pane-environment inherit`` turns it off. The effect is read back
from the started process's own environment (``/proc/<pid>/environ``), and
shown where it matters: ``git log`` longer than the screen.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support import PrivateTmux, serve, structured
from tmuxmcp.capability.environment import PAGER_SAFE
from tmuxmcp.definition import DEFINITION

PAGER_VARIABLES = {name for name, _ in PAGER_SAFE}


def _environment_of(tmux: PrivateTmux, pane: str) -> dict[str, str]:
    pid = tmux.bare("display-message", "-p", "-t", pane, "#{pane_pid}").stdout.strip()
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(entry.decode().partition("=")[::2] for entry in raw.split(b"\0") if b"=" in entry)


def _pagers(tmux: PrivateTmux, pane: str) -> dict[str, str]:
    return {k: v for k, v in _environment_of(tmux, pane).items() if k in PAGER_VARIABLES}


async def test_every_pane_a_tool_starts_gets_the_pager_safe_environment(
    private_tmux: PrivateTmux,
) -> None:
    private_tmux.private_home("/bin/sh")
    wanted = dict(PAGER_SAFE)
    async with serve(private_tmux) as session:
        created = structured(await session.call_tool("create_session", {"name": "env"}))
        assert _pagers(private_tmux, created["pane_id"]) == wanted
        window = structured(
            await session.call_tool("create_window", {"session_id": created["session_id"]})
        )
        assert _pagers(private_tmux, window["pane_id"]) == wanted
        split = structured(await session.call_tool("split_pane", {"pane_id": window["pane_id"]}))
        assert _pagers(private_tmux, split["pane_id"]) == wanted
        # A pane someone else opened, in a session of their own, keeps its environment
        # until a tool restarts its program. (A window opened later in a session that
        # create_session made inherits the session's environment, as tmux does.)
        foreign = private_tmux.new_session("foreign")["pane_id"]
        assert _pagers(private_tmux, foreign) == {}
        respawned = await session.call_tool("respawn_pane", {"pane_id": foreign})
        assert not respawned.is_error, respawned
        assert _pagers(private_tmux, foreign) == wanted


async def test_inherit_leaves_the_environment_as_tmux_has_it(private_tmux: PrivateTmux) -> None:
    private_tmux.private_home("/bin/sh")
    async with serve(private_tmux, "--pane-environment", "inherit") as session:
        created = structured(await session.call_tool("create_session", {"name": "plain"}))
        assert _pagers(private_tmux, created["pane_id"]) == {}


def test_the_tools_that_start_panes_are_declared_so() -> None:
    """Rule 1: the declaration names exactly the tools whose tmux command starts a program."""
    starters = {spec.name for spec in DEFINITION if spec.starts_panes}
    assert starters == {"create_session", "create_window", "split_pane", "respawn_pane"}


def _long_history(repo: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    repo.mkdir()
    git("init", "-q")
    message = "\n".join(f"line {n}" for n in range(300))
    git(
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        message,
    )


@pytest.mark.parametrize("mode", ["pager-safe", "inherit"])
async def test_git_log_longer_than_the_screen_prints_in_a_pane_tmuxmcp_started(
    private_tmux: PrivateTmux, tmp_path: Path, mode: str
) -> None:
    """The wedge the environment prevents: with it, ``git log`` ends; without it, git
    pages into ``less`` and the run waits for keys (issue 28.2 reports it)."""
    if shutil.which("git") is None or shutil.which("less") is None:
        pytest.skip("git and less are needed")
    private_tmux.private_home("/bin/sh")
    private_tmux.env.pop("PAGER", None)
    private_tmux.env.pop("GIT_PAGER", None)
    _long_history(tmp_path / "repo")
    async with serve(private_tmux, "--pane-environment", mode) as session:
        pane = structured(await session.call_tool("create_session", {"name": "git"}))["pane_id"]
        await private_tmux.wait_for_prompt(pane)
        ran: dict[str, Any] = structured(
            await session.call_tool(
                "run_command",
                {"pane_id": pane, "command": f"git -C {tmp_path / 'repo'} log", "timeout": 60},
            )
        )
        if mode == "pager-safe":
            assert (ran["completed"], ran["exit_status"]) == (True, 0), ran
            assert "line 299" in ran["output"]
        else:
            assert (ran["completed"], ran["waiting_for"]) == (False, "awaiting-keys"), ran
            private_tmux.bare("send-keys", "-t", pane, "q")
