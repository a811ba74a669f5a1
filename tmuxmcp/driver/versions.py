"""The tmux versions tmuxmcp can drive, told from ``tmux -V`` before any server is asked.

Rule 1, a floor: tmux older than ``OLDEST_SUPPORTED`` cannot run a single
tmuxmcp call. Every invocation passes ``-N`` (``client``: no call may start a
server), a client flag tmux added in 3.2 (its CHANGES, "3.1c to 3.2"); tmux
3.1c answers ``unknown option -- N`` to every call. Startup (``serve``,
``surface``) and ``tmuxmcp verify`` therefore ask the binary its version
first and refuse an older one with one line that names the version found and
the oldest supported one, before any server is contacted or started.

Rule 2, no guessing: a version text this module does not recognise (a git
build's ``tmux master``, an operating system's own numbering) is not refused
here; ``tmuxmcp verify`` proves or disproves the claims on it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tmuxmcp.driver.runner import Runner, spawn
from tmuxmcp.errors import TmuxTimeout, TmuxUnavailable, TmuxUnsupported

OLDEST_SUPPORTED = (3, 2)
"""The first tmux release with the client flag ``-N`` (Rule 1)."""

OLDEST_SUPPORTED_TEXT = ".".join(map(str, OLDEST_SUPPORTED))

_VERSION = re.compile(r"(?:tmux )?(?:next-)?((\d+)\.(\d+)\S*)")


def version_tuple(text: str) -> tuple[int, int] | None:
    """``"tmux 3.5a"`` (``tmux -V``) or ``"3.5a"`` (``#{version}``) as ``(3, 5)``;
    None if unrecognised."""
    found = _VERSION.match(text.strip())
    return (int(found.group(2)), int(found.group(3))) if found else None


def refusal(text: str) -> TmuxUnsupported | None:
    """The error for a ``tmux -V`` answer older than the floor; None if supported or
    unrecognised (Rule 2)."""
    seen = version_tuple(text)
    if seen is None or seen >= OLDEST_SUPPORTED:
        return None
    found = _VERSION.match(text.strip())
    assert found is not None  # version_tuple matched it
    return TmuxUnsupported(
        f"tmux {found.group(1)} is older than {OLDEST_SUPPORTED_TEXT}, the oldest tmux "
        f"tmuxmcp supports (every call passes -N, which tmux {OLDEST_SUPPORTED_TEXT} "
        "added); install a newer tmux or name one with --tmux",
        version=found.group(1),
    )


async def require_supported(
    binary: str, env: Mapping[str, str], seconds: float, *, runner: Runner = spawn
) -> None:
    """Raise ``TmuxUnsupported`` if ``binary`` reports a version below the floor.

    A binary that cannot be run or does not answer ``-V`` is left to the
    first real call, which reports why it cannot run.
    """
    try:
        done = await runner([binary, "-V"], env=env, seconds=seconds)
    except (TmuxUnavailable, TmuxTimeout):
        return
    if done.returncode != 0:
        return
    refused = refusal(done.stdout.decode("utf-8", "replace"))
    if refused is not None:
        raise refused
