"""The kernel's facts about a pane's processes, as the handlers ask for them: one seam.

What a pane waits for rests on the kernel, not on tmux (``panes.pane_state``
Rule 1): the terminal's foreground group and what its members are blocked
in, the line modes, whether a process still runs. The handlers that decide
on them (``list_panes``, ``wait_for_state``, ``recover_pane``, and the run
wing's readiness check and its wait for a question) ask a ``Kernel``, the one
the runtime holds (``ToolContext.kernel``), never ``driver.proc`` or
``driver.foreground`` by name. ``Proc`` is the real one, reading the procfs
root it is given (``/proc`` in service) and the pane's terminal; a test's
fake world gives its own (``driver.fake.FakeKernel``, issue 30.2), whose
readings ``tests/driver/test_fake_parity.py`` holds to what ``Proc`` reads of
a real pane on real tmux.

Rules kept here:

* **Rule 1: one question, one reading.** Each method is one reading of
  ``driver.proc``, ``driver.foreground`` or ``driver.tty``, with their rules
  (one ``tpgid`` decides, a terminal opened only as itself); nothing is
  cached between two questions, so each answer is the kernel's of its moment.
* **Rule 2: what the run's shell side reads stays below the seam.** The
  watcher's, the typing's and the sweep's readings (its files held open, its
  image, the directory's owners) are read by ``driver.proc`` directly: they
  need a real shell, which no fake world has.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, Protocol

from tmuxmcp.driver import foreground, proc
from tmuxmcp.driver.foreground import TerminalReading


class Kernel(Protocol):
    """What the handlers ask the kernel about a pane's processes."""

    def available(self) -> bool:
        """Whether process facts can be read here at all (Linux's ``/proc``)."""
        ...

    def read_terminal(self, pane_pid: int, pane_tty: str | None) -> TerminalReading | None:
        """The facts of the terminal ``pane_pid`` runs on (``driver.foreground``), opened at
        ``pane_tty`` (tmux's ``#{pane_tty}``), or, without it, through the process's own
        input; ``None`` when its process is gone or cannot be read."""
        ...

    def foreground_leader(self, pane_pid: int) -> proc.Leader | proc.Unseen:
        """The leader of ``pane_pid``'s terminal's foreground group, or why it is unseen."""
        ...

    def has_group_child(self, shell_pid: int) -> bool:
        """Whether ``shell_pid`` waits for a child of its own process group."""
        ...

    def running(self, pid: int) -> bool:
        """Whether process ``pid`` runs (not gone, not a zombie)."""
        ...


class Proc:
    """The real kernel: ``driver.proc``, ``driver.foreground`` and ``driver.tty`` over a
    procfs root (a test may give a directory of its own)."""

    def __init__(self, root: Path = proc.PROC) -> None:
        self.root = root

    def available(self) -> bool:
        """Whether ``root`` holds process facts."""
        return proc.available(self.root)

    def read_terminal(self, pane_pid: int, pane_tty: str | None) -> TerminalReading | None:
        """One reading of the pane's terminal (``foreground.read_terminal``)."""
        path = proc.terminal_path(pane_pid, self.root) if pane_tty is None else pane_tty
        return foreground.read_terminal(pane_pid, path, self.root)

    def foreground_leader(self, pane_pid: int) -> proc.Leader | proc.Unseen:
        """``proc.foreground_leader``."""
        return proc.foreground_leader(pane_pid, self.root)

    def has_group_child(self, shell_pid: int) -> bool:
        """``proc.has_group_child``."""
        return proc.has_group_child(shell_pid, self.root)

    def running(self, pid: int) -> bool:
        """``proc.running``."""
        return proc.running(pid, self.root)


HOST: Final = Proc()
"""This machine's kernel, as the server reads it."""
