"""The documented annotation scenarios are what startup decides (CM-4).

``capability.scenarios`` models the situations the reference documents; the
docs show each tool's hints in each of them. These tests hold that model to
``runtime.decide``, the function ``serve`` and ``surface`` use, for the
configuration and provenance each scenario names, so a documented hint can
never differ from a served one. Pure logic: ``decide`` is given the
provenance and the per-call check instead of asking a tmux server.
"""

from __future__ import annotations

import os

import pytest

from tmuxmcp import runtime
from tmuxmcp.capability.manifest import hints_json
from tmuxmcp.capability.scenarios import (
    Scenario,
    admissible,
    only_if_named,
    scenario_hints,
    scenarios,
)
from tmuxmcp.capability.vocabulary import Reach
from tmuxmcp.config import Options, load
from tmuxmcp.definition import BY_NAME, DEFINITION
from tmuxmcp.driver.binding import Provenance

CASES = {case.key: case for case in scenarios(DEFINITION)}

# Every tool that neither starts nor drives a process, whatever its toolset.
NO_PROCESS = ",".join(spec.name for spec in DEFINITION if spec.reach is Reach.NONE)

# The startup each scenario describes: the flags, and the provenance decided.
STARTUP = {
    "dedicated": ({}, Provenance.MINIMAL),
    "existing": ({}, Provenance.UNKNOWN),
    "no-process": ({"toolsets": "inspect", "include_tools": NO_PROCESS}, Provenance.MINIMAL),
}


def _served_annotations(flags: dict[str, str], provenance: Provenance) -> dict[str, object]:
    config = load(Options(**flags), {"PATH": os.environ["PATH"]})
    decision = runtime.decide(config, provenance, per_call_check=True, socket_path=None, server={})
    return {t["name"]: t["annotations"] for t in decision.published["surface"]["tools"]}


def test_every_scenario_has_a_startup_to_compare_with() -> None:
    assert set(CASES) == set(STARTUP)


@pytest.mark.parametrize("key", sorted(STARTUP))
def test_a_scenarios_surface_and_hints_are_what_startup_serves(key: str) -> None:
    case: Scenario = CASES[key]
    served = _served_annotations(*STARTUP[key])
    assert set(case.served) == set(served)
    for name, published in served.items():
        hints = scenario_hints(BY_NAME[name], case, DEFINITION)
        assert hints is not None
        assert {"title": BY_NAME[name].title, **hints_json(hints)} == published, name


def test_a_tool_off_the_surface_is_shown_as_if_the_operator_named_it() -> None:
    """Teardown on an existing server: off by default, and served like this when named."""
    case = CASES["existing"]
    kill = BY_NAME["kill_pane"]
    assert kill.name not in case.served and only_if_named(kill, case)
    named = _served_annotations({"include_tools": "kill_pane"}, Provenance.UNKNOWN)
    hints = scenario_hints(kill, case, DEFINITION)
    assert hints is not None
    assert {"title": kill.title, **hints_json(hints)} == named["kill_pane"]


def test_a_process_tool_cannot_join_the_no_process_scenario() -> None:
    """Its presence would void the evidence the scenario is about: it has no hints there."""
    case = CASES["no-process"]
    for spec in DEFINITION:
        if spec.reach is Reach.NONE:
            assert spec.name in case.served and admissible(spec, case)
        else:
            assert not admissible(spec, case) and not only_if_named(spec, case)
            assert scenario_hints(spec, case, DEFINITION) is None
