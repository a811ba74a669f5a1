"""Waiting for a pane's shell to be at its prompt: the readiness check, given time to settle.

``readiness`` says whether the pane is ready to take a line, from one look;
this module looks again, within ``SETTLE_SECONDS``, while the answer is one
that passes by itself (a shell drawing its prompt, a program exec'ing the
shell or exiting), and refuses with what the last look saw otherwise.

Rules: with a ``pane_pid`` seen before (the pane's last run,
``RunRegistry.pane_pid``), a look reads /proc alone and no tmux runs: the
typing invocation's guard then confirms in tmux that the pane is still that
process and checks Rules 1 and 3 of ``readiness`` there. Without one, or
when that evidence does not hold, the pane's state and screen are read
first (one tmux invocation) and every rule is checked here, so each refusal
says what the pane is doing, and text waiting after the known prompt is
refused (``pending`` Rule 4; the typing guard requires the cursor where the
prompt ended, so such text sends the cached path here).
"""

from __future__ import annotations

import msgspec
import trio

from tmuxmcp.driver.argv import cmd
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.errors import ObjectNotFound, PaneNotReady, TmuxCommandFailed
from tmuxmcp.panes import readiness
from tmuxmcp.panetext.typed_records import typed_record
from tmuxmcp.runs import pending, registry, screen
from tmuxmcp.tools.context import ToolContext

SETTLE_SECONDS = 1.0
"""How long a shell that is still running (drawing its prompt after the previous
command, say) is given to get back to its prompt before the call is refused."""
SETTLE_PROGRAM_SECONDS = 1.0
"""The same for a program in the foreground, which may be just starting, exec'ing
the shell (``sh -c sh``) or exiting; as long as a shell's settle time, because on
a loaded machine a new pane takes that long to reach its shell."""
PROC_POLL_SECONDS = 0.00025
"""The first pause before the shell is looked at again (doubling up to 50 ms). A
shell usually gets back to its prompt within a millisecond of a run's release,
and a look at /proc alone (a pane seen before) costs about 0.1 ms."""
TMUX_POLL_SECONDS = 0.002
"""The first pause when each look runs tmux (the state and screen read)."""


class Ready(msgspec.Struct, frozen=True):
    """The shell found at its prompt, and the evidence it was found with."""

    shell: readiness.Shell
    pane_pid: int
    screen_read: bool
    """True when the cursor row was read and checked here (Rule 3); False when only
    /proc was read, for the pane_pid seen before, and the typing guard checks the rest."""
    cursor_x: int | None = None
    """The column the typing guard requires the cursor in (``pending`` Rule 4): the
    one this check saw, or where the prompt ended at the last typing; None: unknown."""


async def read_state(ctx: ToolContext, pane: str) -> tuple[readiness.PaneState, list[str]]:
    """The pane's state and its visible screen, in one invocation."""
    fmt = RecordFormat(list(readiness.STATE_FIELDS.values()))
    out = await ctx.client.run(
        cmd("display-message", "-p", t=pane, args=[fmt.template]),
        cmd("capture-pane", "-p", t=pane),
    )
    head, _, body = out.stdout.partition("\n")
    records = fmt.parse(head)
    if len(records) != 1:
        raise TmuxCommandFailed("tmux returned a pane record tmuxmcp could not parse")
    state: readiness.PaneState = typed_record(
        records[0], readiness.STATE_FIELDS, readiness.PaneState
    )
    return state, screen.rows(body)


async def wait_shell_ready(ctx: ToolContext, pane: str) -> Ready:
    """Wait, within the settle time, for the pane's shell to be at its prompt."""
    settle = trio.current_time() + SETTLE_SECONDS
    program_settle = trio.current_time() + SETTLE_PROGRAM_SECONDS
    delay = PROC_POLL_SECONDS
    refusal: PaneNotReady
    while True:
        cached = registry.of(ctx.runs).pane_pid(pane)
        try:
            prompt = registry.of(ctx.runs).prompt(pane)
            if cached is not None and ctx.kernel.available():
                shell = readiness.check_process(pane, cached, kernel=ctx.kernel)
                unseen = registry.of(ctx.runs).unseen_input(pane, shell.pid)
                pending.refuse_unseen_input(pane, shell.program, unseen)
                column = None if prompt is None else prompt.column
                return Ready(shell, cached, screen_read=False, cursor_x=column)
            state, rows = await read_state(ctx, pane)
            if state.pane_id != pane:
                raise ObjectNotFound(f"tmux did not report pane {pane}")
            shell = readiness.check(pane, state, rows, kernel=ctx.kernel)
            registry.of(ctx.runs).saw_pane_pid(pane, state.pid)
            if 0 <= state.cursor_y < len(rows):
                pending.refuse_typed_ahead(pane, rows[state.cursor_y], state.cursor_x, prompt)
            unseen = registry.of(ctx.runs).unseen_input(pane, shell.pid)
            pending.refuse_unseen_input(pane, shell.program, unseen)
            return Ready(shell, state.pid, screen_read=True, cursor_x=state.cursor_x)
        except readiness.ShellBusy as exc:
            refusal, waited = exc, trio.current_time() >= settle
        except readiness.ProgramInForeground as exc:
            refusal, waited = exc, trio.current_time() >= program_settle
        except PaneNotReady as exc:
            refusal, waited = exc, True
        if waited:
            if cached is None:
                raise refusal
            # The pane_pid seen before does not show a shell at its prompt (or
            # no longer is the pane's): one full check decides, from tmux's
            # current state and screen, and names what it sees.
            registry.of(ctx.runs).forget_pane_pid(pane)
            continue
        # A look at /proc alone costs far less than one that runs tmux: poll it faster.
        await trio.sleep(delay if cached is not None else max(delay, TMUX_POLL_SECONDS))
        delay = min(delay * 2, 0.05)
