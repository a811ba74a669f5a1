"""Names and titles: format-expanded, then cleaned by tmux in version-specific ways.

What tmux does after format expansion (research/tmux-sinks.md §0, §3):

* session names: <= 3.6b turns ``:`` and ``.`` into ``_``, vis-encodes control
  characters and rejects the empty name; 3.7 rejects ``:`` and ``.``; 3.7a+
  keeps them, rejects control characters and accepts the empty name;
* window names: vis-encoded (``\\t`` -> ``\\\\t``, ``\\`` -> ``\\\\``), so control
  characters and backslashes do not round-trip;
* session and window names: ``$`` is stored as ``\\$`` (measured on 3.3a; found
  by the hypothesis round-trip property);
* pane titles: set as given after expansion (3.7+ also cleans them).

Rule, the same on every tmux version: a name or title is 1 to
``MAX_NAME_CHARS`` characters with no control character (C0, DEL, C1), no
unassigned code point or line/paragraph separator, and no backslash; a
session or window name also has no ``$``; a session name also has no ``:`` or
``.``. Such a value is stored
exactly as given on every version; anything else is rejected with a message
that says which character to remove. The accepted value is then format-escaped
(``sinks.format``) so ``#(...)`` never runs and ``#{...}`` never expands.
"""

from __future__ import annotations

import unicodedata
from enum import StrEnum

from tmuxmcp.errors import UnsafeValue
from tmuxmcp.sinks.format import encode_format

MAX_NAME_CHARS = 200


class NameKind(StrEnum):
    """What is being named."""

    SESSION = "session name"
    WINDOW = "window name"
    TITLE = "pane title"


def _is_control(ch: str) -> bool:
    code = ord(ch)
    return code < 0x20 or 0x7F <= code <= 0x9F


# Unassigned code points and line/paragraph separators: libc's wcwidth calls
# them unprintable, so tmux octal-escapes them in names and drops such titles
# (found by the fuzz suite: U+0378, U+2028, U+2029, U+FFFF, U+10FFFF).
_UNPRINTABLE_CATEGORIES = frozenset({"Cn", "Zl", "Zp"})


def _is_unprintable(ch: str) -> bool:
    return unicodedata.category(ch) in _UNPRINTABLE_CATEGORIES


def encode_name(value: str, kind: NameKind, param: str) -> str:
    """Validate ``value`` by the name rule and format-escape it."""
    if not value:
        raise UnsafeValue(f"`{param}` must not be empty")
    if len(value) > MAX_NAME_CHARS:
        raise UnsafeValue(f"`{param}` is longer than {MAX_NAME_CHARS} characters")
    if any(_is_control(ch) for ch in value):
        raise UnsafeValue(
            f"`{param}` contains a control character; tmux would rewrite it, "
            f"so a {kind} may not contain one"
        )
    if any(_is_unprintable(ch) for ch in value):
        raise UnsafeValue(
            f"`{param}` contains an unassigned or line-separator character; tmux would "
            f"rewrite it, so a {kind} may not contain one"
        )
    if "\\" in value:
        raise UnsafeValue(
            f"`{param}` contains a backslash; tmux stores it doubled, "
            f"so a {kind} may not contain one"
        )
    if kind is not NameKind.TITLE and "$" in value:
        raise UnsafeValue(
            f"`{param}` contains '$'; tmux stores it as '\\$', so a {kind} may not contain one"
        )
    if kind is NameKind.SESSION and (":" in value or "." in value):
        raise UnsafeValue(
            f"`{param}` contains ':' or '.'; tmux versions disagree on session names "
            "with them, so they are not accepted"
        )
    return encode_format(value, param)
