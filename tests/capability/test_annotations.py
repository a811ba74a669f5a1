"""Whole-call annotations follow the written rule (CM-4)."""

from __future__ import annotations

import msgspec

from tmuxmcp.capability.annotations import (
    CAUTIOUS,
    Evidence,
    Hints,
    gather_evidence,
    whole_call_hints,
)
from tmuxmcp.capability.vocabulary import Effect, Reach
from tmuxmcp.definition import BY_NAME, DEFINITION

OBSERVER = BY_NAME["list_panes"]
NARROW = Hints(read_only=True, destructive=False, idempotent=True, open_world=False)


def test_cautious_values_are_the_protocol_pessimistic_ones() -> None:
    assert Hints(read_only=False, destructive=True, idempotent=False, open_world=True) == CAUTIOUS


def test_without_minimal_provenance_every_tmux_call_is_cautious() -> None:
    evidence = Evidence(
        minimal_provenance=False, surface_has_process_tools=False, per_call_check=True
    )
    assert whole_call_hints(OBSERVER, evidence) == CAUTIOUS


def test_a_process_tool_on_the_surface_voids_the_evidence() -> None:
    """A pane program can install hooks and aliases that make observation execute."""
    driver = msgspec.structs.replace(OBSERVER, name="typer", reach=Reach.PANE_INPUT)
    evidence = gather_evidence([OBSERVER, driver], minimal_provenance=True, per_call_check=True)
    assert evidence.surface_has_process_tools
    assert whole_call_hints(OBSERVER, evidence) == CAUTIOUS
    starter = msgspec.structs.replace(OBSERVER, name="starter", reach=Reach.CONFIGURED_PROCESS)
    assert (
        gather_evidence([starter], minimal_provenance=True, per_call_check=True).sufficient is False
    )


def test_with_evidence_an_observer_gets_narrow_hints() -> None:
    evidence = gather_evidence([OBSERVER], minimal_provenance=True, per_call_check=True)
    assert evidence.sufficient
    assert whole_call_hints(OBSERVER, evidence) == NARROW


def test_narrow_hints_follow_the_direct_operation() -> None:
    evidence = Evidence(
        minimal_provenance=True, surface_has_process_tools=False, per_call_check=True
    )
    changer = msgspec.structs.replace(OBSERVER, effects=frozenset({Effect.CHANGE}))
    assert whole_call_hints(changer, evidence) == Hints(False, True, False, False)
    repeatable = msgspec.structs.replace(changer, repeat_safe=True)
    assert whole_call_hints(repeatable, evidence).idempotent is True
    adder = msgspec.structs.replace(changer, additive=True)
    assert whole_call_hints(adder, evidence).destructive is False
    deleter = msgspec.structs.replace(
        changer, additive=True, effects=frozenset({Effect.CHANGE, Effect.DELETE})
    )
    assert whole_call_hints(deleter, evidence).destructive is True


def test_without_evidence_every_declared_tool_is_cautious() -> None:
    """Every tool reaches tmux, so none is narrowed without the rule-3 evidence."""
    evidence = Evidence(
        minimal_provenance=False, surface_has_process_tools=True, per_call_check=False
    )
    for spec in DEFINITION:
        assert whole_call_hints(spec, evidence) == CAUTIOUS, spec.name


def test_without_a_per_call_check_an_observer_stays_cautious() -> None:
    """Rule 3c (issue 12 item 5): on a tmux that cannot re-check aliases and hooks
    in-band at every call (before 3.5), a later client's hook would make the
    "read-only" call run a command, so no narrow hint is claimed."""
    evidence = gather_evidence([OBSERVER], minimal_provenance=True, per_call_check=False)
    assert evidence.sufficient is False
    assert whole_call_hints(OBSERVER, evidence) == CAUTIOUS
