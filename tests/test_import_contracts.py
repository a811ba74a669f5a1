"""The import contracts ignore nothing (issue 30.1, style rule 16).

``lint-imports`` (``.ci/run``) checks the contracts of ``pyproject.toml``; an
``ignore_imports`` entry in one is a circle or a breach nobody sees, as the
one that hid the context's import of the run wing did. So no contract may
carry one, and the contract that keeps that circle out stays: inside
``tmuxmcp.tools`` the shared helpers sit below the run wing, and every module
of the package is placed (``exhaustive``). The two floors under the tools
keep their promises in their contracts: the pane-text floor forbids the
driver, the tools, the run engine, the runtime and trio; the run engine
forbids the tools and the tmux client; the pane facts forbid the tools and
the run engine, and sit beside it in one layer (issue 30.1).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads(PYPROJECT.read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    assert isinstance(contracts, list)
    return contracts


def test_no_contract_ignores_an_import() -> None:
    ignoring = [c["name"] for c in _contracts() if c.get("ignore_imports")]
    assert ignoring == []


def test_the_helpers_sit_below_the_run_wing_in_an_exhaustive_contract() -> None:
    (tools,) = [c for c in _contracts() if c.get("containers") == ["tmuxmcp.tools"]]
    assert tools["type"] == "layers" and tools["exhaustive"] is True
    layers = [
        [name.strip() for name in layer.replace("|", ":").split(":")] for layer in tools["layers"]
    ]
    below = [i for i, layer in enumerate(layers) if "context" in layer]
    wing = [i for i, layer in enumerate(layers) if "run" in layer]
    assert wing and below and wing[0] < below[0], "the context below the run wing"


def _forbidden(source: str) -> set[str]:
    (contract,) = [
        c
        for c in _contracts()
        if c.get("type") == "forbidden" and c.get("source_modules") == [source]
    ]
    assert not contract.get("allow_indirect_imports"), f"{source}: indirect imports count too"
    return set(contract["forbidden_modules"])


def test_the_pane_text_floor_is_held_pure() -> None:
    """Issue 30.1: the pure floor imports no driver, tools, run engine, runtime or trio."""
    assert {
        "tmuxmcp.driver",
        "tmuxmcp.tools",
        "tmuxmcp.runs",
        "tmuxmcp.runtime",
        "trio",
    } <= _forbidden("tmuxmcp.panetext")


def test_the_run_engine_knows_no_tools_and_no_tmux_client() -> None:
    """Issue 30.1: the run engine imports no tools (no ToolContext) and no tmux client."""
    assert {
        "tmuxmcp.tools",
        "tmuxmcp.driver.client",
        "tmuxmcp.driver.runner",
        "tmuxmcp.driver._spawn",
    } <= _forbidden("tmuxmcp.runs")


def test_the_pane_facts_know_no_tools_and_no_run_engine() -> None:
    """Issue 30.1: ``tmuxmcp.panes`` imports no tools (no ToolContext, no handler), no run
    engine and no runtime, and stands beside the run engine, neither importing the other."""
    assert {"tmuxmcp.tools", "tmuxmcp.runs", "tmuxmcp.runtime"} <= _forbidden("tmuxmcp.panes")
    (layers,) = [c for c in _contracts() if c["name"].startswith("Layers:")]
    assert "tmuxmcp.runs | tmuxmcp.panes" in layers["layers"]
