"""The run's life as a table (``tmuxmcp.runs.state``, Rules 1-4).

No tmux and no files: a ``Run`` touches the file system only when its files
are written, which these tests never do. The table below is written out
here, independently of the module, from the run's life as the wing's
docstrings describe it; the tests check that the module's table is exactly
this one, that every move it allows lands where it says, and that every
other event raises ``InternalError`` and leaves the run where it was.
"""

from __future__ import annotations

import itertools
import typing

import pytest
import trio
import trio.testing

from tmuxmcp.errors import CommandInterrupted, InternalError, PaneNotReady, TmuxMcpError
from tmuxmcp.panetext.scrollback import Mark
from tmuxmcp.runs import state
from tmuxmcp.runs.output import Outcome
from tmuxmcp.runs.redraw import Before, Redraw

P = state.Phase
EXPECTED: dict[tuple[state.Phase, type[state.Event]], state.Phase] = {
    (P.PREPARING, state.Checked): P.PREPARING,
    (P.PREPARING, state.Typed): P.TYPED,
    (P.PREPARING, state.Abandoned): P.ABANDONED,
    (P.TYPED, state.Started): P.RUNNING,
    (P.RUNNING, state.Redrawn): P.RUNNING,
    (P.RUNNING, state.PrintedFirst): P.RUNNING,
    (P.TYPED, state.Stopped): P.TYPED,
    (P.TYPED, state.Ended): P.ENDED,
    (P.TYPED, state.Refused): P.REFUSED,
    (P.TYPED, state.NotRun): P.NOT_RUN,
    (P.TYPED, state.ShellExited): P.SHELL_EXITED,
    (P.TYPED, state.Failed): P.FAILED,
    (P.TYPED, state.Cancelled): P.CANCELLED,
    (P.RUNNING, state.Stopped): P.RUNNING,
    (P.RUNNING, state.Left): P.LEFT,
    (P.RUNNING, state.Ended): P.ENDED,
    (P.RUNNING, state.ShellExited): P.SHELL_EXITED,
    (P.RUNNING, state.Interrupted): P.INTERRUPTED,
    (P.RUNNING, state.Failed): P.FAILED,
    (P.RUNNING, state.Cancelled): P.CANCELLED,
    (P.ENDED, state.Collected): P.COLLECTED,
    (P.ENDED, state.Failed): P.FAILED,
    (P.ENDED, state.Cancelled): P.CANCELLED,
    (P.LEFT, state.Probed): P.COLLECTED,
    (P.LEFT, state.ShellExited): P.SHELL_EXITED,
    (P.LEFT, state.Interrupted): P.INTERRUPTED,
    (P.LEFT, state.Failed): P.FAILED,
    (P.LEFT, state.Cancelled): P.CANCELLED,
}
"""Every move a run can make; anything else is forbidden."""

FINAL_PHASES = {
    P.COLLECTED,
    P.REFUSED,
    P.NOT_RUN,
    P.SHELL_EXITED,
    P.INTERRUPTED,
    P.FAILED,
    P.ABANDONED,
    P.CANCELLED,
}

_MARK = Mark(row=3, fingerprint="0" * 16, history_size=0, width=80, alternate=False)
_OUTCOME = Outcome(
    exit_status=0, head=[], tail=["hi"], lines_omitted=0, lines_lost=0, start_lost=False
)
_ERROR = PaneNotReady("pane %1 went away")


