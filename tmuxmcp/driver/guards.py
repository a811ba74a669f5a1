"""Guards: a tmux-side condition that stops the rest of an invocation, and the typed refusals.

A guard is a ``show-options`` whose option name is a format tmux expands in
the very invocation that acts: to an option that exists while its condition
holds, and to a ``Refusal`` name otherwise. No option has that name, so
``show-options`` fails ("invalid option: <name>") and tmux drops the rest of
the command list; nothing after the guard runs. tmuxmcp has six guards,
all told apart here and all but the last built here:

* the **gate** of every call (``driver.client.gate_name``): the bound server,
  its aliases and hooks (``SERVER_REPLACED``, ``ALIAS_CHANGED``, ``HOOK_SET``);
* the **typing guard** of ``run_command`` (``guard_name`` below): the pane is
  still what readiness saw, its cursor where the prompt ends (``PANE_CHANGED``);
* the **mode guard** of ``send_keys``' text (``mode_guard_name`` below,
  ``tools.keystrokes``): the pane is in no tmux mode, so a paste cannot land
  in the program behind a mode the screen shows (``PANE_IN_MODE``);
* the **zoom guard** of ``kill_session`` on tmux 3.4 (``tools.teardown``): no
  window of the session is zoomed (``WINDOW_ZOOMED``);
* the **geometry guard** of a capture into history (``geometry_guard_name``
  below, ``panetext.geometry``): the pane still has the width and height its
  first window was planned for (``GEOMETRY_CHANGED``);
* the **empty guard** of an exit (``driver.tenancy``): the server tmuxmcp
  started holds no session, no other client and no other serving tmuxmcp,
  so the ``kill-server`` after it ends nothing anyone has (``SERVER_IN_USE``).

Rules kept here:

* **Rule 1: a refusal is recognised from tmux's own whole line**
  ``invalid option: <name>`` (3.3a to 3.6a), read from the client's stderr
  before any message is built; never by searching an exception's text,
  which is cut to a length and may quote other output (``refusal_in``).
* **Rule 2: a refused guard raises a typed exception.** ``driver.client``
  raises ``GuardRefused`` (a ``TmuxCommandFailed``) for a guard after the
  gate, with its ``Refusal``; the gate's refusals become
  ``ConfigurationChanged`` or ``BoundServerLost`` there.
* **Rule 3: a guard is built from constants, ids, integers and tmuxmcp's
  marker only**, never from text a pane program or a caller chose.
* **Rule 4 (the typing guard):** the regex is a constant holding none of
  ``#,{}``, which tmux's format parser would take for its own; ``tmuxmcp
  verify`` proves the typing guard on the tmux at hand (claim
  ``paste-guard``): it passes for an unchanged pane and refuses each change,
  and the paste after a refused guard never happens.

``run_command`` decides from ``/proc`` and the screen that a pane's shell
waits at its prompt (``panes.readiness``); between that decision and the
paste the pane can change, and the typing guard, in the invocation that
pastes, makes the paste happen only if the pane is still what the decision
rested on.
"""

from __future__ import annotations

import re
from enum import StrEnum

from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.errors import TmuxCommandFailed


class Refusal(StrEnum):
    """The option name a guard asks for when its condition fails.

    None is a ``@`` user option or a prefix of any tmux option name, so
    ``show-options`` always fails on it.
    """

    SERVER_REPLACED = "tmuxmcp-server-replaced"
    ALIAS_CHANGED = "tmuxmcp-alias-changed"
    HOOK_SET = "tmuxmcp-hook-set"
    PANE_CHANGED = "tmuxmcp-pane-changed"
    PANE_IN_MODE = "tmuxmcp-pane-in-mode"
    WINDOW_ZOOMED = "tmuxmcp-window-zoomed"
    GEOMETRY_CHANGED = "tmuxmcp-geometry-changed"
    SERVER_IN_USE = "tmuxmcp-server-in-use"


