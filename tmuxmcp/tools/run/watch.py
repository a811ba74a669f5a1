"""Watching a typed run: its status channel, its shell, and the end it comes to.

A run is watched by a task of the server's own nursery
(``RunRegistry.attach``), not by the call that started it: when a call times
out, the command keeps running and its watcher keeps waiting, so the pane's
shell is released the moment the command ends (its next prompt is not held
hostage), and ``wait_for_command`` later returns the same result.

The status comes from the FIFO ``s<k>`` (see ``runscript``), never from the
screen, so a pane program that reads the screen cannot forge it. Each line
on it becomes an event of ``state`` (``status_events``); what the run's
phase does not take (a repeated or forged line: a program of the same user
can write the FIFO) is dropped.

Rules, checked each second while no status has come:

Rule 1: a shell that is no longer alive (``driver.proc.running``: gone, or a zombie)
  ends the run with ``ShellExited``, saying what became of the pane.
Rule 2: a shell that started the script and no longer holds its release
  FIFO open, ``ABANDONED_CHECKS`` polls in a row, has left the script: when a
  command's program dies of a signal (SIGINT: C-c), or C-c stops a builtin,
  dash, bash and zsh abandon the whole command line, sourced files included,
  back to their prompt, with ``$?`` the status a person would see there
  (130). Such a run is ``Left`` (``state`` Rule 5), and ``_read_back`` gives
  it an ordinary result: its output, read like a run still going's up to the
  prompt the shell drew (``collect.left``), and its status, read back by a
  *status probe*: an empty command typed and watched like any run (readiness
  and pending-input guards included), whose ``S <status>`` is the ``$?`` its
  typed line found, and whose release gives that ``$?`` back to the shell.
  The run is ``Interrupted`` (``command-interrupted``) instead when tmuxmcp
  itself typed the C-c (``Stopped``: an MCP Task's stop), when the pane is
  not safe to type into (a person typing, text waiting at the prompt: the
  message says which), when the shell now runs another program (``exec``,
  told by ``driver.proc.image``), and when its pane or server is gone (that
  error). A probe's own shell leaving it is never probed again.
Rule 3: a shell that has not started the script ``START_GRACE`` seconds after
  typing and still sleeps at its prompt read the line without running it
  (a continuation, a ``read``): the script is removed so that line can never
  run it, and the run ends with ``NotRun``.

The read-back's path (Rule 2, issue 30.1) is one straight sequence,
``_read_back``, each phase entered once from it or from the one helper it
calls once for that step: ``settle`` (is the pane safe to type into),
``collect.left`` (the left run's output), the probe typed
(``type_line.wait_line_typed``), watched (``_wait_for_status``, the loop
every run's watcher runs) and released (``_probe``), ``settle`` and
``collect.prompt_after`` (the prompt the shell drew after it,
``_prompt_after``), then ``Probed``. It re-enters the handler's phases
rather than having its own because a probe is a run like any other, its
guards included. Two re-entries stay, and cannot be one call: ``settle``
is asked twice, before the probe is typed and after its release, because
the probe's own run lies between the two prompts it waits for; and the
typing checks the pane again through ``settle`` when tmux's guard finds it
changed (at most ``type_line.TYPING_ATTEMPTS`` typings), as the handler's
typing does, in the one function both call.
"""

from __future__ import annotations

import contextlib
import os

import trio

from tmuxmcp.driver import proc
from tmuxmcp.driver.argv import cmd
from tmuxmcp.errors import (
    CommandInterrupted,
    ObjectNotFound,
    PaneNotReady,
    TmuxMcpError,
)
from tmuxmcp.panes import readiness
from tmuxmcp.runs import output, redraw, registry, runscript, screen
from tmuxmcp.runs.output import Outcome
from tmuxmcp.runs.redraw import Before, Redraw
from tmuxmcp.runs.state import (
    FINAL,
    Abandoned,
    Cancelled,
    Collected,
    Ended,
    Event,
    Failed,
    Interrupted,
    Left,
    NotRun,
    Phase,
    Probed,
    Refused,
    Run,
    ShellExited,
    Started,
)
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.run import collect, settle, type_line

