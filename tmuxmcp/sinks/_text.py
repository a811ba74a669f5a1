"""Checks shared by every sink: what can never travel through argv at all.

A tmux argument is a C string: it cannot hold NUL, and it must be encoded to
bytes, so a lone surrogate (which JSON can carry but UTF-8 cannot) has no
faithful representation. Both are rejected, never silently altered.
"""

from __future__ import annotations

from tmuxmcp.errors import UnsafeValue


def require_argv_text(value: str, param: str) -> str:
    """Return ``value`` if it can be passed to tmux unchanged, else raise."""
    if "\x00" in value:
        raise UnsafeValue(f"`{param}` contains a NUL character, which tmux cannot receive")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise UnsafeValue(
            f"`{param}` contains a lone surrogate, which is not valid Unicode text"
        ) from None
    return value
