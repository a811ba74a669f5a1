"""recover_pane's declaration and its plan, pure (issue 28.5): no tmux, no fake.

They were in ``test_recover.py``, whose autouse fixture starts a private tmux
for every test, so each of them started one for nothing (issue 30.2 moved
them to the fast tier). The steps the plan gives, typed into real programs,
stay there.
"""

from __future__ import annotations

from typing import Any

import pytest

from tmuxmcp.capability.describe import describe
from tmuxmcp.capability.vocabulary import Effect, Reach
from tmuxmcp.definition import BY_NAME
from tmuxmcp.panes.pane_state import PaneState
from tmuxmcp.tools.recover import Step, plan


def test_recover_pane_is_declared_with_the_reach_its_keys_have() -> None:
    """CM-2, CM-7: the keys recover_pane types (``q``, ``C-c``, ``:q!``) reach a pane
    program, so it is ``pane-input``, effect change, and its description says so first
    and names the argument that lets it end a program."""
    spec = BY_NAME["recover_pane"]
    assert (spec.reach, spec.effects) == (Reach.PANE_INPUT, frozenset({Effect.CHANGE}))
    text = describe(spec)
    assert text.startswith("Reach pane-input (") and "end_pid" in text
    assert "tmux user's authority" in text


PLANS = [
    # (state, program, typed, the steps in order, whether they end a program)
    ("copy-mode", None, False, [("copy-mode -q",)], False),
    ("awaiting-keys", "less", False, [("q",)], False),
    ("shell-continuation", "bash", False, [("C-c",)], False),
    ("shell-ready", "bash", True, [("C-u",)], False),
    ("shell-ready", "bash", False, [], False),
    ("dead", None, False, [], False),
    ("awaiting-keys", "python3.11", False, [("C-c",), ("C-d",)], True),
    ("awaiting-keys", "vim.basic", False, [("Escape", ":", "q", "!", "Enter")], True),
    ("awaiting-keys", "nano", False, [("C-x",), ("n",)], True),
    ("awaiting-keys", "htop", False, [("C-c",), ("C-\\",)], True),
    # A REPL's executable running a script is a running command: signals, not C-d.
    ("running", "python3.11", False, [("C-c",), ("C-\\",)], True),
    ("awaiting-line", "cat", False, [("C-c",), ("C-\\",)], True),
    ("awaiting-secret", None, False, [("C-c",), ("C-\\",)], True),
]


@pytest.mark.parametrize(("state", "program", "typed", "steps", "ends"), PLANS)
def test_the_plan_types_the_least_first(
    state: Any, program: str | None, typed: bool, steps: list[tuple[str, ...]], ends: bool
) -> None:
    """``recover`` Rules 1 and 2, pure: each state's steps in order, and only those that
    end a program need ``end_pid``; a pager is left by its executable's name."""
    reading = PaneState(state=state, evidence="proven", foreground_program=program)
    planned: list[Step] = []
    while (step := plan(reading, len(planned), typed=typed)) is not None:
        planned.append(step)
    assert [s.keys for s in planned] == steps
    assert all(s.ends is ends for s in planned)
