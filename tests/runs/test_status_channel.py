"""The status FIFO's lines as events of a run (``tmuxmcp.tools.run.watch``).

No tmux: the bytes a script writes (``runscript``: ``S``, ``E <status>``,
``X <option>``) are fed to a run directly. The FIFO can be written by any
program of the same user, so a line the run's phase does not take must
change nothing and raise nothing: the watcher runs in the server's nursery.
"""

from __future__ import annotations

from tmuxmcp.errors import PaneNotReady
from tmuxmcp.panetext.scrollback import Mark
from tmuxmcp.runs import state
from tmuxmcp.tools.run import watch

_MARK = Mark(row=0, fingerprint="0" * 16, history_size=0, width=80, alternate=False)


def _typed_run() -> state.Run:
    run = state.Run("0123456789ab", "%7", "/nonexistent-run-directory", 1, budget=100, lock_fd=-1)
    run.handle(state.Typed(line=" { : 'x'; . /r1; }\n", mark=_MARK, restore_path="/"))
    return run


def test_the_script_s_lines_become_events() -> None:
    """``S`` carries ``$?`` as the typed line found it (issue 22.2: the status a probe
    reads back)."""
    events = watch.status_events(b"S 130\nE 3\n", "%7")
    assert events == [state.Started(130), state.Ended(3)]


def test_an_errexit_report_becomes_the_refusal_naming_the_pane_and_the_fix() -> None:
    (event,) = watch.status_events(b"X errexit\n", "%7")
    assert isinstance(event, state.Refused)
    assert isinstance(event.error, PaneNotReady)
    assert "pane %7's shell has errexit on" in str(event.error)
    assert "here-document" in str(event.error) and "backslash" in str(event.error)


def test_lines_that_are_not_the_script_s_are_no_events() -> None:
    odd = b"E x\nE -1\nX nounset\nS \nS\nS -1\nS 1 2\nS x\nS 0x1\nhello\n\xff\n"
    assert watch.status_events(odd, "%7") == []


async def test_the_first_status_wins_and_later_lines_change_nothing() -> None:
    run = _typed_run()
    watch.take_status(run, b"S 0\nE 0\nE 7\nS 1\nX errexit\n")
    assert run.phase is state.Phase.ENDED
    assert run.status == 0
    assert run.error is None


async def test_a_refusal_after_the_start_changes_nothing() -> None:
    """Only the script refuses, and only instead of ``S``: a later ``X`` is forged."""
    run = _typed_run()
    watch.take_status(run, b"S 0\n")
    watch.take_status(run, b"X errexit\n")
    assert run.phase is state.Phase.RUNNING
    assert run.error is None
