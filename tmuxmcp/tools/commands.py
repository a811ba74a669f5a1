"""``run_command``: run a shell command in a pane and return its exit status and output.

How it works (three tmux processes on the normal path):

1. one ``list-panes`` checks that the pane runs a POSIX shell at its prompt
   (not dead, not in copy/view mode, not on the alternate screen); anything
   else is refused with ``pane-not-ready`` rather than typed into;
2. one invocation types, through a paste buffer, a line of the form
   `` printf '\\n%s%s\\n' TMXS <n>; { <command>
   }; printf '%s%s %d\\n' TMXE <n> "$?"; (<tmux> -S <socket> wait-for -S <chan> &)``
   where ``<n>`` is a fresh random nonce. The leading space asks the shell to
   keep the line out of its history (best-effort hygiene: bash with
   HISTCONTROL=ignorespace or ignoreboth, zsh with HIST_IGNORE_SPACE);
3. one invocation blocks in ``wait-for <chan>`` until the pane's shell
   signals the channel (no polling), then captures the pane. The signalling
   tmux client runs in a background subshell, so the shell is back at its
   prompt (and a following run_command finds it there) at once.

Markers: the printed start line is ``TMXS<n>`` (after a newline, because a
shell may print its continuation prompt just before it) and the end line ends with
``TMXE<n> <status>``; the typed (echoed) line holds ``TMXS <n>`` and
``TMXE <n>`` with a space, so the echo can never match. The output is the text
between the markers, recovered from scrollback when it is longer than the
screen, capped at ``max_output_bytes`` (keeping the end) with truncation
reported. The command runs in the pane's current shell, so ``cd`` and
``export`` persist, as when a person types it.

On timeout the waiting tmux client is killed and reaped, the command keeps
running in the pane, and the result says so. Cancellation does the same.
While waiting, progress is reported every second to clients that asked.
"""

from __future__ import annotations

import os
import re
import secrets
from typing import Annotated

import msgspec
import trio
from msgspec import Meta

from tmuxmcp.capability.params import PaneId, flag, sink
from tmuxmcp.capability.results import Terminal, TmuxId
from tmuxmcp.driver.argv import cmd
from tmuxmcp.errors import ObjectNotFound, PaneNotReady, TmuxTimeout
from tmuxmcp.sinks import Encoding, Sink
from tmuxmcp.sinks.shell import quote_word
from tmuxmcp.sinks.target import IdKind, encode_id
from tmuxmcp.sinks.text import MAX_COMMAND_BYTES, encode_command
from tmuxmcp.tools.context import Handler, ToolContext
from tmuxmcp.tools.execute import buffer_name
from tmuxmcp.tools.query import list_records

POSIX_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "oksh"})
DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 600.0
DEFAULT_OUTPUT_BYTES = 64 * 1024
MAX_OUTPUT_BYTES = 1024 * 1024
FIRST_CAPTURE_LINES = 200
SETTLE_ATTEMPTS = 20


class RunCommandArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Arguments of run_command."""

    pane_id: PaneId
    command: Annotated[
        str,
        Meta(
            min_length=1,
            max_length=MAX_COMMAND_BYTES,
            description=(
                "A shell command for the pane's shell (POSIX sh, bash, zsh, ...). Lines may be "
                "separated by newlines; no other control characters."
            ),
            extra=sink(Sink.SHELL, Encoding.PANE_SHELL_TEXT),
        ),
    ]
    timeout: Annotated[
        float,
        Meta(
            gt=0,
            le=MAX_TIMEOUT,
            description="Seconds to wait for the command to finish; it keeps running after.",
            extra=sink(Sink.LOCAL, Encoding.NONE),
        ),
    ] = DEFAULT_TIMEOUT
    max_output_bytes: Annotated[
        int,
        Meta(
            ge=1,
            le=MAX_OUTPUT_BYTES,
            description="Return at most this many bytes of output, keeping the end.",
            extra=sink(Sink.LOCAL, Encoding.NONE),
        ),
    ] = DEFAULT_OUTPUT_BYTES
    suppress_history: Annotated[
        bool,
        flag(
            "Type a leading space so shells configured to ignore such lines keep the command "
            "out of their history (best effort)."
        ),
    ] = True


class RunCommandResult(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of one command."""

    pane_id: TmuxId
    completed: bool
    timed_out: bool
    exit_status: int | None
    output: Terminal
    output_lines: int
    output_truncated: bool
    duration_seconds: float

    def text_form(self) -> str:
        """Readable form: a status line, then the output."""
        if self.completed:
            head = f"exit status {self.exit_status} after {self.duration_seconds:.3f} s"
        else:
            head = f"still running after {self.duration_seconds:.3f} s (timed out)"
        if self.output_truncated:
            head += "; output truncated to its end"
        return head + "\n" + self.output


