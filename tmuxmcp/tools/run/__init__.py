"""The ``run_command`` wing: a shell command typed into a pane's shell, watched, collected.

How a run works, one module per phase:

1. ``settle`` waits, within a settle time, until ``readiness`` finds the
   pane's own shell waiting at its prompt (from tmux's state and, on Linux,
   ``/proc``); anything else is refused with ``pane-not-ready`` before
   anything is typed;
2. ``type_line`` writes the command into a file of this process's private
   directory (``files``, in ``directory``) and types one short line
   (``runscript``: `` { _='the command' . /dev/shm/tmuxmcp-…/r7; . "$tmuxmcp_t" && :; } …``),
   so a command of any length up to the cap runs exactly as written; the
   invocation that types first re-checks the pane inside tmux (Rule 4 of
   ``readiness``) and stops before the paste if it changed;
3. ``watch`` waits for the status, which arrives on a FIFO, not the screen,
   and notices a shell that exited, left the script or never ran the line
   (one that left it by itself, on a SIGINT, has its status read back by a
   probe: one more typed run, on that path only);
4. ``collect`` reads the output from the screen between the prompt row and
   the cursor once tmux has drawn all of it, while the script holds the
   shell back from drawing its next prompt; ``output`` (pure) finds where it
   starts and shapes it to the budget, with its counts.

The engine below the phases, which knows no ``ToolContext`` and no tmux
client, is its own package, ``tmuxmcp.runs`` (issue 30.1): ``state``,
``files``, ``directory``, ``sweep``, ``turns``, ``panelock``, ``registry``,
``runscript``, ``output``, ``screen`` and ``pending`` live there; what a
pane is doing is ``tmuxmcp.panes``' (``readiness``, the check before typing,
and ``asking``, whether the run's program waits for input); this package
keeps the handlers and the phases that talk to tmux.

``state`` owns a run's life (its phases, the typed events that move it and
the one transitions table), ``files`` its files' (written once, closed once);
``registry`` owns the runs of this process;
``sweep`` removes the private directories that dead processes left;
``turns`` serves the calls of this process on one pane one at a time, in the
order they came; ``panelock`` keeps runs on one pane from overlapping across
every tmuxmcp process on the socket; ``handlers`` puts the phases in order.

Two tmux processes in the common case (type, read), none started in the
pane: on a pane that ran a command before, its ``pane_pid`` is known, the
readiness check reads /proc alone, and tmux's re-check covers the rest. The
first run on a pane, or one whose re-check fails, reads the pane's state and
screen first (three). The command runs in the pane's current shell, so
``cd`` and ``export`` persist, as when a person types it. A run that
outlives its call's ``timeout`` keeps running and is still watched;
``wait_for_command`` with its ``run_id`` waits again and returns the same
result shape; for a client that opted in to MCP Tasks the call continues as
a task instead (``continuation``), whose result is the same.

Where each rule of the wing lives (each module's docstring states its own):

* is the pane ready to take a line: ``panes.readiness`` Rules 1-4; the settle time: ``settle``;
* input already waiting in the pane (a terminal's reply, text typed at the prompt): ``pending``
  Rules 1-4;
* what the script does, errexit and ``ERR_RETURN`` as typed, the ``set -e`` refusal:
  ``runscript`` Rules 1-3;
* the files, their modes and when they go: ``files`` Rules 1-3; the directory: ``directory``,
  and when another process's is removed: ``sweep``; one run per pane: ``turns`` Rules 1-6
  in this process, ``panelock`` across processes;
* the phases of a run and their moves: ``state`` Rules 1-4;
* a shell that exited, left the script or did not run the line: ``watch`` Rules 1-3;
* where the output starts, what is kept, the counts and what the screen cannot keep:
  ``output`` Rules 1-4;
* bounded reads of a long output: ``collect``;
* a run an MCP Task follows, its outcome and its interruption: ``continuation`` Rules 1-4;
* a wait that stops when the program asks for input: ``panes.asking`` Rules 1-3.

The names below are the wing's public face: every other module of
``tmuxmcp`` imports the wing from here, never from its modules (an
import-linter contract keeps it so, and ``tests/tools/run/test_public.py``
pins the names).
"""

from tmuxmcp.runs.pending import typed_ahead as typed_ahead
from tmuxmcp.runs.registry import RunRegistry as RunRegistry
from tmuxmcp.runs.registry import of as _registry_of
from tmuxmcp.tools.run.commands import RunCommandArgs as RunCommandArgs
from tmuxmcp.tools.run.commands import RunCommandResult as RunCommandResult
from tmuxmcp.tools.run.commands import WaitForCommandArgs as WaitForCommandArgs
from tmuxmcp.tools.run.continuation import RunTask as RunTask
from tmuxmcp.tools.run.continuation import continue_as_task as continue_as_task
from tmuxmcp.tools.run.handlers import run_command as run_command
from tmuxmcp.tools.run.handlers import wait_for_command as wait_for_command

registry_of = _registry_of
"""The ``RunRegistry`` a ``ToolContext`` carries (``registry.of``), for the tools that
ask the wing about a pane's run or its descriptors (``recover``, ``handover``)."""
