"""``wait_for_idle`` (inspect): wait until a pane's screen has stopped changing.

How an agent waits on a TUI, or a REPL whose prompt it does not know. It
shares wait_for_text's observation (``observation.observe``: one tmux
invocation per look) and pacing (``observation.Pacer``, gated by the per-pane
activity hint), so waiting costs the same low CPU and reacts as fast.

Rules:

Rule 1: the screen's state is what an observation shows: the visible rows,
  the cursor's position, the size, which screen (normal or alternate) is on,
  and the history size (so identical rows scrolling by still count as a
  change). Nothing else: a change of colour or attributes alone is not seen
  (capture-pane without ``-e``), nor a change that is undone between two
  looks.
Rule 2: quiet is measured from the end of the look that first showed the
  current state, so ``idle`` is never reported before the screen has been
  seen unchanged for ``quiet_ms``; the call's start counts as a change (what
  happened before it is unknown). With the hint a change is seen within a few
  milliseconds; a pane whose own output never stops (a clock, a progress bar)
  ends with ``timeout``.
Rule 3: outcomes: ``idle`` (unchanged for ``quiet_ms``), ``timeout`` (the
  deadline passed first; the last look happens at the deadline), and
  ``pane-gone`` (the pane disappeared during the wait). A pane whose program
  exited but stays (``remain-on-exit``) no longer changes: it becomes idle,
  and ``pane_dead`` says so. A pane missing at the start is the caller's
  error (``[object-not-found]``); a tmux client that does not answer is the
  error ``[tmux-timeout]``, never an outcome.
"""

from __future__ import annotations

import contextlib
from typing import Annotated, Literal

import msgspec
import trio

from tmuxmcp.capability.arguments import Arguments
from tmuxmcp.capability.params import PaneId, local_int
from tmuxmcp.capability.results import TmuxId
from tmuxmcp.errors import ObjectNotFound
from tmuxmcp.tools.activity import ActivityHint
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.observation import PROGRESS_EVERY, Pacer, WaitTimeout, observe
from tmuxmcp.tools.scrollback import View

MAX_QUIET_MS = 600_000


class WaitForIdleArgs(Arguments):
    """Arguments of wait_for_idle."""

    pane_id: PaneId
    quiet_ms: Annotated[
        int,
        local_int(
            "Milliseconds without screen change that count as idle.",
            ge=1,
            le=MAX_QUIET_MS,
        ),
    ] = 500
    timeout: WaitTimeout = 30.0


IdleOutcome = Literal["idle", "timeout", "pane-gone"]


class WaitForIdleResult(msgspec.Struct, frozen=True, kw_only=True):
    """How a wait for quiet ended."""

    outcome: IdleOutcome
    pane_id: TmuxId
    elapsed_ms: float
    quiet_for_ms: float
    """How long the screen had been seen unchanged when the call ended."""
    changes: int
    """Changes of the screen seen during the call."""
    pane_dead: bool
    """The pane's program has exited (the pane stays because of remain-on-exit)."""
    polls: int
    watch: Literal["activity-hint", "polling"]

    def text_form(self) -> str:
        """Readable form."""
        dead = " pane_dead" if self.pane_dead else ""
        return (
            f"outcome={self.outcome} pane={self.pane_id} elapsed_ms={self.elapsed_ms:.1f} "
            f"quiet_for_ms={self.quiet_for_ms:.1f} changes={self.changes}{dead}"
        )


def _state(view: View) -> tuple[object, ...]:
    """What counts as the screen (Rule 1)."""
    frame = view.frame
    screen = tuple(view.rows[-frame.height :]) if frame.height else ()
    return (
        screen,
        frame.cursor_x,
        frame.cursor_y,
        frame.width,
        frame.height,
        frame.alternate,
        frame.history_size,
    )


class _IdleWait:
    """One wait_for_idle call."""

    def __init__(
        self, ctx: ToolContext, args: WaitForIdleArgs, pane: str, hint: ActivityHint | None
    ) -> None:
        self.ctx, self.args, self.pane = ctx, args, pane
        self.began = trio.current_time()
        self.deadline = self.began + args.timeout
        self.quiet = args.quiet_ms / 1000
        self.pacer = Pacer(hint, self.began)
        self.watch: Literal["activity-hint", "polling"] = (
            "polling" if hint is None else "activity-hint"
        )
        self.polls = self.changes = 0
        self.dead = False
        self.changed_at = self.began

    async def _observe(self) -> View:
        self.polls += 1
        view = await observe(self.ctx, self.pane, back=0)
        self.pacer.follow(view.frame.pid)
        self.dead = view.frame.dead
        return view

    def _result(self, outcome: IdleOutcome) -> WaitForIdleResult:
        now = trio.current_time()
        return WaitForIdleResult(
            outcome=outcome,
            pane_id=self.pane,
            elapsed_ms=round((now - self.began) * 1000, 1),
            quiet_for_ms=round((now - self.changed_at) * 1000, 1),
            changes=self.changes,
            pane_dead=self.dead,
            polls=self.polls,
            watch=self.watch,
        )

    async def run(self) -> WaitForIdleResult:
        """Look until the screen has been unchanged for quiet_ms, or the deadline."""
        state = _state(await self._observe())  # a missing pane is the caller's error
        self.changed_at = trio.current_time()
        next_progress = self.began + PROGRESS_EVERY
        while True:
            now = trio.current_time()
            if now - self.changed_at >= self.quiet:
                return self._result("idle")
            if now >= self.deadline:
                return self._result("timeout")
            if now >= next_progress:
                next_progress = now + PROGRESS_EVERY
                await self.ctx.progress(round(now - self.began, 3), self.args.timeout, "waiting")
            # Wake for a change, when the quiet spell would be complete, the deadline
            # (a last look) and the next progress report.
            due = self.changed_at + self.quiet
            await self.pacer.wait(min(due, self.deadline, next_progress))
            try:
                seen = _state(await self._observe())
            except ObjectNotFound:
                return self._result("pane-gone")
            if seen != state:
                state = seen
                self.changes += 1
                self.changed_at = trio.current_time()
                self.pacer.pane_changed(self.changed_at)


async def wait_for_idle(ctx: ToolContext, args: WaitForIdleArgs) -> WaitForIdleResult:
    """Handler for wait_for_idle."""
    pane = args.pane_id
    bound = ctx.client.bound
    hint = None if bound is None else ActivityHint.open(bound.pid, bound.start_time)
    with hint if hint is not None else contextlib.nullcontext():
        return await _IdleWait(ctx, args, pane, hint).run()
