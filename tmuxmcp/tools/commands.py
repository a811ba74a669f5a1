"""``run_command`` and ``wait_for_command``: shell commands in a pane, their status and output.

How a run works (see ``readiness``, ``runscript``, ``runs``):

1. ``readiness`` checks, from tmux's state and (on Linux) ``/proc``, that
   the pane's own shell is waiting at its prompt; anything else is refused
   with ``pane-not-ready`` before anything is typed;
2. the command goes into a file in tmuxmcp's private directory, and one
   short line (`` { : 'the command'; . /dev/shm/tmuxmcp-…/r7; } 7>&1 …``) is typed, so a
   command of any length up to the cap runs exactly as written; the
   invocation that types first re-checks the pane inside tmux (Rule 4 of
   ``readiness``) and stops before the paste if it changed;
3. the status arrives on a FIFO, not the screen; the output is read from the
   screen between the prompt row and the cursor once tmux has drawn all of it,
   while the script holds the shell back from drawing its next prompt.

Two tmux processes in the common case (type, read), none started in the
pane: on a pane that ran a command before, its ``pane_pid`` is known, the
readiness check reads /proc alone, and tmux's re-check covers the rest. The
first run on a pane, or one whose re-check fails, reads the pane's state and
screen first (three). The command runs in the pane's current shell, so
``cd`` and ``export`` persist, as when a person types it.

A run that outlives its call's ``timeout`` keeps running and is still
watched; ``wait_for_command`` with its ``run_id`` waits again and returns the
same result shape. Runs on one pane never overlap, across every tmuxmcp
process on the socket (``panelock``). While waiting, a progress notification
each second carries the last line on the screen.
"""

from __future__ import annotations

import os
from typing import Annotated

import msgspec
import trio
from msgspec import Meta

from tmuxmcp.capability.params import PaneId, flag, sink
from tmuxmcp.capability.results import Own, Terminal, TmuxId
from tmuxmcp.errors import ObjectNotFound, PaneNotReady
from tmuxmcp.sinks import Encoding, Sink
from tmuxmcp.sinks.text import MAX_COMMAND_BYTES
from tmuxmcp.tools import panelock, readiness, runs
from tmuxmcp.tools.context import ToolContext, _no_progress

# Re-exported for modules that import it from here; it lives in ``inline`` now.
from tmuxmcp.tools.inline import line_cost as line_cost  # noqa: PLC0414
from tmuxmcp.tools.run_state import Outcome, Run
from tmuxmcp.tools.runs import HEAD_SHARE

DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 600.0
DEFAULT_OUTPUT_BYTES = 36_000
"""With it a default result's structured JSON stays under 40,000 characters
whatever the output holds (``line_cost`` counts lines as they are encoded;
the other fields and the markers take well under 4,000): a client such as
Claude Code keeps a result of up to about 50,000 characters inline and moves
a longer one out of the model's view (issue 18)."""
MAX_OUTPUT_BYTES = 1024 * 1024


Timeout = Annotated[
    float,
    Meta(
        gt=0,
        le=MAX_TIMEOUT,
        description="Seconds to wait; the command runs on after it.",
        extra=sink(Sink.LOCAL, Encoding.NONE),
    ),
]
OutputBytes = Annotated[
    int,
    Meta(
        ge=1,
        le=MAX_OUTPUT_BYTES,
        description=(
            "Output bytes returned at most, counted as JSON-encoded"
            " (a newline 2, a control character 6; start and end kept)."
        ),
        extra=sink(Sink.LOCAL, Encoding.NONE),
    ),
]
RunId = Annotated[
    str,
    Meta(
        pattern="^[0-9a-f]{12}$",
        description="run_id from run_command.",
        extra=sink(Sink.LOCAL, Encoding.NONE),
    ),
]


class RunCommandArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Arguments of run_command."""

    pane_id: PaneId
    command: Annotated[
        str,
        Meta(
            min_length=1,
            max_length=MAX_COMMAND_BYTES,
            description=(
                "Command for the pane's shell; newlines allowed, no other control characters."
            ),
            extra=sink(Sink.SHELL, Encoding.PANE_SHELL_TEXT),
        ),
    ]
    timeout: Timeout = DEFAULT_TIMEOUT
    max_output_bytes: OutputBytes = DEFAULT_OUTPUT_BYTES
    suppress_history: Annotated[
        bool,
        flag("Type a leading space to keep it out of shell history (best effort)."),
    ] = True


class RunCommandResult(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of one command (run_command and wait_for_command)."""

    pane_id: TmuxId
    run_id: Own
    completed: bool
    timed_out: bool
    exit_status: int | None
    duration_seconds: float
    output_lines: int
    output_truncated: bool
    lines_omitted: int
    """Lines left out of ``output`` (by the byte budget or unread between head and tail)."""
    lines_lost: int | None
    """Lines that scrolled out of the pane's history before they were read (at least
    this many); null when some were lost but how many is unknown."""
    # The bulk comes last: msgspec encodes fields in declaration order, and a
    # client that shows only the head of a long result (Claude Code: 2,000
    # characters) then still shows every fact above (issue 18).
    output: Terminal

    def text_form(self) -> str:
        """Readable form: a status line, then the output."""
        if self.completed:
            head = f"exit status {self.exit_status} after {self.duration_seconds:.3f} s"
        else:
            head = (
                f"still running after {self.duration_seconds:.3f} s (timed out); "
                f"wait_for_command run_id {self.run_id} collects it"
            )
        if self.output_truncated:
            head += "; output shortened"
        return head + "\n" + self.output


class WaitForCommandArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Arguments of wait_for_command."""

    pane_id: PaneId
    run_id: RunId
    timeout: Timeout = DEFAULT_TIMEOUT
    max_output_bytes: OutputBytes = DEFAULT_OUTPUT_BYTES


# -- shaping the output ----------------------------------------------------------------


def _omitted(count: int) -> str:
    return f"[... {count:,} lines omitted ...]"


_GAPS = {
    "history-cleared": "the screen and its history were cleared (clear, tmux clear-history)",
    "screen-switched": "a full-screen program took over the screen",
    "reflowed": "the pane was resized, so its rows were rewrapped",
}


def _lost(outcome: Outcome) -> str:
    """The marker that opens an output whose start is gone, saying why."""
    if outcome.gap_reason in _GAPS:
        return f"[... earlier output is gone: {_GAPS[outcome.gap_reason]} ...]"
    count = (
        f"at least {outcome.lines_lost:,} earlier lines" if outcome.lines_lost else "earlier lines"
    )
    return f"[... {count} scrolled out of the pane's history ...]"


def _end_within(line: str, budget: int) -> str:
    """The longest end of ``line`` whose ``line_cost`` fits ``budget``."""
    low, high = 0, len(line)
    while low < high:
        # Binary search on the kept length: the cost grows with it.
        mid = (low + high + 1) // 2
        if line_cost(line[len(line) - mid :]) <= budget:
            low = mid
        else:
            high = mid - 1
    return line[len(line) - low :]


def shape_output(outcome: Outcome, budget: int) -> tuple[str, int, int, bool]:
    """Text, line count, lines omitted and whether anything is missing, within ``budget``.

    ``budget`` is counted by ``line_cost``, as the text is encoded in JSON.

    The start and the end are kept, with an explicit marker where lines are
    left out; a start lost from the history is said first.
    """
    head, tail, omitted = list(outcome.head), list(outcome.tail), outcome.lines_omitted
    total = len(head) + len(tail) + omitted
    size = sum(line_cost(line) for line in head + tail)
    if size > budget:
        lines = head + tail
        keep_head: list[str] = []
        used = 0
        for line in lines:
            cost = line_cost(line)
            if used + cost > budget // HEAD_SHARE:
                break
            keep_head.append(line)
            used += cost
        keep_tail: list[str] = []
        for line in reversed(lines[len(keep_head) :]):
            cost = line_cost(line)
            if used + cost > budget:
                break
            keep_tail.append(line)
            used += cost
        keep_tail.reverse()
        if not keep_head and not keep_tail and lines:
            # One line longer than the budget: keep its end.
            keep_tail = [_end_within(lines[-1], budget)]
        omitted += len(lines) - len(keep_head) - len(keep_tail)
        head, tail = keep_head, keep_tail
    parts = list(head)
    if omitted:
        parts.append(_omitted(omitted))
    parts += tail
    if outcome.start_lost:
        parts.insert(0, _lost(outcome))
    missing = bool(omitted) or outcome.start_lost
    return "\n".join(parts), total, omitted, missing


def _result(
    run: Run, budget: int, *, timed_out: bool, partial: Outcome | None = None
) -> RunCommandResult:
    outcome = run.outcome if partial is None else partial
    assert outcome is not None
    text, count, omitted, missing = shape_output(outcome, budget)
    return RunCommandResult(
        pane_id=run.pane,
        run_id=run.run_id,
        completed=not timed_out,
        timed_out=timed_out,
        exit_status=None if timed_out else outcome.exit_status,
        output=text,
        output_lines=count,
        output_truncated=missing,
        lines_omitted=omitted,
        lines_lost=outcome.lines_lost if outcome.start_lost else 0,
        duration_seconds=round(trio.current_time() - run.began, 6),
    )


# -- waiting -------------------------------------------------------------------------


async def _report(ctx: ToolContext, run: Run, total: float, since: float) -> None:
    if not ctx.reports_progress:
        return
    last = await runs.last_line(ctx, run.pane)
    elapsed = trio.current_time() - since
    await ctx.progress(
        elapsed,
        total,
        f"running {elapsed:.0f} s: {last[:200]}" if last else f"running {elapsed:.0f} s",
    )


async def _await(ctx: ToolContext, run: Run, seconds: float, budget: int) -> RunCommandResult:
    since = trio.current_time()
    with trio.move_on_after(seconds):
        while not run.done.is_set():
            with trio.move_on_after(1.0):
                await run.done.wait()
            if not run.done.is_set():
                await _report(ctx, run, seconds, since)
    if not run.done.is_set():
        return _result(run, budget, timed_out=True, partial=await runs.peek(ctx, run))
    if run.error is not None:
        raise run.error
    return _result(run, budget, timed_out=False)


async def _wait_turn(ctx: ToolContext, pane: str, seconds: float) -> None:
    """Wait, at most ``seconds``, for this process's earlier run on ``pane`` to end."""
    with trio.move_on_after(seconds):
        while (busy := ctx.runs.busy.get(pane)) is not None:
            await busy.done.wait()
        return
    busy = ctx.runs.busy.get(pane)
    raise PaneNotReady(
        f"pane {pane} is still running an earlier command (run_id {busy.run_id if busy else '?'}); "
        "collect it with wait_for_command, or stop it with send_keys C-c"
    )


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


class _Ready(msgspec.Struct, frozen=True):
    """The shell found at its prompt, and the evidence it was found with."""

    shell: readiness.Shell
    pane_pid: int
    screen_read: bool
    """True when the cursor row was read and checked here (Rule 3); False when only
    /proc was read, for the pane_pid seen before, and the typing guard checks the rest."""


