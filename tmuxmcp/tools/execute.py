"""The execute toolset: keys and text for pane programs, shell commands in panes.

These tools carry real authority: whatever they deliver runs with the tmux
user's authority (CM-7). They never start a host-side shell (CM-6): a command
runs in the shell already running in the pane.

* ``send_keys``: key names from a closed vocabulary only (``sinks.keys``).
* ``send_text`` and ``paste_buffer``: written to the pane through a tmux paste
  buffer (``sinks.text``), so the text never reaches the key-name parser or a
  mode's key bindings, and has no argv size limit. send_text's newlines
  arrive as Enter (CR), in the same paste.
* ``send_keys`` and ``send_text`` read a cursor (``since``) in the same tmux
  invocation, before the input, and return it: wait_for_text ``since`` that
  cursor cannot miss a reply printed before the wait begins.
* ``run_command``: see ``commands``; it shares the paste path.
* ``respawn_pane``: restarts the pane's configured process; the
  self-teardown guard applies because the old process dies.
"""

from __future__ import annotations

import secrets
from enum import Enum
from typing import Annotated, cast

import msgspec
from msgspec import Meta

from tmuxmcp.capability.arguments import Arguments, conflict
from tmuxmcp.capability.environment import with_environment
from tmuxmcp.capability.params import BufferName, PaneId, flag, sink
from tmuxmcp.capability.results import Own, TmuxId
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.sinks import Encoding, Sink
from tmuxmcp.sinks.keys import KEY_VOCABULARY
from tmuxmcp.sinks.target import IdKind
from tmuxmcp.sinks.text import MAX_TEXT_BYTES
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.pane_reading import note_secret_input
from tmuxmcp.tools.since import cursor_commands, cursor_from
from tmuxmcp.tools.teardown import refuse_self_teardown

KeyName = Enum("KeyName", {name: name for name in sorted(KEY_VOCABULARY)}, type=str)  # type: ignore[misc]
"""The closed key vocabulary as a JSON-schema enum."""

MAX_KEYS = 200


def buffer_name() -> str:
    """A paste-buffer name no other client will pick."""
    return f"tmuxmcp-{secrets.token_hex(8)}"


def paste_commands(
    pane: str, *, bracketed: bool, enter: bool, name: str, lines: bool = False
) -> list[Command]:
    """Paste the buffer ``name`` (already loaded) into ``pane``, then maybe Enter.

    ``-d`` deletes the buffer after pasting; ``-r`` keeps bytes as they are.
    With ``lines``, ``-r`` is left out: tmux then replaces each LF with its
    default separator, CR, which is what the Enter key sends, so every line
    break arrives as Enter within the one paste (and inside the brackets of a
    bracketed paste, as a terminal pastes copied lines).
    Enter is a CR pasted on its own, outside any bracket, so it is a key press
    for the program even after a bracketed paste, and never a mode binding.
    """
    flags = [*([] if lines else ["-r"]), *(["-p"] if bracketed else [])]
    commands = [cmd("paste-buffer", "-d", *flags, b=name, t=pane)]
    if enter:
        cr = name + "-enter"
        commands += [
            cmd("set-buffer", b=cr, args=["\r"]),
            cmd("paste-buffer", "-d", "-r", b=cr, t=pane),
        ]
    return commands


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
        list[KeyName],
        Meta(
            min_length=1,
            max_length=MAX_KEYS,
            description=("Key names, sent in order."),
            extra=sink(Sink.KEYS, Encoding.KEY_VOCABULARY),
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

    def __post_init__(self) -> None:
        if len(self.keys) * self.repeat > MAX_KEYS:
            conflict(
                f"`repeat`: keys times repeat must be at most {MAX_KEYS} "
                f"(got {len(self.keys)} keys times {self.repeat})",
                "repeat",
                "keys",
            )


async def send_keys(ctx: ToolContext, args: SendKeysArgs) -> Sent:
    """Handler for send_keys; keys pass through the pane's mode key table if it is in a mode."""
    pane = args.pane_id
    # The key-vocabulary encoder turned each KeyName into its plain key name.
    names = cast(list[str], args.keys) * args.repeat
    await note_secret_input(ctx, pane, "keys")
    frame, reads = cursor_commands(pane)
    out = await ctx.client.run(*reads, cmd("send-keys", t=pane, args=names))
    ctx.runs.input_handled(pane)
    cursor = cursor_from(ctx, pane, frame, out.stdout)
    return Sent(pane_id=pane, delivered=f"{len(names)} keys", cursor=cursor)


# -- send_text -------------------------------------------------------------------


Text = Annotated[
    str,
    Meta(
        max_length=MAX_TEXT_BYTES,
        description=(
            f"Text to type, up to {MAX_TEXT_BYTES} bytes; each newline arrives as Enter, other "
            "control characters are refused (use send_keys)."
        ),
        extra=sink(Sink.KEYS, Encoding.PASTE_BUFFER),
    ),
]


class SendTextArgs(Arguments):
    """Arguments of send_text."""

    pane_id: PaneId
    text: Text
    enter: Annotated[bool, flag("Press Enter after the text.")] = False
    bracketed_paste: Annotated[
        bool,
        flag("Bracketed paste, if the program enabled it (tmux -p)."),
    ] = False


async def send_text(ctx: ToolContext, args: SendTextArgs) -> Sent:
    """Handler for send_text: one tmux invocation, the text on its stdin.

    Even with nothing to send, the cursor is read (one tmux call), so a caller
    can always wait ``since`` the result.
    """
    pane = args.pane_id
    await note_secret_input(ctx, pane, "text")
    data = args.text.encode("utf-8")
    name = buffer_name()
    frame, reads = cursor_commands(pane)
    breaks = data.count(b"\n")
    lines = breaks > 0
    if data:
        load = [cmd("load-buffer", b=name, args=["-"])]
        pastes = paste_commands(
            pane, bracketed=args.bracketed_paste, enter=args.enter, name=name, lines=lines
        )
    elif args.enter:
        # load-buffer of no bytes makes no buffer (found by the fuzz suite): Enter alone.
        load, pastes = [], paste_commands(pane, bracketed=False, enter=True, name=name)[1:]
    else:
        load, pastes = [], []
    out = await ctx.client.run(*reads, *load, *pastes, stdin=data if data else None)
    if data or args.enter:
        ctx.runs.input_handled(pane)
    cursor = cursor_from(ctx, pane, frame, out.stdout)
    said = f"{len(data)} bytes"
    if lines:
        said += f" ({breaks} line breaks as Enter)"
    said += " and Enter" if args.enter else ""
    return Sent(pane_id=pane, delivered=said, cursor=cursor)


# -- paste_buffer ----------------------------------------------------------------


class PasteBufferArgs(Arguments):
    """Arguments of paste_buffer."""

    pane_id: PaneId
    buffer: BufferName
    bracketed_paste: Annotated[
        bool, flag("Bracketed paste, if the program enabled it (tmux -p).")
    ] = False


async def paste_buffer(ctx: ToolContext, args: PasteBufferArgs) -> Delivered:
    """Handler for paste_buffer: the buffer is kept; line feeds become carriage returns."""
    pane = args.pane_id
    name = args.buffer
    flags = ["-p"] if args.bracketed_paste else []
    await ctx.client.run(cmd("paste-buffer", *flags, b=name, t=pane))
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
