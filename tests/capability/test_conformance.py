"""Definition-level conformance checks that no single module owns (CM-1..CM-5, aggregates)."""

from __future__ import annotations

import msgspec

from tmuxmcp.capability.annotations import Evidence, whole_call_hints
from tmuxmcp.capability.manifest import declared_properties, definition_manifest
from tmuxmcp.capability.model import params_of
from tmuxmcp.capability.vocabulary import Effect, Reach
from tmuxmcp.definition import BY_NAME, DEFINITION
from tmuxmcp.sinks import Sink

# Process reach each sink requires at least (CM-5: claims follow the sinks).
_SINK_NEEDS = {
    Sink.SHELL: {Reach.PANE_COMMAND},
    Sink.KEYS: {Reach.PANE_INPUT, Reach.PANE_COMMAND},
}


def test_no_parameter_selects_a_socket() -> None:
    """CM-1: no structured tool accepts a per-call socket selector."""
    for spec in DEFINITION:
        for param in params_of(spec):
            assert "socket" not in param.name.lower(), f"{spec.name}.{param.name}"
            assert param.name not in ("label", "server", "L", "S"), f"{spec.name}.{param.name}"


def test_properties_are_independent_not_an_ordered_level() -> None:
    """CM-2: reach, effect and output classes stay separate; no level or tier field exists."""
    manifest = definition_manifest(DEFINITION)
    banned = {"level", "tier", "safety", "severity", "risk"}
    for tool in manifest["tools"]:
        assert not banned & {key.split("_")[0] for key in tool}, tool["name"]
        assert {"process_reach", "tmux_effect", "output_classes"} <= set(tool)
    # The same reach appears with different effects and vice versa: no total order.
    pairs = {(spec.reach, frozenset(spec.effects)) for spec in DEFINITION}
    assert any(r == Reach.NONE and Effect.DELETE in e for r, e in pairs)
    assert any(r != Reach.NONE and Effect.DELETE not in e for r, e in pairs)


def test_declared_reach_follows_the_parameter_sinks() -> None:
    """CM-5: a parameter that reaches a shell or the key injector implies the matching reach."""
    for spec in DEFINITION:
        for param in params_of(spec):
            needed = _SINK_NEEDS.get(param.sink)
            if needed:
                assert spec.reach in needed, f"{spec.name}.{param.name} is {param.sink}"
        if spec.reach is Reach.NONE:
            assert not any(p.sink in _SINK_NEEDS for p in params_of(spec)), spec.name


def test_aggregates_only_observe() -> None:
    """Aggregate authority: no generic mutating or destructive aggregate."""
    aggregates = [spec for spec in DEFINITION if spec.nested]
    assert aggregates, "the definition declares at least one aggregate (snapshot)"
    for spec in aggregates:
        assert spec.effects == frozenset({Effect.OBSERVE}), spec.name
        assert spec.reach is Reach.NONE
        for op in spec.nested:
            assert BY_NAME[op].effects == frozenset({Effect.OBSERVE}), f"{spec.name} -> {op}"
            assert BY_NAME[op].reach is Reach.NONE


def test_annotations_are_not_part_of_the_declared_properties() -> None:
    """CM-4: the direct properties and the standard hints are kept apart."""
    for spec in DEFINITION:
        declared = declared_properties(spec)
        assert not {"readOnlyHint", "destructiveHint", "annotations"} & set(declared)
        hints = whole_call_hints(
            spec,
            Evidence(minimal_provenance=True, surface_has_process_tools=False, per_call_check=True),
        )
        assert set(msgspec.structs.asdict(hints)) == {
            "read_only",
            "destructive",
            "idempotent",
            "open_world",
        }
