"""The only place tmuxmcp starts a process (style rule 1; ruff TID251 enforces it).

Promises:
* argv only, never a shell; the executable is an absolute path resolved once;
* the child gets the environment it is given, no stdin unless bytes are
  passed, and captured stdout and stderr (while the MCP stdio server runs,
  fd 1 points at the client's stderr, so nothing may be left uncaptured);
* every child has a deadline; on timeout or cancellation it is killed with
  SIGKILL and reaped before this function returns or raises;
* OS errors become ``TmuxUnavailable`` and deadlines ``TmuxTimeout``, here
  and nowhere else.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence

import msgspec
import trio

from tmuxmcp.errors import TmuxTimeout, TmuxUnavailable


class Completed(msgspec.Struct, frozen=True):
    """A finished child process."""

    returncode: int
    stdout: bytes
    stderr: bytes


async def _kill_now(process: trio.Process) -> None:
    # tmux clients hold no state worth a graceful shutdown: kill, then let
    # run_process reap the child.
    process.kill()


async def run_argv(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    seconds: float,
    stdin: bytes | None = None,
) -> Completed:
    """Run ``argv`` to completion within ``seconds``."""
    try:
        with trio.move_on_after(seconds) as scope:
            done = await trio.run_process(
                list(argv),
                stdin=subprocess.DEVNULL if stdin is None else stdin,
                capture_stdout=True,
                capture_stderr=True,
                check=False,
                env=dict(env),
                deliver_cancel=_kill_now,
            )
    except OSError as exc:
        raise TmuxUnavailable(
            f"could not run tmux ({exc.strerror or type(exc).__name__}); "
            "check that tmux is installed or pass --tmux PATH"
        ) from None
    if scope.cancelled_caught:
        raise TmuxTimeout(f"tmux did not answer within {seconds:g} s; the tmux client was killed")
    return Completed(done.returncode, done.stdout, done.stderr)
