"""Input already waiting in a pane's terminal when a run ends: what may be discarded.

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
Rule 3: a complete line waiting (someone pressed Enter, or ``send_text``
  ended in a newline) is never discarded, nor anything of a terminal left in
  raw mode (``driver.tty`` Rule 2): that is input someone meant to enter.

Nothing here runs tmux: the facts come with the end frame ``collect`` reads
anyway (``INPUT_FIELDS``), the rest from ``/proc`` and the device.
"""

from __future__ import annotations

import math

import msgspec

from tmuxmcp.driver import tty

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
