"""Typing a run's line: the files written, the pane re-checked, the start marked, the paste.

One tmux invocation types the line (``runscript.typed_line``) and, before
the paste, re-checks the pane inside tmux (Rule 4 of ``readiness``: the
typing guard, ``driver.guards.guard_name``) and takes the start mark (the
prompt row, a ``scrollback.Mark``, with the prompt's text and whether the
screen below it was blank, ``output.AtTyping``) in the same instant. A refused guard
stops the invocation before anything is pasted; the pane is then checked
again in full and typed once more, at most ``TYPING_ATTEMPTS`` times.
"""

from __future__ import annotations

import secrets

from tmuxmcp.driver import guards, proc
from tmuxmcp.driver.argv import cmd
from tmuxmcp.errors import PaneNotReady
from tmuxmcp.panetext.scrollback import View, mark_at
from tmuxmcp.runs import output, pending, registry, runscript, screen
from tmuxmcp.runs.state import Checked, Run, Typed
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.run import settle

TYPING_ATTEMPTS = 3
"""Typings tried when tmux's guard keeps finding the pane changed since the check."""


async def type_line(
    ctx: ToolContext,
    run: Run,
    command: str,
    *,
    suppress_history: bool,
    ready: settle.Ready,
) -> bool:
    """Re-check the pane, take the start mark and type the line, in one invocation.

    The re-check (Rule 4 of ``readiness``) runs first, inside tmux: when the
    pane is no longer the process whose /proc entry was read
    (``run.pane_pid``), or is dead, in a mode, on the alternate screen, or
    (unless ``ready.screen_read``: the cursor row was checked already) shows
    a row beginning like a continuation prompt, nothing is typed and this
    returns False. True once the line is typed.
    """
    fmt = screen.path_frame_format()
    name = f"tmuxmcp-{secrets.token_hex(8)}"
    pid = ready.shell.pid
    run.handle(Checked(ready.pane_pid, pid, None if pid is None else proc.image(pid)))
    run.write_files(command, shell=ready.shell.program)
    line = runscript.typed_line(
        command, run.files.paths, shell=ready.shell.program, suppress_history=suppress_history
    )
    run.record_shell()
    guard = guards.guard_name(
        ctx.client.marker,
        run.pane,
        run.pane_pid,
        rows=not ready.screen_read,
        cursor_x=ready.cursor_x,
    )
    try:
        out = await ctx.client.run(
            cmd("show-options", "-s", "-v", t=run.pane, args=[guard]),
            cmd("display-message", "-p", t=run.pane, args=[fmt.template]),
            cmd("capture-pane", "-p", t=run.pane, S=-2),
            cmd("load-buffer", b=name, args=["-"]),
            cmd("paste-buffer", "-d", "-r", b=name, t=run.pane),
            stdin=line.encode("utf-8"),
        )
    except guards.GuardRefused as refused:
        # The typing guard, told by its typed refusal (driver.guards Rule 2),
        # never by searching an error's text.
        if refused.refusal is guards.Refusal.PANE_CHANGED:
            return False
        raise
    _, _, rest = out.stdout.partition("\n")  # the guard's option value
    head, _, body = rest.partition("\n")
    found = screen.frame_of(head, fmt)
    start = found.frame
    rows = screen.rows(body)
    view = View(start, rows[-(start.history_size + start.height) :])
    mark = mark_at(view, view.cursor_row, start.cursor_x)
    screen_then = output.at_typing(view.rows, view.cursor_row - view.top, start.cursor_x)
    if view.top <= view.cursor_row < view.end:
        # Where the prompt ended, nothing typed after it (checked or guarded): the
        # next run's guard wants the cursor there (pending Rule 4).
        prompt = pending.prompt_at(view.row(view.cursor_row), start.cursor_x)
        registry.of(ctx.runs).saw_prompt(run.pane, prompt)
    run.handle(
        Typed(
            line=line,
            mark=mark,
            restore_path=found.path,
            at_typing=screen_then,
            command=command,
        )
    )
    return True


async def wait_line_typed(
    ctx: ToolContext, run: Run, command: str, *, suppress_history: bool, ready: settle.Ready
) -> None:
    """Type the run's line; when tmux's guard finds the pane changed since the check,
    check again in full (nothing was typed) and type once more, or refuse."""
    pane = run.pane
    for attempt in range(TYPING_ATTEMPTS):
        typed = await type_line(ctx, run, command, suppress_history=suppress_history, ready=ready)
        if typed:
            return
        registry.of(ctx.runs).forget_pane_pid(pane)
        if attempt < TYPING_ATTEMPTS - 1:
            ready = await settle.wait_shell_ready(ctx, pane)
    raise PaneNotReady(
        f"pane {pane} kept changing between tmuxmcp's readiness check and typing (a "
        "program starting or a mode opening?); nothing was typed. Retry, or look at it "
        "with capture_pane"
    )
