"""A short smoke of the load harness (bench/bench_load.py): two tmuxmcp processes,
mixed calls, a hostile sweep; the full figures are in docs/reliability.md."""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import pytest
import trio

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")


def _harness(monkeypatch: pytest.MonkeyPatch) -> Any:
    # As `python bench/bench_load.py` runs it: bench/ first on sys.path, for benchlib.
    monkeypatch.syspath_prepend(BENCH)
    path = os.path.join(BENCH, "bench_load.py")
    spec = importlib.util.spec_from_file_location("bench_load", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.tmux  # the harness is loaded from bench/ by path, where tests/tiers.py cannot follow
def test_load_smoke_has_no_errors_and_leaves_nothing_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    harness = _harness(monkeypatch)
    ns = harness.argparse.Namespace(
        calls=120,
        inflight=8,
        panes=4,
        soak_seconds=None,
        rate=None,
        hostile=1,
        seed=3,
        one_pane=False,
        run_timeout=30,
    )
    figures = trio.run(harness.run, ns)
    assert figures["calls"] >= 120
    assert figures["errors"] == 0, figures["error_samples"]
    assert {tool for tool in figures["latency_ms"]} >= {"list_panes", "run_command"}
    for server in figures["servers"]:
        assert server["after"]["children"] == 0
        assert server["after"]["fds"] == server["before"]["fds"]
    assert figures["hostile"]["unanswered"] == 0
    assert figures["hostile"]["bystander_unchanged"] is True


@pytest.mark.tmux  # the harness is loaded from bench/ by path, where tests/tiers.py cannot follow
def test_one_pane_many_calls_in_flight_has_no_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27, item 2: 64 calls in flight over one stdio session, half of them
    run_command, all on one pane; the runs queue in this process, each served in turn,
    and none is refused. On 7563819 a waiter that lost the race for the pane lock when
    a run ended polled it while the calls behind it took it first, until its timeout,
    and was refused as if "another tmuxmcp process" held the pane: the load lasts longer
    than the runs' timeout so that shows (17 and 22 of 733 runs, two runs on 7563819).
    The timeout is still about nine times the longest wait measured in the fair queue
    (p99 1.6 s at load average 4.5), so a loaded machine does not make it fail."""
    harness = _harness(monkeypatch)
    ns = harness.argparse.Namespace(
        calls=1500,
        inflight=64,
        panes=1,
        soak_seconds=None,
        rate=None,
        hostile=0,
        seed=5,
        one_pane=True,
        run_timeout=15,
    )
    figures = trio.run(harness.run, ns)
    assert figures["calls"] >= 1500
    assert figures["errors"] == 0, figures["error_samples"]
    assert figures["latency_ms"]["run_command"]["n"] >= 600
    (server,) = figures["servers"]
    assert server["after"]["children"] == 0
    assert server["after"]["fds"] == server["before"]["fds"]
