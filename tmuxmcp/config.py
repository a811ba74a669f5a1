"""The operator's startup configuration: flags first, then environment.

The settings themselves, with their flags, variables and defaults, are the
table in ``tmuxmcp/settings.py``; this module is the one place that reads
them. ``read`` takes each setting from the sources the table declares, in
its order of precedence (a flag wins over its variable); ``load`` then
validates every value, before any tmux server is contacted, so a bad
configuration exits before serving. Lists are comma-separated.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

import msgspec

from tmuxmcp.capability.environment import PaneEnvironment
from tmuxmcp.capability.surface import SurfaceRequest
from tmuxmcp.driver.socket import SocketSelection, select_socket
from tmuxmcp.errors import ConfigError
from tmuxmcp.protocol.tasks import MIN_TTL_MS, POLL_INTERVAL_MS
from tmuxmcp.settings import (
    AUDIT_LOG,
    BY_NAME,
    EXCLUDE_TOOLS,
    INCLUDE_TOOLS,
    PANE_ENVIRONMENT,
    SETTINGS,
    SOCKET_NAME,
    SOCKET_PATH,
    TASK_HANDOVER,
    TASK_TTL,
    TIMEOUT,
    TMUX,
    TOOLSETS,
    Setting,
)

# Variables that would let the environment, not the selection, choose the
# socket or the "current" pane (research/tmux-sinks.md §3).
_SCRUBBED = ("TMUX", "TMUX_PANE")


class Config(msgspec.Struct, frozen=True, kw_only=True):
    """Validated startup configuration."""

    socket: SocketSelection
    tmux_binary: str
    request: SurfaceRequest
    timeout: float
    env: dict[str, str]
    audit_log: str | None = None
    task_ttl: float = 3600.0
    """Seconds an MCP Task lives (``protocol.tasks``; issue 20)."""
    task_handover: float = 3.0
    """Seconds a call that may continue as an MCP Task answers inline first, for a
    request that opted in (issue 29.1)."""
    pane_environment: PaneEnvironment = PaneEnvironment.PAGER_SAFE
    """The environment of panes the tools start (``capability.environment``; issue 28.7)."""


class Options:
    """The flags given on the command line, by setting name (``settings.BY_NAME``).

    ``Options()`` is "no flags"; a value of None counts as not given, as
    argparse reports a flag that was not used. A name that is not a setting
    is a TypeError, as for an unknown keyword argument.
    """

    __slots__ = ("given",)

    def __init__(self, **flags: str | None) -> None:
        unknown = sorted(set(flags) - set(BY_NAME))
        if unknown:
            raise TypeError(f"Options() got unknown settings: {', '.join(unknown)}")
        self.given: dict[str, str] = {
            name: value for name, value in flags.items() if value is not None
        }


def split_list(value: str | None) -> tuple[str, ...]:
    """``"a, b,,c"`` -> ``("a", "b", "c")``."""
    if value is None:
        return ()
    return tuple(part.strip() for part in value.split(",") if part.strip())


def resolve_binary(given: str | None, environ: Mapping[str, str]) -> str:
    """The absolute path of the tmux executable, resolved once."""
    if given:
        found = shutil.which(given) if os.sep not in given else given
    else:
        found = shutil.which("tmux", path=environ.get("PATH", os.defpath))
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise ConfigError(
            f"tmux executable not found; install tmux or pass {TMUX.flag} {TMUX.metavar} "
            f"({TMUX.env})"
        )
    return os.path.realpath(found)


def child_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment for tmux clients (and a server tmuxmcp starts)."""
    return {key: value for key, value in environ.items() if key not in _SCRUBBED}


def read(
    options: Options, environ: Mapping[str, str], settings: tuple[Setting, ...] = SETTINGS
) -> dict[str, str | None]:
    """Each setting's raw value from its first source that gives one (None: unset).

    A flag also overrides the environment value of the settings it ``voids``
    (``--socket-name`` beats a ``TMUXMCP_SOCKET_PATH``), unless their own
    flag is given too.
    """
    values = {
        s.name: options.given[s.name] if s.name in options.given else environ.get(s.env)
        for s in settings
    }
    for setting in settings:
        if setting.name in options.given:
            for other in setting.voids:
                if other in values and other not in options.given:
                    values[other] = None
    return values


def _seconds(setting: Setting, value: str | None, low: float, high: float, why: str = "") -> float:
    """A number of seconds for ``setting`` (its default when unset), within [low, high];
    ``why`` explains the range in the refusal."""
    assert setting.default is not None
    try:
        seconds = float(setting.default if value is None else value)
    except ValueError:
        raise ConfigError(f"{setting.flag} must be a number of seconds") from None
    if not low <= seconds <= high:  # also refuses NaN
        raise ConfigError(f"{setting.flag} must be between {low:g} and {high:g} seconds{why}")
    return seconds


def load(options: Options, environ: Mapping[str, str]) -> Config:
    """Read every setting (flags over environment) and validate it."""
    raw = read(options, environ)
    toolsets_raw = raw[TOOLSETS.name]
    request = SurfaceRequest(
        toolsets=None if toolsets_raw is None else split_list(toolsets_raw),
        include=split_list(raw[INCLUDE_TOOLS.name]),
        exclude=split_list(raw[EXCLUDE_TOOLS.name]),
    )
    if request.toolsets == ():
        raise ConfigError(f"{TOOLSETS.flag} is empty; name at least one toolset or leave it unset")
    return Config(
        socket=select_socket(raw[SOCKET_NAME.name], raw[SOCKET_PATH.name]),
        tmux_binary=resolve_binary(raw[TMUX.name], environ),
        request=request,
        timeout=_seconds(TIMEOUT, raw[TIMEOUT.name], 0.1, 600),
        env=child_environment(environ),
        audit_log=raw[AUDIT_LOG.name] or None,
        # At least a few poll intervals, so a client polling at the advertised
        # interval sees the task more than once (issue 27 N6); at most a day, so
        # a forgotten task cannot hold its run for ever.
        task_ttl=_seconds(
            TASK_TTL,
            raw[TASK_TTL.name],
            MIN_TTL_MS / 1000,
            86_400,
            f": a task lives that long from its creation and clients poll it every "
            f"{POLL_INTERVAL_MS / 1000:g} s, so a shorter one expires before the command "
            "it follows can be seen to end",
        ),
        # A call answers inline at least this long, so a quick command never becomes a
        # task; at most the longest timeout a blocking call takes (issue 29.1).
        task_handover=_seconds(TASK_HANDOVER, raw[TASK_HANDOVER.name], 0.5, 600),
        pane_environment=_pane_environment(raw[PANE_ENVIRONMENT.name]),
    )


def _pane_environment(value: str | None) -> PaneEnvironment:
    """``--pane-environment``: one of its modes (its default when unset)."""
    assert PANE_ENVIRONMENT.default is not None
    chosen = PANE_ENVIRONMENT.default if value is None else value.strip()
    try:
        return PaneEnvironment(chosen)
    except ValueError:
        modes = " or ".join(mode.value for mode in PaneEnvironment)
        raise ConfigError(f"{PANE_ENVIRONMENT.flag} must be {modes}, not {chosen!r}") from None
