"""The answers the fast tests script for the fake tmux, named once.

A fast test that scripts what tmux says (an error line, a status) takes it
from here, and ``tests/driver/test_fake_parity.py`` plays each one against
real tmux on every version of the matrix: if tmux words an answer otherwise,
the parity test fails, not a fast test that still passes on the old words
(issue 30.2). The answers the fake makes up itself (the gate's line, a
replaced or stopped server, ``rows``) are played there too.
"""

from __future__ import annotations

from tmuxmcp.driver.fake import Reply
from tmuxmcp.driver.guards import Refusal


def missing_pane(pane: str) -> Reply:
    """What a command targeting ``pane`` (``-t %9``), which does not exist, gets."""
    return Reply(stderr=f"can't find pane: {pane}\n", status=1)


def guard_refused(refusal: Refusal) -> Reply:
    """What a guard after the gate gets when its condition fails (``driver.guards``):
    tmux refuses the option name, and the rest of the command list does not run."""
    return Reply(stderr=f"invalid option: {refusal.value}\n", status=1)
