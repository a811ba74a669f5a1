"""The harness's own promises (issue 27.4): it waits for tmux's jobs, not for panes.

``wait_for_jobs`` waits after a call whose arguments held ``#(``, so a job
that ran is reported for that call. A pane's process is not a job, also
while it is still exiting after its pane is gone (on a loaded machine a
killed pane's shell can take seconds); a job it waited for in vain is named
with its pid, command name and command line.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from fuzz.harness import Harness, harness, server_jobs


@pytest.fixture
def fresh() -> Iterator[Harness]:
    with harness() as h:
        yield h


def _wait_gone(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{pid}") and _state(pid) not in ("Z", "X", None):
        assert time.monotonic() < deadline, f"pid {pid} outlived SIGKILL"
        time.sleep(0.01)


def _comm(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return None


def _state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0]
    except OSError:
        return None


def test_a_process_that_outlives_its_pane_is_not_a_job(fresh: Harness) -> None:
    """A pane's process ignoring SIGHUP runs on once its pane is killed: no job."""
    pane = fresh.tmux.new_session("outlives", "tmuxmcp", "sh", "-c", "trap '' HUP; exec sleep 600")[
        "pane_id"
    ]
    pid = int(fresh.bare("display-message", "-p", "-t", pane, "#{pane_pid}").strip())
    deadline = time.monotonic() + 10
    while _comm(pid) != "sleep":
        assert time.monotonic() < deadline, "the pane never ran sleep"
        time.sleep(0.01)
    fresh.bare("kill-pane", "-t", pane)
    try:
        assert _state(pid) not in (None, "Z", "X"), "it ignores SIGHUP: still running"
        server = int(fresh.bare("display-message", "-p", "#{pid}").strip())
        assert server_jobs(server, set()) == set()
        fresh.wait_for_jobs(seconds=1)  # returns at once: nothing to wait for
    finally:
        _wait_gone(pid)


def test_a_job_that_never_ends_is_named(fresh: Harness) -> None:
    """A ``run-shell -b`` job is one of the server's jobs; the failure says which process."""
    fresh.bare("run-shell", "-b", "exec sleep 600")
    server = int(fresh.bare("display-message", "-p", "#{pid}").strip())
    deadline = time.monotonic() + 10
    while not (jobs := server_jobs(server, set())):
        assert time.monotonic() < deadline, "the job never started"
        time.sleep(0.01)
    try:
        with pytest.raises(AssertionError, match=r"pid [0-9]+ comm 'sleep' cmdline 'sleep 600'"):
            fresh.wait_for_jobs(seconds=0.2)
    finally:
        for pid in jobs:
            _wait_gone(pid)
