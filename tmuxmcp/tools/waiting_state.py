"""``wait_for_state`` (inspect): wait until a pane is in one of the states the caller names.

The states are ``pane_state``'s (``shell-ready``, ``awaiting-line``, …,
``dead``), read as ``list_panes`` reads them; ``quiet_ms``, given, adds
``quiet``: the screen unchanged that long (what ``wait_for_idle`` was, issue
28.3). It waits as wait_for_text does: each look is one tmux invocation (the
state's tmux facts, then ``observation``'s frame and screen) and one kernel
reading of the terminal (``pane_reading.read_state``, through the context's
``driver.kernel``), paced by
``observation.Pacer`` and the per-pane activity hint.

Rules:

Rule 1: a state is reached when a look reads it, never when the screen says
  so: the kernel decides (``pane_state`` Rule 1), so a program that prints
  another state's prompt does not end the wait. The result carries the state
  of that look, the same object ``list_panes`` returns.
Rule 2: events where tmux gives them. A pane's output wakes a look at once
  (the hint); what makes no output (a program that starts to read the
  terminal after its prompt was written, a pane entering a mode) is seen by a
  kernel reading every ``STATE_EVERY`` seconds, which costs no tmux process
  and leads to a look when its state differs, and by a look at least every
  ``observation.SAFETY_POLL``. On a quiet pane both back off (issue 29's
  neighbour): while readings find the same state and no output comes, the
  readings' gap doubles up to ``STATE_MAX``, and while looks find nothing new
  the looks' up to ``observation.SAFETY_MAX`` (``Pacer.looked``); output brings
  both back at once. Without the hint (no ``/proc``), looks are
  polled as wait_for_text polls.
Rule 3: ``quiet`` is measured as wait_for_idle measured it: the screen is the
  visible rows, the cursor, the size, which screen is on and the history size
  (so rows scrolling by count as a change, a change of colour alone does
  not); quiet starts at the look that first showed the current screen, and
  the call's start counts as a change, so ``quiet`` is never reported before
  the screen was seen unchanged for ``quiet_ms``.
Rule 4: outcomes: ``reached`` (``reached`` names the state, or ``quiet``; a
  state wins over quiet when both hold), ``timeout`` (the deadline passed
  first, after a last look at it; ``state`` is the state then seen),
  ``pane-dead`` (the pane's program exited and ``dead`` was not asked for:
  no other state can follow, so the call answers at once) and ``pane-gone``
  (the pane disappeared during the wait). A pane missing at the start is the
  caller's error (``[object-not-found]``); a tmux client that does not answer
  is ``[tmux-timeout]``, never an outcome.
Rule 5: the wait itself (``wait_until``) takes an absolute deadline, so a
  caller that goes on waiting (an MCP Task's continuation) calls it again
  with a later one; the handler only reads its arguments and sets the
  deadline from ``timeout``. A wait called again measures quiet afresh.
"""

from __future__ import annotations

import contextlib
from typing import Annotated, Final, Literal

import msgspec
import trio
from msgspec import Meta

from tmuxmcp.capability.arguments import Arguments, conflict
from tmuxmcp.capability.params import PaneId, sink
from tmuxmcp.capability.results import TmuxId
from tmuxmcp.driver.argv import cmd
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.errors import ObjectNotFound
from tmuxmcp.panes.activity import ActivityHint
from tmuxmcp.panes.pane_reading import read_state
from tmuxmcp.panes.pane_state import PANE_STATE_FIELDS, PaneState, State, TmuxFacts
from tmuxmcp.panetext.scrollback import View
from tmuxmcp.panetext.typed_records import typed_record
from tmuxmcp.sinks import Encoding, Sink
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.observation import (
    MAX_WAIT_S,
    PROGRESS_EVERY,
    Pacer,
    WaitSeconds,
    observe_commands,
    parse_view,
)

STATE_EVERY: Final = 0.1
"""Seconds between two kernel readings while no output wakes a look (Rule 2)."""
STATE_MAX: Final = 0.4
"""While readings find the same state and no output comes, their gap doubles up to this."""

Condition = Literal[State, "quiet"]
"""What a wait can end on: a state, or a quiet screen."""


