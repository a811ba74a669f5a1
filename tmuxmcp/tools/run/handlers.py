"""The handlers of ``run_command`` and ``wait_for_command``: the phases of a run, in order.

Thin on purpose: each step is a phase module of the wing (see the package's
docstring), and this module only puts them in order, holds the pane (one run
at a time per pane in this process, in the order the calls came: ``turns``;
``panelock`` across processes), and
waits for the run's end within the call's ``timeout``, reporting progress
each second with the last line of the command's output, or its text while it
has printed nothing (``collect.progress_line``).

Rule: whatever ends a start before the line is typed (an error, a
cancellation) closes the run's files, frees the pane and gives its turn to
the next call in line before it propagates; once typed, the run is the
watcher's (``watch``), which outlives the call.
"""

from __future__ import annotations

import os
import shlex

import msgspec
import trio

from tmuxmcp.errors import ObjectNotFound
from tmuxmcp.panes import asking as asking_
from tmuxmcp.runs import output, panelock, registry
from tmuxmcp.runs.state import Abandoned, Phase, Run
from tmuxmcp.runs.turns import Turn
from tmuxmcp.tools.context import ToolContext, _no_progress
from tmuxmcp.tools.run import collect, settle, type_line, watch
from tmuxmcp.tools.run.commands import RunCommandArgs, RunCommandResult, WaitForCommandArgs


def _result(
    run: Run,
    budget: int,
    *,
    timed_out: bool,
    partial: output.Outcome | None = None,
    asking: asking_.Asking | None = None,
    prompt: str | None = None,
    attach: str | None = None,
) -> RunCommandResult:
    outcome = run.outcome if partial is None else partial
    assert outcome is not None
    shaped = output.shape(outcome, budget)
    return RunCommandResult(
        pane_id=run.pane,
        run_id=run.run_id,
        completed=partial is None,
        timed_out=timed_out,
        waiting_for=asking,
        prompt=prompt,
        attach_command=attach,
        exit_status=None if partial is not None else outcome.exit_status,
        output=shaped.text,
        output_lines=shaped.output_lines,
        output_truncated=shaped.output_truncated,
        lines_omitted=shaped.lines_omitted,
        lines_lost=shaped.lines_lost,
        # A run collected later (wait_for_command, a task) reports when it ended.
        duration_seconds=round(
            (
                trio.current_time()
                if partial is not None or run.finished_at is None
                else run.finished_at
            )
            - run.began,
            6,
        ),
    )


async def _report(ctx: ToolContext, run: Run, total: float, since: float) -> None:
    # Progress counts from the call's start, so it keeps growing after a wait for the
    # pane's turn (MCP: each notification's progress is larger than the last).
    if not ctx.reports_progress:
        return
    last = await collect.progress_line(ctx, run)
    now = trio.current_time()
    running = now - run.began  # the message says how long the command ran, not waited
    await ctx.progress(
        now - since,
        total,
        f"running {running:.0f} s: {last[:200]}" if last else f"running {running:.0f} s",
    )


async def _wait_for_end(
    ctx: ToolContext, run: Run, seconds: float, budget: int, *, since: float | None = None
) -> RunCommandResult:
    """Wait ``seconds`` for ``run``'s end; progress counts from ``since`` (the call's start).
    Stop earlier when its program waits for input and keeps waiting (``asking``), with the
    question on screen."""
    now = trio.current_time()
    since = now if since is None else since
    asks = asking_.AskWatch(ctx.kernel)
    reported = now
    if ctx.in_task:  # a task's status is the command's line from its start (issue 29.2)
        await _report(ctx, run, seconds + (now - since), since)
    with trio.move_on_after(seconds):
        while not run.done.is_set():
            with trio.move_on_after(asking_.ASK_POLL_SECONDS):
                await run.done.wait()
            if run.done.is_set():
                break
            asking = asks.read(run)
            if asking is not None:
                return await asked(ctx, run, budget, asking)
            if trio.current_time() - reported >= 1.0:
                reported = trio.current_time()
                await _report(ctx, run, seconds + (now - since), since)
    if not run.done.is_set():
        return _result(run, budget, timed_out=True, partial=await collect.peek(ctx, run))
    return ended(run, budget)


