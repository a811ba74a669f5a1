"""Text for pane programs: what ``send_text`` and ``run_command`` deliver.

Delivery path (research/tmux-sinks.md §4, "arbitrary text, safe path"): the
text goes on stdin to ``load-buffer -b <unique> -`` and is written to the pane
by ``paste-buffer -d -r``. That path has no argv size limit, never reaches the
key-name parser, and skips mode key tables: a pane in copy or view mode does
not read the text as key bindings (the program underneath receives it).

What can never be made safe here, and is refused:
* control characters (C0 such as ESC, TAB and CR; DEL; C1): they are keys,
  not text. ESC could close a bracketed paste early on tmux <= 3.6, and tmux
  >= 3.7 rewrites controls in pastes. Send them with ``send_keys``;
* NUL and lone surrogates (not text at all).

Line breaks. ``send_text`` accepts LF (``newlines=True``) and pastes without
``-r``: tmux's paste-buffer then replaces each LF with its separator, CR, the
byte the Enter key sends, so each line break arrives as Enter within the
one paste (inside the brackets when bracketed paste is asked for and the
program enabled it; a program that honours bracketed paste then takes the
lines as pasted text rather than as separate Enter presses). The pane
receives CR, never LF: that is what a terminal sends for Enter, so raw
programs, line-editing shells and REPLs all read it as the end of a line.

Shell commands (``run_command``) may contain LF between lines and TAB, nothing
else: a command reaches its shell from a file, so neither is ever a key to the
shell's line editor (``runscript``: only a shown first line, tabs as spaces, is
typed).
"""

from __future__ import annotations

from tmuxmcp.errors import UnsafeValue
from tmuxmcp.sinks._text import require_argv_text

MAX_TEXT_BYTES = 1024 * 1024
MAX_COMMAND_BYTES = 64 * 1024
COMMAND_CONTROLS = "\n\t"
"""The control characters a shell command may hold: LF between lines, and TAB (a
Makefile recipe, a ``<<-`` here-document, TSV data). The command reaches the shell
from a file, never typed, so neither is a key there (see ``runscript``)."""


def _controls(value: str, allowed: str) -> list[str]:
    return [ch for ch in value if (ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F) and ch not in allowed]


def encode_text(value: str, param: str, *, newlines: bool = False) -> bytes:
    """Validate text for a pane program; return the bytes to paste.

    With ``newlines``, LF is allowed (the caller pastes it as CR, Enter).
    """
    require_argv_text(value, param)
    found = _controls(value, "\n" if newlines else "")
    if found:
        keys = "Tab, Escape or a carriage return" if newlines else "Enter, Tab or Escape"
        raise UnsafeValue(
            f"`{param}` contains control character U+{ord(found[0]):04X}; "
            f"send keys such as {keys} with send_keys"
        )
    data = value.encode("utf-8")
    if len(data) > MAX_TEXT_BYTES:
        raise UnsafeValue(f"`{param}` is longer than {MAX_TEXT_BYTES} bytes")
    return data


def encode_command(value: str, param: str) -> str:
    """Validate a shell command for a pane's shell (LF allowed between lines)."""
    require_argv_text(value, param)
    if not value.strip():
        raise UnsafeValue(f"`{param}` is empty")
    found = _controls(value, COMMAND_CONTROLS)
    if found:
        raise UnsafeValue(
            f"`{param}` contains control character U+{ord(found[0]):04X}; a command may "
            "hold tabs, and newlines between its lines, but no other control character"
        )
    if len(value.encode("utf-8")) > MAX_COMMAND_BYTES:
        raise UnsafeValue(f"`{param}` is longer than {MAX_COMMAND_BYTES} bytes")
    return value
