"""Whole-call MCP annotations, computed from the definition (ADR 0001, CM-4).

Standard annotations keep their protocol meanings and describe the entire
call, including what configured tmux behaviour (command aliases, after-hooks)
could add to it. They are consent metadata, never authorization.

The rule, written once:

1. Without evidence, every hint takes its cautious value: readOnlyHint false,
   destructiveHint true, idempotentHint false, openWorldHint true.
2. A call that sends no command to tmux needs no evidence about tmux.
3. For a call that reaches tmux, the evidence is all of:
   a. minimal provenance: this process created the server with ``-f
      /dev/null`` (so no alias or hook came from configuration) and at
      binding it held only what tmux itself defines (``driver.pristine``:
      tmux's built-in alias list, no hook, no session);
   b. no tool on the effective surface starts or drives a process (reach
      ``none`` only), so no pane program runs through this server; and
   c. a per-call check: every call re-checks, in the same tmux invocation and
      before its operation runs, the configured behaviour the operation can
      activate (``driver.client``: the ``command-alias`` list as tmux
      defines it (``driver.pristine``), not as read at startup;
      no ``after-<command>`` hook of any command in the list, nor
      ``command-error``; and for a command that changes state, none of the
      notification hooks it can raise; each read in the global options and
      in every pane of every window of every session). A change refuses the
      call, and every later one, with ``ConfigurationChanged``. This needs a tmux that expands a
      whole array option in a format (3.5 and later); on older tmux no format
      can see a hook or an alias, so (c) is missing and hints are cautious.
4. With the evidence, narrow hints follow from the direct operation:
   readOnlyHint iff it only observes and has reach ``none``; destructiveHint
   false iff it is read-only or purely additive; idempotentHint iff it is
   read-only or declared repeat-safe; openWorldHint false iff its reach is
   ``none`` (a started or driven process can reach anything).

Why (b) stays although (c) checks every call: tmux leaves two ways for a
client of the socket to act at the very call that then gets refused, and no
command sent in that invocation can close them (``tmuxmcp verify`` shows
both, ``alias-precedes-gate`` and ``error-hook-on-refusal``):

* command aliases are expanded when tmux parses the invocation, before any
  command of it runs (cmd-parse.y ``cmd_parse_expand_alias``, exact name
  match, no exemption for built-in names), so an alias named after the gate's
  own command runs first;
* from 3.5, a ``command-error`` hook runs when the refusing gate fails
  (cmd-queue.c ``cmdq_fire_command``); errors are tmux's only way to stop the
  rest of a command list;
* for the same reason a client that adds an alias and removes it again
  between tmux parsing the invocation and running it is not seen (hooks are
  read when each command runs, and the list runs without yielding, so they
  have no such window).

Each is bounded to one call (the client refuses every call after a detected
change without running tmux), but during that call the narrow hints would not
hold. So narrow hints are claimed only where nothing that runs through this
server can install such an alias or hook: the operator or another socket
client still can, which is the residual the trust documentation states. With
a process tool on the surface (the default surface), hints stay cautious.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

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
    per_call_check: bool
    """Rule 3c: this tmux lets every call re-check aliases and hooks in-band."""

    @property
    def sufficient(self) -> bool:
        """Rule 3: all three conditions hold."""
        return (
            self.minimal_provenance and not self.surface_has_process_tools and self.per_call_check
        )


def gather_evidence(
    served: Iterable[ToolSpec[Any, Any]], *, minimal_provenance: bool, per_call_check: bool
) -> Evidence:
    """The evidence available for a surface on a server of known provenance."""
    return Evidence(
        minimal_provenance=minimal_provenance,
        surface_has_process_tools=any(spec.reach is not Reach.NONE for spec in served),
        per_call_check=per_call_check,
    )


def whole_call_hints(spec: ToolSpec[Any, Any], evidence: Evidence) -> Hints:
    """The annotations for one tool under the given evidence."""
    if not evidence.sufficient:
        return CAUTIOUS
    read_only = spec.effects == frozenset({Effect.OBSERVE}) and spec.reach is Reach.NONE
    additive = spec.additive and Effect.DELETE not in spec.effects
    return Hints(
        read_only=read_only,
        destructive=not (read_only or additive),
        idempotent=read_only or spec.repeat_safe,
        open_world=spec.reach is not Reach.NONE,
    )
