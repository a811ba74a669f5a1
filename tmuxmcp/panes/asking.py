"""Does a run's program ask for input? A run's wait stops when it does (issue 28.2).

A command that opens a pager, asks ``[Y/n]`` or a password waits for an
answer nobody will give, and a call that waits for the command to end would
wait out its whole ``timeout`` with the question on screen. While a run's
call waits, the pane's terminal is read from the kernel (``panes.pane_state``,
the same reading ``list_panes`` reports) a few times a second; when its
foreground waits for a line, a secret or keys, and keeps waiting, the call
returns with the run still going (``completed: false``), saying what it waits
for, so the agent can answer and collect it with ``wait_for_command``.

Rules kept here:

* **Rule 1: the kernel decides.** Only a state read from the terminal counts
  (``pane_state`` Rule 1): a command that prints "Password:" and goes on
  working is not cut short.
* **Rule 2: it must stay.** A state counts once it held for
  ``ASK_SETTLE_SECONDS`` (every reading in that time the same): a program
  that reads the terminal for a moment (a key check, a terminal query) and
  goes on does not end the wait, nor does a shell between two commands.
* **Rule 3: cheap.** A reading is a few ``/proc`` files and one
  ``tcgetattr``, no tmux process; where ``/proc`` cannot be read, nothing is
  ever found asking and the wait is what it was.
"""

from __future__ import annotations

from typing import Final, Literal, Protocol

import trio

from tmuxmcp.driver.kernel import Kernel
from tmuxmcp.panes.pane_state import LIVE_PANE, classify

Asking = Literal["awaiting-line", "awaiting-secret", "awaiting-keys"]
ASKING: Final[frozenset[str]] = frozenset({"awaiting-line", "awaiting-secret", "awaiting-keys"})
ASK_SETTLE_SECONDS: Final = 1.0
"""How long a program must keep waiting for input before a run's wait stops (Rule 2)."""
ASK_POLL_SECONDS: Final = 0.25
"""How often a run's wait reads the terminal (Rule 3)."""


class RunPane(Protocol):
    """What a reading needs of a run (``runs.state.Run``): its pane's process."""

    @property
    def pane_pid(self) -> int:
        """The pane's process, whose terminal is read; 0 or less when not known."""
        ...


def asking_now(run: RunPane, kernel: Kernel) -> Asking | None:
    """What the foreground of the run's terminal waits for now, if it waits for input
    (read through ``kernel``, ``driver.kernel``)."""
    if run.pane_pid <= 0:
        return None
    reading = kernel.read_terminal(run.pane_pid, None)
    state = classify(LIVE_PANE, reading).state
    if state == "awaiting-line":
        return "awaiting-line"
    if state == "awaiting-secret":
        return "awaiting-secret"
    if state == "awaiting-keys":
        return "awaiting-keys"
    return None


class AskWatch:
    """Readings of one run's terminal during one wait, and when one has held (Rule 2)."""

    def __init__(self, kernel: Kernel) -> None:
        self._kernel = kernel
        self._state: Asking | None = None
        self._since = 0.0

    def read(self, run: RunPane) -> Asking | None:
        """Read the terminal once; the state it waits for once it held long enough."""
        now = trio.current_time()
        state = asking_now(run, self._kernel)
        if state != self._state:
            self._state, self._since = state, now
            return None
        if state is not None and now - self._since >= ASK_SETTLE_SECONDS:
            return state
        return None
