"""The life of one ``run_command`` run: files, typing, the status channel, collection.

A run is typed once and then watched by a task of the server's own nursery
(``RunRegistry.attach``), not by the call that started it: when a call times
out, the command keeps running and its watcher keeps waiting, so the pane's
shell is released the moment the command ends (its next prompt is not held
hostage), and ``wait_for_command`` later returns the same result.

The status comes from the FIFO ``s<k>`` (see ``runscript``), never from the
screen, so a pane program that reads the screen cannot forge it. The output
is the screen between the prompt row (a ``scrollback.Mark`` taken just before
typing, found again even after history trims) and the cursor at the fence,
read while the script still holds the shell back from drawing its prompt.

Bounded reads (issue 13.2), whatever the pane's width: the end frame reads
``speculative_rows`` history rows, and a longer output is read a window at a
time from both ends (head and tail) until the run's byte budget is met; rows
between them are counted, not read. Both row counts are chosen from the
pane's width (``windows.rows_within``) so that one read holds at most about
``SPECULATIVE_BYTES`` (twice: physical and joined rows) or ``WINDOW_BYTES``
as if every row were full: at most ``WINDOW_ROWS`` rows on a pane up to 261
columns wide, about 260 on one of 2,000.

The end frame also gives the pane's ``pane_pid``, kept for the next run's
readiness check (``RunRegistry.pane_pids``): a hint, which the next typing
invocation's guard checks against tmux before it pastes.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator

import msgspec
import trio

from tmuxmcp.driver import guards
from tmuxmcp.driver.argv import cmd
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.errors import (
    CommandInterrupted,
    ObjectNotFound,
    PaneNotReady,
    TmuxCommandFailed,
    TmuxMcpError,
)
from tmuxmcp.tools import windows
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.observation import cells
from tmuxmcp.tools.query import typed_record
from tmuxmcp.tools.run import readiness, runscript
from tmuxmcp.tools.run.state import Outcome, Run
from tmuxmcp.tools.scrollback import (
    FRAME_FIELDS,
    Frame,
    Mark,
    View,
    explain_gap,
    fingerprint,
    mark_at,
)

WINDOW_ROWS = 2000
"""Rows read per capture of a long output at most (bounded reads: the head and the tail
are read a window at a time until the run's byte budget is met)."""
WINDOW_BYTES = 512 * 1024
"""Bytes one window of a long output holds at most if its rows are full (ASCII): the
window has ``windows.rows_within(WINDOW_BYTES, width)`` rows, up to ``WINDOW_ROWS``."""
HEAD_SHARE = 4
"""The head keeps 1/HEAD_SHARE of the output budget, the tail the rest."""
SPECULATIVE_ROWS = 200
"""History rows read with the end frame at most, enough for most outputs in one
invocation."""
SPECULATIVE_BYTES = 256 * 1024
"""Bytes those rows hold at most if they are full (read twice: physical and joined)."""
START_GRACE = 2.0
"""Seconds after typing before a shell that has not started the script is examined."""
FENCE_WAIT = 2.0
"""Seconds to wait for tmux to draw the command's last output (the fence)."""

_FIELDS = {**FRAME_FIELDS, "path": "pane_path"}


class PathFrame(msgspec.Struct, frozen=True, kw_only=True):
    """A frame plus ``#{pane_path}``, where the fence shows."""

    frame: Frame
    path: str


# -- tmux observations -------------------------------------------------------------


def _frame_of(text: str, frame_format: RecordFormat) -> PathFrame:
    records = frame_format.parse(text)
    if len(records) != 1:
        raise TmuxCommandFailed("tmux returned a pane record tmuxmcp could not parse")
    raw = records[0]
    frame: Frame = typed_record(raw, FRAME_FIELDS, Frame)
    return PathFrame(frame=frame, path=raw["pane_path"])


def _rows(text: str) -> list[str]:
    rows = text.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    return rows


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
    return state, _rows(body)


async def type_line(
    ctx: ToolContext,
    run: Run,
    command: str,
    *,
    suppress_history: bool,
    shell: str,
    screen_read: bool,
) -> bool:
    """Re-check the pane, take the start mark and type the line, in one invocation.

    The re-check (Rule 4 of ``readiness``) runs first, inside tmux: when the
    pane is no longer the process whose /proc entry was read
    (``run.pane_pid``), or is dead, in a mode, on the alternate screen, or
    (unless ``screen_read``: the caller checked the cursor row itself) shows a
    row beginning like a continuation prompt, nothing is typed and this
    returns False. True once the line is typed.
    """
    fmt = RecordFormat(list(_FIELDS.values()))
    name = f"tmuxmcp-{secrets.token_hex(8)}"
    if not run.files_written:
        run.write_files(command, shell=shell)
    run.typed = runscript.typed_line(command, run.files["r"], suppress_history=suppress_history)
    run.record_shell()
    guard = guards.guard_name(ctx.client.marker, run.pane, run.pane_pid, rows=not screen_read)
    try:
        out = await ctx.client.run(
            cmd("show-options", "-s", "-v", t=run.pane, args=[guard]),
            cmd("display-message", "-p", t=run.pane, args=[fmt.template]),
            cmd("capture-pane", "-p", t=run.pane, S=-2),
            cmd("load-buffer", b=name, args=["-"]),
            cmd("paste-buffer", "-d", "-r", b=name, t=run.pane),
            stdin=run.typed.encode("utf-8"),
        )
    except TmuxCommandFailed as exc:
        if guards.GUARD_REFUSED in str(exc):
            return False
        raise
    _, _, rest = out.stdout.partition("\n")  # the guard's option value
    head, _, body = rest.partition("\n")
    found = _frame_of(head, fmt)
    start = found.frame
    run.restore_path = found.path
    rows = _rows(body)
    view = View(start, rows[-(start.history_size + start.height) :])
    run.mark = mark_at(view, view.cursor_row, start.cursor_x)
    return True


# -- watching ------------------------------------------------------------------------


async def watch(ctx: ToolContext, run: Run) -> None:
    """Wait for the status, collect the output, release the shell. Never raises."""
    try:
        with run.cancel:
            await _wait_for_status(ctx, run)
            if run.status is not None:
                run.outcome = await collect(ctx, run)
    except TmuxMcpError as exc:
        run.error = exc
    finally:
        run.close()
        if ctx.runs.busy.get(run.pane) is run:
            del ctx.runs.busy[run.pane]
        run.done.set()


REFUSED = {
    "errexit": (
        "pane {pane}'s shell has errexit on (set -e), so nothing was run: there, any command "
        "that ends with a non-zero status (even `test -f x && echo yes`) would exit the "
        "shell and close the pane before its status could be reported. Turn it off in the "
        "pane with send_text 'set +e' (enter true), then retry; to stop at the first "
        "failure, run the command in a child shell: sh -ec '...'"
    ),
    "errreturn": (
        "pane {pane}'s zsh has ERR_RETURN set, so nothing was run: it would make tmuxmcp's "
        "script return at the command's first non-zero status, before reporting it. Turn "
        "it off in the pane with send_text 'unsetopt err_return' (enter true), then retry"
    ),
}
"""The refusal for each option the script refuses to run under (``runscript.REFUSALS``)."""


ABANDONED_CHECKS = 2
"""Idle polls in a row (1 s each) that must find the script's release FIFO closed
by its shell before the run counts as abandoned: the script opens it just after
reporting ``S``, so one poll could fall between the two on a loaded machine."""


async def _wait_for_status(ctx: ToolContext, run: Run) -> None:
    grace = run.began + START_GRACE
    unheld = 0
    while run.status is None:
        with trio.move_on_after(1.0):
            await trio.lowlevel.wait_readable(run.status_fd)
            with contextlib.suppress(BlockingIOError):
                run.read_events(os.read(run.status_fd, 4096))
            if run.refused is not None:
                run.shell_gone = True  # the script has ended: its files can go
                run.error = PaneNotReady(REFUSED[run.refused].format(pane=run.pane))
                return
            continue
        if not _alive(run.shell_pid or run.pane_pid):
            run.shell_gone = True  # its files can go with the run
            run.error = await _shell_exited(ctx, run)
            return
        if run.started and run.shell_pid is not None:
            # The script holds its release FIFO open (a saved copy while the
            # command runs) until it reports its end. A shell that dropped it
            # has left the script: C-c aborts a sourced script in every
            # shell, which then never reports (measured in dash, bash, zsh).
            held = readiness.holds_open(run.shell_pid, run.files["g"])
            unheld = unheld + 1 if held is False else 0
            if unheld >= ABANDONED_CHECKS:
                run.shell_gone = True  # no script will look for its files again
                # A dying tmux server hangs up the shell, which then leaves the
                # script too: ask tmux first, so a server that is gone is the
                # error (ServerGone) and a pane that closed is ObjectNotFound.
                await ctx.client.run(cmd("display-message", "-p", t=run.pane, args=["#{pane_id}"]))
                run.error = CommandInterrupted(
                    f"the command in pane {run.pane} ended without reporting its exit status: "
                    "its shell left it (C-c, or the shell was replaced by exec) and the pane "
                    "is free again; its output is on the screen (capture_pane)"
                )
                return
        if (
            not run.started
            and trio.current_time() >= grace
            and readiness.still_waiting_at_prompt(run.pane_pid, run.shell_pid)
        ):
            run.disarm()
            run.error = PaneNotReady(
                f"pane {run.pane}'s shell read the typed line but did not run it: it is "
                "waiting for more input (an unclosed quote, here-document, or a line ending "
                "in \\) or a builtin `read` took it. Nothing ran; tmuxmcp removed its script, "
                "so that line can never run it. Cancel the pending input with send_keys C-c"
            )
            return


EXIT_NOTICE_SECONDS = 2.0
"""How long tmux is given to notice that a pane's shell has exited."""


async def _shell_exited(ctx: ToolContext, run: Run) -> PaneNotReady:
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


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs; a zombie (exited, not yet reaped) does not."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return True  # no /proc (not Linux): kill(0) said it exists


# -- collection ---------------------------------------------------------------------


def _split(text: str, separator: str) -> list[str]:
    return text.split(separator + "\n")


async def _end_frame(
    ctx: ToolContext, pane: str, back: int
) -> tuple[PathFrame, list[str], list[str]]:
    """The frame, and the physical and joined rows from ``back`` history rows up."""
    fmt = RecordFormat(list(_FIELDS.values()))
    sep = f"tmuxmcp-sep-{secrets.token_hex(8)}"
    out = await ctx.client.run(
        cmd("display-message", "-p", t=pane, args=[fmt.template]),
        cmd("display-message", "-p", t=pane, args=[sep]),
        cmd("capture-pane", "-p", t=pane, S=-back),
        cmd("display-message", "-p", t=pane, args=[sep]),
        cmd("capture-pane", "-p", "-J", t=pane, S=-back),
    )
    parts = _split(out.stdout, sep)
    if len(parts) != 3:
        raise TmuxCommandFailed("tmux returned a capture tmuxmcp could not split")
    found = _frame_of(parts[0], fmt)
    frame = found.frame
    phys = _rows(parts[1])
    end = min(back, frame.history_size) + frame.height
    return found, phys[-end:], _rows(parts[2])


def window_rows(width: int) -> int:
    """Rows of one window of a long output on a pane ``width`` cells wide."""
    return min(WINDOW_ROWS, windows.rows_within(WINDOW_BYTES, width))


def speculative_rows(run: Run) -> int:
    """History rows read with the end frame, for the width the pane had at typing."""
    width = run.mark.width if run.mark is not None else 0
    return min(SPECULATIVE_ROWS, windows.rows_within(SPECULATIVE_BYTES, width))


def _candidates(mark: Mark, frame: Frame) -> Iterator[int]:
    """Where the mark can be now: where it was, or moved up by whole history trims."""
    trim = max(1, frame.history_limit // 10)
    at = mark.row
    while at >= 0:
        yield at
        at -= trim


def _head_ok(mark: Mark, view: View, at: int) -> bool:
    if not mark.head:
        return True
    return view.top <= at < view.end and view.row(at).startswith(mark.head)


async def _locate(ctx: ToolContext, run: Run, frame: Frame, view: View) -> int | None:
    """Where the prompt row is now (Rule 1 of ``scrollback``), or None when it is gone."""
    mark = run.mark
    assert mark is not None
    if mark.alternate != frame.alternate or mark.width != frame.width:
        return None
    far: list[int] = []
    for at in _candidates(mark, frame):
        if view.top + 2 <= at <= view.end or (at < 2 and view.top == 0):
            if fingerprint(view, at) == mark.fingerprint and _head_ok(mark, view, at):
                return at
        elif at < view.top + 2:
            far.append(at)
    far = far[:12]
    if not far:
        return None
    h = frame.history_size
    sep = f"tmuxmcp-sep-{secrets.token_hex(8)}"
    commands = []
    for r in far:
        commands += [
            cmd("display-message", "-p", t=run.pane, args=[sep]),
            cmd("capture-pane", "-p", t=run.pane, S=max(r - 2, 0) - h, E=r - h),
        ]
    out = await ctx.client.run(*commands)
    chunks = _split(out.stdout, sep)[1:]
    for r, chunk in zip(far, chunks, strict=False):
        rows = _rows(chunk)
        small = View(msgspec.structs.replace(frame, history_size=r + 1, height=0), rows)
        if fingerprint(small, r) == mark.fingerprint and _head_ok(mark, small, r):
            return r
    return None


async def _joined(
    ctx: ToolContext, pane: str, frame: Frame, windows: list[tuple[int, int]]
) -> list[list[str]]:
    """Joined rows of each (first, last) window of absolute rows, in one invocation."""
    h = frame.history_size
    sep = f"tmuxmcp-sep-{secrets.token_hex(8)}"
    commands = []
    for first, last in windows:
        commands += [
            cmd("display-message", "-p", t=pane, args=[sep]),
            cmd("capture-pane", "-p", "-J", t=pane, S=first - h, E=last - h),
        ]
    out = await ctx.client.run(*commands)
    return [_rows(chunk) for chunk in _split(out.stdout, sep)[1:]]


def _glued(line: str, typed: str, width: int) -> list[str]:
    """Output joined to the end of the typed line's row, as its first line.

    A typed line that fills its last row exactly leaves the cursor in the
    terminal's pending-wrap state; the output's first character then wraps,
    and tmux joins that row to the typed one (`capture-pane -J`): a command
    whose line was as wide as the pane lost its first output line. Only text
    that starts a row counts: right of a typed line that ends mid-row is the
    line editor's (zsh's RPROMPT), not output.
    """
    end = typed.strip()[-32:]
    at = line.rfind(end)
    if at < 0 or width <= 0:
        return []
    stop = at + len(end)
    rest = line[stop:].rstrip()
    return [rest] if rest and cells(line[:stop]) % width == 0 else []


def _editor_rows(line: str, below: list[str], run: Run, frame: Frame) -> int:
    """Rows below the typed line that zsh's line editor drew (0 or 1): when the typed
    line fills its last row exactly, zsh moves the cursor to the next row itself and
    then ends the line with a newline too, which leaves a blank row above the output."""
    width = cells(line)
    full = width > 0 and frame.width > 0 and width % frame.width == 0
    return 1 if full and run.shell == "zsh" and below and not below[0].strip() else 0


def _after_prompt(row: str, run: Run, frame: Frame) -> list[str]:
    """The output on the prompt row when the typed line was not echoed: the text right of
    the cursor's column at typing, unless it is (the start of) the typed line after all."""
    assert run.mark is not None
    if run.mark.width != frame.width:
        return []  # rewrapped: the column no longer says where the prompt ends
    used = 0
    for index, ch in enumerate(row):
        if used >= run.mark.column:
            rest = row[index:].rstrip()
            break
        used += cells(ch)
    else:
        return []
    if not rest or run.typed.strip().startswith(rest.strip()):
        return []
    return [rest]


def _typed_index(lines: list[str], typed: str) -> int | None:
    """Index of the last joined line of the prompt and the typed line.

    A line editor may break a long line with cursor moves instead of letting
    it wrap, so the typed text can span several joined lines: they are searched
    together.
    """
    needle = typed.strip()
    # Only the last len(needle) characters before a line can hold the start of
    # a match ending in it: keeping just those makes the search linear (it was
    # quadratic in the rows captured, about a millisecond per call).
    keep = len(needle)
    exact = stripped = ""
    for index, line in enumerate(lines):
        exact = exact[max(0, len(exact) - keep) :] + line
        stripped = stripped[max(0, len(stripped) - keep) :] + line.rstrip()
        if needle in exact or needle in stripped:
            return index
    return None


async def _read_long(
    ctx: ToolContext, run: Run, frame: Frame, first: int, last: int
) -> tuple[list[str], list[str], int]:
    """Head and tail of rows ``first``..``last``, read in windows until the budget is met.

    Returns the head, the tail, and the number of rows between them that were
    not read. At most one window beyond what the budget needs is read at each end.
    """
    tail_budget = run.budget - run.budget // HEAD_SHARE
    head_budget = run.budget // HEAD_SHARE
    rows = window_rows(frame.width)
    tail: list[str] = []
    size = 0
    hi = last
    while hi >= first and size < tail_budget:
        lo = max(first, hi - rows + 1)
        (chunk,) = await _joined(ctx, run.pane, frame, [(lo, hi)])
        tail = chunk + tail
        size += sum(len(line) + 1 for line in chunk)
        hi = lo - 1
    head: list[str] = []
    size = 0
    lo = first
    while lo <= hi and size < head_budget:
        top = min(hi, lo + rows - 1)
        (chunk,) = await _joined(ctx, run.pane, frame, [(lo, top)])
        head += chunk
        size += sum(len(line) + 1 for line in chunk)
        lo = top + 1
    return head, tail, max(0, hi - lo + 1)


async def _await_fence(ctx: ToolContext, run: Run) -> tuple[PathFrame, list[str], list[str]]:
    deadline = trio.current_time() + FENCE_WAIT
    delay = 0.001
    while True:
        found = await _end_frame(ctx, run.pane, speculative_rows(run))
        if found[0].path == run.fence or trio.current_time() >= deadline:
            return found
        await trio.sleep(delay)
        delay = min(delay * 2, 0.05)


async def collect(ctx: ToolContext, run: Run) -> Outcome:
    """Read the output once tmux has drawn all of it; the shell is still held."""
    found, phys, joined = await _await_fence(ctx, run)
    if found.frame.pane_id == run.pane and not found.frame.dead:
        ctx.runs.pane_pids[run.pane] = found.frame.pid
    return await _read_output(ctx, run, found, phys, joined)


async def peek(ctx: ToolContext, run: Run) -> Outcome:
    """The output so far of a run still going (for a timed-out call)."""
    return await _read_output(ctx, run, *await _end_frame(ctx, run.pane, speculative_rows(run)))


async def last_line(ctx: ToolContext, pane: str) -> str:
    """The last non-blank row of the pane's screen (for progress messages)."""
    out = await ctx.client.run(cmd("capture-pane", "-p", t=pane))
    rows = [row.rstrip() for row in out.stdout.split("\n") if row.strip()]
    return rows[-1] if rows else ""


async def _read_output(
    ctx: ToolContext, run: Run, found: PathFrame, phys: list[str], joined: list[str]
) -> Outcome:
    frame = found.frame
    view = View(frame, phys)
    end_row = frame.history_size + frame.cursor_y
    cursor_text = view.row(end_row) if view.top <= end_row < view.end else ""
    keep_cursor_row = frame.cursor_x > 0 or bool(cursor_text.strip())
    last = end_row if keep_cursor_row else end_row - 1
    start = await _locate(ctx, run, frame, view)
    lines_lost: int | None = 0
    gap_reason: str | None = None
    omitted = 0
    typed_at = _typed_index(joined, run.typed) if start is not None and start >= view.top else None
    if typed_at is not None:
        # All of it was in the first capture: drop the rows below the output.
        below = frame.height - 1 - frame.cursor_y + (0 if keep_cursor_row else 1)
        body = joined[typed_at + 1 : len(joined) - below if below else None]
        body = body[_editor_rows(joined[typed_at], body, run, frame) :]
        head, tail = _glued(joined[typed_at], run.typed, frame.width) + body, list[str]()
    else:
        if start is None:
            assert run.mark is not None
            gap = explain_gap(run.mark, View(frame, []))
            lines_lost = gap.lines_lost if gap.reason == "history-limit" else None
            gap_reason = gap.reason
            first = 0
        else:
            first = start
        head, tail, omitted = await _read_long(ctx, run, frame, first, last)
        if start is not None:
            both = head + tail if not omitted else head
            at = _typed_index(both[:64], run.typed)
            # Not echoed (`stty -echo` in a shell without a line editor, as dash
            # is): the output starts on the prompt row, right of the prompt.
            if at is None:
                first_line = _after_prompt(both[0], run, frame) if both else []
            else:
                first_line = _glued(both[at], run.typed, frame.width)
            dropped = (at if at is not None else 0) + 1
            if at is not None:
                dropped += _editor_rows(both[at], both[dropped:], run, frame)
            if omitted:
                head = first_line + head[dropped:]
            else:
                head, tail = [], first_line + both[dropped:]
    # `set -v` (verbose) has the shell print each line it reads: the typed line
    # comes once more, as the output's first line, before the command runs.
    if head and head[0].strip() == run.typed.strip():
        head = head[1:]
    elif not head and tail and tail[0].strip() == run.typed.strip():
        tail = tail[1:]
    return Outcome(
        exit_status=run.status,
        head=[line.rstrip() for line in head],
        tail=[line.rstrip() for line in tail],
        lines_omitted=omitted,
        lines_lost=lines_lost,
        start_lost=start is None,
        gap_reason=gap_reason,
    )
