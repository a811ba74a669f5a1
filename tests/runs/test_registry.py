"""``RunRegistry``: which finished runs it keeps for ``wait_for_command`` (issue 20).

No tmux: runs are made and ended in memory (their files are made in a
private directory under ``TMPDIR``, which the test points at its own).
Promise under test: the last ``KEEP_FINISHED`` finished runs are kept, and a
run a task follows (``hold``) is kept whatever else finishes, until
``release``, when it ages out like any other.
"""

from __future__ import annotations

import pathlib

import pytest

from tmuxmcp.runs.registry import KEEP_FINISHED, RunRegistry
from tmuxmcp.runs.state import Abandoned


def _finish(registry: RunRegistry, count: int) -> None:
    for _ in range(count):
        run = registry.new_run("%1", budget=1000, lock_fd=-1)
        run.handle(Abandoned())
        registry.free(run)


async def test_a_held_run_outlives_the_count_based_eviction(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    registry = RunRegistry()
    try:
        held = registry.new_run("%0", budget=1000, lock_fd=-1)
        plain = registry.new_run("%2", budget=1000, lock_fd=-1)
        registry.hold(held)
        for run in (held, plain):
            run.handle(Abandoned())
            registry.free(run)
        _finish(registry, KEEP_FINISHED + 1)
        assert held.run_id in registry.runs
        assert plain.run_id not in registry.runs, "an unheld run ages out"
        registry.release(held)
        _finish(registry, KEEP_FINISHED + 1)
        assert held.run_id not in registry.runs, "released, it ages out like any other"
    finally:
        registry.shutdown()