class _PaneState(msgspec.Struct, frozen=True, kw_only=True):
    pane_id: str
    command: str
    in_mode: bool
    alternate: bool
    dead: bool


_STATE_FIELDS = {
    "pane_id": "pane_id",
    "command": "pane_current_command",
    "in_mode": "pane_in_mode",
    "alternate": "alternate_on",
    "dead": "pane_dead",
}


async def _check_pane(ctx: ToolContext, pane: str) -> None:
    states = await list_records(ctx, cmd("list-panes", t=pane), _STATE_FIELDS, _PaneState)
    state = next((s for s in states if s.pane_id == pane), None)
    if state is None:
        raise ObjectNotFound(f"tmux did not report pane {pane}")
    program = os.path.basename(state.command).lstrip("-")
    if state.dead:
        raise PaneNotReady(f"pane {pane} is dead; respawn it or use another pane")
    if state.in_mode:
        raise PaneNotReady(
            f"pane {pane} is in copy or view mode; leave it (send_keys C-c or Escape) first"
        )
    if state.alternate or program not in POSIX_SHELLS:
        raise PaneNotReady(
            f"pane {pane} is running {program or 'an unknown program'!r}, not a shell at its "
            "prompt; run_command only types into POSIX shells (use send_text or send_keys "
            "for other programs)"
        )


def wrapper(command: str, nonce: str, *, tmux: str, socket: str, suppress: bool) -> str:
    """The text typed into the pane's shell."""
    prefix = " " if suppress else ""
    return (
        f"{prefix}printf '\\n%s%s\\n' TMXS {nonce}; {{ {command}\n}}; "
        f"printf '%s%s %d\\n' TMXE {nonce} \"$?\"; "
        f"({quote_word(tmux, 'tmux')} -S {quote_word(socket, 'socket')} "
        f"wait-for -S tmuxmcp-{nonce} &)\n"
    )


class Parsed(msgspec.Struct, frozen=True):
    """Output found between the markers in a capture."""

    started: bool
    ended: bool
    status: int | None
    lines: list[str]


def parse_capture(text: str, nonce: str) -> Parsed:
    """Find the marker lines; everything between them is the command's output."""
    lines = text.split("\n")
    start_line = f"TMXS{nonce}"
    end = re.compile(rf"TMXE{nonce} (\d+)$")
    starts = [i for i, line in enumerate(lines) if line.rstrip() == start_line]
    if not starts:
        # The start line is not in this capture: nothing here is known to be output.
        return Parsed(False, False, None, [])
    else:
        body_from = starts[-1] + 1
        started = True
    for index in range(body_from, len(lines)):
        found = end.search(lines[index].rstrip())
        if found:
            body = lines[body_from:index]
            tail = lines[index].rstrip()[: found.start()]
            if tail:
                body.append(tail)
            return Parsed(started, True, int(found.group(1)), body)
    body = lines[body_from:]
    while body and not body[-1].strip():
        body.pop()
    return Parsed(started, False, None, body)


