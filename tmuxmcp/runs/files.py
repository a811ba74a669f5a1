"""The files of one run: the command (and its errexit copy), the script, the status file
and the two FIFOs.

No tmux and no processes here. ``RunFiles`` owns the files of one run in
this process's private directory (mode 0700, made with its owner record by
``directory.make``), the two FIFOs it shares with the pane's shell, the
record of that shell and the run's pane lock; only its own methods change
it, and ``state.Run`` decides when they are called.

In the manner of ``state``: the files are in one ``FilesPhase``, each method
is one event (``Written``, ``ScriptRewritten``, ``ShellRecorded``,
``Disarmed``, ``Closed``, ``Outlived``), and ``TRANSITIONS`` says which
events each phase takes and where each leads. Drawn::

    UNWRITTEN --Written--> WRITTEN --Closed--> CLOSED
    UNWRITTEN --Closed--> CLOSED       (the start failed before the files were whole)
    WRITTEN --ScriptRewritten--> the same phase; --ShellRecorded--> the same phase
    WRITTEN --Disarmed--> the same phase
    WRITTEN --Outlived--> OUTLIVED     (closed while the command still runs)

Rules:

Rule 1: ``TRANSITIONS`` is the whole life of a run's files; an event it does
  not allow in the current phase is a bug in tmuxmcp and raises
  ``InternalError`` naming both, before anything is done: the files are
  written once, and closed exactly once (a second close is refused, not
  ignored), by the one owner of the run's end (``state.Run.close``).
Rule 2: every file is created with ``O_EXCL | O_NOFOLLOW`` and mode 0600; a
  write that fails part way leaves the files ``UNWRITTEN`` (what it made is
  removed with them when they close); no descriptor left to create them
  (``EMFILE``, ``ENFILE``) is ``DescriptorsExhausted``, which says so
  (issue 27, N8).
Rule 3: closing releases the shell (the status it returns written to ``t``,
  then ``go`` on the release FIFO), closes the descriptors (and so the pane
  lock) and removes the files, the shell's record with them; ``Outlived``
  does the same but keeps the FIFOs, ``t`` and the record while the command
  still runs: the script will still open them when it ends, and the record
  says whose they are.
"""

from __future__ import annotations

import contextlib
import enum
import os
from typing import Final

from tmuxmcp.errors import EXHAUSTED, DescriptorsExhausted, InternalError
from tmuxmcp.runs import directory, runscript


class FilesPhase(enum.Enum):
    """Where a run's files are in their life."""

    UNWRITTEN = "unwritten"
    """Named, not yet on disk (or a write that failed part way: Rule 2)."""
    WRITTEN = "written"
    """The command, status and script files and the two FIFOs exist; the descriptors
    are open and the shell is not released."""
    CLOSED = "closed"
    """Final: the shell released, the descriptors closed, the files removed."""
    OUTLIVED = "outlived"
    """Final: closed while the command still ran; its FIFOs, ``t`` and the shell's
    record stay for the script (Rule 3)."""


class FilesEvent:
    """What happens to a run's files; each is sent by the ``RunFiles`` method of its name."""


class Written(FilesEvent):
    """The files and FIFOs were created and the script written (``RunFiles.write``)."""


class ScriptRewritten(FilesEvent):
    """The script was written again, for the shell found at a new check
    (``RunFiles.write_script``)."""


class ShellRecorded(FilesEvent):
    """The shell about to be typed into was recorded (``RunFiles.record_shell``)."""


class Disarmed(FilesEvent):
    """The script was made inert: a line typed for it can never run the command
    (``RunFiles.disarm_script``)."""


class Closed(FilesEvent):
    """The shell released, the descriptors closed, the files removed (``RunFiles.close``)."""


class Outlived(FilesEvent):
    """Closed while the command still runs (``RunFiles.close`` with ``going``)."""


TRANSITIONS: Final[dict[FilesPhase, dict[type[FilesEvent], FilesPhase]]] = {
    FilesPhase.UNWRITTEN: {
        Written: FilesPhase.WRITTEN,
        Closed: FilesPhase.CLOSED,
    },
    FilesPhase.WRITTEN: {
        ScriptRewritten: FilesPhase.WRITTEN,
        ShellRecorded: FilesPhase.WRITTEN,
        Disarmed: FilesPhase.WRITTEN,
        Closed: FilesPhase.CLOSED,
        Outlived: FilesPhase.OUTLIVED,
    },
    FilesPhase.CLOSED: {},
    FilesPhase.OUTLIVED: {},
}
"""For each phase of a run's files, the events it takes and the phase each leads to
(Rule 1)."""