async def asked(
    ctx: ToolContext, run: Run, budget: int, asking: asking_.Asking
) -> RunCommandResult:
    """The result of a run whose program waits for input and kept waiting (``asking``):
    still running, what it waits for, its question, and for a secret the command a
    person runs to type it (issue 28.6)."""
    partial = await collect.peek(ctx, run)
    # The question is the command's own last line, never the pane's last row
    # (until the command prints, that is the line tmuxmcp typed).
    prompt = next(
        (line.rstrip() for line in reversed(partial.head + partial.tail) if line.strip()),
        None,
    )
    attach = (
        f"tmux -S {shlex.quote(ctx.facts.socket_path)} attach -t {run.pane}"
        if asking == "awaiting-secret"
        else None
    )
    return _result(
        run,
        budget,
        timed_out=False,
        partial=partial,
        asking=asking,
        prompt=prompt,
        attach=attach,
    )


def ended(run: Run, budget: int) -> RunCommandResult:
    """The result of a run that reached its final phase; its error, raised, if it had one."""
    if run.error is not None:
        raise run.error
    return _result(run, budget, timed_out=False)


async def run_command(ctx: ToolContext, args: RunCommandArgs) -> RunCommandResult:
    """Handler for run_command: one run at a time per pane, in the order the calls came
    (``turns``), and across processes (``panelock``)."""
    pane = args.pane_id
    runs = registry.of(ctx.runs)
    began = trio.current_time()

    async def waiting(holder: Turn) -> None:
        if ctx.reports_progress:
            elapsed = trio.current_time() - began
            await ctx.progress(
                elapsed, None, f"waiting {elapsed:.0f} s for pane {pane}: {holder.holder_text()}"
            )

    turn = await runs.take_pane(pane, args.timeout, waiting)
    lock = -1
    run: Run | None = None
    try:
        # Only the turn's holder asks for the lock (turns Rule 2): taken, it is another
        # process's.
        turn.doing = "waiting for a command of another tmuxmcp process on this socket"
        server = ctx.facts.identity
        lock = await panelock.acquire(
            panelock.lock_directory(ctx.facts.socket_path),
            f"{server.pid}-{server.start_time}-{pane.lstrip('%')}",
            seconds=max(0.0, args.timeout - (trio.current_time() - began)),
            busy=(
                f"pane {pane} is running a command of another tmuxmcp process on this socket; "
                "wait for it, or stop it with send_keys C-c"
            ),
        )
        turn.doing = "waiting for the pane's shell to be ready"
        ready = await settle.wait_shell_ready(ctx, pane)
        run = runs.new_run(pane, budget=args.max_output_bytes, lock_fd=lock, turn=turn)
        lock = -1  # the run holds it now, and closes it with its files
        await type_line.wait_line_typed(
            ctx, run, args.command, suppress_history=args.suppress_history, ready=ready
        )
    except BaseException:
        if lock >= 0:
            os.close(lock)
        if run is not None:
            run.disarm()
            run.close()  # no watcher will: it starts only once the line is typed
            runs.free(run)  # and gives its turn back: the next call in line gets the pane
            if run.phase is Phase.PREPARING:
                run.handle(Abandoned())
        else:
            runs.turns.give_back(turn)  # the next call in line gets the pane
        raise
    # The watcher reports no progress: it outlives this call and its client.
    quiet = msgspec.structs.replace(ctx, progress=_no_progress, reports_progress=False)
    # A call the server may hand over as an MCP Task waits only the hand-over time
    # (issue 29.1): a command still running then goes on as the task.
    seconds = args.timeout if ctx.hand_over is None else min(args.timeout, ctx.hand_over)
    if runs.nursery is not None:
        runs.nursery.start_soon(watch.watch, quiet, run)
        return await _wait_for_end(ctx, run, seconds, args.max_output_bytes, since=began)
    # No server nursery (a direct handler call): the run cannot outlive the call.
    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch.watch, quiet, run)
        try:
            return await _wait_for_end(ctx, run, seconds, args.max_output_bytes, since=began)
        finally:
            run.cancel.cancel()


async def wait_for_command(ctx: ToolContext, args: WaitForCommandArgs) -> RunCommandResult:
    """Handler for wait_for_command: wait again for a run that outlived its call."""
    pane = args.pane_id
    run = registry.of(ctx.runs).runs.get(args.run_id)
    if run is None:
        raise ObjectNotFound(
            f"no run {args.run_id} in this tmuxmcp process (it started another, or it "
            "restarted); run_command returns the run_id to use"
        )
    if run.pane != pane:
        raise ObjectNotFound(f"run {args.run_id} ran in pane {run.pane}, not {pane}")
    return await _wait_for_end(ctx, run, args.timeout, args.max_output_bytes)