START_GRACE = 2.0
"""Seconds after typing before a shell that has not started the script is examined."""
ABANDONED_CHECKS = 2
"""Idle polls in a row (1 s each) that must find the script's release FIFO closed
by its shell before the run counts as abandoned: the script opens it just after
reporting ``S``, so one poll could fall between the two on a loaded machine."""
EXIT_NOTICE_SECONDS = 2.0
"""How long tmux is given to notice that a pane's shell has exited."""


async def watch(ctx: ToolContext, run: Run) -> None:
    """Wait for the status, collect the output, release the shell. Never raises ours."""
    try:
        with run.cancel:
            await _wait_for_status(ctx, run)
            if run.phase is Phase.ENDED:
                run.handle(Collected(await collect.collect(ctx, run)))
            elif run.phase is Phase.LEFT:
                await _read_back(ctx, run)
    except TmuxMcpError as exc:
        run.handle(Failed(exc))
    finally:
        if run.phase not in FINAL:
            run.handle(Cancelled())
        run.close()
        registry.of(ctx.runs).free(run)


def status_events(data: bytes, pane: str) -> list[Event]:
    """The events in what the script wrote on the status FIFO (``S <status>``,
    ``E <status>``, ``X <option>``); other lines are no event."""
    events: list[Event] = []
    for line in data.decode("ascii", "replace").splitlines():
        if line.startswith("S ") and line[2:].isdigit():
            events.append(Started(int(line[2:])))
        elif line.startswith("X ") and line[2:] in runscript.REFUSALS:
            events.append(Refused(runscript.refusal(line[2:], pane)))
        elif line.startswith("E ") and line[2:].isdigit():
            events.append(Ended(int(line[2:])))
    return events


def take_status(run: Run, data: bytes) -> None:
    """Move ``run`` by the events in ``data``; a line its phase does not take is dropped
    (a repeated line, or one a program of the same user forged on the FIFO)."""
    for event in status_events(data, run.pane):
        if run.allows(event):
            run.handle(event)


async def _wait_for_status(ctx: ToolContext, run: Run) -> None:
    grace = run.began + START_GRACE
    unheld = 0
    while run.phase in (Phase.TYPED, Phase.RUNNING):
        data: bytes | None = None
        with trio.move_on_after(1.0):
            await trio.lowlevel.wait_readable(run.files.status_fd)
            data = b""
            with contextlib.suppress(BlockingIOError):
                data = os.read(run.files.status_fd, 4096)
        if data is not None:
            was_started = run.started
            take_status(run, data)
            if run.started and not was_started:
                # Outside the poll's timeout: the read is never cut short by it.
                await _answer(ctx, run)
            continue
        if not proc.running(run.shell_pid or run.pane_pid):
            run.handle(ShellExited(await _shell_exited(ctx, run)))
            return
        if run.started and run.shell_pid is not None:
            # The script holds its release FIFO open (a saved copy while the
            # command runs) until it reports its end. A shell that dropped it
            # has left the script: C-c aborts a sourced script in every
            # shell, which then never reports (measured in dash, bash, zsh).
            held = proc.holds_open(run.shell_pid, run.files.paths["g"])
            unheld = unheld + 1 if held is False else 0
            if unheld >= ABANDONED_CHECKS:
                gone = await _tmux_gone(ctx, run)
                if gone is not None:
                    run.handle(Interrupted(gone))
                elif run.stopped or run.probe:
                    run.handle(Interrupted(_interrupted(run)))
                elif _replaced(run):
                    why = "its shell was replaced by exec, so it never ended"
                    run.handle(Interrupted(_interrupted(run, why)))
                else:
                    run.handle(Left())
                return
        if (
            not run.started
            and trio.current_time() >= grace
            and readiness.still_waiting_at_prompt(run.pane_pid, run.shell_pid)
        ):
            run.handle(
                NotRun(
                    PaneNotReady(
                        f"pane {run.pane}'s shell read the typed line but did not run it: "
                        "text was waiting at its prompt before the line (typed but not "
                        "entered), the shell waits for more input (an unclosed quote, "
                        "here-document, or a line ending in \\), or a builtin `read` took "
                        "it. Nothing ran; tmuxmcp removed its script, so that line can never "
                        "run it. Look with capture_pane; clear the pending input with "
                        "send_keys C-u or C-c"
                    )
                )
            )
            run.disarm()  # closed by ``watch``, as every watched run is
            return


