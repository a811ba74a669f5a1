"""Nonce-framed ``-F`` templates for reading tmux objects, and their parser.

Some fields are untrusted: a pane program sets its title, its working
directory and its process name, and those can hold newlines or separator
characters. Each call therefore frames every record with a fresh random nonce
that no pane program can predict: ``RS nonce field US nonce field ... GS
nonce``. Anything outside a frame (for example output added by a hook on a
foreign server) is ignored, and a frame with the wrong number of fields is an
error rather than a misparse.

Templates are built from constant field names only; caller data never enters
a ``-F`` format. Build a new ``RecordFormat`` for every call: the nonce is
visible in the tmux client's argv while it runs, so it must not be reused.

Parsing uses ``str.find`` and ``str.split``, not a regular expression: a
pattern per nonce cost more to compile than the parse itself, and each one
evicted another entry from ``re``'s shared cache. A frame is the text from a
start marker to the first end marker after it, the same as the non-greedy
``start(.*?)end`` it replaces.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence

from tmuxmcp.errors import TmuxCommandFailed

_FIELD_NAME = re.compile(r"[a-z_]+")


class RecordFormat:
    """A ``-F`` template for the given tmux format variables, and its parser."""

    def __init__(self, fields: Sequence[str]) -> None:
        for field in fields:
            if not _FIELD_NAME.fullmatch(field):
                raise ValueError(f"not a tmux format variable: {field!r}")
        self.fields = tuple(fields)
        nonce = secrets.token_hex(8)
        self._start = f"\x1e{nonce}"
        self._sep = f"\x1f{nonce}"
        self._end = f"\x1d{nonce}"
        self.template = self._start + self._sep.join(f"#{{{name}}}" for name in fields) + self._end

    def parse(self, text: str) -> list[dict[str, str]]:
        """Every framed record in ``text``, as field name to value."""
        start, end, sep, fields = self._start, self._end, self._sep, self.fields
        records = []
        at = text.find(start)
        while at >= 0:
            body = at + len(start)
            stop = text.find(end, body)
            if stop < 0:
                break  # an unterminated frame: no end marker follows, so none of the rest is read
            values = text[body:stop].split(sep)
            if len(values) != len(fields):
                raise TmuxCommandFailed("tmux returned a record tmuxmcp could not parse")
            records.append(dict(zip(fields, values, strict=True)))
            at = text.find(start, stop + len(end))
        return records
