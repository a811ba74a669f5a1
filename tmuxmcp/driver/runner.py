"""The interface below the client: run one whole tmux argv and return what it did.

``TmuxClient`` (and, through it, binding, the version check and every tool
handler) reaches tmux only through a ``Runner``: an async callable that gets
the argv exactly as it would be executed (the binary, ``-u -N``, the socket
flags, the gate and the rendered command list) and returns the exit status,
stdout and stderr. Two implementations exist:

* ``spawn``, the real one: ``driver._spawn.run_argv`` starts the process;
* ``driver.fake.FakeTmux``, a public fake for tests: it records every argv and
  answers from a script, starting no process.

The seam sits here, below the client, on purpose (as httpx's transports sit
below its client): everything security-relevant runs unchanged above it.

Rule 1: a runner sees only rendered argv. The gate (``client.gate_name``),
  the renderer (``argv.render``) and the translation of tmux's answers into
  the exception tree (``client.classify_failure``) run above it for the
  fake as for real tmux, so a test on the fake sees the argv a real tmux
  client would be given, and the errors a real answer would give.
Rule 2: a runner reports a finished call as ``Completed``; a call that
  cannot run raises ``TmuxUnavailable``, one past its deadline ``TmuxTimeout``
  (``_spawn`` is where the real runner translates OS errors and deadlines).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from tmuxmcp.driver import _spawn
from tmuxmcp.driver._spawn import Completed

__all__ = ["Completed", "Runner", "spawn"]


class Runner(Protocol):
    """Runs one argv to completion within ``seconds`` (the driver's IO edge)."""

    async def __call__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        seconds: float,
        stdin: bytes | None = None,
    ) -> Completed: ...


async def spawn(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    seconds: float,
    stdin: bytes | None = None,
) -> Completed:
    """The real runner: start the tmux client process (``driver._spawn``)."""
    # Looked up at each call, not bound once: the fuzz harness and the call
    # profiler wrap ``_spawn.run_argv`` to watch every process started.
    return await _spawn.run_argv(argv, env=env, seconds=seconds, stdin=stdin)
