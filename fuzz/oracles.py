"""Independent oracles: the documented rules of names and ids, restated.

The properties judge tmuxmcp against these, not against the encoders under
test (``tmuxmcp.sinks``), so a change to an encoder cannot make its own
property agree with it. Each restates a rule written in the parameter
descriptions or in research/tmux-sinks.md.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re
from collections.abc import Callable


def _libc_wcwidth() -> Callable[[str], int]:
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.wcwidth.argtypes = [ctypes.c_wchar]
    libc.wcwidth.restype = ctypes.c_int
    return lambda ch: int(libc.wcwidth(ch))


wcwidth = _libc_wcwidth()
"""libc's wcwidth, which tmux 3.3a uses to decide what it vis-encodes in names."""


def is_control(ch: str) -> bool:
    """C0, DEL or C1."""
    return ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F


def is_text(value: str) -> bool:
    """Valid Unicode with no NUL: something argv can carry at all."""
    return "\x00" not in value and not any(0xD800 <= ord(c) <= 0xDFFF for c in value)


NAME_KINDS = {
    "create_session.name": "session",
    "create_window.name": "window",
    "rename.name": "window",
    "set_pane_title.title": "title",
}
"""What each name parameter names (the coverage test requires an entry)."""


def name_accepted(kind: str, value: str) -> bool:
    """The documented name rule (capability.params descriptions), restated."""
    if not (1 <= len(value) <= 200) or not is_text(value):
        return False
    if any(is_control(ch) for ch in value) or "\\" in value:
        return False
    if any(wcwidth(ch) < 0 for ch in value):
        return False  # tmux would octal-escape it (names) or drop the title
    if kind != "title" and "$" in value:
        return False
    return not (kind == "session" and (":" in value or "." in value))


NAME_VARIABLES = {
    "session": "#{session_name}",
    "window": "#{window_name}",
    "title": "#{pane_title}",
}

PREFIX = {"session": "$", "window": "@", "pane": "%"}


def canonical_id(kind: str, value: str) -> bool:
    """An exact id as tmux prints it: the prefix and a decimal with no leading zero."""
    return re.fullmatch(re.escape(PREFIX[kind]) + "(0|[1-9][0-9]{0,8})", value) is not None
