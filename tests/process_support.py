"""What the tests of tmuxmcp as a process share: liveness, exits, a call stalled in tmux.

The shutdown and fault tests stop a real ``python -m tmuxmcp`` while it
waits on tmux and then look at what is left: ``alive`` tells a running
process from an exited one (a zombie counts as exited: its parent has not
reaped it yet, but it runs nothing), ``wait_exit`` waits with a deadline and
kills a process that outlives it, and ``stalled_call`` starts a server whose
next tmux invocation hangs, so a signal or a closed stdin lands while a call
is inside tmux.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass

from tests.raw_client import RawClient
from tests.support import PrivateTmux, logged_pids, stalling_tmux


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (not gone, not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def wait_exit(proc: subprocess.Popen[bytes], seconds: float = 10) -> int:
    """``proc``'s exit status; fails (after killing it) if it runs on past ``seconds``."""
    try:
        return proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError("tmuxmcp did not exit") from None


def gate_options(tmux: PrivateTmux) -> str:
    """The server options of the private tmux (the gate option is one while tmuxmcp runs)."""
    return tmux.bare("show-options", "-s").stdout


@dataclass
class StalledCall:
    """A tmuxmcp whose ``list_sessions`` call (request id 1000) waits in a stalled tmux."""

    client: RawClient
    log: str
    """The wrapper's pid log (``tests.support.logged_pids``)."""
    flag: str
    """While this file exists, every new tmux invocation stalls (remove it to let them run)."""
    stalled: list[int]
    """The pids of the tmux invocations that started for the call."""


@contextlib.contextmanager
def stalled_call(tmux: PrivateTmux) -> Iterator[StalledCall]:
    """Serve on a foreign server through a stalling wrapper and make one call stall in tmux."""
    tmux.start_foreign_server()
    wrapper, log, flag = stalling_tmux(tmux.directory)
    try:
        with RawClient(tmux.env, "--tmux", wrapper, "--timeout", "30") as client:
            client.request("ping", {})
            before = len(logged_pids(log))
            open(flag, "w").close()  # the next tmux call stalls
            call = {"name": "list_sessions", "arguments": {}}
            client.send({"jsonrpc": "2.0", "id": 1000, "method": "tools/call", "params": call})
            deadline = time.monotonic() + 10
            while len(logged_pids(log)) == before and time.monotonic() < deadline:
                time.sleep(0.02)
            stalled = logged_pids(log)[before:]
            assert stalled, "the call reached tmux"
            yield StalledCall(client, log, flag, stalled)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(flag)
