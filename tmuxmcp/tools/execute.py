"""The execute toolset: keys and text for pane programs, shell commands in panes.

These tools carry real authority: whatever they deliver runs with the tmux
user's authority (CM-7). They never start a host-side shell (CM-6): a command
runs in the shell already running in the pane.

* ``send_keys``: keys and text in one call, in order (issue 28.4): keys from
  a closed vocabulary (names, or one printable character; ``sinks.keys``),
  text written to the pane through a tmux paste buffer (``sinks.text``), so
  it never reaches the key-name parser or a mode's key bindings; its
  newlines arrive as Enter (CR), its tabs as tabs. Text is refused while the
  pane is in a tmux mode, naming the key that leaves it (``keystrokes``).
* ``paste_buffer``: a buffer written to the pane the same way.
* ``send_keys`` reads a cursor (``since``) in the same tmux invocation,
  before the input, and returns it: wait_for_text ``since`` that cursor
  cannot miss a reply printed before the wait begins.
* ``run_command``: see ``commands``; it shares the paste path.
* ``respawn_pane``: restarts the pane's configured process; the
  self-teardown guard applies because the old process dies.
"""

from __future__ import annotations

from typing import Annotated, NoReturn

import msgspec
from msgspec import Meta

from tmuxmcp.capability.arguments import Arguments, conflict
from tmuxmcp.capability.environment import with_environment
from tmuxmcp.capability.params import BufferName, PaneId, flag, sink
from tmuxmcp.capability.results import Own, TmuxId
from tmuxmcp.driver.argv import cmd
from tmuxmcp.driver.guards import GuardRefused, Refusal, guard, mode_guard_name
from tmuxmcp.errors import PaneNotReady
from tmuxmcp.panes.pane_reading import panes_with_state
from tmuxmcp.sinks import Encoding, Sink
from tmuxmcp.sinks.target import IdKind
from tmuxmcp.sinks.text import MAX_TEXT_BYTES
from tmuxmcp.tools import keystrokes
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.keystrokes import Part, TextPart
from tmuxmcp.tools.since import cursor_commands, cursor_from
from tmuxmcp.tools.teardown import refuse_self_teardown

MAX_KEYS = 200


class Delivered(msgspec.Struct, frozen=True, kw_only=True):
    """What was delivered to which pane (never the payload itself)."""

    pane_id: TmuxId
    delivered: Own

    def text_form(self) -> str:
        """Readable form."""
        return f"{self.delivered} -> {self.pane_id}"


class Sent(Delivered, frozen=True, kw_only=True):
    """What was delivered, and a cursor taken just before it was."""

    cursor: Own
    """Where the pane's cursor was just before the input arrived, as an opaque cursor
    (capture_since's kind, no terminal text in it): pass it to wait_for_text ``since``
    to match only what appeared after it, or to capture_since."""

    def text_form(self) -> str:
        """Readable form."""
        return f"{self.delivered} -> {self.pane_id}\n[cursor] {self.cursor}"


# -- send_keys -------------------------------------------------------------------


class SendKeysArgs(Arguments):
    """Arguments of send_keys."""

    pane_id: PaneId
    keys: Annotated[
        list[Part],
        Meta(
            min_length=1,
            max_length=MAX_KEYS,
            description=(
                "In order. A string is one key: a name (Enter, Escape, Tab, BSpace, Space, Up, "
                "PageDown, Home, F1..F12, C-a..C-z, M-a..M-z, M-0..M-9) or one printable "
                'character (q, :, y). {"text": "..."} is typed byte for byte (tabs too, newline '
                "as Enter); refused in a tmux mode."
            ),
            extra=sink(Sink.KEYS, Encoding.KEYS_OR_TEXT),
        ),
    ]
    repeat: Annotated[
        int,
        Meta(
            ge=1,
            le=50,
            description="Times to send the list.",
            extra=sink(Sink.LOCAL, Encoding.NONE),
        ),
    ] = 1
    bracketed_paste: Annotated[
        bool,
        flag("Text as a bracketed paste, if the program enabled it (tmux -p)."),
    ] = False

    def __post_init__(self) -> None:
        if len(self.keys) * self.repeat > MAX_KEYS:
            conflict(
                f"`repeat`: keys times repeat must be at most {MAX_KEYS} "
                f"(got {len(self.keys)} keys times {self.repeat})",
                "repeat",
                "keys",
            )
        size = sum(len(p.text.encode("utf-8", "surrogatepass")) for p in self.keys
                   if isinstance(p, TextPart))  # fmt: skip
        if size * self.repeat > MAX_TEXT_BYTES:
            conflict(
                f"`keys`: text parts (times repeat) must be at most {MAX_TEXT_BYTES} bytes "
                f"together (got {size * self.repeat}); send the rest in another call",
                "keys",
                "repeat",
            )


async def _note_secret_input(ctx: ToolContext, pane: str, parameter: str) -> None:
    """Where an audit log is kept: when ``pane``'s program reads a line with echo off (a
    password prompt, ``awaiting-secret``), note ``parameter`` as a secret of this call,
    so the log records nothing of it (issue 28.6). Read before the input is sent: once
    the secret is entered, the prompt is gone."""
    if ctx.notes is None:
        return
    for found in await panes_with_state(ctx.client, ctx.kernel, cmd("list-panes", t=pane)):
        if found.pane_id == pane and found.state.state == "awaiting-secret":
            ctx.notes.secret.add(parameter)