def _cap_output(lines: list[str], limit: int) -> tuple[str, bool]:
    text = "\n".join(lines)
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, False
    return data[-limit:].decode("utf-8", errors="ignore"), True


async def _capture(ctx: ToolContext, pane: str, start: str | int) -> str:
    out = await ctx.client.run(cmd("capture-pane", "-p", "-J", t=pane, S=start))
    return out.stdout


async def _collect(ctx: ToolContext, pane: str, nonce: str, first: str) -> tuple[Parsed, bool]:
    """Parse the output; look further back, or wait for tmux to draw the end line."""
    parsed = parse_capture(first, nonce)
    attempts = 0
    while parsed.started and not parsed.ended and attempts < SETTLE_ATTEMPTS:
        # The pane's shell signalled before tmux drew its last output: re-read.
        attempts += 1
        await trio.sleep(0.005 * attempts)
        parsed = parse_capture(await _capture(ctx, pane, -FIRST_CAPTURE_LINES), nonce)
    if parsed.started:
        return parsed, False
    whole = parse_capture(await _capture(ctx, pane, "-"), nonce)
    # Without the start line the beginning scrolled out of the history limit.
    return whole, not whole.started


_PANE_LOCKS: dict[str, trio.Lock] = {}
"""One run_command at a time per pane: two wrappers typed into one shell at once
would interleave. A waiting call holds the lock until it returns (or times out)."""


async def run_command(ctx: ToolContext, args: RunCommandArgs) -> RunCommandResult:
    """Handler for run_command: calls on the same pane run one after another."""
    pane = encode_id(args.pane_id, IdKind.PANE, "pane_id")
    command = encode_command(args.command, "command")
    lock = _PANE_LOCKS.setdefault(pane, trio.Lock())
    async with lock:
        return await _run(ctx, args, pane, command)


async def _run(ctx: ToolContext, args: RunCommandArgs, pane: str, command: str) -> RunCommandResult:
    await _check_pane(ctx, pane)
    nonce = secrets.token_hex(8)
    typed = wrapper(
        command,
        nonce,
        tmux=ctx.client.binary,
        socket=ctx.facts.socket_path,
        suppress=args.suppress_history,
    )
    name = buffer_name()
    began = trio.current_time()
    await ctx.client.run(
        cmd("load-buffer", b=name, args=["-"]),
        cmd("paste-buffer", "-d", "-r", b=name, t=pane),
        stdin=typed.encode("utf-8"),
    )
    capture: str | None = None
    async with trio.open_nursery() as nursery:

        async def report() -> None:
            while True:
                await trio.sleep(1)
                elapsed = trio.current_time() - began
                await ctx.progress(elapsed, args.timeout, "waiting for the command to finish")

        nursery.start_soon(report)
        try:
            out = await ctx.client.run(
                cmd("wait-for", args=[f"tmuxmcp-{nonce}"]),
                cmd("capture-pane", "-p", "-J", t=pane, S=-FIRST_CAPTURE_LINES),
                seconds=args.timeout,
            )
            capture = out.stdout
        except TmuxTimeout:
            capture = None
        nursery.cancel_scope.cancel()
    duration = trio.current_time() - began
    if capture is None:
        parsed = parse_capture(await _capture(ctx, pane, -FIRST_CAPTURE_LINES), nonce)
        lost = not parsed.started
    else:
        parsed, lost = await _collect(ctx, pane, nonce, capture)
    output, capped = _cap_output(parsed.lines, args.max_output_bytes)
    return RunCommandResult(
        pane_id=pane,
        completed=capture is not None,
        timed_out=capture is None,
        exit_status=parsed.status if capture is not None else None,
        output=output,
        output_lines=len(parsed.lines),
        output_truncated=capped or lost,
        duration_seconds=round(duration, 6),
    )


HANDLERS: dict[str, Handler] = {"run_command": run_command}
