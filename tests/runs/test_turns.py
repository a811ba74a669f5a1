"""``turns``: a pane's turn passes first come, first served; a waiter that leaves leaves
nothing behind (issue 27, item 2), and the count of held panes is bounded (N8).

No tmux: the turns are taken and given back in memory, as ``handlers.run_command``
and ``RunRegistry.free`` do.
"""

from __future__ import annotations

import pytest
import trio
import trio.testing

from tmuxmcp.errors import InternalError, PaneNotReady
from tmuxmcp.runs.turns import (
    TRANSITIONS,
    GivenBack,
    Granted,
    Left,
    PaneTurns,
    Ran,
    RunLimit,
    Turn,
    TurnEvent,
    TurnPhase,
)

LIMIT = 100


async def _queue(
    turns: PaneTurns, nursery: trio.Nursery, name: str, got: list[str], seconds: float = 60
) -> None:
    """Start a call that takes the pane's turn, records ``name`` and gives it back."""

    async def take() -> None:
        turn = await turns.take("%1", seconds, limit=LIMIT)
        got.append(name)
        turns.give_back(turn)

    nursery.start_soon(take)
    await trio.testing.wait_all_tasks_blocked()


async def test_the_turn_passes_to_the_waiters_in_the_order_they_came() -> None:
    turns = PaneTurns()
    first = await turns.take("%1", 1, limit=LIMIT)
    got: list[str] = []
    async with trio.open_nursery() as nursery:
        for name in "abcde":
            await _queue(turns, nursery, name, got)
        turns.give_back(first)
    assert got == list("abcde")
    assert turns.holder("%1") is None and turns.held() == 0


async def test_a_cancelled_waiter_leaves_the_queue_and_the_rest_keep_their_order() -> None:
    turns = PaneTurns()
    first = await turns.take("%1", 1, limit=LIMIT)
    got: list[str] = []
    async with trio.open_nursery() as nursery:
        await _queue(turns, nursery, "a", got)
        scope = trio.CancelScope()
        nursery.start_soon(_cancellable, turns, scope)
        await trio.testing.wait_all_tasks_blocked()
        await _queue(turns, nursery, "c", got)
        scope.cancel()
        await trio.testing.wait_all_tasks_blocked()
        turns.give_back(first)
    assert got == ["a", "c"]
    assert turns.held() == 0


async def _cancellable(turns: PaneTurns, scope: trio.CancelScope) -> None:
    with scope:
        await turns.take("%1", 60, limit=LIMIT)
        raise AssertionError("a cancelled waiter was given the turn")


async def test_a_turn_handed_to_a_waiter_as_it_is_cancelled_passes_on() -> None:
    """The turn is handed over while the waiter is busy (reporting that it waits) and
    the waiter is cancelled there: the turn goes on to the next waiter (Rule 3)."""
    turns = PaneTurns()
    first = await turns.take("%1", 1, limit=LIMIT)
    got: list[str] = []
    reporting = trio.Event()

    async def report(holder: Turn) -> None:
        reporting.set()
        await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        scope = trio.CancelScope()

        async def waiter() -> None:
            with scope:
                await turns.take("%1", 60, limit=LIMIT, waiting=report)
                raise AssertionError("a cancelled waiter kept the turn")

        nursery.start_soon(waiter)
        await reporting.wait()
        await _queue(turns, nursery, "b", got)
        turns.give_back(first)  # handed to the waiter, which is still reporting
        scope.cancel()
    assert got == ["b"]
    assert turns.held() == 0


async def test_a_waiter_that_times_out_is_told_who_holds_the_pane() -> None:
    turns = PaneTurns()
    first = await turns.take("%1", 1, limit=LIMIT)
    first.doing = "waiting for the pane's shell to be ready"
    with pytest.raises(PaneNotReady) as refused:
        await turns.take("%1", 0.01, limit=LIMIT)
    assert "an earlier run_command of this tmuxmcp process" in str(refused.value)
    assert "waiting for the pane's shell to be ready" in str(refused.value)
    assert turns.holder("%1") is first
    turns.give_back(first)
    assert turns.held() == 0


async def test_past_the_bound_a_free_pane_is_refused_and_a_queued_one_is_not() -> None:
    turns = PaneTurns()
    held = [await turns.take(f"%{k}", 1, limit=2) for k in (1, 2)]
    with pytest.raises(RunLimit, match=r"\b2 panes\b.*bound \(2"):
        await turns.take("%3", 1, limit=2)
    got: list[str] = []
    async with trio.open_nursery() as nursery:
        await _queue_on(turns, nursery, "%1", got, limit=2)
        turns.give_back(held[0])
    assert got == ["%1"]  # a pane's turn passing on adds no pane
    turns.give_back(held[1])
    assert turns.held() == 0


async def _queue_on(
    turns: PaneTurns, nursery: trio.Nursery, pane: str, got: list[str], *, limit: int
) -> None:
    async def take() -> None:
        turn = await turns.take(pane, 60, limit=limit)
        got.append(pane)
        turns.give_back(turn)

    nursery.start_soon(take)
    await trio.testing.wait_all_tasks_blocked()


async def test_a_turn_given_back_twice_is_refused_the_second_time() -> None:
    """Rule 6: a turn is given back once; a second give-back is a bug, refused (it once
    passed silently, so callers gave turns back defensively), and passes nothing on."""
    turns = PaneTurns()
    turn = await turns.take("%1", 60, limit=LIMIT)
    turns.give_back(turn)
    with pytest.raises(InternalError, match="GivenBack is not allowed in phase returned"):
        turns.give_back(turn)
    assert turns.held() == 0
    with pytest.raises(InternalError, match="GivenBack is not allowed in phase waiting"):
        turns.give_back(Turn("%2"))  # never granted: nothing to give back


def _moves() -> list[tuple[TurnPhase, type[TurnEvent], TurnPhase | None]]:
    events = [Granted, Ran, GivenBack, Left]
    return [
        (phase, event, TRANSITIONS[phase].get(event)) for phase in TurnPhase for event in events
    ]


@pytest.mark.parametrize(("phase", "event", "following"), _moves())
def test_every_move_of_the_turn_table_and_every_forbidden_one(
    phase: TurnPhase, event: type[TurnEvent], following: TurnPhase | None
) -> None:
    """Rule 6: each allowed event moves a turn where the table says, and sets ``granted``
    exactly when it leads to HOLDING; any other raises and leaves the turn as it was."""
    turn = Turn("%1")
    turn.phase = phase
    if following is None:
        with pytest.raises(InternalError, match=f"{event.__name__} is not allowed"):
            turn.handle(event())
        assert turn.phase is phase
    else:
        turn.handle(event())
        assert turn.phase is following
    assert turn.granted.is_set() is (following is TurnPhase.HOLDING)


def test_the_turn_table_draws_one_life() -> None:
    """Rule 6: WAITING is where a turn starts, and every phase is reached from it."""
    reached = {TurnPhase.WAITING}
    for _ in TurnPhase:
        reached |= {t for p in reached for t in TRANSITIONS[p].values()}
    assert reached == set(TurnPhase)
    assert {p for p, moves in TRANSITIONS.items() if not moves} == {
        TurnPhase.RETURNED,
        TurnPhase.LEFT,
    }
