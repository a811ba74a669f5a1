"""The state of ``run_command`` runs: their files, FIFOs and outcome, and the registry.

No tmux and no processes here: a ``Run`` owns the files of one run in this
process's private directory (mode 0700, made with its owner record by
``run_directory.make``), the two FIFOs it shares with the pane's shell, the
record of that shell, and its pane lock; ``RunRegistry`` owns the runs, the
nursery that watches them (see ``runs``) and the directory.

Rules: every file is created with ``O_EXCL | O_NOFOLLOW`` and mode 0600; a
run is closed exactly once, which releases the shell, closes its descriptors
(and so its pane lock) and removes its files, its shell's record with them
unless its command still runs. The private directory is made in ``$TMPDIR``
when it is set, else on a memory file system when there is one
(``$XDG_RUNTIME_DIR``, ``/dev/shm``; ``run_directory.directory_base``): each
run creates four files and two FIFOs, and on a disk file system (``/tmp`` on
ext4) that alone took about a millisecond of a call. A directory left behind
(a command outlived this process, or it was killed) is removed by a later
tmuxmcp's ``RunRegistry.sweep`` once its owner and shells are gone.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil

import msgspec
import trio

from tmuxmcp.errors import TmuxMcpError
from tmuxmcp.tools.run import directory as run_directory
from tmuxmcp.tools.run import runscript
from tmuxmcp.tools.run import sweep as run_sweep
from tmuxmcp.tools.run.directory import directory_base
from tmuxmcp.tools.scrollback import Mark


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """What a finished run produced."""

    exit_status: int | None
    head: list[str]
    tail: list[str]
    """Output lines; when the output was longer than two windows, ``lines_omitted``
    screen rows between ``head`` and ``tail`` were not read."""
    lines_omitted: int
    lines_lost: int | None
    """Rows that scrolled out of the history before they were read; None if unknown."""
    start_lost: bool
    gap_reason: str | None = None
    """Why the start is gone: ``scrollback.GapReason`` (history-limit, history-cleared, ...)."""


class Run:
    """One typed command, from typing to collection."""

    def __init__(self, run_id: str, pane: str, directory: str, index: int) -> None:
        self.run_id = run_id
        self.pane = pane
        self.files = {key: os.path.join(directory, f"{key}{index}") for key in "rcsgt"}
        self.shell_record = os.path.join(directory, f"{run_directory.SHELL_PREFIX}{index}")
        """Which shell will source the files (``run_directory``, Rule 2)."""
        self.fence = f"tmuxmcp-{secrets.token_hex(12)}"
        self.began = trio.current_time()
        self.started = False
        self.status: int | None = None
        self.done = trio.Event()
        self.outcome: Outcome | None = None
        self.error: TmuxMcpError | None = None
        self.mark: Mark | None = None
        self.typed = ""
        self.files_written = False
        self.shell = ""
        """The base name of the shell the script is written for (``runscript.script``)."""
        self.refused: str | None = None
        """Why the script ran nothing (``runscript.REFUSALS``), when it said so instead of ``S``."""
        self.budget = 64 * 1024
        """Bytes of output to collect (the starting call's max_output_bytes)."""
        self.restore_path: str | None = None
        self.pane_pid = 0
        self.shell_pid: int | None = None
        self.status_fd = -1
        self.release_fd = -1
        self.lock_fd = -1
        self.released = False
        self.closed = False
        self.outlived = False
        """Closed while its command was still running (its files must stay)."""
        self.shell_gone = False
        """Its shell exited, or left the script, before reporting the end (an exit, tmux
        hanging it up, C-c): no script will ever look for its files."""
        self.cancel = trio.CancelScope()

    # -- files ------------------------------------------------------------------

    def write_files(self, command: str, *, shell: str) -> None:
        """Create the command, status and script files and the two FIFOs."""
        f = self.files
        _write(f["c"], command if command.endswith("\n") else command + "\n")
        _write(f["t"], runscript.status_return(0, None, shell))
        os.mkfifo(f["s"], 0o600)
        os.mkfifo(f["g"], 0o600)
        # Read-write opens never block, and holding the release FIFO open is
        # what lets the shell's read-only open of it return at once. When this
        # process dies the descriptor closes and the shell's read ends (EOF).
        self.status_fd = os.open(f["s"], os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        self.release_fd = os.open(f["g"], os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        self.files_written = True
        self.write_script(shell=shell)

    def write_script(self, *, shell: str) -> None:
        """(Re)write the script ``r`` for the shell found (before anything is typed)."""
        if self.files_written and os.path.lexists(self.files["r"]):
            if shell == self.shell:
                return
            os.unlink(self.files["r"])
            os.unlink(self.files["t"])
            _write(self.files["t"], runscript.status_return(0, None, shell))
        self.shell = shell
        script = runscript.script(files=self.files, fence=self.fence, shell=shell)
        _write(self.files["r"], script)

    def record_shell(self) -> None:
        """Record the shell about to be typed into (again, when the pane was checked again)."""
        run_directory.record_shell(self.shell_record, self.shell_pid or self.pane_pid)

    def release(self) -> None:
        """Let the script finish: it puts the path back and returns the status."""
        if self.released or self.release_fd < 0:
            return
        self.released = True
        with contextlib.suppress(OSError):
            if self.status is not None:
                tmp = self.files["t"] + ".new"
                _write(tmp, runscript.status_return(self.status, self.restore_path, self.shell))
                os.replace(tmp, self.files["t"])
            os.write(self.release_fd, b"go\n")

    @property
    def pending(self) -> bool:
        """Typed and started (or maybe started), and its script has not reported its end."""
        return self.status_fd >= 0 and self.status is None and self.started and not self.shell_gone

    def close(self) -> None:
        """Release, close every descriptor (a held lock goes with it), remove the files.

        A run still going keeps its FIFOs and ``t``: the script will still
        open them when its command ends, and must then find them (a FIFO with
        no reader takes the read-write open and discards the write).
        """
        if self.closed:
            return
        going = self.pending
        self.outlived = going
        self.release()
        self.closed = True
        for fd in (self.status_fd, self.release_fd, self.lock_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.status_fd = self.release_fd = self.lock_fd = -1
        # The script's last step sources t; it is removed with the directory.
        for path in [self.files[key] for key in "csg"] + [self.shell_record]:
            if going and path != self.files["c"]:
                continue  # the script still opens them, and the record says who does
            with contextlib.suppress(OSError):
                os.unlink(path)

    def disarm(self) -> None:
        """The shell did not run the typed line: make sure it never can."""
        with contextlib.suppress(OSError):
            os.unlink(self.files["r"])
        self.close()

    # -- the status channel -----------------------------------------------------

    def read_events(self, data: bytes) -> None:
        """Take ``S`` and ``E <status>`` lines from the status FIFO."""
        for line in data.decode("ascii", "replace").splitlines():
            if line == "S":
                self.started = True
            elif line.startswith("X ") and line[2:] in runscript.REFUSALS:
                self.refused = line[2:]
            elif line.startswith("E ") and line[2:].isdigit():
                self.started = True
                self.status = int(line[2:])


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)


KEEP_FINISHED = 64
"""Finished runs kept for ``wait_for_command`` to report again."""


class RunRegistry:
    """Every run of this process, its private directory and its watchers."""

    def __init__(self) -> None:
        self._directory: str | None = None
        self._count = 0
        self.runs: dict[str, Run] = {}
        self.busy: dict[str, Run] = {}
        self.nursery: trio.Nursery | None = None
        self.pane_pids: dict[str, int] = {}
        """The ``pane_pid`` last seen for each pane: where readiness reads /proc
        before typing. Only a hint: the typing guard (``driver.guards.guard_name``)
        checks it against tmux's own value in the invocation that pastes."""

    def attach(self, nursery: trio.Nursery | None) -> None:
        """Watch runs in ``nursery`` (the server's), so they outlive the calls that start them."""
        self.nursery = nursery

    def directory(self) -> str:
        """This process's private directory (0700), made on first use."""
        if self._directory is None:
            self._directory = run_directory.make(directory_base())
        return self._directory

    def sweep(self) -> list[str]:
        """Remove the directories other tmuxmcp processes left that nobody can use any
        more (``run_sweep``: owner and shells gone); their paths."""
        return run_sweep.sweep(directory_base())

    def new_run(self, pane: str) -> Run:
        """A fresh run with its own id and file names."""
        self._count += 1
        run = Run(secrets.token_hex(6), pane, self.directory(), self._count)
        self.runs[run.run_id] = run
        finished = [r for r in self.runs.values() if r.done.is_set()]
        for old in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            self.runs.pop(old.run_id, None)
        return run

    def shutdown(self) -> None:
        """Release every shell still held; remove the private directory unless a
        command still running will look for its files when it ends."""
        going = False
        for run in list(self.runs.values()):
            run.cancel.cancel()
            run.close()
            going = going or run.outlived
        if self._directory is not None and not going:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None
