"""What ``run_command`` and ``wait_for_command`` take and return.

Declarations only: the argument and result Structs the capability
definition names and their bounds; ``max_output_bytes`` is counted as the
output is encoded in JSON (``panetext.inline.line_cost``, shared by every tool's
inline budget). How a run works
is the package's docstring (``tmuxmcp.tools.run``); the handlers are in
``handlers``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from tmuxmcp.capability.arguments import Arguments
from tmuxmcp.capability.params import PaneId, flag, sink
from tmuxmcp.capability.results import Own, Terminal, TmuxId
from tmuxmcp.panetext.inline import DEFAULT_INLINE_CHARS
from tmuxmcp.sinks import Encoding, Sink
from tmuxmcp.sinks.text import MAX_COMMAND_BYTES

DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 600.0
DEFAULT_OUTPUT_BYTES = DEFAULT_INLINE_CHARS
"""The shared inline budget (``panetext.inline``): with it a default result's
structured JSON stays under 40,000 characters whatever the output holds (the
other fields and the markers take well under 4,000), so a client such as
Claude Code keeps it inline (issue 18)."""
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
            "Most output bytes returned, JSON-counted"
            " (newline 2, control character 6; start and end kept)."
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


class RunCommandArgs(Arguments):
    """Arguments of run_command."""

    pane_id: PaneId
    command: Annotated[
        str,
        Meta(
            min_length=1,
            max_length=MAX_COMMAND_BYTES,
            description=(
                "Command for the pane's shell; tabs and newlines allowed, "
                "no other control characters."
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
    waiting_for: Literal["awaiting-line", "awaiting-secret", "awaiting-keys"] | None
    """Set when the call stopped waiting because the command's program waits for input
    and kept waiting (issue 28.2): a line, a secret (echo off: a password) or keys (a
    pager, an editor, a REPL). The command is still running: answer it, then
    ``wait_for_command``."""
    prompt: Terminal | None
    """With ``waiting_for``: the command's last line of output, the question as the screen
    shows it."""
    attach_command: Own | None = None
    """With ``waiting_for: "awaiting-secret"``: the command a person runs to type the secret
    into the pane themselves (issue 28.6); a secret typed by the agent stays in its
    transcript."""
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
        elif self.waiting_for is not None:
            answer = (
                f"ask a person to type it ({self.attach_command})"
                if self.attach_command
                else "answer it (send_keys)"
            )
            head = (
                f"still running after {self.duration_seconds:.3f} s, {self.waiting_for}: "
                f"{self.prompt!r}; {answer}, then wait_for_command run_id {self.run_id}"
            )
        else:
            head = (
                f"still running after {self.duration_seconds:.3f} s (timed out); "
                f"wait_for_command run_id {self.run_id} collects it"
            )
        if self.output_truncated:
            head += "; output shortened"
        return head + "\n" + self.output


class WaitForCommandArgs(Arguments):
    """Arguments of wait_for_command."""

    pane_id: PaneId
    run_id: RunId
    timeout: Timeout = DEFAULT_TIMEOUT
    max_output_bytes: OutputBytes = DEFAULT_OUTPUT_BYTES
