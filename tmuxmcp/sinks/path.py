"""Start directories: format-expanded absolute paths.

What tmux does: ``-c`` of new-session, new-window, split-window and
respawn-pane is format-expanded (new-session expands it twice, once for the
session and once for the pane) and a relative path is resolved against the
tmux *client's* working directory.

Rule: the path must be absolute, normalized and free of control characters;
it is then format-escaped so it arrives exactly as given. Pure, like every
sink: that the directory exists when the call is made is asked of the host by
the encoding step (``driver.host.require_directory``, from
``capability.encode``), after this rule.
"""

from __future__ import annotations

import os

from tmuxmcp.errors import UnsafeValue
from tmuxmcp.sinks._text import require_argv_text
from tmuxmcp.sinks.format import escape_format

MAX_PATH_BYTES = 4096


def encode_directory(value: str, param: str) -> str:
    """Validate an absolute, normalized directory path and format-escape it."""
    require_argv_text(value, param)
    if not os.path.isabs(value):
        raise UnsafeValue(f"`{param}` must be an absolute path")
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
        raise UnsafeValue(f"`{param}` contains a control character")
    if len(value.encode("utf-8")) > MAX_PATH_BYTES:
        raise UnsafeValue(f"`{param}` is longer than {MAX_PATH_BYTES} bytes")
    if os.path.normpath(value) != value and value != "//":
        raise UnsafeValue(f"`{param}` must be normalized (no '.', '..' or repeated '/')")
    return escape_format(value)