SCREEN_FORMAT = (
    "#{cursor_x} #{cursor_y} #{history_size} #{pane_height} #{pane_width} #{alternate_on}"
)
"""What the redraw's one read asks of the pane besides its visible rows (Rule 4)."""


async def _answer(ctx: ToolContext, run: Run) -> None:
    """Rule 4: the script waits after ``S`` for tmuxmcp's word; give it, whatever
    happens (a run closed first gives it its release instead, ``files``)."""
    seen: Redraw | Before | None = None
    try:
        if run.phase is Phase.RUNNING and not run.probe:
            seen = await _plan_redraw(ctx, run)
    finally:
        run.answer(seen)


async def _plan_redraw(ctx: ToolContext, run: Run) -> Redraw | Before | None:
    """The redraw ``redraw.plan`` allows on the screen as read now, in one invocation,
    or what the shell printed after the typed line (``redraw`` Rule 4), or None (the
    screen is neither, or tmux failed)."""
    mark = run.mark
    if mark is None:
        return None
    try:
        out = await ctx.client.run(
            cmd("display-message", "-p", t=run.pane, args=[SCREEN_FORMAT]),
            cmd("capture-pane", "-p", t=run.pane),
        )
    except TmuxMcpError:
        return None
    head, _, body = out.stdout.partition("\n")
    fields = head.split()
    if len(fields) != 6 or not all(field.isdigit() for field in fields):
        return None
    x, y, history, height, width, alternate = (int(field) for field in fields)
    now = redraw.Screen(
        cursor_x=x,
        cursor_y=y,
        history_size=history,
        height=height,
        width=width,
        alternate=alternate == 1,
        rows=screen.rows(body),
    )
    return redraw.plan(
        now,
        typed=run.typed,
        shell=run.shell,
        mark=mark,
        prompt=run.at_typing.prompt,
        shown=run.files.shown,
    )


async def _tmux_gone(ctx: ToolContext, run: Run) -> TmuxMcpError | None:
    """The error for a shell that left the script because its pane or server went.

    A dying tmux server hangs up the shell, which then leaves the script too:
    tmux is asked first, so a server that is gone is the error (ServerGone)
    and a pane that closed is ObjectNotFound; None while the pane is there.
    """
    try:
        await ctx.client.run(cmd("display-message", "-p", t=run.pane, args=["#{pane_id}"]))
    except TmuxMcpError as exc:
        return exc
    return None


def _replaced(run: Run) -> bool:
    """Whether the shell runs another program than when the line was typed (``exec``):
    told from where its program lies in memory, when the kernel shows it."""
    if run.shell_pid is None or run.shell_image is None:
        return False
    now = proc.image(run.shell_pid)
    return now is not None and now != run.shell_image


def _interrupted(run: Run, why: str = "") -> CommandInterrupted:
    """The error for a run that left its script with no status to report (Rule 2)."""
    if not why:
        why = (
            "tmuxmcp interrupted it (C-c: its task was cancelled)"
            if run.stopped
            else "its shell left it (C-c, or the shell was replaced by exec)"
        )
    return CommandInterrupted(
        f"the command in pane {run.pane} ended without reporting its exit status: "
        f"{why}; its output is on the screen (capture_pane)"
    )


async def _read_back(ctx: ToolContext, run: Run) -> None:
    """Rule 2, a shell that left the script by itself: read its output and its status.

    The shell waits at its prompt with ``$?`` the status a person would see: a
    probe (an empty command typed and watched like any run, guards included)
    reports it as the ``$?`` its typed line found (``S <status>``), and gives it
    back to the shell at its release. Where the pane is not safe to type into
    (a person typing, text waiting at the prompt), nothing is typed, and the run
    ends interrupted, saying why.
    """
    try:
        ready = await settle.wait_shell_ready(ctx, run.pane)
    except PaneNotReady as exc:
        run.handle(Interrupted(_interrupted(run, _unprobed(exc))))
        return
    found = await collect.left(ctx, run)
    probe = registry.of(ctx.runs).new_probe(run.pane)
    try:
        status = await _probe(ctx, run, probe, ready)
        if status is None:
            return
        prompt = await _prompt_after(ctx, probe)
        outcome = output.left_outcome(found, prompt or [run.at_typing.prompt], run.shell, status)
        run.handle(Probed(outcome))
    finally:
        if probe.phase is Phase.PREPARING:
            probe.disarm()
            probe.handle(Abandoned())
        elif probe.phase not in FINAL:
            probe.handle(Cancelled())
        if not probe.closed:  # a probe that reported is closed at once (``_probe``)
            probe.close()


