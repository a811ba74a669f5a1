"""One run at a time per pane in this process, served in the order the calls came.

``panelock`` keeps two tmuxmcp processes from typing into one pane at once;
this module does the same inside one process, where many calls of one
client can name the same pane at once (issue 27, item 2). Each pane has a
``Lane``: the ``Turn`` that holds it and a queue of the turns waiting.

Rules:

Rule 1: first come, first served. A call that finds the pane held joins the
  back of its queue; when the holder gives its turn back, the turn passes
  straight to the first waiter (a handoff, not a wake-up of every waiter to
  race for it), so no later call can overtake an earlier one.
Rule 2: a turn is held from when it is granted until the run it started
  frees the pane (``RunRegistry.free``), or until its call fails before
  typing. Only the holder of a pane's turn asks for the cross-process lock
  (``panelock``), so a lock found taken there is another process's, and an
  error says so only then.
Rule 3: a waiter waits at most its own timeout; one that gives up, times out
  or is cancelled leaves the queue, and a turn handed to it as it left is
  passed on, so nothing is left holding a pane nobody uses.
Rule 4: a waiter that times out is told who holds the pane: a run of this
  process (its ``run_id``) or a call of this process that has not typed its
  command yet (and what it is waiting for).
Rule 5: the number of panes whose turn is held is bounded (``RunLimit``),
  since each run holds descriptors while its command runs (issue 27, N8):
  taking a free pane past the bound is refused at once, naming the bound.
  Passing a turn on within a pane's queue does not change the count.
Rule 6: a turn's life is one table, ``TRANSITIONS``, in the manner of
  ``state``: a turn is in one ``TurnPhase``, and only ``PaneTurns`` moves it,
  by the events ``Granted``, ``Ran``, ``GivenBack`` and ``Left``; an event
  the table does not allow raises ``InternalError``. So a turn is given back
  exactly once: by ``RunRegistry.free`` once it started a run, else by the
  call that took it (a second give-back is refused, not ignored). Drawn::

      WAITING --Granted--> HOLDING --Ran--> RUNNING --GivenBack--> RETURNED
      WAITING --Left--> LEFT        (timed out, gave up or cancelled in the queue)
      HOLDING --GivenBack--> RETURNED  (its call failed before its run was made)

No IO here, and no tmux: the handler (``handlers.run_command``) takes a turn,
and the registry ties it to the run it starts.
"""

from __future__ import annotations

import collections
import enum
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Final

import trio

from tmuxmcp.errors import CallerError, InternalError, PaneNotReady

if TYPE_CHECKING:
    from tmuxmcp.runs.state import Run


class RunLimit(CallerError):
    """You get this when run_command would start a command in one more pane than this
    tmuxmcp process can watch at once (each running command holds descriptors)."""

    reference = "run-limit"


class TurnPhase(enum.Enum):
    """Where one call's turn on a pane is (Rule 6)."""

    WAITING = "waiting"
    """In the pane's queue, behind the turn that holds it."""
    HOLDING = "holding"
    """Granted: its call checks the pane and types; no run yet."""
    RUNNING = "running"
    """Its call made its run, which holds the pane until it frees it."""
    RETURNED = "returned"
    """Final: given back; the first waiter, if any, holds the pane now."""
    LEFT = "left"
    """Final: left the queue before it was granted (Rule 3)."""


class TurnEvent:
    """What happens to a turn; ``PaneTurns`` sends each."""


class Granted(TurnEvent):
    """The pane was free, or the turn before it was given back (Rule 1)."""


class Ran(TurnEvent):
    """Its call made its run (``RunRegistry.new_run``)."""


class GivenBack(TurnEvent):
    """Its run freed the pane, or its call failed before the run was made (Rule 2)."""


class Left(TurnEvent):
    """It left the queue ungranted: timed out, gave up or was cancelled (Rule 3)."""


TRANSITIONS: Final[dict[TurnPhase, dict[type[TurnEvent], TurnPhase]]] = {
    TurnPhase.WAITING: {Granted: TurnPhase.HOLDING, Left: TurnPhase.LEFT},
    TurnPhase.HOLDING: {Ran: TurnPhase.RUNNING, GivenBack: TurnPhase.RETURNED},
    TurnPhase.RUNNING: {GivenBack: TurnPhase.RETURNED},
    TurnPhase.RETURNED: {},
    TurnPhase.LEFT: {},
}
"""For each phase of a turn, the events it takes and the phase each leads to (Rule 6)."""