def _event(kind: type[state.Event]) -> state.Event:
    """One event of each kind, with plausible contents."""
    events: dict[type[state.Event], state.Event] = {
        state.Checked: state.Checked(100, 101),
        state.Typed: state.Typed(line=" { : 'x'; . /r1; }\n", mark=_MARK, restore_path="/home"),
        state.Started: state.Started(0),
        state.Redrawn: state.Redrawn(
            Redraw(up=1, column=2, prompt_row=0, rows=1, history_size=0, shown="echo hi")
        ),
        state.PrintedFirst: state.PrintedFirst(Before(rows=("ps0 line",), partial="")),
        state.Stopped: state.Stopped(),
        state.Left: state.Left(),
        state.Ended: state.Ended(3),
        state.Collected: state.Collected(_OUTCOME),
        state.Probed: state.Probed(_OUTCOME),
        state.Refused: state.Refused(_ERROR),
        state.NotRun: state.NotRun(_ERROR),
        state.ShellExited: state.ShellExited(_ERROR),
        state.Interrupted: state.Interrupted(_ERROR),
        state.Failed: state.Failed(_ERROR),
        state.Abandoned: state.Abandoned(),
        state.Cancelled: state.Cancelled(),
    }
    return events[kind]


ALL_EVENTS: list[type[state.Event]] = [
    state.Checked,
    state.Typed,
    state.Started,
    state.Redrawn,
    state.PrintedFirst,
    state.Stopped,
    state.Left,
    state.Ended,
    state.Collected,
    state.Probed,
    state.Refused,
    state.NotRun,
    state.ShellExited,
    state.Interrupted,
    state.Failed,
    state.Abandoned,
    state.Cancelled,
]

PATHS: dict[state.Phase, list[type[state.Event]]] = {
    P.PREPARING: [],
    P.TYPED: [state.Typed],
    P.RUNNING: [state.Typed, state.Started],
    P.ENDED: [state.Typed, state.Started, state.Ended],
    P.LEFT: [state.Typed, state.Started, state.Left],
    P.COLLECTED: [state.Typed, state.Started, state.Ended, state.Collected],
    P.REFUSED: [state.Typed, state.Refused],
    P.NOT_RUN: [state.Typed, state.NotRun],
    P.SHELL_EXITED: [state.Typed, state.ShellExited],
    P.INTERRUPTED: [state.Typed, state.Started, state.Interrupted],
    P.FAILED: [state.Typed, state.Failed],
    P.ABANDONED: [state.Abandoned],
    P.CANCELLED: [state.Typed, state.Cancelled],
}
"""How to bring a fresh run to each phase."""


def _run_in(phase: state.Phase) -> state.Run:
    run = state.Run("0123456789ab", "%1", "/nonexistent-run-directory", 1, budget=1000, lock_fd=-1)
    for kind in PATHS[phase]:
        run.handle(_event(kind))
    assert run.phase is phase
    return run


async def test_the_table_is_exactly_the_life_of_a_run() -> None:
    """Rule 1: the module's table allows these moves and no others."""
    actual = {
        (phase, kind): following
        for phase, moves in state.TRANSITIONS.items()
        for kind, following in moves.items()
    }
    assert actual == EXPECTED
    assert set(state.TRANSITIONS) == set(state.Phase)
    assert state.FINAL == FINAL_PHASES
    assert set(typing.get_args(state.Event)) == set(ALL_EVENTS)


@pytest.mark.parametrize(("phase", "kind"), sorted(EXPECTED, key=str))
async def test_every_allowed_move_lands_where_the_table_says(
    phase: state.Phase, kind: type[state.Event]
) -> None:
    run = _run_in(phase)
    assert run.allows(_event(kind))
    run.handle(_event(kind))
    assert run.phase is EXPECTED[phase, kind]
    # Rule 3: done exactly in a final phase.
    assert run.done.is_set() is (run.phase in FINAL_PHASES)


FORBIDDEN = [
    (phase, kind)
    for phase, kind in itertools.product(state.Phase, ALL_EVENTS)
    if (phase, kind) not in EXPECTED
]


@pytest.mark.parametrize(("phase", "kind"), sorted(FORBIDDEN, key=str))
async def test_every_other_event_raises_one_internal_error_and_changes_nothing(
    phase: state.Phase, kind: type[state.Event]
) -> None:
    run = _run_in(phase)
    assert not run.allows(_event(kind))
    with pytest.raises(InternalError, match=f"{kind.__name__} is not allowed in phase"):
        run.handle(_event(kind))
    assert run.phase is phase


