"""The tmux-format sink: arguments that tmux passes through ``format_expand``.

What tmux does (format.c ``format_expand1``, identical in 3.3a ... 3.7):
``#{...}`` expands a variable, ``#(...)`` runs a shell job, ``#S``-style
aliases expand, ``##`` becomes ``#``, ``#,`` and ``#}`` become ``,`` and ``}``,
and any run of ``#`` followed by ``[`` is copied through unchanged (style
markup). Where strftime runs first (display-message, pipe-pane, status
formats), ``%X`` expands too.

Encoder rule (measured: research/tmux-sinks.md §0, fuzzed in ``fuzz/``):
double every run of ``#`` unless it is followed by ``[``; doubling a trailing
``#`` is correct on every version (3.7 drops a lone trailing ``#``). For the
strftime variant, also double ``%``. The expansion of the encoded value is the
value itself, so ``#(...)`` never runs and ``#{...}`` never expands.

Can never be made safe: NUL and lone surrogates.
"""

from __future__ import annotations

import re

from tmuxmcp.sinks._text import require_argv_text

_HASH_RUN = re.compile(r"(#+)(\[|.|$)", re.DOTALL)


def _double_unless_style(match: re.Match[str]) -> str:
    hashes, following = match.group(1), match.group(2)
    if following == "[":
        return hashes + following
    return hashes * 2 + following


def escape_format(value: str) -> str:
    """Return the text whose tmux format expansion is exactly ``value``."""
    return _HASH_RUN.sub(_double_unless_style, value)


def escape_time_format(value: str) -> str:
    """Like :func:`escape_format`, for arguments that strftime reads first."""
    return escape_format(value).replace("%", "%%")


def encode_format(value: str, param: str) -> str:
    """Validate and escape a caller value bound for a format-expanded argument."""
    return escape_format(require_argv_text(value, param))


def encode_time_format(value: str, param: str) -> str:
    """Validate and escape a caller value bound for a strftime+format argument."""
    return escape_time_format(require_argv_text(value, param))
