"""The settings table is the one declaration of the command line (issue 10.4).

Every row of ``tmuxmcp.settings.SETTINGS`` must be reachable by its flag
through the real parser and by its environment variable through the real
loader, with the flag winning, and the parser must offer exactly the flags
the table declares for each command. ``docs/configuration.md`` must list
exactly the table (tests/test_docs.py checks that the block is fresh; this
checks what the committed page says). Pure logic: no tmux is started;
``tests/test_cli.py`` runs the real command line.
"""

from __future__ import annotations

import argparse
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from tmuxmcp import cli, settings
from tmuxmcp.capability import surface
from tmuxmcp.capability.environment import PaneEnvironment
from tmuxmcp.config import Config, Options, load
from tmuxmcp.driver import socket
from tmuxmcp.driver.socket import SocketKind, SocketSelection
from tmuxmcp.errors import ConfigError
from tmuxmcp.protocol import tasks

ROOT = Path(__file__).resolve().parent.parent


class Probe(NamedTuple):
    """Two valid values for a setting and how a loaded Config shows which one won."""

    first: str
    second: str
    seen: Callable[[Config], object]
    expect: Callable[[str], object]


def _executable(directory: Path, name: str) -> str:
    """A file ``resolve_binary`` accepts (it checks, it never runs it)."""
    path = directory / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _probes(tmp: Path) -> dict[str, Probe]:
    return {
        "socket_name": Probe(
            "first",
            "second",
            lambda c: c.socket,
            lambda v: SocketSelection(SocketKind.NAME, v),
        ),
        "socket_path": Probe(
            str(tmp / "first.sock"),
            str(tmp / "second.sock"),
            lambda c: c.socket,
            lambda v: SocketSelection(SocketKind.PATH, v),
        ),
        "tmux": Probe(
            _executable(tmp, "tmux-first"),
            _executable(tmp, "tmux-second"),
            lambda c: c.tmux_binary,
            os.path.realpath,
        ),
        "toolsets": Probe(
            "inspect",
            "manage,teardown",
            lambda c: c.request.toolsets,
            lambda v: tuple(v.split(",")),
        ),
        "include_tools": Probe(
            "kill_pane", "send_keys", lambda c: c.request.include, lambda v: (v,)
        ),
        "exclude_tools": Probe(
            "capture_pane", "list_panes", lambda c: c.request.exclude, lambda v: (v,)
        ),
        "timeout": Probe("2.5", "30", lambda c: c.timeout, float),
        "task_ttl": Probe("60", "7200", lambda c: c.task_ttl, float),
        "task_handover": Probe("1.5", "10", lambda c: c.task_handover, float),
        "audit_log": Probe(
            str(tmp / "first.log"), str(tmp / "second.log"), lambda c: c.audit_log, str
        ),
        "pane_environment": Probe(
            "inherit", "pager-safe", lambda c: c.pane_environment, PaneEnvironment
        ),
    }


def _environ(**variables: str) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], **variables}


def _from_flags(command: str, flags: list[str], environ: dict[str, str]) -> Config:
    """Parse ``tmuxmcp <command> <flags>`` with the real parser and load it."""
    ns = cli.parser().parse_args([command, *flags])
    return load(cli.given_options(ns, cli.BY_COMMAND[command]), environ)


@pytest.mark.parametrize("setting", settings.SETTINGS, ids=lambda s: s.name)
def test_every_setting_is_reachable_by_flag_and_environment(
    setting: settings.Setting, tmp_path: Path
) -> None:
    """CM-1, CM-3: each declared source sets the value, and a flag wins over its variable."""
    probe = _probes(tmp_path).get(setting.name)
    assert probe is not None, f"no probe for the setting {setting.name!r}: add one above"
    by_env = load(Options(), _environ(**{setting.env: probe.first}))
    assert probe.seen(by_env) == probe.expect(probe.first)
    for command in ("serve", "surface"):
        by_flag = _from_flags(command, [setting.flag, probe.second], _environ())
        assert probe.seen(by_flag) == probe.expect(probe.second)
        both = _from_flags(
            command, [setting.flag, probe.second], _environ(**{setting.env: probe.first})
        )
        assert probe.seen(both) == probe.expect(probe.second), "the flag wins"


def test_nothing_given_means_the_declared_defaults() -> None:
    config = load(Options(), _environ())
    assert config.socket == SocketSelection(SocketKind.NAME, settings.SOCKET_NAME.default or "")
    assert config.socket.is_dedicated_default
    assert config.timeout == float(settings.TIMEOUT.default or "")
    assert config.task_ttl == float(settings.TASK_TTL.default or "") == 3600
    assert config.task_handover == float(settings.TASK_HANDOVER.default or "") == 3
    assert config.request.toolsets is None and config.audit_log is None


@pytest.mark.parametrize("value", ["0.5", "86401", "an hour", "nan"])
def test_a_task_ttl_out_of_its_range_is_refused_naming_the_flag(value: str) -> None:
    """Issue 20: a task lives at least a few poll intervals and at most a day."""
    with pytest.raises(ConfigError, match="--task-ttl"):
        load(Options(task_ttl=value), _environ())


