"""Whole-call MCP annotations, computed from the definition (ADR 0001, CM-4).

Standard annotations keep their protocol meanings and describe the entire
call, including what configured tmux behaviour (command aliases, after-hooks)
could add to it. They are consent metadata, never authorization.

The rule, written once:

1. Without evidence, every hint takes its cautious value: readOnlyHint false,
   destructiveHint true, idempotentHint false, openWorldHint true.
2. A call that sends no command to tmux needs no evidence about tmux.
3. For a call that reaches tmux, the evidence is both of:
   a. minimal provenance: this process created the server with ``-f
      /dev/null`` (so no alias or hook came from configuration), and
   b. no tool on the effective surface starts or drives a process (reach
      ``none`` only). A pane program, including a shell reading its own rc
      files, can install tmux hooks and aliases that make an observational
      call execute or mutate; with no such tool there is no such program
      through this server.
4. With the evidence, narrow hints follow from the direct operation:
   readOnlyHint iff it only observes and has reach ``none``; destructiveHint
   false iff it is read-only or purely additive; idempotentHint iff it is
   read-only or declared repeat-safe; openWorldHint false iff its reach is
   ``none`` (a started or driven process can reach anything).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from tmuxmcp.capability.model import ToolSpec
from tmuxmcp.capability.vocabulary import Effect, Reach


class Hints(msgspec.Struct, frozen=True):
    """The four standard hints."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool


CAUTIOUS = Hints(read_only=False, destructive=True, idempotent=False, open_world=True)


class Evidence(msgspec.Struct, frozen=True):
    """What this process knows that can justify narrower hints."""

    minimal_provenance: bool
    surface_has_process_tools: bool

    @property
    def sufficient(self) -> bool:
        """Rule 3: both conditions hold."""
        return self.minimal_provenance and not self.surface_has_process_tools


def gather_evidence(served: Iterable[ToolSpec], *, minimal_provenance: bool) -> Evidence:
    """The evidence available for a surface on a server of known provenance."""
    return Evidence(
        minimal_provenance=minimal_provenance,
        surface_has_process_tools=any(spec.reach is not Reach.NONE for spec in served),
    )


def whole_call_hints(spec: ToolSpec, evidence: Evidence) -> Hints:
    """The annotations for one tool under the given evidence."""
    if spec.touches_tmux and not evidence.sufficient:
        return CAUTIOUS
    read_only = spec.effects == frozenset({Effect.OBSERVE}) and spec.reach is Reach.NONE
    additive = spec.additive and Effect.DELETE not in spec.effects
    return Hints(
        read_only=read_only,
        destructive=not (read_only or additive),
        idempotent=read_only or spec.repeat_safe,
        open_world=spec.reach is not Reach.NONE,
    )
