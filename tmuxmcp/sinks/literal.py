"""The literal sink: values tmux stores or uses byte for byte.

tmux does nothing with these values beyond the argv layer (a trailing ``;``
ends the command; a leading ``-`` in a positional reads as a flag), which the
argv renderer in :mod:`tmuxmcp.driver.argv` handles for every element. Names
stored this way may still be vis-encoded by tmux on display.

Can never be made safe: NUL and lone surrogates (see ``_text``).
"""

from __future__ import annotations

from tmuxmcp.sinks._text import require_argv_text


def encode_literal(value: str, param: str) -> str:
    """Return the argv element for a literal value."""
    return require_argv_text(value, param)