async def send_keys(ctx: ToolContext, args: SendKeysArgs) -> Sent:
    """Handler for send_keys: keys and text in order, in as few tmux invocations as fit.

    The cursor is read in the first invocation, before any part (``since``).
    Keys act on a tmux mode the pane is in; text is refused there before it is
    pasted (``keystrokes`` Rule 2), and the error says what was delivered.
    """
    pane = args.pane_id
    # The encoder kept each part as it was: a key name, or a TextPart it checked.
    parts = list(args.keys) * args.repeat
    await _note_secret_input(ctx, pane, "keys")
    frame, reads = cursor_commands(pane)
    steps = keystrokes.plan(
        pane, parts, marker=ctx.client.marker, bracketed=args.bracketed_paste, lead=reads
    )
    first = ""
    for number, step in enumerate(steps):
        try:
            out = await ctx.client.run(*step.commands, stdin=step.stdin)
        except GuardRefused as refused:
            if refused.refusal is not Refusal.PANE_IN_MODE or step.guarded_part is None:
                raise
            await _refuse_in_mode(ctx, pane, step.guarded_part, len(args.keys))
        if number == 0:
            first = out.stdout
            if step.guarded_part is not None:
                # The mode guard that passed printed the marker's value last.
                first = first.removesuffix("\n").rpartition("\n")[0] + "\n"
    ctx.runs.input_handled(pane)
    cursor = cursor_from(ctx, pane, frame, first)
    return Sent(pane_id=pane, delivered=_delivered(parts), cursor=cursor)


def _delivered(parts: list[keystrokes.Part]) -> str:
    texts = [p.text.encode("utf-8") for p in parts if isinstance(p, TextPart)]
    said = f"{len(parts) - len(texts)} keys"
    if texts:
        breaks = sum(t.count(b"\n") for t in texts)
        said += f", {sum(len(t) for t in texts)} bytes of text"
        said += f" ({breaks} line breaks as Enter)" if breaks else ""
    return said


async def _refuse_in_mode(
    ctx: ToolContext, pane: str, part: int | None, given: int = 0
) -> NoReturn:
    """Text (send_keys' part ``part`` of the repeated list of ``given`` parts, or a
    paste) met a tmux mode: say which mode, what was sent, and the key that leaves it."""
    mode = (
        await ctx.client.run(cmd("display-message", "-p", t=pane, args=["#{pane_mode}"]))
    ).stdout.strip()
    if part:
        ctx.runs.input_handled(pane)
    sent = f"the {part} parts before it were sent" if part else "nothing was sent"
    what = "the paste"
    if part is not None:
        again = f", repeat {part // given + 1}" if part >= given else ""
        what = f"keys[{part % given}] (text{again})"
    raise PaneNotReady(
        f"pane {pane} is in {mode or 'a tmux mode'}, where text would reach the program "
        f"behind the mode unseen; {what} was refused and {sent}. Leave the mode first "
        'with the key q (send_keys keys ["q", ...]), then send the text'
    )


# -- paste_buffer ----------------------------------------------------------------


class PasteBufferArgs(Arguments):
    """Arguments of paste_buffer."""

    pane_id: PaneId
    buffer: BufferName
    bracketed_paste: Annotated[
        bool, flag("Bracketed paste, if the program enabled it (tmux -p).")
    ] = False


async def paste_buffer(ctx: ToolContext, args: PasteBufferArgs) -> Delivered:
    """Handler for paste_buffer: the buffer is kept; line feeds become carriage returns.

    Refused in a tmux mode, as send_keys' text is: the mode guard stands before the
    paste in the same invocation (``keystrokes`` Rule 2)."""
    pane = args.pane_id
    name = args.buffer
    flags = ["-p"] if args.bracketed_paste else []
    mode = guard(mode_guard_name(ctx.client.marker, pane), pane)
    try:
        await ctx.client.run(mode, cmd("paste-buffer", *flags, b=name, t=pane))
    except GuardRefused as refused:
        if refused.refusal is not Refusal.PANE_IN_MODE:
            raise
        await _refuse_in_mode(ctx, pane, None)
    ctx.runs.input_handled(pane)
    return Delivered(pane_id=pane, delivered=f"buffer {name}")


# -- respawn_pane ----------------------------------------------------------------


class RespawnPaneArgs(Arguments):
    """Arguments of respawn_pane."""

    pane_id: PaneId


async def respawn_pane(ctx: ToolContext, args: RespawnPaneArgs) -> Delivered:
    """Handler for respawn_pane: kills the pane's process and starts its configured one."""
    pane = args.pane_id
    await refuse_self_teardown(ctx, IdKind.PANE, pane)
    await ctx.client.run(with_environment(cmd("respawn-pane", "-k", t=pane), ctx.pane_environment))
    return Delivered(pane_id=pane, delivered="respawned")
