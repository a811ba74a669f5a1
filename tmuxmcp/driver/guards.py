"""The typing guard: a tmux-side re-check, just before a paste, of what readiness saw.

``run_command`` decides from ``/proc`` and the screen that a pane's shell waits
at its prompt (``tools.run.readiness``). Between that decision and the paste the
pane can change; ``guard_name`` is a ``show-options`` option name that tmux
expands in the pane's own context, in the very invocation that pastes, so the
paste happens only if the pane is still what the decision rested on. A failed
guard is an unknown option: ``show-options`` fails and tmux drops the rest of
the command list, the paste included (the gate's mechanism, ``driver.client``).

Rules kept here:
* the guard is built from a pane id, an integer pid and constants only, never
  from text a pane program chose;
* the regex is a constant holding none of ``#,{}``, which tmux's format
  parser would take for its own;
* ``tmuxmcp verify`` proves the guard on the tmux at hand (claim
  ``paste-guard``): it passes for an unchanged pane and refuses each change,
  and the paste after a refused guard never happens.
"""

from __future__ import annotations

import re

ZSH_CONTEXTS = (
    "always|array|assign|brace|braceparam|bquote|case|cmdand|cmdor|cmdsubst|cursh|dquote|"
    "elif|else|errpipe|for|foreach|function|heredoc|heredocd|if|math|mathsubst|pipe|quote|"
    "repeat|select|shfunc|subsh|then|until|while"
)
"""The parser contexts zsh names in its continuation prompt (``%_> ``)."""

GUARD_REFUSED = "tmuxmcp-pane-changed"
"""The option name the typing guard asks for when the pane is not as checked.

Not a ``@`` user option and not a prefix of any tmux option name, so
``show-options`` fails on it ("invalid option") and tmux drops the rest of the
invocation, the paste included (the gate's mechanism, ``driver.client``)."""

CONTINUATION_ROW = rf"^(>|(({ZSH_CONTEXTS}) )*({ZSH_CONTEXTS})>)"
"""A POSIX extended regular expression for tmux's ``#{C/r:...}``: a row that begins
like a continuation prompt. Any row whose text left of the cursor matches
``tools.run.readiness``'s continuation pattern matches it (tmux strips trailing
spaces, so the prompt's own space is not required); so do rows of ordinary
output beginning with ``>``,
which only send the caller back to the full check. It holds none of ``#,{}``,
which tmux's format parser would take for its own."""

_PANE_ID = re.compile(r"%[0-9]+")


def guard_name(marker: str, pane: str, pane_pid: int, *, rows: bool) -> str:
    """Rule 4: a ``show-options`` option name that is ``marker`` (an existing server
    option) only while ``pane`` is still ``pane_pid``, alive, in no mode, off the
    alternate screen and (with ``rows``) shows no row beginning like a continuation
    prompt; otherwise ``GUARD_REFUSED``. Expanded by tmux in the pane's context
    (``show-options -t pane``); an unknown pane expands to empty fields and fails."""
    if not _PANE_ID.fullmatch(pane) or not marker.startswith("@tmuxmcp_"):
        raise ValueError("guard_name takes a pane id and tmuxmcp's marker option")
    seen = "#{pane_id}.#{pane_pid}.#{pane_dead}#{pane_in_mode}#{alternate_on}"
    want = f"{pane}.{int(pane_pid)}.000"
    if rows:
        seen += ".#{C/r:" + CONTINUATION_ROW + "}"
        want += ".0"
    return f"#{{?#{{==:{seen},{want}}},{marker},{GUARD_REFUSED}}}"