async def test_the_events_carry_the_facts_the_run_reports() -> None:
    run = _run_in(P.PREPARING)
    run.handle(state.Checked(100, 101))
    assert (run.pane_pid, run.shell_pid) == (100, 101)
    run.handle(_event(state.Typed))
    assert (run.typed, run.mark, run.restore_path) == (" { : 'x'; . /r1; }\n", _MARK, "/home")
    before = (run.started, run.status)
    run.handle(state.Ended(3))
    assert before == (False, None)
    assert (run.started, run.status) == (True, 3)
    run.handle(state.Collected(_OUTCOME))
    assert run.outcome == _OUTCOME and run.error is None


@pytest.mark.parametrize(
    "kind", [state.Refused, state.NotRun, state.ShellExited, state.Interrupted, state.Failed]
)
async def test_a_run_that_ends_without_an_outcome_has_its_error(kind: type[state.Event]) -> None:
    """Rule 3: every final phase but COLLECTED has an error."""
    run = _run_in(P.RUNNING if kind is state.Interrupted else P.TYPED)
    run.handle(_event(kind))
    assert run.error is _ERROR
    assert run.outcome is None


async def test_a_cancelled_run_reports_that_tmuxmcp_stopped_watching_it() -> None:
    run = _run_in(P.RUNNING)
    run.handle(state.Cancelled())
    error: TmuxMcpError | None = run.error
    assert isinstance(error, CommandInterrupted)
    assert "stopped watching run 0123456789ab in pane %1" in str(error)


@pytest.mark.parametrize("phase", sorted(FINAL_PHASES, key=str))
async def test_the_shell_is_gone_from_the_run_only_where_no_script_looks_again(
    phase: state.Phase,
) -> None:
    """Rule 4: refused, shell exited and interrupted runs leave nothing to the script."""
    run = _run_in(phase)
    assert run.shell_gone is (phase in {P.REFUSED, P.SHELL_EXITED, P.INTERRUPTED})


async def test_a_run_its_shell_left_is_gone_from_the_shell_and_not_done() -> None:
    """Rule 4 and 5: a shell that left the script looks for none of its files again,
    and the run waits for its status to be read back."""
    run = _run_in(P.LEFT)
    assert run.shell_gone and not run.pending
    assert not run.done.is_set()


async def test_a_left_run_read_back_ends_collected_with_the_shells_status() -> None:
    """Rule 5: the status read back is the run's, as if the script had reported it."""
    run = _run_in(P.LEFT)
    probed = Outcome(
        exit_status=130, head=[], tail=["x"], lines_omitted=0, lines_lost=0, start_lost=False
    )
    run.handle(state.Probed(probed))
    assert (run.phase, run.status, run.outcome, run.error) == (P.COLLECTED, 130, probed, None)


async def test_a_run_tmuxmcp_stopped_says_so_and_stays_where_it_was() -> None:
    """Rule 5: ``Stopped`` marks the run (its leaving is then an interruption)."""
    run = _run_in(P.RUNNING)
    assert not run.stopped
    run.handle(state.Stopped())
    assert (run.phase, run.stopped) == (P.RUNNING, True)


async def test_a_started_run_keeps_the_status_its_typed_line_found() -> None:
    run = _run_in(P.TYPED)
    run.handle(state.Started(130))
    assert (run.started, run.status_before, run.status) == (True, 130, None)


async def test_a_run_waited_for_wakes_when_it_reaches_a_final_phase() -> None:
    run = _run_in(P.RUNNING)
    woke: list[state.Phase] = []

    async def waiter() -> None:
        await run.done.wait()
        woke.append(run.phase)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(waiter)
        await trio.testing.wait_all_tasks_blocked()
        assert woke == []
        run.handle(state.Ended(0))
        await trio.testing.wait_all_tasks_blocked()
        assert woke == []
        run.handle(state.Collected(_OUTCOME))
    assert woke == [P.COLLECTED]
