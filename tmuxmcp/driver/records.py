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
        self._frame = re.compile(re.escape(self._start) + "(.*?)" + re.escape(self._end), re.S)

    def parse(self, text: str) -> list[dict[str, str]]:
        """Every framed record in ``text``, as field name to value."""
        records = []
        for match in self._frame.finditer(text):
            values = match.group(1).split(self._sep)
            if len(values) != len(self.fields):
                raise TmuxCommandFailed("tmux returned a record tmuxmcp could not parse")
            records.append(dict(zip(self.fields, values, strict=True)))
        return records
