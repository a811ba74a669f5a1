"""The import contracts ignore nothing (issue 30.1, style rule 16).

``lint-imports`` (``.ci/run``) checks the contracts of ``pyproject.toml``; an
``ignore_imports`` entry in one is a circle or a breach nobody sees, as the
one that hid the context's import of the run wing did. So no contract may
carry one, and the contract that keeps that circle out stays: inside
``tmuxmcp.tools`` the shared helpers sit below the run wing, and every module
of the package is placed (``exhaustive``).
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
