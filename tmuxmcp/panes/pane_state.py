"""What a pane is waiting for, decided from tmux's and the kernel's facts (issue 28.1).

Pure: the facts come from one tmux listing (``PANE_STATE_FIELDS``) and one
kernel reading (``driver.foreground``); nothing here reads or writes. The
states, in the order they are decided:

| state | meaning |
|---|---|
| ``dead`` | the pane's program exited (tmux's ``pane_dead``, with its status or signal) |
| ``copy-mode`` | the pane is in a tmux mode (``pane_mode``): keys go to tmux, not the program |
| ``running`` | a foreground program runs, or waits on something other than the terminal |
| ``shell-ready`` | an interactive shell of this user reads a command at its prompt |
| ``shell-continuation`` | that shell's cursor row shows a continuation prompt (``> ``) |
| ``awaiting-line`` | a foreground program reads a line with echo on |
| ``awaiting-secret`` | a foreground program reads a line with echo off (a password) |
| ``awaiting-keys`` | a foreground program reads keys itself (a line editor, pager, editor, menu) |

Rules kept here:

* **Rule 1: the kernel decides, the screen only refines.** Whether a
  program reads the terminal, and with echo and canonical mode on or off, is
  the kernel's (``style.md`` rule 20). Text a program printed is used for one
  thing only: a shell reading at its prompt whose cursor row ends in a
  continuation prompt is ``shell-continuation``. A program cannot print its
  way into another state: printing "Password:" leaves echo on.
* **Rule 2: a line read by a shell with a line editor is its ``read``.**
  bash and zsh read their prompt through their line editor with the terminal
  raw; reading in canonical mode, they are in their ``read`` builtin
  (``awaiting-line`` or ``awaiting-secret``). dash has no line editor: its
  prompt and its ``read`` both read in canonical mode (echo on, or off after
  ``stty -echo``), and only the read's size tells them apart (its ``read``
  reads one byte at a time).
* **Rule 3: where the kernel cannot tell, the safe side.** A hidden reader
  (another user's process, ``sudo``, ``su``) is judged by the line modes
  alone, and echo off in canonical mode is a secret; no reading at all is
  ``running`` with ``evidence: "unknown"``: nothing tells an agent to type.
  ``evidence`` is ``proven`` where a read of the terminal was seen,
  ``inferred`` where it was a wait with the terminal open, a hidden reader or
  a screen heuristic.
* **Rule 4: the keys that leave a state are a suggestion, never pressed here**,
  named by what the reader is (its executable, not its chosen name): ``q``
  for a pager or a tmux mode, ``C-c`` for a running command or a
  continuation, ``C-d`` for a REPL; an editor's keys would discard its work
  and say so.
"""

from __future__ import annotations

import os
import re
from typing import Final, Literal

import msgspec

from tmuxmcp.capability.results import Own, Process, TmuxReport
from tmuxmcp.driver.foreground import (
    LINE_EDITING_SHELLS,
    POSIX_SHELLS,
    Member,
    TerminalReading,
    interactive_arguments,
)
from tmuxmcp.driver.guards import ZSH_CONTEXTS
from tmuxmcp.driver.tty import LineModes

State = Literal[
    "dead",
    "copy-mode",
    "running",
    "shell-ready",
    "shell-continuation",
    "awaiting-line",
    "awaiting-secret",
    "awaiting-keys",
]
STATES: Final[tuple[State, ...]] = (
    "shell-ready",
    "shell-continuation",
    "running",
    "awaiting-line",
    "awaiting-secret",
    "awaiting-keys",
    "copy-mode",
    "dead",
)
"""Every state, in the order the documentation lists them."""
Evidence = Literal["proven", "inferred", "unknown"]

PANE_STATE_FIELDS: Final = {
    "pid": "pane_pid",
    "tty": "pane_tty",
    "dead": "pane_dead",
    "dead_status": "pane_dead_status",
    "dead_signal": "pane_dead_signal",
    "in_mode": "pane_in_mode",
    "mode": "pane_mode",
    "alternate_screen": "alternate_on",
    "cursor_x": "cursor_x",
    "cursor_y": "cursor_y",
}
"""The tmux format variables the state rests on, read with the pane's record."""

_CONTINUATION = re.compile(rf"(?:> ?|(?:(?:{ZSH_CONTEXTS}) )*(?:{ZSH_CONTEXTS})> ?)")
"""The whole text before the cursor when a shell waits for more of a command: PS2's
default ``> `` (sh, dash, bash, ksh) or zsh's ``%_> `` (its parser contexts)."""

