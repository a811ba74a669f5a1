"""Input already waiting in a pane: discarded when a run ends, or refused before typing.

A command that asks the terminal a question and does not read the answer
(``printf '\\033[6n'``: the cursor position; ``\\033[c``: the device
attributes) leaves tmux's reply in the terminal's input queue. When the
shell gets its prompt back, its line editor takes the reply as typed (bash
and zsh show ``1R`` at the prompt, dash keeps the whole reply unseen), and
the next run's line is typed after it. Keys a person typed into an attached
client while the command ran sit in the same queue, and they are theirs.

Rules:

Rule 1: the input is discarded only while the script still holds the shell
  after the command ended (``collect``, before the release): the terminal is
  then in the mode the shell runs commands in, so what waits is what arrived
  during the command and no line editor has taken it yet.
Rule 2: only what no person can have typed is discarded: no client is
  attached to the pane's session and the pane's window is in no other
  session, or no client's key reached the session since before the run was
  typed (``#{session_activity}``, whole seconds, so a key in the second the
  run was typed counts as typed). Otherwise the input stays, and the next
  run finds it at the prompt.
Rule 3: a complete line waiting (someone pressed Enter, or ``send_keys``' text
  ended in a newline) is never discarded, nor anything of a terminal left in
  raw mode (``driver.tty`` Rule 2): that is input someone meant to enter.

Rule 4: text waiting at the prompt when a run is to be typed (typed there
  by a person or by ``send_keys``' text without Enter, or input Rule 2 kept) is
  never typed after, nor discarded: the run is refused (``InputPending``),
  naming the text and how to clear it. The prompt is known from the last
  line this process typed into the pane (``Prompt``, the text left of the
  cursor then): the typing guard (``driver.guards.guard_name``) requires the
  cursor in that column, so no tmux call is added while the prompt keeps its
  width; when it does not, the full check reads the screen and finds the text
  after the known prompt (``typed_ahead``). A pane no line was typed into yet,
  or whose prompt changed, has no known prompt, and text there is not seen.

Rule 5: a shell with no line editor (``NO_LINE_EDITOR``: dash) does not show
  text waiting in its input after its prompt: keys typed while a command ran
  were echoed among its output, and the terminal's line holds them unseen
  (``driver.tty`` can count only complete lines, and changes no setting to
  look further). When Rule 2 kept the input of a run there (a client's key
  reached the session during the run), the next run in that shell is refused
  before anything is typed (``refuse_unseen_input``), saying how to clear the
  input, until tmuxmcp sends keys, text or a buffer to the pane (the caller
  has then dealt with its input: C-u clears it, Enter runs it; text sent
  after it is echoed after the prompt, where Rule 4 sees it). A key in
  another pane of the session counts too: tmux keeps one activity time per
  session, so this errs toward refusing.

Nothing here runs tmux: the facts come with the end frame ``collect`` reads
anyway (``INPUT_FIELDS``), the rest from ``/proc`` and the device, and the
screen the readiness check reads.
"""

from __future__ import annotations

import math

import msgspec

from tmuxmcp.driver import tty
from tmuxmcp.errors import PaneNotReady

INPUT_FIELDS = {
    "tty": "pane_tty",
    "attached": "session_attached",
    "linked": "window_linked",
    "activity": "session_activity",
}
"""The tmux variables read with the end frame for Rule 2."""


class Input(msgspec.Struct, frozen=True, kw_only=True):
    """Who could have typed into a pane, from tmux, at one instant."""

    tty: str
    attached: int
    """Clients attached to the pane's session."""
    linked: bool
    """The pane's window is in more than one session."""
    activity: int
    """When a client's key last reached the session (seconds since the epoch)."""


def nobody_typed(seen: Input, typed_at: float) -> bool:
    """Rule 2: no person can have typed into the pane since ``typed_at`` (epoch seconds)."""
    if seen.linked:
        return False
    return seen.attached == 0 or seen.activity < math.floor(typed_at)


def discard_replies(seen: Input, shell_pid: int, typed_at: float) -> bool:
    """Discard the partial line waiting in the pane's input when nobody can have typed
    it (Rules 1-3); True when it was discarded. Called with the shell still held."""
    device = tty.terminal_of(shell_pid)
    if device is None or not seen.tty or not nobody_typed(seen, typed_at):
        return False
    return tty.discard_partial_line(seen.tty, device)


class InputPending(PaneNotReady):
    """You get this when text waits at the pane's prompt, typed but not entered."""


NO_LINE_EDITOR = frozenset({"dash", "posh"})
"""Shells (the program's base name) that read their input with the terminal's own line
editing, so text waiting there is not drawn after their prompt (Rule 5)."""


def input_may_wait_unseen(seen: Input, shell: str, typed_at: float) -> bool:
    """Rule 5: input Rule 2 kept may wait where the screen cannot show it."""
    return shell in NO_LINE_EDITOR and not nobody_typed(seen, typed_at)


def refuse_unseen_input(pane: str, shell: str, flagged: bool) -> None:
    """Rule 5: raise ``InputPending`` for a shell without a line editor whose input a
    person may have typed into during the last run (``flagged``)."""
    if not flagged or shell not in NO_LINE_EDITOR:
        return
    raise InputPending(
        f"pane {pane}'s shell ({shell}) shows no text waiting in its input, and a "
        "client's key reached the pane's session while its last command ran: what a "
        "person typed then may wait there, unseen, and would run in front of the next "
        "line. Nothing was typed. Clear the input with send_keys C-u (it discards what "
        "waits), or run it with send_keys Enter, then retry"
    )


class Prompt(msgspec.Struct, frozen=True):
    """Where a pane's shell prompt ends: the cursor's column and the text left of it
    (padded to that column: tmux strips a row's trailing spaces), when a line was last
    typed there."""

    column: int
    text: str


def prompt_at(row: str, column: int) -> Prompt:
    """The prompt of a cursor row, the cursor at ``column``."""
    return Prompt(column, row[:column].ljust(column))


def typed_ahead(row: str, column: int, prompt: Prompt | None) -> str:
    """Rule 4: the text after the known ``prompt`` on the cursor row, left of the cursor
    at ``column``; empty when there is none, or when the row does not hold that prompt
    (the prompt changed: nothing can be told).

    The prompt is looked for anywhere left of the cursor, first occurrence: a command
    whose output did not end in a newline (the terminal's echo of a reply, ``^[[2;1R``)
    leaves the next prompt further right on its row."""
    if prompt is None or not prompt.text.strip():
        return ""
    before = row[:column].ljust(column)
    at = before.find(prompt.text)
    if at < 0:
        return ""
    return before[at + len(prompt.text) :].strip()


def refuse_typed_ahead(pane: str, row: str, column: int, prompt: Prompt | None) -> None:
    """Rule 4: raise ``InputPending`` when text waits after the known prompt."""
    text = typed_ahead(row, column, prompt)
    if not text:
        return
    shown = text if len(text) <= 80 else text[:80] + "…"
    raise InputPending(
        f"pane {pane} has text waiting at its shell's prompt, typed but not entered: "
        f"{shown!r}. tmuxmcp neither types after it nor discards it (a person in an "
        "attached client may be typing it). Clear it with send_keys C-u (or C-c), or "
        "enter it with send_keys Enter, then retry"
    )