@pytest.mark.parametrize("value", ["1", "2", "4.9"])
def test_a_task_ttl_of_a_few_poll_intervals_or_less_is_refused_saying_why(value: str) -> None:
    """Issue 27 N6: a TTL of 1 s equals the advertised poll interval, so the first poll
    at that interval found the task expired. A TTL shorter than five poll intervals is
    refused at start, with a message that says what the bound is and why."""
    with pytest.raises(ConfigError) as refused:
        load(Options(task_ttl=value), _environ(TMUXMCP_TASK_TTL="60"))
    message = refused.value.message
    assert "--task-ttl must be between 5 and 86400 seconds" in message
    assert "poll it every 1 s" in message
    assert tasks.MIN_TTL_MS == 5 * tasks.POLL_INTERVAL_MS
    assert load(Options(task_ttl="5"), _environ()).task_ttl == 5


@pytest.mark.parametrize("value", ["0", "0.4", "601", "soon", "nan"])
def test_a_task_handover_out_of_its_range_is_refused_naming_the_flag(value: str) -> None:
    """Issue 29.1: a call answers inline at least half a second and at most as long as
    the longest timeout a blocking call takes."""
    with pytest.raises(ConfigError, match=r"--task-handover must be (between 0\.5 and 600|a num)"):
        load(Options(task_handover=value), _environ())


def test_the_tables_copies_of_lower_constants_agree() -> None:
    """settings.py spells two constants out to stay cheap to import; they must not drift."""
    assert settings.DEFAULT_SOCKET_NAME == socket.DEFAULT_SOCKET_NAME
    assert settings.ALL_TOOLSETS == surface.ALL
    assert float(settings.TASK_TTL.default or "") * 1000 == tasks.DEFAULT_TTL_MS


def test_flags_and_variables_follow_the_naming_convention() -> None:
    names = [s.name for s in settings.SETTINGS]
    assert len(set(names)) == len(names)
    for setting in settings.SETTINGS:
        assert setting.flag == "--" + setting.name.replace("_", "-")
        assert setting.env == "TMUXMCP_" + setting.name.upper()
        assert set(setting.voids) <= set(names) - {setting.name}


def test_a_flag_voids_the_environment_value_it_declares(tmp_path: Path) -> None:
    """CM-1: ``--socket-name`` replaces a socket path from the environment instead of clashing."""
    path = str(tmp_path / "env.sock")
    config = _from_flags("serve", ["--socket-name", "flagged"], _environ(TMUXMCP_SOCKET_PATH=path))
    assert config.socket == SocketSelection(SocketKind.NAME, "flagged")
    config = _from_flags("serve", ["--socket-path", path], _environ(TMUXMCP_SOCKET_NAME="env"))
    assert config.socket == SocketSelection(SocketKind.PATH, path)
    with pytest.raises(ConfigError, match="not both"):
        load(Options(), _environ(TMUXMCP_SOCKET_NAME="env", TMUXMCP_SOCKET_PATH=path))


def test_options_refuses_a_name_that_is_not_a_setting() -> None:
    with pytest.raises(TypeError, match="socket"):
        Options(socket="x")


def _flags_of(command: str) -> set[str]:
    """The flags the real parser accepts for ``command``, besides --help."""
    top = cli.parser()
    commands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    chosen: argparse.ArgumentParser = commands.choices[command]
    return {
        option
        for action in chosen._actions
        for option in action.option_strings
        if option not in ("-h", "--help")
    }


@pytest.mark.parametrize("command", settings.COMMANDS, ids=lambda c: c.name)
def test_the_parser_offers_exactly_the_declared_flags(command: settings.Command) -> None:
    assert _flags_of(command.name) == {s.flag for s in command.settings}


def test_help_shows_each_setting_with_its_variable_and_default() -> None:
    """The top-level help carries the serving settings (issue 14) as the table words them."""
    top = " ".join(cli.parser().format_help().split())
    for setting in settings.DEFAULT_COMMAND.settings:
        assert f"{setting.flag} {setting.metavar} {setting.help_line()}" in top


def test_a_command_refuses_a_setting_it_does_not_take() -> None:
    with pytest.raises(SystemExit) as exited:
        cli.parser().parse_args(["verify", "--timeout", "3"])
    assert exited.value.code == 2


def _generated(page: str, block: str) -> list[list[str]]:
    text = (ROOT / page).read_text(encoding="utf-8")
    body = re.search(
        rf"<!-- BEGIN GENERATED: {block} -->\n(.*?)<!-- END GENERATED: {block} -->", text, re.S
    )
    assert body is not None, f"{page} has no {block} block"
    rows = [line for line in body.group(1).splitlines() if line.startswith("|")][2:]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows]


def test_the_configuration_page_lists_exactly_the_table() -> None:
    """docs/configuration.md: one row per setting and per command, in table order (CM-7)."""
    options = _generated("docs/configuration.md", "option-table")
    assert [row[:2] for row in options] == [
        [f"`{s.flag} {s.metavar}`", f"`{s.env}`"] for s in settings.DEFAULT_COMMAND.settings
    ]
    assert [row[2] for row in options] == [s.shown_default() for s in settings.SETTINGS]
    commands = _generated("docs/configuration.md", "command-table")
    assert [row[0] for row in commands] == [f"`tmuxmcp {c.name}`" for c in settings.COMMANDS]


def test_a_pane_environment_that_is_not_a_mode_is_refused_naming_the_modes() -> None:
    """Issue 28.7: a typo does not silently turn the pager-safe environment off."""
    with pytest.raises(ConfigError, match="pager-safe or inherit, not 'off'"):
        load(Options(pane_environment="off"), _environ())
    assert load(Options(), _environ()).pane_environment is PaneEnvironment.PAGER_SAFE
