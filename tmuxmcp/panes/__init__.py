"""What a pane is doing, read from tmux's facts and the kernel: the pane-facts room (issue 30.1).

``pane_state`` decides what a pane waits for (``shell-ready``,
``awaiting-secret``, …) from tmux's facts and one kernel reading, pure;
``pane_reading`` reads both for a ``list-panes`` listing, with the client
it is given; ``readiness`` is the check ``run_command`` makes before typing
(is the pane's own shell at its prompt?), and ``asking`` whether a run's
program waits for input and keeps waiting; ``activity`` gives cheap
``/proc`` hints that a pane has output; ``records`` holds the session,
window, pane and buffer records with the tmux variables they are read
from, and ``listing`` reads them, one framed ``-F`` query.

Rule: no module here imports the tools (``ToolContext`` and the handlers
included), the run engine, the runtime or the server, directly or not; a
module that needs tmux is given its ``TmuxClient``, and one that reads a
run names only what it needs of it (``asking.RunPane``). It reads ``/proc``
and the terminal only through ``driver.proc``, ``driver.foreground`` and
``driver.tty``. The import contracts in ``pyproject.toml`` keep it so.
"""
