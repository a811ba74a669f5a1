"""The closed vocabularies of ADR 0001 (CM-2, CM-3).

These are unordered, independent properties; no code may compare them as
levels of safety (CM-2 forbids collapsing them into an ordered scale).
"""

from __future__ import annotations

from enum import StrEnum


class Toolset(StrEnum):
    """Exactly one per tool; unordered (CM-3)."""

    INSPECT = "inspect"
    MANAGE = "manage"
    EXECUTE = "execute"
    TEARDOWN = "teardown"


class Reach(StrEnum):
    """Direct process reach of a tool (CM-2)."""

    NONE = "none"
    CONFIGURED_PROCESS = "configured-process"
    PANE_INPUT = "pane-input"
    PANE_COMMAND = "pane-command"
    HOST_COMMAND = "host-command"
    """Reserved to name the prohibited capability (CM-6); no tool may declare it."""


class Effect(StrEnum):
    """Direct tmux effect; a tool declares a non-empty set (CM-2)."""

    OBSERVE = "observe"
    CHANGE = "change"
    DELETE = "delete"


class OutputClass(StrEnum):
    """What kinds of data a tool's result can carry (CM-2)."""

    TMUX_METADATA = "tmux-metadata"
    TERMINAL_CONTENT = "terminal-content"
    PROCESS_ENVIRONMENT = "process-environment"
    CONFIGURED_COMMAND = "configured-command"


REACH_MEANING = {
    Reach.NONE: "starts no process and sends no input to one",
    Reach.CONFIGURED_PROCESS: (
        "starts a pane process configured by tmux (the default shell), "
        "without accepting a command or tmux-format input"
    ),
    Reach.PANE_INPUT: "delivers your keys or text to the program running in a pane",
    Reach.PANE_COMMAND: "runs your shell command in a pane's shell",
    Reach.HOST_COMMAND: "runs a command on the host outside tmux (prohibited)",
}

EFFECT_MEANING = {
    Effect.OBSERVE: "reads tmux state",
    Effect.CHANGE: "changes tmux state",
    Effect.DELETE: "deletes tmux objects or their content",
}

REACH_BRIEF = {
    Reach.NONE: "no process, no input",
    Reach.CONFIGURED_PROCESS: "starts the default shell, takes no command",
    Reach.PANE_INPUT: "sends your keys or text to a pane",
    Reach.PANE_COMMAND: "runs your command in a pane's shell",
    Reach.HOST_COMMAND: "runs a host command (prohibited)",
}
"""``REACH_MEANING`` in a few words, for tool descriptions (issue 14.1: they sit in
a model's context in every conversation). The docs print the full meaning."""

EFFECT_ORDER = (Effect.OBSERVE, Effect.CHANGE, Effect.DELETE)
