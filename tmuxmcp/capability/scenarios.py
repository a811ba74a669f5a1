"""Startup situations that illustrate the annotation rule, and each tool's hints in them (CM-4).

The reference documents the whole-call annotations of every tool in a few
named situations (a server tmuxmcp started on the dedicated socket; an
existing server or another socket; a surface with no process tool). This
module is the model of those situations; ``docgen`` only renders it.

Rules kept here:

1. A scenario's surface is computed by ``surface.resolve`` and its evidence
   by ``annotations.gather_evidence`` exactly as ``runtime.decide`` computes
   them at startup, and the hints by ``annotations.whole_call_hints``; nothing
   here restates the annotation rule (tests/capability/test_scenarios.py
   holds the two to the same answer).
2. A tool off a scenario's surface is shown as it would be if the operator
   named it (``--include-tools``), unless naming it would void the
   scenario's premise: a process tool cannot join a surface whose point is
   that no served tool starts or drives a process. Such a tool has no hints
   there (None).
3. Like the rest of ``capability``, this module knows no tool by name: the
   definition is a parameter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from tmuxmcp.capability.annotations import Hints, gather_evidence, whole_call_hints
from tmuxmcp.capability.model import ToolSpec
from tmuxmcp.capability.surface import SurfaceRequest, resolve
from tmuxmcp.capability.vocabulary import Reach


class Scenario(NamedTuple):
    """One startup situation whose whole-call annotations the docs show."""

    key: str
    title: str
    served: tuple[str, ...]
    minimal_provenance: bool
    per_call_check: bool = True
    """The tmux can re-check aliases and hooks per call (3.5 and later)."""
    without_process_tools: bool = False
    """The premise is that no served tool starts or drives a process (rule 2)."""


def scenarios(definition: Sequence[ToolSpec[Any, Any]]) -> tuple[Scenario, ...]:
    """The documented situations, each resolved as ``runtime.decide`` resolves it."""
    dedicated = resolve(definition, SurfaceRequest(), dedicated_minimal=True)
    foreign = resolve(definition, SurfaceRequest(), dedicated_minimal=False)
    no_process = tuple(s.name for s in definition if s.reach is Reach.NONE)
    return (
        Scenario(
            "dedicated",
            "dedicated socket, server started by tmuxmcp (minimal), default surface",
            dedicated.tools,
            True,
        ),
        Scenario(
            "existing",
            "existing server or another socket (provenance unknown), default surface",
            foreign.tools,
            False,
        ),
        Scenario(
            "no-process",
            "server started by tmuxmcp on tmux 3.5 or later (per-call check), no tool on "
            "the surface starts or drives a process (e.g. `--toolsets inspect,teardown`)",
            no_process,
            True,
            without_process_tools=True,
        ),
    )


def admissible(spec: ToolSpec[Any, Any], scenario: Scenario) -> bool:
    """Whether ``spec`` can be on the scenario's surface without voiding its premise."""
    return not (scenario.without_process_tools and spec.reach is not Reach.NONE)


def only_if_named(spec: ToolSpec[Any, Any], scenario: Scenario) -> bool:
    """``spec`` is off the scenario's surface by default but joins it when named."""
    return spec.name not in scenario.served and admissible(spec, scenario)


def scenario_hints(
    spec: ToolSpec[Any, Any], scenario: Scenario, definition: Sequence[ToolSpec[Any, Any]]
) -> Hints | None:
    """The hints ``spec`` gets in ``scenario``; None if it cannot be on that surface (rule 2)."""
    if not admissible(spec, scenario):
        return None
    by_name = {s.name: s for s in definition}
    served = [by_name[name] for name in scenario.served]
    if spec.name not in scenario.served:
        served.append(spec)
    evidence = gather_evidence(
        served,
        minimal_provenance=scenario.minimal_provenance,
        per_call_check=scenario.per_call_check,
    )
    return whole_call_hints(spec, evidence)
