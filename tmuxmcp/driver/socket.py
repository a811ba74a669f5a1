"""The socket selection: exactly one tmux socket per process (ADR 0001, CM-1).

The default is the product-scoped dedicated socket ``-L tmuxmcp``. Any other
socket needs explicit operator configuration (``--socket-name`` or
``--socket-path``). The selection is validated once and never changes; no tool
accepts a socket.

Validation: tmux does not validate ``-L`` labels (``../x`` escapes the socket
directory), so labels are restricted to ``[A-Za-z0-9_-]``; paths must be
absolute and short enough for a Unix socket address.
"""

from __future__ import annotations

import os
import re
import stat
from enum import StrEnum

import msgspec

from tmuxmcp.errors import ConfigError

DEFAULT_SOCKET_NAME = "tmuxmcp"

_LABEL = re.compile(r"[A-Za-z0-9_-]{1,64}")
# sockaddr_un.sun_path is 108 bytes on Linux and 104 on the BSDs.
_MAX_SOCKET_PATH_BYTES = 100


class SocketKind(StrEnum):
    """How the socket is named on the tmux command line."""

    NAME = "name"  # -L label, inside tmux's per-user socket directory
    PATH = "path"  # -S absolute path


class SocketSelection(msgspec.Struct, frozen=True):
    """The one socket this process uses."""

    kind: SocketKind
    value: str

    @property
    def is_dedicated_default(self) -> bool:
        """True for the product-scoped default, ``-L tmuxmcp``."""
        return self.kind is SocketKind.NAME and self.value == DEFAULT_SOCKET_NAME

    def argv(self) -> list[str]:
        """The global tmux flags that select this socket."""
        return ["-L", self.value] if self.kind is SocketKind.NAME else ["-S", self.value]

    def describe(self) -> str:
        """Human-readable form, as a tmux command line would select it."""
        return " ".join(self.argv())


def select_socket(name: str | None, path: str | None) -> SocketSelection:
    """Validate the operator's choice; neither means the dedicated default."""
    if name is not None and path is not None:
        raise ConfigError("give either --socket-name or --socket-path, not both")
    if path is not None:
        if not os.path.isabs(path) or "\x00" in path:
            raise ConfigError("--socket-path must be an absolute path")
        normal = os.path.normpath(path)
        if len(os.fsencode(normal)) > _MAX_SOCKET_PATH_BYTES:
            raise ConfigError(
                f"--socket-path is longer than {_MAX_SOCKET_PATH_BYTES} bytes, "
                "too long for a Unix socket"
            )
        if not os.path.isdir(os.path.dirname(normal)):
            raise ConfigError("--socket-path must be in an existing directory")
        # tmux unlinks whatever is at the path before binding its socket, so a
        # mistyped path must never name a file tmuxmcp would destroy.
        try:
            mode = os.lstat(normal).st_mode
        except FileNotFoundError:
            pass
        else:
            if not stat.S_ISSOCK(mode):
                raise ConfigError("--socket-path names an existing file that is not a socket")
        return SocketSelection(SocketKind.PATH, normal)
    label = DEFAULT_SOCKET_NAME if name is None else name
    if not _LABEL.fullmatch(label):
        raise ConfigError("--socket-name must be 1-64 characters from A-Z, a-z, 0-9, '_' and '-'")
    return SocketSelection(SocketKind.NAME, label)
