"""The operator's startup configuration: flags first, then environment.

Every setting has a flag and an environment variable; a flag wins. Lists are
comma-separated. Values are validated here, before any tmux server is
contacted, so a bad configuration exits before serving.

| flag              | environment             | default                    |
|-------------------|-------------------------|----------------------------|
| --socket-name     | TMUXMCP_SOCKET_NAME     | tmuxmcp (dedicated socket) |
| --socket-path     | TMUXMCP_SOCKET_PATH     |                            |
| --tmux            | TMUXMCP_TMUX            | `tmux` on PATH             |
| --toolsets        | TMUXMCP_TOOLSETS        | see capability.surface     |
| --include-tools   | TMUXMCP_INCLUDE_TOOLS   |                            |
| --exclude-tools   | TMUXMCP_EXCLUDE_TOOLS   |                            |
| --timeout         | TMUXMCP_TIMEOUT         | 10 seconds per tmux call   |
| --audit-log       | TMUXMCP_AUDIT_LOG       | none                       |
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

import msgspec

from tmuxmcp.capability.surface import SurfaceRequest
from tmuxmcp.driver.socket import SocketSelection, select_socket
from tmuxmcp.errors import ConfigError

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


class Options(msgspec.Struct, kw_only=True):
    """Raw flag values (None when a flag was not given)."""

    socket_name: str | None = None
    socket_path: str | None = None
    tmux: str | None = None
    toolsets: str | None = None
    include_tools: str | None = None
    exclude_tools: str | None = None
    timeout: str | None = None
    audit_log: str | None = None


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
            "tmux executable not found; install tmux or pass --tmux PATH (TMUXMCP_TMUX)"
        )
    return os.path.realpath(found)


def child_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment for tmux clients (and a server tmuxmcp starts)."""
    return {key: value for key, value in environ.items() if key not in _SCRUBBED}


def _timeout(value: str | None) -> float:
    if value is None:
        return 10.0
    try:
        seconds = float(value)
    except ValueError:
        raise ConfigError("--timeout must be a number of seconds") from None
    if not 0.1 <= seconds <= 600:
        raise ConfigError("--timeout must be between 0.1 and 600 seconds")
    return seconds


def load(options: Options, environ: Mapping[str, str]) -> Config:
    """Merge flags over environment and validate everything."""

    def pick(flag_value: str | None, variable: str) -> str | None:
        return flag_value if flag_value is not None else environ.get(variable)

    toolsets_raw = pick(options.toolsets, "TMUXMCP_TOOLSETS")
    name = pick(options.socket_name, "TMUXMCP_SOCKET_NAME")
    path = pick(options.socket_path, "TMUXMCP_SOCKET_PATH")
    if options.socket_name is not None and options.socket_path is None:
        path = None  # a flag overrides the other variable's socket too
    if options.socket_path is not None and options.socket_name is None:
        name = None
    request = SurfaceRequest(
        toolsets=None if toolsets_raw is None else split_list(toolsets_raw),
        include=split_list(pick(options.include_tools, "TMUXMCP_INCLUDE_TOOLS")),
        exclude=split_list(pick(options.exclude_tools, "TMUXMCP_EXCLUDE_TOOLS")),
    )
    if request.toolsets == ():
        raise ConfigError("--toolsets is empty; name at least one toolset or leave it unset")
    return Config(
        socket=select_socket(name, path),
        tmux_binary=resolve_binary(pick(options.tmux, "TMUXMCP_TMUX"), environ),
        request=request,
        timeout=_timeout(pick(options.timeout, "TMUXMCP_TIMEOUT")),
        env=child_environment(environ),
        audit_log=pick(options.audit_log, "TMUXMCP_AUDIT_LOG") or None,
    )
