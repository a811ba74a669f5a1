"""A run's files have one life, ``files.TRANSITIONS`` (issue 30.1): written once, closed
exactly once, and every event the table does not allow refused before anything is done.

No tmux: the files are written in a temporary directory, as ``state.Run`` writes
them, and the FIFOs are opened by this process alone.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tmuxmcp.errors import InternalError
from tmuxmcp.runs.files import (
    TRANSITIONS,
    Closed,
    Disarmed,
    FilesEvent,
    FilesPhase,
    Outlived,
    RunFiles,
    ScriptRewritten,
    ShellRecorded,
    Written,
)

EVENTS: list[type[FilesEvent]] = [
    Written,
    ScriptRewritten,
    ShellRecorded,
    Disarmed,
    Closed,
    Outlived,
]


def _send(files: RunFiles, event: type[FilesEvent]) -> None:
    """Send ``event`` the way its ``RunFiles`` method does."""
    if event is Written:
        files.write("true", shell="sh", fence="f")
    elif event is ScriptRewritten:
        files.write_script(shell="bash", fence="f")
    elif event is ShellRecorded:
        files.record_shell(os.getpid())
    elif event is Disarmed:
        files.disarm_script()
    else:
        files.close(going=event is Outlived, status=0, restore_path=None)


def _files_in(tmp_path: Path, phase: FilesPhase) -> RunFiles:
    """Fresh files brought to ``phase`` by the events that lead there."""
    files = RunFiles(str(tmp_path), 1, -1)
    if phase is not FilesPhase.UNWRITTEN:
        files.write("true", shell="sh", fence="f")
    if phase is FilesPhase.CLOSED:
        files.close(going=False, status=0, restore_path=None)
    if phase is FilesPhase.OUTLIVED:
        files.close(going=True, status=0, restore_path=None)
    assert files.phase is phase
    return files


@pytest.mark.parametrize(
    ("phase", "event"), [(phase, event) for phase in FilesPhase for event in EVENTS]
)
def test_every_move_of_the_files_table_and_every_forbidden_one(
    tmp_path: Path, phase: FilesPhase, event: type[FilesEvent]
) -> None:
    """Rule 1: an allowed event moves the files where the table says; any other raises
    ``InternalError`` naming both and leaves the files and their phase as they were."""
    files = _files_in(tmp_path, phase)
    following = TRANSITIONS[phase].get(event)
    before = sorted(os.listdir(tmp_path))
    if following is None:
        with pytest.raises(InternalError, match=f"{event.__name__} is not allowed in phase"):
            _send(files, event)
        assert files.phase is phase
        assert sorted(os.listdir(tmp_path)) == before
    else:
        _send(files, event)
        assert files.phase is following
    if files.phase is not FilesPhase.WRITTEN:
        return
    files.close(going=False, status=0, restore_path=None)


def test_files_are_closed_once_and_a_second_close_is_refused(tmp_path: Path) -> None:
    """Rule 1: the second close raises (it was ignored, so callers closed defensively);
    the first released the shell, closed the descriptors and removed the files."""
    files = _files_in(tmp_path, FilesPhase.WRITTEN)
    descriptors = (files.status_fd, files.release_fd)
    files.close(going=False, status=0, restore_path=None)
    assert files.closed
    assert (files.status_fd, files.release_fd, files.lock_fd) == (-1, -1, -1)
    for fd in descriptors:
        with pytest.raises(OSError):
            os.fstat(fd)
    assert not any(os.path.lexists(files.paths[key]) for key in "cesg")
    with pytest.raises(InternalError, match="Closed is not allowed in phase closed"):
        files.close(going=False, status=0, restore_path=None)


def test_outlived_files_keep_what_the_script_still_opens(tmp_path: Path) -> None:
    """Rule 3: closed while the command runs, the FIFOs, ``t`` and the record stay."""
    files = _files_in(tmp_path, FilesPhase.WRITTEN)
    files.record_shell(os.getpid())
    files.close(going=True, status=None, restore_path=None)
    assert files.phase is FilesPhase.OUTLIVED and files.closed
    assert all(os.path.lexists(files.paths[key]) for key in "sgt")
    assert os.path.lexists(files.shell_record)
    assert not os.path.lexists(files.paths["c"])


def test_the_files_table_draws_one_life() -> None:
    """Rule 1: UNWRITTEN is where files start, every phase is reached from it, and the
    final phases are the two closes."""
    reached = {FilesPhase.UNWRITTEN}
    for _ in FilesPhase:
        reached |= {t for p in reached for t in TRANSITIONS[p].values()}
    assert reached == set(FilesPhase)
    finals = {p for p, moves in TRANSITIONS.items() if not moves}
    assert finals == {FilesPhase.CLOSED, FilesPhase.OUTLIVED}
