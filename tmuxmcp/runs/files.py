"""The files of one run: the command (and its errexit copy), the script, the status file
and the two FIFOs.

No tmux and no processes here. ``RunFiles`` owns the files of one run in
this process's private directory (mode 0700, made with its owner record by
``directory.make``), the two FIFOs it shares with the pane's shell, the
record of that shell and the run's pane lock; only its own methods change
it, and ``state.Run`` decides when they are called.

Rules: every file is created with ``O_EXCL | O_NOFOLLOW`` and mode 0600; the
files are closed exactly once, which releases the shell, closes the
descriptors (and so the pane lock) and removes the files, the shell's record
with them, unless the command still runs (then the script will still open
the FIFOs and ``t`` when it ends, and the record says whose they are); no
descriptor left to create them (``EMFILE``, ``ENFILE``) is
``DescriptorsExhausted``, which says so (issue 27, N8).
"""

from __future__ import annotations

import contextlib
import os

from tmuxmcp.errors import EXHAUSTED, DescriptorsExhausted
from tmuxmcp.runs import directory, runscript


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
        self.status_fd = -1
        self.release_fd = -1
        self.lock_fd = lock_fd
        """The pane lock (``panelock``), held until the files are closed."""
        self.written = False
        self.released = False
        self.closed = False
        self.outlived = False
        """Closed while its command was still running (its FIFOs and ``t`` stay)."""

    def write(self, command: str, *, shell: str, fence: str) -> None:
        """Create the command, status and script files and the two FIFOs."""
        try:
            self._write(command, shell=shell, fence=fence)
        except OSError as exc:
            if exc.errno in EXHAUSTED:
                raise DescriptorsExhausted.when("create the run's files", exc.errno) from None
            raise

    def _write(self, command: str, *, shell: str, fence: str) -> None:
        f = self.paths
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
        self.written = True
        self.write_script(shell=shell, fence=fence)

    def write_script(self, *, shell: str, fence: str) -> None:
        """(Re)write the script ``r`` for the shell found (before anything is typed)."""
        if self.written and os.path.lexists(self.paths["r"]):
            if shell == self.shell:
                return
            os.unlink(self.paths["r"])
            os.unlink(self.paths["t"])
            _write(self.paths["t"], runscript.status_return(None, None, shell))
        self.shell = shell
        _write(
            self.paths["r"],
            runscript.script(
                files=self.paths, fence=fence, shell=shell, errexit_copy=self.errexit_copy
            ),
        )

    def record_shell(self, pid: int) -> None:
        """Record the shell about to be typed into (again, when the pane was checked again)."""
        directory.record_shell(self.shell_record, pid)

    def release(self, status: int | None, restore_path: str | None) -> None:
        """Let the script finish: it puts the path back and returns the status."""
        if self.released or self.release_fd < 0:
            return
        self.released = True
        with contextlib.suppress(OSError):
            if status is not None:
                tmp = self.paths["t"] + ".new"
                _write(tmp, runscript.status_return(status, restore_path, self.shell))
                os.replace(tmp, self.paths["t"])
            os.write(self.release_fd, b"go\n")

    def close(self, *, going: bool, status: int | None, restore_path: str | None) -> None:
        """Release, close every descriptor (a held lock goes with it), remove the files.

        ``going``: the command still runs, so its FIFOs and ``t`` stay: the
        script will still open them when its command ends, and must then find
        them (a FIFO with no reader takes the read-write open and discards the
        write).
        """
        if self.closed:
            return
        self.outlived = going
        self.release(status, restore_path)
        self.closed = True
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
        where that cannot be written, remove it."""
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
