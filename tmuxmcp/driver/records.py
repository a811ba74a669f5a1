"""Nonce-framed ``-F`` templates for reading tmux objects, and their parser.

Some fields are untrusted: a pane program sets its title, its working
directory and its process name, and those can hold newlines, backslashes and
text that looks like a separator. Each call therefore frames every record with
a fresh random nonce that no pane program can predict. Anything outside a
frame (for example output added by a hook on a foreign server) is ignored, and
a frame with the wrong number of fields is an error rather than a misparse.

Rule 1, the markers are printable. tmux prints a command's output in one of
two ways, depending on its version (tmux source, ``server_client_print`` and
``cmdq_print``; research/tmux-versions.md):

* *raw* (3.3a and earlier, 3.6 and later): the expanded text as it is;
* *escaped* (3.4 to 3.5a): through ``utf8_stravisx`` with ``VIS_OCTAL |
  VIS_CSTYLE | VIS_NOSLASH``, so a control character becomes ``\\036``,
  ``\\r`` and so on, while space, tab, newline, every other printable ASCII
  character, valid UTF-8 and the backslash itself are printed as they are.
  3.4 alone also prints a ``$`` that a letter, ``_`` or ``{`` follows as
  ``\\$`` (its ``utf8_strvis`` does so unconditionally; 3.5 only with
  ``VIS_DQ``, which printing does not pass), so a title ``$HOME`` reads
  ``\\$HOME`` there.

A control-character marker is therefore printed differently per version, and
on an escaped tmux it reads exactly like a value holding the text ``\\036``.
The markers are ``S``, ``F`` and ``E`` (start, field, end) followed by the
nonce: letters and hex digits, printed the same by every version. The marker
letters are not hex digits, so a marker can only be found where the whole
nonce is, and the nonce is in no value.

Rule 2, every value is self-delimiting. Each field is expanded as
``#{s/\\\\/\\\\\\\\/:name}``: tmux doubles every backslash in the value before
it prints it. Then in the printed text a backslash is always the start of an
escape: ``\\\\`` (a backslash of the value), or, on an escaped tmux, an escape
that tmux's ``vis`` writes (three octal digits, or one of ``nrbavtfs0``), or
3.4's ``\\$``. ``decode_value`` undoes them all; any other backslash is an
error, never a guess.
Octal escapes are bytes that were not valid UTF-8 (valid UTF-8 is printed as
it is), so the decoded bytes are read as UTF-8 with U+FFFD replacements, which
is what a raw tmux's output becomes in ``client.decode``. The value is then the
same string on every version (``tmuxmcp verify``, claim ``record-framing``).

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

DOUBLE_BACKSLASHES = "s/\\\\/\\\\\\\\/"
"""The format modifier that doubles every backslash: regex ``\\\\``, replacement ``\\\\\\\\``."""

_VIS_LETTERS = {
    "n": "\n",
    "r": "\r",
    "b": "\b",
    "a": "\a",
    "v": "\v",
    "t": "\t",
    "f": "\f",
    "s": " ",
    "0": "\0",
    "$": "$",  # not vis: tmux 3.4's utf8_strvis escapes "$" before [A-Za-z_{] (Rule 1)
}
"""The ``VIS_CSTYLE`` escapes of tmux's ``vis`` (compat/vis.c) and 3.4's ``\\$``, and
what each stands for."""

_ESCAPE = re.compile(r"\\(?:(\\)|([0-3][0-7]{2})|([nrbavtfs0$]))|(\\)")


def expand(name: str) -> str:
    """The format text that prints variable ``name`` with its backslashes doubled."""
    if not _FIELD_NAME.fullmatch(name):
        raise ValueError(f"not a tmux format variable: {name!r}")
    return f"#{{{DOUBLE_BACKSLASHES}:{name}}}"


def decode_value(printed: str) -> str:
    """A value as tmux stored it, from how ``expand`` had tmux print it (Rule 2).

    Raises ``TmuxCommandFailed`` for a backslash that starts no known escape:
    tmux printed something this module does not know how to read.
    """
    if "\\" not in printed:
        return printed
    out = bytearray()
    at = 0
    for match in _ESCAPE.finditer(printed):
        out += printed[at : match.start()].encode("utf-8", "surrogatepass")
        backslash, octal, letter, lone = match.groups()
        if lone is not None:
            raise TmuxCommandFailed(
                "tmux printed a value tmuxmcp could not decode (an unknown escape); "
                "run tmuxmcp's verify command for this tmux (server_info names it)"
            )
        if backslash is not None:
            out += b"\\"
        elif octal is not None:
            out.append(int(octal, 8))
        else:
            out += _VIS_LETTERS[letter].encode("ascii")
        at = match.end()
    out += printed[at:].encode("utf-8", "surrogatepass")
    return out.decode("utf-8", errors="replace")


class RecordFormat:
    """A ``-F`` template for the given tmux format variables, and its parser."""

    def __init__(self, fields: Sequence[str]) -> None:
        self.fields = tuple(fields)
        parts = [expand(name) for name in self.fields]
        self.nonce = secrets.token_hex(8)
        self._start = f"S{self.nonce}"
        self._sep = f"F{self.nonce}"
        self._end = f"E{self.nonce}"
        self.template = self._start + self._sep.join(parts) + self._end

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
            records.append(dict(zip(fields, map(decode_value, values), strict=True)))
            at = text.find(start, stop + len(end))
        return records

    def parse_leading(self, text: str) -> tuple[dict[str, str], str]:
        """The one record that ``text`` starts with, and the text after its line.

        For an invocation whose first command prints this record and whose
        next command prints free text (a capture): the record ends at its end
        marker, not at the first newline, because a value may hold one.
        """
        if not text.startswith(self._start):
            raise TmuxCommandFailed("tmux returned a record tmuxmcp could not parse")
        stop = text.find(self._end)
        if stop < 0:
            raise TmuxCommandFailed("tmux returned a record tmuxmcp could not parse")
        records = self.parse(text[: stop + len(self._end)])
        rest = text[stop + len(self._end) :]
        return records[0], rest.removeprefix("\n")


class SectionMarker:
    """Printable, nonce-marked lines that split one invocation's output into sections.

    For invocations that interleave ``display-message -p <line(i)>`` with
    ``capture-pane -p``: pane text is printed as it is on every version (tmux
    source, ``cmd-capture-pane.c`` writes the buffer with ``file_print_buffer``),
    but a control character in the marker would be escaped on 3.4 to 3.5a, so
    the marker is letters and hex digits only (Rule 1), and its variables are
    numbers.
    """

    def __init__(self) -> None:
        self._head = f"M{secrets.token_hex(8)}"

    def line(self, index: int, *variables: str) -> str:
        """The ``display-message`` template that opens section ``index``."""
        for name in variables:
            if not _FIELD_NAME.fullmatch(name):
                raise ValueError(f"not a tmux format variable: {name!r}")
        return ":".join([f"{self._head}{index}", *(f"#{{{name}}}" for name in variables)])

    def split(self, text: str) -> dict[int, tuple[list[str], str]]:
        """Section index -> (the marker's variables, the text up to the next marker)."""
        sections: dict[int, tuple[list[str], str]] = {}
        for piece in text.split(self._head)[1:]:
            head, _, body = piece.partition("\n")
            index_text, *values = head.split(":")
            if index_text.isdigit():
                sections[int(index_text)] = (values, body)
        return sections
