"""Tool descriptions generated from the definition (ADR 0001, CM-7).

Every description begins with a plain-language sentence stating the direct
process reach (its formal value and what it means) and the tmux effect (whose
values, observe, change and delete, are plain words); then what the tool
does; then its disclosures. Nothing here is written per tool except the
summary and optional disclosures held in the ToolSpec.

Descriptions sit in a model's context in every conversation (issue 14.1), so
the wording is short; what it discloses is not: reach and effect first, the
tmux user's authority for every tool that starts or drives a pane process,
untrusted content and secrets wherever the result type declares them (that
such text is data, never instructions, the initialize instructions say once).
"""

from __future__ import annotations

from typing import Any

from tmuxmcp.capability.model import ToolSpec
from tmuxmcp.capability.vocabulary import EFFECT_ORDER, REACH_BRIEF, Reach

AUTHORITY = "Runs with the tmux user's authority."
DELIVERY = "What it sends acts with the tmux user's authority, even with other tools off."
UNTRUSTED = "Untrusted content."
SECRETS = "May expose secrets."
UNTRUSTED_SECRETS = "Untrusted content; may expose secrets."
CONTINUES_AS_TASK = "Opt-in MCP Tasks: becomes a task after a few seconds."
"""Where the spec declares ``continues``: the operator's hand-over time, 3 s by default
(``--task-handover``, issue 29); the docs say how long a task lasts (its TTL)."""


def reach_and_effect(spec: ToolSpec[Any, Any]) -> str:
    """The opening sentence: process reach and tmux effect, formal and plain."""
    effects = [e for e in EFFECT_ORDER if e in spec.effects]
    effect_names = ", ".join(e.value for e in effects)
    return f"Reach {spec.reach.value} ({REACH_BRIEF[spec.reach]}); tmux effect {effect_names}."


def content_disclosure(untrusted: bool, secrets: bool) -> str | None:
    """The sentence disclosing untrusted content and secrets (CM-7), if either applies."""
    if untrusted and secrets:
        return UNTRUSTED_SECRETS
    if untrusted:
        return UNTRUSTED
    return SECRETS if secrets else None


def describe(spec: ToolSpec[Any, Any], *, nested: tuple[str, ...] | None = None) -> str:
    """The full description; ``nested`` is the aggregate's effective nested set."""
    parts = [reach_and_effect(spec), spec.summary]
    if spec.nested:
        effective = spec.nested if nested is None else nested
        removed = [op for op in spec.nested if op not in effective]
        parts.append("Nested operations: " + (", ".join(effective) if effective else "none") + ".")
        if removed:
            parts.append("Excluded by the operator, so never invoked: " + ", ".join(removed) + ".")
    if spec.reach in (Reach.PANE_INPUT, Reach.PANE_COMMAND):
        parts.append(DELIVERY)
    elif spec.reach is not Reach.NONE:
        parts.append(AUTHORITY)
    if spec.continues is not None:
        parts.append(CONTINUES_AS_TASK)
    parts.extend(spec.disclosures)
    disclosure = content_disclosure(spec.returns_untrusted_content, spec.may_expose_secrets)
    if disclosure is not None:
        parts.append(disclosure)
    return " ".join(parts)