class WaitForStateArgs(Arguments):
    """Arguments of wait_for_state.

    Bare, for the tool list's budget (issue 28.3: it may cost no more than
    wait_for_idle did): the states are a closed list the schema names, and
    ``quiet_ms``, given, is the quiet condition itself.
    """

    pane_id: PaneId
    # No maxItems (the budget): a longer list only repeats states, taken once as a set.
    states: (
        Annotated[list[State], Meta(extra=sink(Sink.LOCAL, Encoding.CLOSED_VOCABULARY))] | None
    ) = None
    quiet_ms: Annotated[int, Meta(ge=1, extra=sink(Sink.LOCAL, Encoding.NONE))] | None = None
    """No upper bound: a quiet longer than ``timeout`` is a timeout, and nothing loops on it."""
    timeout: WaitSeconds = 30.0

    def __post_init__(self) -> None:
        if not self.states and self.quiet_ms is None:
            conflict(
                "`states`: name at least one state to wait for (shell-ready, awaiting-line, "
                "dead, ...), or give quiet_ms to wait for a quiet screen",
                "states",
                "quiet_ms",
            )


StateOutcome = Literal["reached", "timeout", "pane-dead", "pane-gone"]


class WaitForStateResult(msgspec.Struct, frozen=True, kw_only=True):
    """How a wait for a state ended, and the state seen last (Rule 4)."""

    outcome: StateOutcome
    reached: Condition | None
    """The state, or ``quiet``, that ended the wait (outcome ``reached``)."""
    pane_id: TmuxId
    elapsed_ms: float
    state: PaneState
    """The pane's state at the last look, with its facts, as list_panes gives it."""
    quiet_for_ms: float
    """How long the screen had been seen unchanged when the call ended."""
    changes: int
    """Changes of the screen seen during the call."""
    polls: int
    watch: Literal["activity-hint", "polling"]

    def text_form(self) -> str:
        """Readable form."""
        head = f"outcome={self.outcome}"
        if self.reached is not None:
            head += f" reached={self.reached}"
        head += f" pane={self.pane_id} elapsed_ms={self.elapsed_ms:.1f}"
        head += f" state={self.state.state} evidence={self.state.evidence}"
        if self.state.foreground_program is not None:
            head += f" foreground={self.state.foreground_program}"
        return f"{head} quiet_for_ms={self.quiet_for_ms:.1f} changes={self.changes}"


def _screen(view: View) -> tuple[object, ...]:
    """What counts as the screen for ``quiet`` (Rule 3)."""
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


def _cursor_row(view: View) -> str | None:
    row = view.cursor_row
    return view.row(row) if view.top <= row < view.end else None


