"""The environment tmuxmcp gives the pane programs its tools start (issue 28.7), declared once.

A pager waiting for keys is the commonest wedge of an agent's terminal:
``git log``, ``man``, ``systemctl status`` page their output when it is
longer than the screen, and every command typed after that becomes a pager
command. Panes that tmuxmcp itself starts therefore get an environment in
which those programs print instead of paging: ``PAGER_SAFE``.

Rules kept here:

* **Rule 1: only panes a tool starts.** A tool that starts a pane program
  declares it (``ToolSpec.starts_panes``); the dispatcher hands the pane
  environment to those tools' calls only, so no other call can apply it,
  and each such handler passes it to tmux as ``-e NAME=VALUE``. Panes that
  exist already, or that a person or another program opens, keep theirs.
* **Rule 2: constants, never caller data.** The names and values are this
  module's; a call cannot add to them or change them.
* **Rule 3: the operator decides.** ``--pane-environment inherit`` turns it
  off: new panes then get tmux's environment unchanged.
* **Rule 4: disclosed.** A person attaching sees ``git log`` print where it
  would page: the docs and ``capabilities.json`` say which variables are set
  and by which tools.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

import msgspec

from tmuxmcp.driver.argv import Command

PAGER_SAFE: Final[tuple[tuple[str, str], ...]] = (
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("MANPAGER", "cat"),
    ("SYSTEMD_PAGER", "cat"),
)
"""What the pager-safe environment sets: the pager every common tool consults
(``PAGER``: man, psql, many others), git's own (``GIT_PAGER``, which wins over
``core.pager``), man's (``MANPAGER``) and systemd's (``SYSTEMD_PAGER``)."""


class PaneEnvironment(StrEnum):
    """The operator's choice (``--pane-environment``)."""

    PAGER_SAFE = "pager-safe"
    INHERIT = "inherit"


def variables(mode: PaneEnvironment) -> tuple[tuple[str, str], ...]:
    """The variables a started pane gets under ``mode``."""
    return PAGER_SAFE if mode is PaneEnvironment.PAGER_SAFE else ()


def with_environment(command: Command, pairs: tuple[tuple[str, str], ...]) -> Command:
    """``command`` with ``-e NAME=VALUE`` for each pair (Rule 1; tmux 3.2 and later take
    ``-e`` on new-session, new-window, split-window and respawn-pane)."""
    extra = tuple(("-e", f"{name}={value}") for name, value in pairs)
    return msgspec.structs.replace(command, options=command.options + extra)