PAGERS: Final = frozenset({"less", "more", "most", "pager", "pg", "w3m", "lv"})
EDITORS: Final = {
    "vim": ("Escape", ":", "q", "!", "Enter"),
    "vim.basic": ("Escape", ":", "q", "!", "Enter"),
    "vim.tiny": ("Escape", ":", "q", "!", "Enter"),
    "vi": ("Escape", ":", "q", "!", "Enter"),
    "nvim": ("Escape", ":", "q", "!", "Enter"),
    "nano": ("C-x",),
    "emacs": ("C-x", "C-c"),
}
"""Editors and the keys that leave them; vim's discard unsaved changes."""
REPLS: Final = (
    "python",
    "node",
    "irb",
    "ruby",
    "ghci",
    "lua",
    "sqlite3",
    "psql",
    "mysql",
    "gdb",
    "R",
)
"""Interactive interpreters, by the start of their executable's name; ``C-d`` leaves them."""


class PaneState(msgspec.Struct, frozen=True, kw_only=True):
    """What a pane is waiting for, with the facts it rests on (``state`` first)."""

    state: State
    evidence: Evidence
    """``proven``: a read of the terminal was seen; ``inferred``: a wait with the terminal
    open, a reader hidden from this user, or the screen's continuation prompt;
    ``unknown``: the kernel's facts could not be read, so the safe side (``running``)."""
    foreground_pid: int | None = None
    """The process that reads the terminal, or else the foreground group's leader."""
    foreground_program: Process | None = None
    """Its executable's base name (not the name it gives itself); ``None`` if hidden."""
    reading_terminal: bool | None = None
    """Whether a foreground process is waiting to read the terminal."""
    echo: bool | None = None
    """The terminal's echo mode; off for a password prompt and for programs that draw
    their own input."""
    canonical: bool | None = None
    """The terminal's canonical (line-at-a-time) mode."""
    exit_status: int | None = None
    """A dead pane's exit status (or ``None``, e.g. killed by a signal)."""
    exit_signal: int | None = None
    """The signal that ended a dead pane's program."""
    mode: TmuxReport | None = None
    """The tmux mode the pane is in (``copy-mode``, ``view-mode``, ...)."""
    leave_keys: list[Own] | None = None
    """Keys that usually leave this state, each one ``send_keys`` sends as a key (a tmux
    key name or one character); a suggestion, never pressed by tmuxmcp but for
    ``recover_pane``. An editor's discard its unsaved changes."""


class TmuxFacts(msgspec.Struct, frozen=True, kw_only=True):
    """What tmux says of the pane (``PANE_STATE_FIELDS``)."""

    pid: int | None
    tty: str
    dead: bool
    dead_status: int | None
    dead_signal: int | None
    in_mode: bool
    mode: str
    alternate_screen: bool
    cursor_x: int
    cursor_y: int


LIVE_PANE: Final = TmuxFacts(
    pid=None,
    tty="",
    dead=False,
    dead_status=None,
    dead_signal=None,
    in_mode=False,
    mode="",
    alternate_screen=False,
    cursor_x=0,
    cursor_y=0,
)
"""tmux's side of a live pane in no mode, for a caller that asks only what the terminal
waits for (a run's wait, the readiness check): the kernel's reading decides."""


def _leave_keys(program: str | None, alternate: bool) -> list[str]:
    name = program or ""
    if name in PAGERS:
        return ["q"]
    if name in EDITORS:
        return list(EDITORS[name])
    if name.startswith(REPLS):
        return ["C-d"]
    return ["q"] if alternate else ["C-c"]


def _interactive_shell(member: Member, uid: int) -> bool:
    program = (member.program or "").lstrip("-")
    return (
        program in POSIX_SHELLS
        and member.uid == uid
        and member.argv is not None
        and interactive_arguments(member.argv)
    )


def _reader(members: tuple[Member, ...]) -> Member | None:
    proven = [m for m in members if m.reading == "terminal"]
    inferred = [m for m in members if m.reading == "terminal-inferred"]
    found = proven or inferred
    return found[0] if found else None


def continuation_before(cursor_row: str | None, cursor_x: int) -> bool:
    """Whether the text before the cursor ends in a shell's continuation prompt."""
    if cursor_row is None:
        return False
    return _CONTINUATION.fullmatch(cursor_row[:cursor_x]) is not None


