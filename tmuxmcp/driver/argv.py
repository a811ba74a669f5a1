"""Render tmux commands to argv, applying the argv-layer rules once.

tmux re-parses argv (cmd-parse.y ``cmd_parse_from_arguments``):

* Rule 1: an element whose last byte is ``;`` ends the command there, so
  ``x;`` followed by ``run-shell ...`` runs a second command. Every element's
  final ``;`` is escaped as ``\\;``, which tmux turns back into ``;``.
* Rule 2: a positional that starts with ``-`` is parsed as flags, so ``--``
  always precedes positionals.
* Rule 3: numbers are validated integers rendered here in decimal, because
  tmux >= 3.4 format-expands numeric arguments.
* Rule 4: flags and command names are constants of this package, never
  caller data; a malformed flag is a programming error.

Commands are joined into one invocation with a lone ``;`` element, which is
tmux's command separator.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from tmuxmcp.sinks._text import require_argv_text

Value = str | int

_FLAG = re.compile(r"-[A-Za-z]")
_NAME = re.compile(r"[a-z]+(-[a-z]+)*")


def escape_element(element: str) -> str:
    """Escape a final ``;`` so tmux does not split the command at it (rule 1)."""
    return element[:-1] + "\\;" if element.endswith(";") else element


def _render_value(value: Value) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"tmux argument must be str or int, not {type(value).__name__}")
    if isinstance(value, int):
        return str(value)
    # Backstop: sink encoders reject NUL first; argv cannot carry one at all.
    return escape_element(require_argv_text(value, "argument"))


class Command(msgspec.Struct, frozen=True):
    """One tmux command: a name, bare flags, flag values and positionals."""

    name: str
    flags: tuple[str, ...] = ()
    options: tuple[tuple[str, Value], ...] = ()
    args: tuple[Value, ...] = ()

    def render(self) -> list[str]:
        """The argv elements of this command alone."""
        if not _NAME.fullmatch(self.name):
            raise ValueError(f"not a tmux command name: {self.name!r}")
        for flag in (*self.flags, *(flag for flag, _ in self.options)):
            if not _FLAG.fullmatch(flag):
                raise ValueError(f"not a tmux flag: {flag!r}")
        out = [self.name, *self.flags]
        for flag, value in self.options:
            out += [flag, _render_value(value)]
        if self.args:
            out.append("--")
            out += [_render_value(arg) for arg in self.args]
        return out


def cmd(
    name: str,
    *flags: str,
    args: Sequence[Value] = (),
    **options: Value | None,
) -> Command:
    """Build a command; ``t="%1"`` becomes ``-t %1`` and ``None`` omits it."""
    pairs = tuple((f"-{key}", value) for key, value in options.items() if value is not None)
    return Command(name, tuple(flags), pairs, tuple(args))


def render(commands: Sequence[Command]) -> list[str]:
    """The argv for a sequence of commands run by one tmux client."""
    out: list[str] = []
    for index, command in enumerate(commands):
        if index:
            out.append(";")
        out += command.render()
    return out
