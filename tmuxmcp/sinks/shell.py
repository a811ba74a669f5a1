"""The shell sink: text that a shell reads.

tmuxmcp never hands caller text to a host-side shell (ADR 0001, CM-6). The
only shell a caller's text may reach is the shell already running in a pane,
through a pane-command tool; that shell runs with the tmux user's authority.

This module gives the quoting used when tmuxmcp itself composes shell text
around a value (for example a marker or channel name) so that the value is one
word to a POSIX shell. It cannot make a command safe: a pane command does
whatever it says.
"""

from __future__ import annotations

import re

from tmuxmcp.sinks._text import require_argv_text

# A leading '=' is expanded by zsh (=cmd -> its path), so it is quoted.
_SAFE_WORD = re.compile(r"[A-Za-z0-9_@%+:,./-][A-Za-z0-9_@%+=:,./-]*")


def quote_word(value: str, param: str) -> str:
    """Return ``value`` quoted as a single POSIX shell word."""
    require_argv_text(value, param)
    if _SAFE_WORD.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\"'\"'") + "'"