class GuardRefused(TmuxCommandFailed):
    """You get this (inside tmuxmcp) when a guard after the gate refused: the
    commands after it did not run. Its caller turns it into what it means."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(f"invalid option: {refusal.value}")
        self.refusal = refusal


_REFUSAL_LINE = re.compile(r"^invalid option: (tmuxmcp-[a-z-]+)$", re.MULTILINE)


def refusal_in(stderr: str) -> Refusal | None:
    """The refusal tmux reported on a whole line of ``stderr`` (Rule 1), if any."""
    for found in _REFUSAL_LINE.finditer(stderr):
        try:
            return Refusal(found[1])
        except ValueError:
            continue
    return None


def choose(condition: str, passed: str, refusal: Refusal) -> str:
    """The option name ``passed`` while the format ``condition`` is true, else ``refusal``."""
    return f"#{{?{condition},{passed},{refusal.value}}}"


def refuse_if(condition: str, refusal: Refusal, passed: str) -> str:
    """The option name ``refusal`` while the format ``condition`` is true, else ``passed``."""
    return f"#{{?{condition},{refusal.value},{passed}}}"


def guard(name: str, target: str | None = None) -> Command:
    """The guard command: ``show-options`` of the format ``name``, expanded at ``target``."""
    return cmd("show-options", "-s", "-v", t=target, args=[name])


ZSH_CONTEXTS = (
    "always|array|assign|brace|braceparam|bquote|case|cmdand|cmdor|cmdsubst|cursh|dquote|"
    "elif|else|errpipe|for|foreach|function|heredoc|heredocd|if|math|mathsubst|pipe|quote|"
    "repeat|select|shfunc|subsh|then|until|while"
)
"""The parser contexts zsh names in its continuation prompt (``%_> ``)."""


CONTINUATION_ROW = rf"^(>|(({ZSH_CONTEXTS}) )*({ZSH_CONTEXTS})>)"
"""A POSIX extended regular expression for tmux's ``#{C/r:...}``: a row that begins
like a continuation prompt. Any row whose text left of the cursor matches
``panes.readiness``'s continuation pattern matches it (tmux strips trailing
spaces, so the prompt's own space is not required); so do rows of ordinary
output beginning with ``>``,
which only send the caller back to the full check. It holds none of ``#,{}``,
which tmux's format parser would take for its own."""

_PANE_ID = re.compile(r"%[0-9]+")


def guard_name(
    marker: str, pane: str, pane_pid: int, *, rows: bool, cursor_x: int | None = None
) -> str:
    """The typing guard (Rule 4): a ``show-options`` option name that is ``marker``
    (an existing server option) only while ``pane`` is still ``pane_pid``, alive, in
    no mode, off the alternate screen, (with ``rows``) shows no row beginning like
    a continuation prompt and (with ``cursor_x``) has its cursor in that column;
    otherwise ``Refusal.PANE_CHANGED``. Expanded by tmux in the pane's context
    (``show-options -t pane``); an unknown pane expands to empty fields and fails.

    The column is where the shell's prompt ends when nothing is typed after it
    (``runs.pending``): text waiting at the prompt moves the cursor past it."""
    if not _PANE_ID.fullmatch(pane) or not marker.startswith("@tmuxmcp_"):
        raise ValueError("guard_name takes a pane id and tmuxmcp's marker option")
    seen = "#{pane_id}.#{pane_pid}.#{pane_dead}#{pane_in_mode}#{alternate_on}"
    want = f"{pane}.{int(pane_pid)}.000"
    if rows:
        seen += ".#{C/r:" + CONTINUATION_ROW + "}"
        want += ".0"
    if cursor_x is not None:
        seen += ".#{cursor_x}"
        want += f".{int(cursor_x)}"
    return choose(f"#{{==:{seen},{want}}}", marker, Refusal.PANE_CHANGED)


def mode_guard_name(marker: str, pane: str) -> str:
    """The mode guard: a ``show-options`` option name that is ``Refusal.PANE_IN_MODE``
    while ``pane`` is in a tmux mode (``pane_in_mode`` 1), otherwise ``marker`` (Rule 3:
    an id and constants). Expanded by tmux in the pane's context (``show-options -t
    pane``) at its place in the invocation, so it sees what the keys before it did (a
    ``q`` that left copy mode; claim ``key-printable``). An unknown pane expands to
    empty fields and passes: the command after it that names the pane fails there,
    as ``object-not-found``, rather than as a mode the pane cannot be in."""
    if not _PANE_ID.fullmatch(pane) or not marker.startswith("@tmuxmcp_"):
        raise ValueError("mode_guard_name takes a pane id and tmuxmcp's marker option")
    return refuse_if(
        f"#{{==:#{{pane_id}}.#{{pane_in_mode}},{pane}.1}}", Refusal.PANE_IN_MODE, marker
    )


def geometry_guard_name(marker: str, pane: str, width: int, height: int) -> str:
    """The geometry guard: a ``show-options`` option name that is ``marker`` only while
    ``pane`` is ``width`` columns by ``height`` rows, otherwise
    ``Refusal.GEOMETRY_CHANGED`` (Rule 3: an id and integers). Expanded by tmux in the
    pane's context (``show-options -t pane``), so the read after it in the same
    invocation sees that geometry."""
    if not _PANE_ID.fullmatch(pane) or not marker.startswith("@tmuxmcp_"):
        raise ValueError("geometry_guard_name takes a pane id and tmuxmcp's marker option")
    seen = "#{pane_id}.#{pane_width}.#{pane_height}"
    want = f"{pane}.{int(width)}.{int(height)}"
    return choose(f"#{{==:{seen},{want}}}", marker, Refusal.GEOMETRY_CHANGED)
