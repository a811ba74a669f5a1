"""Text for pane programs: what ``send_keys``' text parts and ``run_command`` deliver.

Delivery path (research/tmux-sinks.md §4, "arbitrary text, safe path"): the
text goes on stdin to ``load-buffer -b <unique> -`` and is written to the pane
by ``paste-buffer -d -r`` (a short text of ``send_keys`` may be stored by
``set-buffer`` in argv instead, byte for byte; ``tools.keystrokes`` Rule 3).
That path has no argv size limit, never reaches the key-name parser, and
skips mode key tables: a pane in copy or view mode does not read the text as
key bindings, the program underneath receives it unseen, which is why
``send_keys`` refuses text while the pane is in a mode (``tools.keystrokes``
Rule 2).

What can never be made safe here, and is refused:
* control characters (C0 such as ESC and CR; DEL; C1) other than TAB and LF:
  they are keys, not text. ESC could close a bracketed paste early on tmux
  <= 3.6, and tmux >= 3.7 rewrites controls in pastes (``VIS_SAFE``, which
  leaves TAB alone). Send them as keys (``send_keys``' key parts);
* NUL and lone surrogates (not text at all).

Tabs. ``send_keys``' text parts accept TAB (``tabs=True``): it is pasted as
it is, a tab in an editor's buffer or a TSV line (claim ``paste-exact``).

Line breaks. ``send_keys``' text accepts LF (``newlines=True``) and pastes without
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


def encode_text(value: str, param: str, *, newlines: bool = False, tabs: bool = False) -> bytes:
    """Validate text for a pane program; return the bytes to paste.

    With ``newlines``, LF is allowed (the caller pastes it as CR, Enter); with
    ``tabs``, TAB is pasted as it is (a tab typed into an editor, TSV data).
    """
    require_argv_text(value, param)
    found = _controls(value, ("\n" if newlines else "") + ("\t" if tabs else ""))
    if found:
        raise UnsafeValue(
            f"`{param}` text contains control character U+{ord(found[0]):04X}, which is a key, "
            'not text: put the key\'s name between text parts, e.g. ["Escape"] or ["Enter"]'
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