class Turn:
    """One call's claim on a pane (Rule 2)."""

    def __init__(self, pane: str) -> None:
        self.pane = pane
        self.run: Run | None = None
        """The run this turn started, once it is made (``RunRegistry.new_run``)."""
        self.doing = "waiting for its turn"
        """What the call holding the turn does before its run exists (Rule 4)."""
        self.granted = trio.Event()
        """Set with ``Granted``: wakes the call waiting for it."""
        self.phase = TurnPhase.WAITING

    def handle(self, event: TurnEvent) -> None:
        """Move the turn by ``event``; ``InternalError`` if its phase does not take it."""
        following = TRANSITIONS[self.phase].get(type(event))
        if following is None:
            raise InternalError(
                f"the turn on pane {self.pane}: event {type(event).__name__} is not allowed "
                f"in phase {self.phase.value}"
            )
        self.phase = following
        if following is TurnPhase.HOLDING:
            self.granted.set()

    def holder_text(self) -> str:
        """Who holds the pane, for an error or a progress line (Rule 4)."""
        if self.run is not None:
            return f"run_id {self.run.run_id} of this tmuxmcp process"
        return f"an earlier run_command of this tmuxmcp process ({self.doing})"


class _Lane:
    def __init__(self) -> None:
        self.holder: Turn | None = None
        self.waiting: collections.deque[Turn] = collections.deque()


Waiting = Callable[[Turn], Awaitable[None]]
"""Told, when a call joins a queue and each second after, which turn holds the pane."""


class PaneTurns:
    """Every pane's turn and queue in this process."""

    def __init__(self) -> None:
        self._lanes: dict[str, _Lane] = {}

    def held(self) -> int:
        """How many panes have their turn held (Rule 5)."""
        return sum(1 for lane in self._lanes.values() if lane.holder is not None)

    def holder(self, pane: str) -> Turn | None:
        """The turn that holds ``pane``, if any."""
        lane = self._lanes.get(pane)
        return None if lane is None else lane.holder

    async def take(
        self, pane: str, seconds: float, *, limit: int, waiting: Waiting | None = None
    ) -> Turn:
        """``pane``'s turn, waiting at most ``seconds`` behind the calls that came first.

        Raises ``RunLimit`` when ``pane`` is free and ``limit`` panes are
        held already (Rule 5), and ``PaneNotReady`` naming the holder when
        the wait runs out (Rule 4).
        """
        await trio.lowlevel.checkpoint_if_cancelled()  # before anything is held
        turn = Turn(pane)
        lane = self._lanes.get(pane)
        if lane is None or lane.holder is None:
            held = self.held()
            if held >= limit:
                raise RunLimit(
                    f"this tmuxmcp process already runs (or starts) commands in {held} panes, its "
                    f"bound ({limit}, from its open-file limit, ulimit -n); collect or stop "
                    "one of them (wait_for_command, send_keys C-c), or start tmuxmcp with a "
                    "higher open-file limit"
                )
            lane = self._lanes.setdefault(pane, _Lane())
            lane.holder = turn
            turn.handle(Granted())
            return turn
        lane.waiting.append(turn)
        try:
            with trio.move_on_after(seconds):
                while not turn.granted.is_set():
                    assert lane.holder is not None  # a queue forms only behind a holder
                    if waiting is not None:
                        await waiting(lane.holder)
                    with trio.move_on_after(1.0):
                        await turn.granted.wait()
        except BaseException:
            self._leave(lane, turn)
            raise
        if turn.granted.is_set():
            return turn  # granted as the wait ran out: it is this call's all the same
        holder = lane.holder
        self._leave(lane, turn)
        assert holder is not None  # only a granted turn leaves a lane without a holder
        what = (
            "collect that run with wait_for_command or stop it with send_keys C-c, or "
            if holder.run is not None
            else ""
        )
        raise PaneNotReady(
            f"pane {pane} is still held by {holder.holder_text()} after {seconds:g} s "
            f"(this call's timeout); {what}call again with a longer timeout"
        )

    def _leave(self, lane: _Lane, turn: Turn) -> None:
        """``turn`` gives up its place (Rule 3): out of the queue, or its turn passed on."""
        if turn.granted.is_set():
            self.give_back(turn)
        else:
            lane.waiting.remove(turn)
            turn.handle(Left())

    def give_back(self, turn: Turn) -> None:
        """``turn`` is done with its pane: the first waiter gets it (Rule 1). Once: a
        second give-back raises ``InternalError`` (Rule 6)."""
        turn.handle(GivenBack())
        lane = self._lanes.get(turn.pane)
        if lane is None or lane.holder is not turn:
            return
        if lane.waiting:
            following = lane.waiting.popleft()
            lane.holder = following
            following.handle(Granted())
        else:
            del self._lanes[turn.pane]

    def ran(self, turn: Turn, run: Run) -> None:
        """``turn`` started ``run``: the run holds the pane now (Rule 2)."""
        turn.handle(Ran())
        turn.run = run

    def turn_of(self, run: Run) -> Turn | None:
        """The turn ``run`` holds, if it holds one."""
        holder = self.holder(run.pane)
        return holder if holder is not None and holder.run is run else None