async def _probe(ctx: ToolContext, run: Run, probe: Run, ready: settle.Ready) -> int | None:
    """Type and watch ``probe``, and release it: the status it read back, or None when
    it could not, the left ``run`` then ended ``Interrupted``, saying why."""
    try:
        await type_line.wait_line_typed(
            ctx, probe, "", suppress_history=run.typed.startswith(" "), ready=ready
        )
    except PaneNotReady as exc:
        run.handle(Interrupted(_interrupted(run, _unprobed(exc))))
        return None
    await _wait_for_status(ctx, probe)
    status = probe.status_before
    if probe.phase is not Phase.ENDED or status is None:
        error = probe.error or _interrupted(probe)
        why = f"its shell left it, and its status could not be read back ({error})"
        run.handle(Interrupted(_interrupted(run, why)))
        return None
    probe.handle(
        Collected(
            Outcome(
                exit_status=status,
                head=[],
                tail=[],
                lines_omitted=0,
                lines_lost=0,
                start_lost=False,
            )
        )
    )
    probe.close()  # the shell gets $? back and draws its prompt on rows of its own
    return status


async def _prompt_after(ctx: ToolContext, probe: Run) -> list[str] | None:
    """The rows of the prompt the shell drew after ``probe``, once it is back at it; None
    when it is not (busy, a person typing) or the rows cannot be told."""
    try:
        await settle.wait_shell_ready(ctx, probe.pane)
        return await collect.prompt_after(ctx, probe)
    except TmuxMcpError:
        return None


def _unprobed(refusal: PaneNotReady) -> str:
    return (
        "its shell left it (C-c, or the shell was replaced by exec), and tmuxmcp did not "
        f"type into the pane to read its status back: {refusal}"
    )


async def _shell_exited(ctx: ToolContext, run: Run) -> TmuxMcpError:
    """The error for a shell that exited during its command, saying what became of the
    pane: closed with it, dead and kept (``remain-on-exit``, with the shell's exit
    status) or already running a new program (respawned)."""
    # A tmux server that exits hangs up every pane's shell first: ask it (a
    # server that is gone raises ServerGone here, and that is the error). tmux
    # learns of the exit a moment after the process is gone (the pane still
    # shows the old pid, then dead without a status): ask again for a while.
    deadline = trio.current_time() + EXIT_NOTICE_SECONDS
    while True:
        try:
            out = await ctx.client.run(
                cmd(
                    "display-message",
                    "-p",
                    t=run.pane,
                    args=["#{pane_pid} #{pane_dead} #{pane_dead_status}"],
                )
            )
            pid, dead, status = [*out.stdout.split(), "", "", ""][:3]
        except ObjectNotFound:
            pid = dead = status = ""
        except TmuxMcpError as exc:
            return exc
        nested = run.shell_pid not in (None, run.pane_pid) and pid == str(run.pane_pid)
        settled = pid != str(run.pane_pid) or (dead == "1" and status != "")
        if (nested and dead != "1") or settled or trio.current_time() >= deadline:
            break
        await trio.sleep(0.05)
    what = (
        f"the shell of pane {run.pane} exited during the command (the command ran `exit`, "
        "or `exec` of a program that has ended, or turned errexit on with set -e and then "
        "failed), so the command reported no exit status"
    )
    if not pid:
        return PaneNotReady(
            f"{what}. The pane closed with its shell; run commands in another pane "
            "(list_panes, split_pane or create_window)"
        )
    if nested and dead != "1":
        return PaneNotReady(
            f"{what}. That shell ran inside the pane's own program (pid {run.pane_pid}), "
            "which runs on: the pane's own shell is likely back at its prompt, and "
            "capture_pane shows what it is doing"
        )
    if dead == "1":
        code = f"; the shell's own exit status was {status}" if status.isdigit() else ""
        return PaneNotReady(
            f"{what}{code}. The pane is kept, dead (remain-on-exit): respawn_pane starts "
            "a new shell in it"
        )
    return PaneNotReady(
        f"{what}. Pane {run.pane} now runs another process (respawned); check it with "
        "capture_pane before running commands in it"
    )
