"""What a tool handler receives besides its arguments.

One ``ToolContext`` is built at startup; the dispatcher gives each call a
copy whose ``progress`` reports to that call's client (``server.call``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol

import msgspec

from tmuxmcp.driver.binding import ServerFacts
from tmuxmcp.driver.client import TmuxClient
from tmuxmcp.driver.kernel import HOST, Kernel
from tmuxmcp.panetext.geometry import PaneGeometry

Progress = Callable[[float, float | None, str | None], Awaitable[None]]


class PaneInputs(Protocol):
    """Who keeps track of input waiting in a pane: the run wing's ``RunRegistry``.

    The context sits below the run wing (the wing's modules take a
    ``ToolContext``), so it names only what the other tools tell the registry,
    and ``runtime`` hands it the registry at startup (issue 30.1: no import
    circle). The wing reads its own registry back with ``runs.registry.of``.
    """

    def input_handled(self, pane: str) -> None:
        """tmuxmcp sent keys, text or a buffer to ``pane``: its caller dealt with its input."""
        ...


async def _no_progress(progress: float, total: float | None, message: str | None) -> None:
    return None


class CallNotes:
    """What one call tells the audit log about itself, beyond its arguments (issue 28.6).

    Made per call only where an audit log is kept. A handler that finds it is
    typing into a password prompt names the parameters that carried the secret;
    the log then records them as ``{"secret": true}``: no length, no hash.
    """

    def __init__(self) -> None:
        self.secret: set[str] = set()


class ToolContext(msgspec.Struct, frozen=True, kw_only=True):
    """Process-wide state shared by every call; fixed at startup."""

    client: TmuxClient
    facts: ServerFacts
    published: dict[str, Any]
    """The published surface (CM-7), as ``server_info`` reports it."""
    nested: dict[str, tuple[str, ...]]
    """Effective nested operations of each served aggregate."""
    self_pane: str | None = None
    """The pane tmuxmcp itself runs in, when that pane is on the bound server."""
    progress: Progress = _no_progress
    """Report progress of this call (a no-op unless the client sent a progressToken)."""
    pane_environment: tuple[tuple[str, str], ...] = ()
    """The environment a pane this call starts gets (``capability.environment``): given
    only to calls of tools that declare ``starts_panes``, empty for every other."""
    reports_progress: bool = False
    hand_over: float | None = None
    """Seconds after which a call whose tool continues as an MCP Task returns unfinished,
    for the server to hand over (issue 29.1); None: the call waits its own ``timeout``."""
    in_task: bool = False
    """The call's progress messages are an MCP Task's ``statusMessage``: they say what it
    waits for and what it has seen (issue 29.2)."""
    notes: CallNotes | None = None
    """This call's notes for the audit log; None where no audit log is kept."""
    """True when ``progress`` reaches a client (it sent a progressToken)."""
    runs: PaneInputs
    """This process's run_command runs (shared by every copy of the context)."""
    geometry: PaneGeometry = msgspec.field(default_factory=PaneGeometry)
    """The panes' last seen geometry, a hint for captures (shared by every copy)."""
    kernel: Kernel = HOST
    """Where the handlers read the kernel's facts about a pane's processes
    (``driver.kernel``): this machine's, or a test's fake world's (issue 30.2)."""


Handler = Callable[[ToolContext, Any], Awaitable[msgspec.Struct]]


class Continuation(Protocol):
    """The work an unfinished call goes on with, as a task follows it
    (``ToolSpec.continues``; the run wing's ``RunTask``)."""

    def finished(self) -> bool:
        """Whether the work has ended."""
        ...

    async def result(self) -> msgspec.Struct:
        """The call's result had it waited; raises the ``TmuxMcpError`` the work ended with."""
        ...

    async def progress(self) -> str:
        """A line saying how it goes (untrusted text)."""
        ...

    async def wait_finished(self) -> None:
        """Return once the work has ended."""
        ...

    async def stop(self) -> Literal["stopped", "ended", "running"]:
        """Ask it to stop: it ``stopped`` because of that, it had ``ended`` by itself, or
        it is still ``running``. Asked of ended work, whether a stop ended it."""
        ...

    def release(self) -> None:
        """Nothing follows it any more."""
        ...