class _StateWait:
    """One wait: looks, kernel readings between them, and the outcome."""

    def __init__(
        self,
        ctx: ToolContext,
        pane: str,
        wanted: frozenset[str],
        *,
        quiet: float | None,
        deadline: float,
        hint: ActivityHint | None,
    ) -> None:
        self.ctx, self.pane, self.wanted, self.quiet = ctx, pane, wanted, quiet
        self.began = trio.current_time()
        self.deadline = deadline
        self.hint = hint
        self.pacer = Pacer(hint, self.began)
        self.watch: Literal["activity-hint", "polling"] = (
            "polling" if hint is None else "activity-hint"
        )
        self.polls = self.changes = 0
        self.changed_at = self.began
        self.looked_at = self.began
        self.facts: TmuxFacts | None = None
        self.cursor_row: str | None = None
        self.state: PaneState | None = None
        self.screen: tuple[object, ...] | None = None
        self.state_every = STATE_EVERY

    async def _look(self) -> None:
        """One look: the state's tmux facts and the screen in one invocation, then the
        kernel's reading (a missing pane raises ``ObjectNotFound``)."""
        self.polls += 1
        facts = RecordFormat(list(PANE_STATE_FIELDS.values()))
        frame, observe = observe_commands(self.pane, back=0)
        out = await self.ctx.client.run(
            cmd("display-message", "-p", t=self.pane, args=[facts.template]), *observe
        )
        record, rest = facts.parse_leading(out.stdout)
        view = parse_view(frame, rest)
        self.pacer.follow(view.frame.pid)
        self.facts = typed_record(record, PANE_STATE_FIELDS, TmuxFacts)
        self.cursor_row = _cursor_row(view)
        before = None if self.state is None else self.state.state
        self.state = read_state(self.ctx.kernel, self.facts, self.cursor_row)
        self.looked_at = trio.current_time()
        screen = _screen(view)
        if self.screen is not None and screen != self.screen:
            self.changes += 1
            self.changed_at = self.looked_at
            self.pacer.pane_changed(self.changed_at)
        self.pacer.looked(screen != self.screen or before != self.state.state)
        self.screen = screen

    def _moved(self) -> bool:
        """A kernel reading between looks: is the state another than the last look's?

        Only its name counts: a loop's new child each round changes the facts
        (the foreground pid), and would otherwise cost a look each reading.
        """
        if self.facts is None or self.hint is None or self.state is None:
            return True
        return read_state(self.ctx.kernel, self.facts, self.cursor_row).state != self.state.state

    def _result(
        self, outcome: StateOutcome, reached: Condition | None = None
    ) -> WaitForStateResult:
        now = trio.current_time()
        assert self.state is not None  # the first look read it, or the call failed
        return WaitForStateResult(
            outcome=outcome,
            reached=reached,
            pane_id=self.pane,
            elapsed_ms=round((now - self.began) * 1000, 1),
            state=self.state,
            quiet_for_ms=round((now - self.changed_at) * 1000, 1),
            changes=self.changes,
            polls=self.polls,
            watch=self.watch,
        )

    def _verdict(self, now: float) -> WaitForStateResult | None:
        assert self.state is not None
        name = self.state.state
        if name in self.wanted:
            return self._result("reached", name)
        if name == "dead":
            return self._result("pane-dead")
        if self.quiet is not None and now - self.changed_at >= self.quiet:
            return self._result("reached", "quiet")
        return None

    def _due(self, now: float, next_progress: float) -> float:
        due = min(self.deadline, next_progress, self.looked_at + self.pacer.safety)
        if self.quiet is not None:
            due = min(due, self.changed_at + self.quiet)
        if self.hint is not None:
            due = min(due, now + self.state_every)
        return due

    def _doing(self) -> str:
        """The progress message: ``waiting``; for an MCP Task's status, what the wait
        waits for and the state it last saw (issue 29.2): tmux's and the kernel's
        facts, never the pane's text."""
        if not self.ctx.in_task:
            return "waiting"
        wanted = sorted(self.wanted) + ([] if self.quiet is None else ["quiet"])
        seen = "not read yet" if self.state is None else self.state.state
        return f"waiting for {' or '.join(wanted)}; pane is {seen}"

    async def run(self) -> WaitForStateResult:
        """Look until a wanted state, a dead pane, quiet (if wanted), or the deadline."""
        await self._look()  # a missing pane is the caller's error
        self.changed_at = trio.current_time()  # the call's start counts as a change
        total = round(self.deadline - self.began, 3)
        next_progress = self.began + PROGRESS_EVERY
        if self.ctx.in_task:  # a task's status says what it waits for from its start
            await self.ctx.progress(0.0, total, self._doing())
        while True:
            now = trio.current_time()
            done = self._verdict(now)
            if done is not None:
                return done
            if now >= self.deadline:
                return self._result("timeout")
            if now >= next_progress:
                next_progress = now + PROGRESS_EVERY
                await self.ctx.progress(round(now - self.began, 3), total, self._doing())
            due = self._due(now, next_progress)
            woke = await self.pacer.wait(due)
            now = trio.current_time()
            timed = now >= self.deadline or now >= self.looked_at + self.pacer.safety
            if self.quiet is not None and now >= self.changed_at + self.quiet:
                timed = True  # a last look before quiet is reported
            if woke:
                self.state_every = STATE_EVERY
            if not (woke or timed or self._moved()):
                self.state_every = min(self.state_every * 2, STATE_MAX)
                continue
            try:
                await self._look()
            except ObjectNotFound:
                return self._result("pane-gone")


async def wait_until(
    ctx: ToolContext,
    pane: str,
    wanted: frozenset[str],
    *,
    quiet: float | None,
    deadline: float,
) -> WaitForStateResult:
    """Wait until ``pane`` is in a state of ``wanted`` (``quiet``: seconds the screen must
    stay unchanged, or None), or the absolute trio time ``deadline`` (Rule 5)."""
    bound = ctx.client.bound
    hint = None if bound is None else ActivityHint.open(bound.pid, bound.start_time)
    with hint if hint is not None else contextlib.nullcontext():
        wait = _StateWait(ctx, pane, wanted, quiet=quiet, deadline=deadline, hint=hint)
        return await wait.run()


async def wait_for_state(ctx: ToolContext, args: WaitForStateArgs) -> WaitForStateResult:
    """Handler for wait_for_state."""
    wanted = frozenset(args.states or ())
    # Any int decodes; past the longest wait, a quiet period is the same as that.
    quiet = None if args.quiet_ms is None else min(args.quiet_ms, MAX_WAIT_S * 1000) / 1000
    deadline = trio.current_time() + args.timeout
    return await wait_until(ctx, args.pane_id, wanted, quiet=quiet, deadline=deadline)
