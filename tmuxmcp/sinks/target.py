"""The target sink: ``-t`` and ``-s`` values, restricted to exact tmux ids.

What tmux does (cmd-find.c ``cmd_find_target``): a target string is tried as an
id, then an exact name, a client tty, a unique *prefix* and an fnmatch pattern;
``kill-session -t logs-o`` kills ``logs-old``. Empty targets mean "current",
which for a command client comes from ``TMUX_PANE``. Only ids are exact and
never reused within a server's lifetime.

Rule: every caller-supplied target is an id that fully matches its pattern
(``$N`` session, ``@N`` window, ``%N`` pane). Names, prefixes, patterns,
offsets and specials such as ``{last}`` are refused. tmuxmcp always passes an
explicit ``-t``.
"""

from __future__ import annotations

import re
from enum import StrEnum

from tmuxmcp.errors import UnsafeValue


class IdKind(StrEnum):
    """The kinds of tmux object an id can name."""

    SESSION = "session"
    WINDOW = "window"
    PANE = "pane"


ID_PREFIX = {IdKind.SESSION: "$", IdKind.WINDOW: "@", IdKind.PANE: "%"}
_PREFIX = ID_PREFIX

# JSON-schema patterns (ECMA syntax, also valid for Python's ``re``). ``$`` in
# Python also matches before a trailing newline, so encode_id re-checks with
# fullmatch rather than trusting schema validation alone.
# No leading zeros: tmux reads "%01" as "%1", so only the canonical spelling of
# an id is accepted (found by the fuzz suite: "%00" killed "%0").
_NUMBER = "(0|[1-9][0-9]{0,8})"
ID_PATTERNS = {kind: f"^{re.escape(prefix)}{_NUMBER}$" for kind, prefix in _PREFIX.items()}
_ID_RE = {kind: re.compile(f"{re.escape(prefix)}{_NUMBER}") for kind, prefix in _PREFIX.items()}


def encode_id(value: str, kind: IdKind, param: str) -> str:
    """Return ``value`` as a target if it is exactly a ``kind`` id, else raise."""
    if not _ID_RE[kind].fullmatch(value):
        example = f"{_PREFIX[kind]}0"
        raise UnsafeValue(
            f"`{param}` must be a tmux {kind} id such as {example!r} "
            f"(names and patterns are not accepted); list objects to find ids"
        )
    return value
