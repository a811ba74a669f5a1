"""A run that outlived its call's wait, as the work an MCP Task follows.

The call waits its ``timeout``, or only the operator's hand-over time when the
server may hand it over (``ToolContext.hand_over``, issue 29.1).

``continue_as_task`` is what the definition declares for ``run_command``
(``ToolSpec.continues``): given the call's unfinished result, the
``RunTask`` a task follows; the server makes the task (``protocol.tasks``)
only for a request that opted in. The protocol side knows nothing of panes;
this module says what the task's progress, outcome and cancellation mean for
a run.

Rule 1: the outcome is the result ``run_command`` would have returned had
  it waited (``handlers.ended``: the same budget, the same fields, its
  ``run_id``); an error the run ended with is raised, for the server to make
  the ``isError`` result every call gets.
Rule 2: the run stays in the registry while the task lives (``hold``), so
  ``wait_for_command`` keeps working on it, whatever else finishes.
Rule 3: stopping types ``C-c`` only while the run still holds its pane and
  has not ended, marking the run ``Stopped`` first, so that the shell leaving
  the script is tmuxmcp's interruption (``state`` Rule 5), not a status to
  read back; then it waits at most ``STOP_WAIT`` seconds for the watcher to
  see the shell leave the script (the pane is then free for the next run).
  It says what happened (issue 27 N7): ``stopped`` only when the run ended
  by that interruption (``Phase.INTERRUPTED`` after ``Stopped``); ``ended``
  when the run ended otherwise (by itself, or a command that caught the
  interrupt and exited: its result is the real one); ``running`` when the
  command ignores the interrupt and goes on, keeping the pane busy as it
  would for a person, and the task follows it to its end.
Rule 5: a program that asks ends the task (issue 28.2): while the task is
  followed, the terminal is read as a waiting call reads it (``asking``); once
  the command's program waits for a line, a secret or keys and keeps waiting,
  the task completes with the result ``run_command`` gives then
  (``handlers.asked``: ``completed`` false, ``waiting_for``, the question),
  so the agent is woken to answer instead of the task waiting out its TTL.
  The run goes on: ``wait_for_command`` collects it after the answer.
Rule 4: the progress line is the command's own: the last non-blank line of
  its output so far, or its text while it has printed nothing, never
  tmuxmcp's typed line (``collect.progress_line``, issue 27 N7); untrusted,
  the protocol layer makes it one bounded printable line
  (``tasks.status_line``).
"""

from __future__ import annotations

from typing import Literal

import msgspec
import trio

from tmuxmcp.driver.argv import cmd
from tmuxmcp.panes import asking
from tmuxmcp.runs import registry
from tmuxmcp.runs.state import Phase, Run, Stopped
from tmuxmcp.tools.context import ToolContext, _no_progress
from tmuxmcp.tools.run import collect
from tmuxmcp.tools.run.commands import RunCommandArgs, RunCommandResult
from tmuxmcp.tools.run.handlers import asked, ended

STOP_WAIT = 3.0
"""Seconds to wait, after C-c, for the shell to leave the script (Rule 3): within the
5 s Claude Code gives a ``tasks/cancel`` (research/mcp-tasks.md, section 2)."""


class RunTask:
    """The run a task follows (see the module docstring)."""

    def __init__(self, ctx: ToolContext, run: Run, budget: int) -> None:
        self._ctx = ctx
        self.run = run
        self._budget = budget
        self._asked: RunCommandResult | None = None
        registry.of(ctx.runs).hold(run)

    def finished(self) -> bool:
        """Whether the run reached its final phase, or its program asks (Rule 5)."""
        return self.run.done.is_set() or self._asked is not None

    async def result(self) -> RunCommandResult:
        """The run's result (Rule 1), or what its program asks (Rule 5); raises the
        ``TmuxMcpError`` it ended with."""
        if self._asked is not None and not self.run.done.is_set():
            return self._asked
        return ended(self.run, self._budget)

    async def progress(self) -> str:
        """The command's last line of output, or its text (Rule 4)."""
        return await collect.progress_line(self._ctx, self.run)

    async def wait_finished(self) -> None:
        """Return once the run reached its final phase, or its program asks (Rule 5)."""
        asks = asking.AskWatch(self._ctx.kernel)
        while not self.run.done.is_set():
            with trio.move_on_after(asking.ASK_POLL_SECONDS):
                await self.run.done.wait()
            if self.run.done.is_set():
                return
            waiting_for = asks.read(self.run)
            if waiting_for is not None:
                self._asked = await asked(self._ctx, self.run, self._budget, waiting_for)
                return

    async def stop(self) -> Literal["stopped", "ended", "running"]:
        """Interrupt the command (Rule 3); what that did."""
        run = self.run
        if not run.done.is_set():
            if registry.of(self._ctx.runs).busy.get(run.pane) is run:
                # Said before the key is sent: the shell leaving the script after it is
                # then tmuxmcp's interruption, not a status to read back (state Rule 5).
                if run.allows(Stopped()):
                    run.handle(Stopped())
                await self._ctx.client.run(cmd("send-keys", t=run.pane, args=["C-c"]))
            with trio.move_on_after(STOP_WAIT):
                await run.done.wait()
            if not run.done.is_set():
                return "running"
        return "stopped" if run.stopped and run.phase is Phase.INTERRUPTED else "ended"

    def release(self) -> None:
        """The task is gone: the run ages out like any other (Rule 2)."""
        registry.of(self._ctx.runs).release(self.run)


def continue_as_task(
    ctx: ToolContext, args: RunCommandArgs, result: RunCommandResult
) -> RunTask | None:
    """The work a task follows for an unfinished ``run_command`` result, else None."""
    run = registry.of(ctx.runs).runs.get(result.run_id)
    if not result.timed_out or run is None:
        return None
    # The task outlives the call: it reports no progress to the call's client.
    quiet = msgspec.structs.replace(ctx, progress=_no_progress, reports_progress=False)
    return RunTask(quiet, run, args.max_output_bytes)
