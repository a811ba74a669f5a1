"""A wait that continues as an MCP Task: its handler followed in the server's nursery.

A tool whose spec declares ``continues=Waits()`` (``capability.model``) is a
wait: its handler returns when its condition is met, the pane dies, or its
deadline passes. For a request that opted in to MCP Tasks the server calls
``hand_over`` instead of the handler (issue 29.2); this module knows nothing
of which condition a tool waits for, so ``wait_for_text``,
``wait_for_command`` and any later wait are handed over the same way.

Rule 1: the handler runs once, in the server's nursery, with its deadline
  argument set to ``deadline`` seconds: the caller's own ``timeout``, cut to
  the task's TTL less a margin, so that a wait that runs out completes with
  its own ``timeout`` outcome before the task expires. The caller's timeout
  keeps its meaning ("tell me if it has not happened by then"): a task only
  stops the wait from holding the conversation. The call waits for it the hand-over time and answers
  with its result if it returned by then (its error raised, as any call's);
  otherwise it hands over the ``Handed`` a task follows: the same wait, so
  what it saw before the hand-over (wait_for_text's anchor) still counts,
  and nothing is read twice or missed.
Rule 2: every progress message of the handler is kept as the task's status
  line (the tool says what it waits for and what it has seen,
  ``ToolContext.in_task``); while the call waits it also goes to the call's
  client, after the hand-over to nobody, since that request is answered.
Rule 3: stopping cancels the wait and waits for it to end: the handler only
  observes, so nothing in the pane is touched (no key, no text). The wait is
  ``stopped`` if the cancel ended it, ``ended`` if it had returned first. A
  call cancelled before the hand-over cancels its wait too.
Rule 4: a wait holds descriptors while it runs (the activity hint's
  ``/proc`` counters, ``DESCRIPTORS_PER_WAIT`` at most): they are counted
  against the open-file limit with the runs' (issue 27 N8,
  ``RunRegistry.hold_descriptors``) from the call's start until the wait
  ends. When the limit leaves no room, there is no hand-over: the call waits
  as it would without the opt-in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

import msgspec
import trio

from tmuxmcp.driver import doorbell
from tmuxmcp.errors import InternalError
from tmuxmcp.panes.activity import MAX_TREE
from tmuxmcp.tools.context import Progress, ToolContext
from tmuxmcp.tools.run import registry_of

DESCRIPTORS_PER_WAIT = MAX_TREE + 1 + doorbell.DESCRIPTORS
"""Descriptors one wait may hold: the tmux server's counter, one per pane process the
activity hint follows (``activity.MAX_TREE``), and the pane's doorbell
(``driver.doorbell``)."""
TTL_MARGIN = 2.0
"""Seconds before the task's TTL a wait as a task reaches its deadline (Rule 1): two
polls at the advertised interval see its outcome before the task expires."""


class Handed:
    """A wait going on in the server's nursery, as a task follows it (``Continuation``)."""

    def __init__(
        self,
        ctx: ToolContext,
        handler: Callable[[ToolContext, Any], Awaitable[msgspec.Struct]],
        args: msgspec.Struct,
    ) -> None:
        self._forward: Progress | None = ctx.progress if ctx.reports_progress else None
        self._ctx = msgspec.structs.replace(
            ctx, progress=self._report, reports_progress=True, in_task=True, hand_over=None
        )
        self._handler = handler
        self._args = args
        self._scope = trio.CancelScope()
        self._done = trio.Event()
        self._result: msgspec.Struct | None = None
        self._error: Exception | None = None
        self._status = ""

    async def _report(self, progress: float, total: float | None, message: str | None) -> None:
        if message:
            self._status = message
        if self._forward is not None:
            await self._forward(progress, total, message)

    async def follow(self) -> None:
        """Run the wait to its end (in the server's nursery); its descriptors go with it."""
        runs = registry_of(self._ctx.runs)
        try:
            with self._scope:
                self._result = await self._handler(self._ctx, self._args)
        except Exception as exc:  # the call's error path makes a result of it
            self._error = exc
        finally:
            runs.drop_descriptors(DESCRIPTORS_PER_WAIT)
            self._done.set()

    def detach(self) -> None:
        """The call is answered: progress now goes to the task only (Rule 2)."""
        self._forward = None

    def finished(self) -> bool:
        return self._done.is_set()

    async def result(self) -> msgspec.Struct:
        """The wait's result; its error raised (Rule 1)."""
        if self._error is not None:
            raise self._error
        if self._result is None:
            raise InternalError("the wait was stopped before it had a result")
        return self._result

    async def progress(self) -> str:
        """The handler's latest progress message (Rule 2)."""
        return self._status

    async def wait_finished(self) -> None:
        await self._done.wait()

    def _stopped(self) -> bool:
        return self._result is None and self._error is None

    async def stop(self) -> Literal["stopped", "ended", "running"]:
        """End the wait; nothing in the pane is touched (Rule 3)."""
        if not self._done.is_set():
            self._scope.cancel()
            await self._done.wait()
        return "stopped" if self._stopped() else "ended"

    def release(self) -> None:
        """Nothing follows the wait any more: it ends (Rule 3)."""
        self._scope.cancel()


async def hand_over(
    ctx: ToolContext,
    handler: Callable[[ToolContext, Any], Awaitable[msgspec.Struct]],
    args: msgspec.Struct,
    *,
    field: str,
    deadline: float,
    seconds: float,
) -> msgspec.Struct | Handed | None:
    """The wait's result if it returns within ``seconds``, else the ``Handed`` a task
    follows (Rule 1); None when there is no nursery or no room for its descriptors
    (Rule 4): the caller then calls the handler as without the opt-in."""
    runs = registry_of(ctx.runs)
    nursery = runs.nursery
    if nursery is None or not runs.hold_descriptors(DESCRIPTORS_PER_WAIT):
        return None
    handed = Handed(ctx, handler, msgspec.structs.replace(args, **{field: deadline}))
    nursery.start_soon(handed.follow)
    try:
        with trio.move_on_after(seconds):
            await handed.wait_finished()
    except BaseException:
        handed.release()  # the call was cancelled: so is its wait (Rule 3)
        raise
    if handed.finished():
        return await handed.result()
    handed.detach()
    return handed