class _Verdicts:
    """Builds the states of one reading, each with the terminal's modes."""

    def __init__(self, reading: TerminalReading, alternate: bool) -> None:
        self.modes = reading.modes
        self.alternate = alternate

    def __call__(
        self,
        name: State,
        evidence: Evidence,
        member: Member,
        *,
        reads: bool,
        keys: list[str] | None,
    ) -> PaneState:
        return PaneState(
            state=name,
            evidence=evidence,
            foreground_pid=member.pid,
            foreground_program=member.program,
            reading_terminal=reads,
            echo=None if self.modes is None else self.modes.echo,
            canonical=None if self.modes is None else self.modes.canonical,
            leave_keys=keys,
        )

    def unread(self, members: tuple[Member, ...]) -> PaneState:
        """No member is seen reading the terminal (Rule 3 for a hidden one)."""
        hidden = next((m for m in members if m.reading == "hidden"), None)
        if hidden is None or self.modes is None:
            return self("running", "proven", members[0], reads=False, keys=["C-c"])
        if self.modes.canonical and not self.modes.echo:
            return self("awaiting-secret", "inferred", hidden, reads=True, keys=["C-c"])
        if not self.modes.canonical:
            keys = _leave_keys(hidden.program, self.alternate)
            return self("awaiting-keys", "inferred", hidden, reads=True, keys=keys)
        return self("running", "inferred", hidden, reads=False, keys=["C-c"])

    def read_by(self, reader: Member, evidence: Evidence) -> PaneState:
        """A program (not a shell at its prompt) reads the terminal: the line modes say how."""
        assert self.modes is not None
        if not self.modes.canonical:
            keys = _leave_keys(reader.program, self.alternate)
            return self("awaiting-keys", evidence, reader, reads=True, keys=keys)
        if self.modes.echo:
            return self("awaiting-line", evidence, reader, reads=True, keys=["C-c"])
        return self("awaiting-secret", evidence, reader, reads=True, keys=["C-c"])


def _shell_at_prompt(reader: Member, modes: LineModes, uid: int) -> bool:
    """Rule 2: an interactive shell of this user reading a command, not its ``read``."""
    if not _interactive_shell(reader, uid):
        return False
    if (reader.program or "").lstrip("-") in LINE_EDITING_SHELLS:
        return not modes.canonical and not modes.echo
    # A shell without a line editor reads its prompt in canonical mode, echo on or off
    # (``stty -echo`` at a dash prompt); only its read's size tells its ``read``.
    return modes.canonical and (reader.read_size or 0) > 1


def _tmux_state(tmux: TmuxFacts) -> PaneState | None:
    """The states tmux itself knows: a dead pane, a pane in a mode."""
    if tmux.dead:
        return PaneState(
            state="dead",
            evidence="proven",
            exit_status=tmux.dead_status,
            exit_signal=tmux.dead_signal,
        )
    if tmux.in_mode:
        return PaneState(
            state="copy-mode", evidence="proven", mode=tmux.mode or None, leave_keys=["q"]
        )
    return None


def classify(
    tmux: TmuxFacts,
    reading: TerminalReading | None,
    *,
    uid: int | None = None,
    cursor_row: str | None = None,
) -> PaneState:
    """The pane's state from tmux's facts, one kernel reading and (for a shell at its
    prompt) the text of the cursor's row."""
    known = _tmux_state(tmux)
    if known is not None:
        return known
    if reading is None or reading.group <= 0 or not reading.members:
        return PaneState(state="running", evidence="unknown", leave_keys=["C-c"])
    verdict = _Verdicts(reading, tmux.alternate_screen)
    busy = next((m for m in reading.members if m.reading == "running"), None)
    if busy is not None:
        return verdict("running", "proven", busy, reads=False, keys=["C-c"])
    reader = _reader(reading.members)
    if reader is None:
        return verdict.unread(reading.members)
    if reading.modes is None:
        return verdict("running", "unknown", reader, reads=True, keys=["C-c"])
    return _read_state(
        verdict, reader, reading.modes, cursor_x=tmux.cursor_x, cursor_row=cursor_row, uid=uid
    )


def _read_state(
    verdict: _Verdicts,
    reader: Member,
    modes: LineModes,
    *,
    cursor_x: int,
    cursor_row: str | None,
    uid: int | None,
) -> PaneState:
    """The state of a terminal ``reader`` reads: a shell's prompt, or what it asks for."""
    evidence: Evidence = "proven" if reader.reading == "terminal" else "inferred"
    if not _shell_at_prompt(reader, modes, os.getuid() if uid is None else uid):
        return verdict.read_by(reader, evidence)
    if continuation_before(cursor_row, cursor_x):
        return verdict("shell-continuation", "inferred", reader, reads=True, keys=["C-c"])
    return verdict("shell-ready", evidence, reader, reads=True, keys=None)