class RunFiles:
    """The files of one run (``r`` script, ``c`` command, ``s``/``g`` FIFOs, ``t`` status)."""

    def __init__(self, run_directory: str, index: int, lock_fd: int) -> None:
        self.paths = {key: os.path.join(run_directory, f"{key}{index}") for key in "rcesgt"}
        self.shell_record = os.path.join(run_directory, f"{directory.SHELL_PREFIX}{index}")
        """Which shell will source the files (``directory``, Rule 2)."""
        self.shell = ""
        """The base name of the shell the script is written for (``runscript.script``)."""
        self.errexit_copy = False
        """Whether ``e``, the command's copy for a shell under errexit, was written
        (``runscript.errexit_copy``)."""
        self.shown = ""
        """What a redraw prints in place of the typed line (``runscript.shown``)."""
        self.status_fd = -1
        self.release_fd = -1
        self.lock_fd = lock_fd
        """The pane lock (``panelock``), held until the files are closed."""
        self.phase = FilesPhase.UNWRITTEN

    def _following(self, event: type[FilesEvent]) -> FilesPhase:
        """The phase ``event`` leads to; ``InternalError`` if this phase does not take it
        (Rule 1), before anything is done."""
        following = TRANSITIONS[self.phase].get(event)
        if following is None:
            raise InternalError(
                f"the files of run {self.paths['r']}: event {event.__name__} is not "
                f"allowed in phase {self.phase.value}"
            )
        return following

    @property
    def closed(self) -> bool:
        """Closed, outlived or not (a final phase)."""
        return not TRANSITIONS[self.phase]

    def write(self, command: str, *, shell: str, fence: str) -> None:
        """Create the command, status and script files and the two FIFOs (``Written``)."""
        following = self._following(Written)
        try:
            self._write(command, shell=shell, fence=fence)
        except OSError as exc:
            if exc.errno in EXHAUSTED:
                raise DescriptorsExhausted.when("create the run's files", exc.errno) from None
            raise
        self.phase = following

    def _write(self, command: str, *, shell: str, fence: str) -> None:
        f = self.paths
        self.shown = runscript.shown(command)
        _write(f["c"], command if command.endswith("\n") else command + "\n")
        copy = runscript.errexit_copy(command)
        if copy is not None:
            _write(f["e"], copy)
            self.errexit_copy = True
        _write(f["t"], runscript.status_return(None, None, shell))
        os.mkfifo(f["s"], 0o600)
        os.mkfifo(f["g"], 0o600)
        # Read-write opens never block, and holding the release FIFO open is
        # what lets the shell's read-only open of it return at once. When this
        # process dies the descriptor closes and the shell's read ends (EOF).
        self.status_fd = os.open(f["s"], os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        self.release_fd = os.open(f["g"], os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        self._write_script(shell=shell, fence=fence)

    def write_script(self, *, shell: str, fence: str) -> None:
        """Write the script ``r`` again for the shell found at a new check, before
        anything is typed (``ScriptRewritten``); the same shell keeps the script."""
        self.phase = self._following(ScriptRewritten)
        if os.path.lexists(self.paths["r"]):
            if shell == self.shell:
                return
            os.unlink(self.paths["r"])
            os.unlink(self.paths["t"])
            _write(self.paths["t"], runscript.status_return(None, None, shell))
        self._write_script(shell=shell, fence=fence)

    def _write_script(self, *, shell: str, fence: str) -> None:
        self.shell = shell
        _write(
            self.paths["r"],
            runscript.script(
                files=self.paths,
                fence=fence,
                shell=shell,
                errexit_copy=self.errexit_copy,
                shown_text=self.shown,
            ),
        )

    def record_shell(self, pid: int) -> None:
        """Record the shell about to be typed into (again, when the pane was checked
        again; ``ShellRecorded``)."""
        self.phase = self._following(ShellRecorded)
        directory.record_shell(self.shell_record, pid)

    def _release(self, status: int | None, restore_path: str | None) -> None:
        """Let the script finish: it puts the path back and returns the status (Rule 3)."""
        if self.release_fd < 0:
            return
        with contextlib.suppress(OSError):
            if status is not None:
                tmp = self.paths["t"] + ".new"
                _write(tmp, runscript.status_return(status, restore_path, self.shell))
                os.replace(tmp, self.paths["t"])
            os.write(self.release_fd, b"go\n")

    def answer(self, line: str) -> None:
        """Give the script tmuxmcp's word after ``S`` on the release FIFO (``runscript``
        Rule 6): a redraw's ``<up>:<column>`` or no redraw. Not an event: the files stay
        as they are, and a run closed before it writes its release there instead."""
        if self.release_fd < 0:
            return
        with contextlib.suppress(OSError):
            os.write(self.release_fd, line.encode("ascii"))

    def close(self, *, going: bool, status: int | None, restore_path: str | None) -> None:
        """Release, close every descriptor (a held lock goes with it), remove the files
        (``Closed``; once, Rule 1).

        ``going``: the command still runs (``Outlived``), so its FIFOs and ``t``
        stay: the script will still open them when its command ends, and must
        then find them (a FIFO with no reader takes the read-write open and
        discards the write).
        """
        following = self._following(Outlived if going else Closed)
        self._release(status, restore_path)
        self.phase = following
        for fd in (self.status_fd, self.release_fd, self.lock_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.status_fd = self.release_fd = self.lock_fd = -1
        # The script's last step sources t; it is removed with the directory.
        for path in [self.paths[key] for key in "cesg"] + [self.shell_record]:
            if going and path not in (self.paths["c"], self.paths["e"]):
                continue  # the script still opens them, and the record says who does
            with contextlib.suppress(OSError):
                os.unlink(path)

    def disarm_script(self) -> None:
        """Replace the script by one that runs nothing and gives the kept status back
        (``runscript.inert``), so that a line typed for it can never run the command;
        where that cannot be written, remove it (``Disarmed``)."""
        self.phase = self._following(Disarmed)
        fresh = self.paths["r"] + ".new"
        try:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(fresh)
            _write(fresh, runscript.inert(self.paths, self.shell))
            os.replace(fresh, self.paths["r"])
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(self.paths["r"])


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