async def _ready_shell(ctx: ToolContext, pane: str) -> _Ready:
    """Wait, within the settle time, for the pane's shell to be at its prompt.

    With a ``pane_pid`` seen before (the pane's last run), the check reads
    /proc alone and no tmux runs: the typing invocation's guard then confirms
    in tmux that the pane is still that process and checks Rules 1 and 3
    there. Without one, or when that evidence does not hold, the pane's state
    and screen are read first (one tmux invocation) and every rule is checked
    here, so each refusal says what the pane is doing.
    """
    settle = trio.current_time() + SETTLE_SECONDS
    program_settle = trio.current_time() + SETTLE_PROGRAM_SECONDS
    delay = PROC_POLL_SECONDS
    refusal: PaneNotReady
    while True:
        cached = ctx.runs.pane_pids.get(pane)
        try:
            if cached is not None and readiness.proc_available():
                return _Ready(readiness.check_process(pane, cached), cached, screen_read=False)
            state, screen = await runs.read_state(ctx, pane)
            if state.pane_id != pane:
                raise ObjectNotFound(f"tmux did not report pane {pane}")
            shell = readiness.check(pane, state, screen)
            ctx.runs.pane_pids[pane] = state.pid
            return _Ready(shell, state.pid, screen_read=True)
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
            ctx.runs.pane_pids.pop(pane, None)
            continue
        # A look at /proc alone costs far less than one that runs tmux: poll it faster.
        await trio.sleep(delay if cached is not None else max(delay, TMUX_POLL_SECONDS))
        delay = min(delay * 2, 0.05)


async def _type(ctx: ToolContext, run: Run, args: RunCommandArgs, ready: _Ready) -> None:
    """Type the run's line; when tmux's guard finds the pane changed since the check,
    check again in full (nothing was typed) and type once more, or refuse."""
    pane = args.pane_id
    for attempt in range(3):
        run.pane_pid, run.shell_pid = ready.pane_pid, ready.shell.pid
        if run.files_written:
            run.write_script(shell=ready.shell.program)
        typed = await runs.type_line(
            ctx,
            run,
            args.command,
            suppress_history=args.suppress_history,
            shell=ready.shell.program,
            screen_read=ready.screen_read,
        )
        if typed:
            return
        ctx.runs.pane_pids.pop(pane, None)
        if attempt < 2:
            ready = await _ready_shell(ctx, pane)
    raise PaneNotReady(
        f"pane {pane} kept changing between tmuxmcp's readiness check and typing (a "
        "program starting or a mode opening?); nothing was typed. Retry, or look at it "
        "with capture_pane"
    )


async def run_command(ctx: ToolContext, args: RunCommandArgs) -> RunCommandResult:
    """Handler for run_command: one run at a time per pane, across processes."""
    pane = args.pane_id
    began = trio.current_time()
    await _wait_turn(ctx, pane, args.timeout)
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
    run: Run | None = None
    try:
        ready = await _ready_shell(ctx, pane)
        run = ctx.runs.new_run(pane)
        run.lock_fd, lock = lock, -1
        run.budget = args.max_output_bytes
        ctx.runs.busy[pane] = run
        await _type(ctx, run, args, ready)
    except BaseException:
        if lock >= 0:
            os.close(lock)
        if run is not None:
            run.disarm()
            ctx.runs.busy.pop(pane, None)
            run.done.set()
        raise
    quiet = msgspec.structs.replace(ctx, progress=_no_progress, reports_progress=False)
    if ctx.runs.nursery is not None:
        ctx.runs.nursery.start_soon(runs.watch, quiet, run)
        return await _await(ctx, run, args.timeout, args.max_output_bytes)
    # No server nursery (a direct handler call): the run cannot outlive the call.
    async with trio.open_nursery() as nursery:
        nursery.start_soon(runs.watch, quiet, run)
        try:
            return await _await(ctx, run, args.timeout, args.max_output_bytes)
        finally:
            run.cancel.cancel()


async def wait_for_command(ctx: ToolContext, args: WaitForCommandArgs) -> RunCommandResult:
    """Handler for wait_for_command: wait again for a run that outlived its call."""
    pane = args.pane_id
    run = ctx.runs.runs.get(args.run_id)
    if run is None:
        raise ObjectNotFound(
            f"no run {args.run_id} in this tmuxmcp process (it started another, or it "
            "restarted); run_command returns the run_id to use"
        )
    if run.pane != pane:
        raise ObjectNotFound(f"run {args.run_id} ran in pane {run.pane}, not {pane}")
    return await _await(ctx, run, args.timeout, args.max_output_bytes)
