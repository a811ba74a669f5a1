"""The life of one run: its phases, the events that move it, and the one table of moves.

In the manner of h11's ``_state.py``. A run is in exactly one ``Phase``. The
modules that type, watch and collect it say what happened with a typed event
(``Run.handle``); ``TRANSITIONS`` says, for each phase, which events it
takes and the phase each leads to. No tmux here, and no IO but the run's
files (``files.RunFiles``), written and closed through ``Run``'s methods.

Rules:

Rule 1: ``TRANSITIONS`` is the whole life of a run; an event it does not
  allow in the current phase is a bug in tmuxmcp and raises ``InternalError``
  naming both (the watcher filters what arrives on the status FIFO, which a
  program of the same user could write, before it becomes an event).
Rule 2: only this module writes a run's fields; the other modules read them
  (``run.phase``, ``run.status``, ``run.outcome`` ...) and send events. A run
  keeps its data (set when it is made) and its life: the phase, ``done``, and
  the events that moved it, as they came (``checked``, ``typing``, ``start``,
  ``answered``, ``end``, ``stopped``, ``ending``), written by ``handle`` alone.
  What a run reports beyond them (``started``, ``status``, ``outcome``,
  ``error``, ``finished_at``, the typing's facts) is derived from those events, never
  stored twice, so it cannot disagree with the phase (issue 30.1).
Rule 3: ``done`` is set exactly when the run reaches a final phase; a final
  phase has an ``outcome`` (``COLLECTED``) or an ``error`` (every other one
  but ``ABANDONED``, whose error went to the call that was starting it).
Rule 4: the shell is gone from the run (no script will look for its files
  again) in ``REFUSED``, ``SHELL_EXITED``, ``LEFT`` and ``INTERRUPTED``; a run
  closed after its command started and before it reported its end keeps the
  files the script still opens (``pending``).
Rule 5 (issue 22.2): a shell that left the script by itself (its command's
  child died of SIGINT, a C-c tmuxmcp did not send) is ``LEFT``: it waits at
  its prompt with ``$?`` the status it would show a person, which a status
  probe reads back (``watch`` Rule 2), and the run ends ``COLLECTED`` with
  that status (``Probed``) as if it had reported it. Only a run tmuxmcp
  itself interrupted (``Stopped``: an MCP Task's stop typed C-c), or one whose
  status cannot be read back, ends ``INTERRUPTED``.

The table, drawn (``FINAL``: every phase without a move out)::

    PREPARING --Checked--> PREPARING --Typed--> TYPED --Started--> RUNNING
    RUNNING  --Redrawn--> RUNNING (the typed line replaced by the shown command)
    RUNNING  --PrintedFirst--> RUNNING (rows the shell printed before the command)
    PREPARING --Abandoned--> ABANDONED
    TYPED    --Refused--> REFUSED          TYPED --NotRun--> NOT_RUN
    TYPED, RUNNING --Ended--> ENDED --Collected--> COLLECTED
    TYPED, RUNNING --Stopped--> the same phase (tmuxmcp typed C-c)
    TYPED, RUNNING, LEFT --ShellExited--> SHELL_EXITED
    RUNNING  --Left--> LEFT --Probed--> COLLECTED
    RUNNING, LEFT --Interrupted--> INTERRUPTED
    TYPED, RUNNING, ENDED, LEFT --Failed--> FAILED
    TYPED, RUNNING, ENDED, LEFT --Cancelled--> CANCELLED
"""

from __future__ import annotations

import enum
import secrets

import msgspec
import trio

from tmuxmcp.errors import CommandInterrupted, InternalError, TmuxMcpError
from tmuxmcp.panetext.scrollback import Mark
from tmuxmcp.runs.files import FilesPhase, RunFiles
from tmuxmcp.runs.output import AtTyping, Outcome
from tmuxmcp.runs.redraw import NO_REDRAW, Before, Redraw


class Phase(enum.Enum):
    """Where a run is in its life."""

    PREPARING = "preparing"
    """Made, its shell found at its prompt; nothing is typed yet (a refused typing
    guard leaves it here, to be checked and typed again)."""
    TYPED = "typed"
    """The line is in the pane; the script has not reported ``S`` yet."""
    RUNNING = "running"
    """The script reported ``S``: the command runs."""
    ENDED = "ended"
    """The script reported ``E <status>``; the output is read while the shell is held."""
    LEFT = "left"
    """The shell left the script by itself, before reporting the end (Rule 5): its
    status is read back by a probe, and the output read, with the shell at its prompt."""
    COLLECTED = "collected"
    """Final: the output was read."""
    REFUSED = "refused"
    """Final: the script ran nothing, under a shell option it refuses (``runscript``)."""
    NOT_RUN = "not-run"
    """Final: the shell read the line but ran nothing (it waits for more input)."""
    SHELL_EXITED = "shell-exited"
    """Final: the shell exited, or its pane went, before the command's end."""
    INTERRUPTED = "interrupted"
    """Final: the shell left the script before reporting the end, after tmuxmcp's own
    C-c, or its status could not be read back (Rule 5)."""
    FAILED = "failed"
    """Final: tmux failed while the run was watched or collected."""
    ABANDONED = "abandoned"
    """Final: the start failed or was cancelled before the line was typed."""
    CANCELLED = "cancelled"
    """Final: its watcher was cancelled (shutdown, or a direct call ended)."""


# -- events ---------------------------------------------------------------------------


class Checked(msgspec.Struct, frozen=True):
    """The shell was found at its prompt: the evidence typing will rest on."""

    pane_pid: int
    shell_pid: int | None
    shell_image: tuple[int, ...] | None = None
    """Where the shell's program lies in memory (``driver.proc.image``): a shell that
    left the script with another one has run ``exec`` (``watch`` Rule 2)."""


class Typed(msgspec.Struct, frozen=True):
    """The line was pasted; ``mark`` is the prompt row, taken in the same invocation."""

    line: str
    mark: Mark
    restore_path: str
    """``#{pane_path}`` before the run (the fence replaces it; the script puts it back)."""
    at_typing: AtTyping = AtTyping(prompt="", clear_below=False)
    """What the screen showed around the prompt row then (``output`` Rule 1)."""
    command: str = ""
    """The caller's command as given, which the line runs (what progress shows)."""


class Started(msgspec.Struct, frozen=True):
    """The script reported ``S <status>``: ``$?`` as the typed line found it, the
    status of the shell's last command (what a status probe reads back, Rule 5)."""

    status_before: int


class Redrawn(msgspec.Struct, frozen=True):
    """tmuxmcp found the screen exactly the prompt and the typed line after ``S`` and
    told the script to replace the line by the shown command (``redraw``): the output
    starts at ``redraw.first``. No event where it told the script not to."""

    redraw: Redraw


class PrintedFirst(msgspec.Struct, frozen=True):
    """tmuxmcp found the prompt and the typed line after ``S``, then rows the shell
    printed before the command began (``redraw`` Rule 4: bash's ``PS0``, a prompt
    drawn after the line): no redraw, and the output starts after them."""

    before: Before


class Stopped(msgspec.Struct, frozen=True):
    """tmuxmcp typed C-c into the pane to stop the run (an MCP Task's stop): a shell
    leaving the script after it was interrupted, not left by itself (Rule 5)."""


class Left(msgspec.Struct, frozen=True):
    """The shell left the script by itself before reporting the end (Rule 5)."""


class Ended(msgspec.Struct, frozen=True):
    """The script reported ``E <status>``."""

    status: int


class Collected(msgspec.Struct, frozen=True):
    """The output was read."""

    outcome: Outcome


class Probed(msgspec.Struct, frozen=True):
    """A shell that left the script had its status read back, and the output was read
    (Rule 5): ``outcome.exit_status`` is that status."""

    outcome: Outcome


class _EndsWithError(msgspec.Struct, frozen=True):
    """An event that ends a run with ``error``, what the caller gets."""

    error: TmuxMcpError


class Refused(_EndsWithError, frozen=True):
    """The script reported ``X <option>`` and ran nothing."""


class NotRun(_EndsWithError, frozen=True):
    """The shell read the line but did not run it."""


class ShellExited(_EndsWithError, frozen=True):
    """The shell exited (or the pane closed) before the end was reported."""


class Interrupted(_EndsWithError, frozen=True):
    """The shell left the script before reporting the end."""


class Failed(_EndsWithError, frozen=True):
    """tmux failed while the run was watched or collected."""


class Abandoned(msgspec.Struct, frozen=True):
    """The start failed or was cancelled before the line was typed."""


class Cancelled(msgspec.Struct, frozen=True):
    """The watcher was cancelled before the run reached a final phase."""


Event = (
    Checked
    | Typed
    | Started
    | Redrawn
    | PrintedFirst
    | Stopped
    | Left
    | Ended
    | Collected
    | Probed
    | Refused
    | NotRun
    | ShellExited
    | Interrupted
    | Failed
    | Abandoned
    | Cancelled
)


class Ending(msgspec.Struct, frozen=True):
    """How a run reached its final phase: the event, when, and the error it ends with
    (Rule 3; a ``Cancelled`` run's is made here, once)."""

    event: Event
    at: float
    error: TmuxMcpError | None


_NOTHING_SEEN = AtTyping(prompt="", clear_below=False)

_WATCHED = (Phase.TYPED, Phase.RUNNING, Phase.ENDED, Phase.LEFT)

TRANSITIONS: dict[Phase, dict[type[Event], Phase]] = {
    Phase.PREPARING: {
        Checked: Phase.PREPARING,
        Typed: Phase.TYPED,
        Abandoned: Phase.ABANDONED,
    },
    Phase.TYPED: {
        Started: Phase.RUNNING,
        Stopped: Phase.TYPED,
        Ended: Phase.ENDED,
        Refused: Phase.REFUSED,
        NotRun: Phase.NOT_RUN,
        ShellExited: Phase.SHELL_EXITED,
        Failed: Phase.FAILED,
        Cancelled: Phase.CANCELLED,
    },
    Phase.RUNNING: {
        Redrawn: Phase.RUNNING,
        PrintedFirst: Phase.RUNNING,
        Stopped: Phase.RUNNING,
        Left: Phase.LEFT,
        Ended: Phase.ENDED,
        ShellExited: Phase.SHELL_EXITED,
        Interrupted: Phase.INTERRUPTED,
        Failed: Phase.FAILED,
        Cancelled: Phase.CANCELLED,
    },
    Phase.ENDED: {
        Collected: Phase.COLLECTED,
        Failed: Phase.FAILED,
        Cancelled: Phase.CANCELLED,
    },
    Phase.LEFT: {
        Probed: Phase.COLLECTED,
        ShellExited: Phase.SHELL_EXITED,
        Interrupted: Phase.INTERRUPTED,
        Failed: Phase.FAILED,
        Cancelled: Phase.CANCELLED,
    },
    **{phase: {} for phase in Phase if phase not in (Phase.PREPARING, *_WATCHED)},
}
"""For each phase, the events it takes and the phase each leads to (Rule 1)."""

FINAL = frozenset(phase for phase, moves in TRANSITIONS.items() if not moves)
"""The phases a run never leaves."""

SHELL_GONE = frozenset({Phase.REFUSED, Phase.SHELL_EXITED, Phase.LEFT, Phase.INTERRUPTED})
"""The phases in which no script will look for the run's files again (Rule 4)."""

CANCELLED_ERROR = (
    "tmuxmcp stopped watching run {run_id} in pane {pane} (it is shutting down); its "
    "output is on the screen (capture_pane)"
)


class Run:
    """One typed command, from the readiness check to collection."""

    def __init__(
        self,
        run_id: str,
        pane: str,
        run_directory: str,
        index: int,
        *,
        budget: int,
        lock_fd: int,
        probe: bool = False,
    ) -> None:
        # What the run is: given when it is made, never changed.
        self.run_id = run_id
        self.pane = pane
        self.budget = budget
        """Bytes of output to collect (the starting call's max_output_bytes)."""
        self.files = RunFiles(run_directory, index, lock_fd)
        """Its files, with their own table (``files``); written and closed through the
        methods below."""
        self.fence = f"tmuxmcp-{secrets.token_hex(12)}"
        self.began = trio.current_time()
        self.probe = probe
        """A status probe (Rule 5): an empty command whose release gives the shell back
        the status it started with, so that ``$?`` stays the left run's."""
        self.cancel = trio.CancelScope()
        """Its watcher's scope: cancelling it makes the watcher send ``Cancelled``."""
        # Its life (Rule 2): the phase, and the events that moved it, kept as they
        # came; ``handle`` alone writes these, and what they say is read through
        # the properties below, so no flag can disagree with the phase.
        self.phase = Phase.PREPARING
        self.done = trio.Event()
        """Set by ``handle`` exactly when the phase becomes final (Rule 3): what a
        call waiting for the run waits on."""
        self.checked: Checked | None = None
        """The last readiness evidence (``Checked``: a refused typing checks again)."""
        self.typing: Typed | None = None
        """How the line was typed (``Typed``)."""
        self.start: Started | None = None
        """The script's ``S <status>`` (``Started``)."""
        self.end: Ended | None = None
        """The script's ``E <status>`` (``Ended``)."""
        self.answered: Redrawn | PrintedFirst | None = None
        """What tmuxmcp saw after ``S`` and answered: the redraw the script was told to
        make (``Redrawn``), or what the shell printed before the command (``PrintedFirst``);
        None for neither."""
        self.stopped = False
        """tmuxmcp typed C-c to stop the run (``Stopped``: the phase stays)."""
        self.ending: Ending | None = None
        """How and when the run reached its final phase (set with ``done``)."""

    def allows(self, event: Event) -> bool:
        """Whether the current phase takes ``event`` (Rule 1)."""
        return type(event) in TRANSITIONS[self.phase]

    def handle(self, event: Event) -> None:
        """Move the run by ``event``; raise ``InternalError`` if its phase does not take it."""
        following = TRANSITIONS[self.phase].get(type(event))
        if following is None:
            raise InternalError(
                f"run {self.run_id}: event {type(event).__name__} is not allowed in phase "
                f"{self.phase.value}"
            )
        match event:
            case Checked():
                self.checked = event
            case Typed():
                self.typing = event
            case Started():
                self.start = event
            case Redrawn() | PrintedFirst():
                self.answered = event
            case Stopped():
                self.stopped = True
            case Ended():
                self.end = event
            case _:
                pass
        self.phase = following
        if following in FINAL:
            self.ending = Ending(event, at=trio.current_time(), error=self._error_of(event))
            self.done.set()

    def _error_of(self, event: Event) -> TmuxMcpError | None:
        """The error a final event ends the run with (Rule 3), made once."""
        match event:
            case _EndsWithError(error=error):
                return error
            case Cancelled():
                return CommandInterrupted(
                    CANCELLED_ERROR.format(run_id=self.run_id, pane=self.pane)
                )
            case _:
                return None

    # -- what the events said (read-only: each is derived, never stored twice) --------

    @property
    def started(self) -> bool:
        """The script reported ``S`` or ``E`` (the command began)."""
        return self.start is not None or self.end is not None

    @property
    def redraw(self) -> Redraw | None:
        """Where the typed line was replaced by the shown command (``Redrawn``)."""
        return self.answered.redraw if isinstance(self.answered, Redrawn) else None

    @property
    def before(self) -> Before | None:
        """What the shell printed before the command began, where known (``PrintedFirst``)."""
        return self.answered.before if isinstance(self.answered, PrintedFirst) else None

    @property
    def status_before(self) -> int | None:
        """``$?`` when the typed line ran (``Started``)."""
        return None if self.start is None else self.start.status_before

    @property
    def status(self) -> int | None:
        """The command's exit status: reported (``Ended``) or read back (``Probed``)."""
        if self.end is not None:
            return self.end.status
        if self.ending is not None and isinstance(self.ending.event, Probed):
            return self.ending.event.outcome.exit_status
        return None

    @property
    def outcome(self) -> Outcome | None:
        """The output read (``Collected``, ``Probed``): set exactly in ``COLLECTED``."""
        match None if self.ending is None else self.ending.event:
            case Collected(outcome=outcome) | Probed(outcome=outcome):
                return outcome
            case _:
                return None

    @property
    def error(self) -> TmuxMcpError | None:
        """What the caller gets from a final phase other than ``COLLECTED`` (Rule 3)."""
        return None if self.ending is None else self.ending.error

    @property
    def finished_at(self) -> float | None:
        """When the run reached its final phase (a result made later reports this end)."""
        return None if self.ending is None else self.ending.at

    @property
    def pane_pid(self) -> int:
        """The pane's process the readiness check read (0 before ``Checked``)."""
        return 0 if self.checked is None else self.checked.pane_pid

    @property
    def shell_pid(self) -> int | None:
        """The shell the line is typed into, when it is not the pane's process itself."""
        return None if self.checked is None else self.checked.shell_pid

    @property
    def shell_image(self) -> tuple[int, ...] | None:
        """Where that shell's program lay in memory at the check (``Checked``)."""
        return None if self.checked is None else self.checked.shell_image

    @property
    def typed(self) -> str:
        """The line tmuxmcp typed ("" before ``Typed``)."""
        return "" if self.typing is None else self.typing.line

    @property
    def command(self) -> str:
        """The caller's command as given (what progress shows until it prints)."""
        return "" if self.typing is None else self.typing.command

    @property
    def mark(self) -> Mark | None:
        """The prompt row when the line was typed."""
        return None if self.typing is None else self.typing.mark

    @property
    def at_typing(self) -> AtTyping:
        """What the screen showed around the prompt row then (``output`` Rule 1)."""
        return _NOTHING_SEEN if self.typing is None else self.typing.at_typing

    @property
    def restore_path(self) -> str | None:
        """``#{pane_path}`` before the run, which the release puts back."""
        return None if self.typing is None else self.typing.restore_path

    @property
    def shell(self) -> str:
        """The base name of the shell the script is written for."""
        return self.files.shell

    @property
    def shell_gone(self) -> bool:
        """No script will look for this run's files again (Rule 4)."""
        return self.phase in SHELL_GONE

    @property
    def pending(self) -> bool:
        """Typed and started, and its script has not reported its end (Rule 4)."""
        return (
            self.files.status_fd >= 0
            and self.status is None
            and self.started
            and not self.shell_gone
        )

    @property
    def outlived(self) -> bool:
        """Closed while its command was still running (its files must stay)."""
        return self.files.phase is FilesPhase.OUTLIVED

    @property
    def closed(self) -> bool:
        """The run's files are closed (``files`` Rule 1: once)."""
        return self.files.closed

    def write_files(self, command: str, *, shell: str) -> None:
        """Create the run's files for ``shell``, or rewrite its script for another shell."""
        if self.files.phase is FilesPhase.WRITTEN:
            self.files.write_script(shell=shell, fence=self.fence)
        else:
            self.files.write(command, shell=shell, fence=self.fence)

    def answer(self, seen: Redraw | Before | None) -> None:
        """Give the script its word after ``S`` (``runscript`` Rule 6): make the redraw
        ``seen`` is (``Redrawn``), or none, keeping what the shell printed before the
        command where ``seen`` says (``PrintedFirst``)."""
        # Kept only while the run is still RUNNING (its read of the screen was an
        # await): a redraw the run cannot record is not made, and the script gets
        # its word whatever happened.
        if isinstance(seen, Redraw) and self.allows(Redrawn(seen)):
            self.handle(Redrawn(seen))
            self.files.answer(seen.answer())
            return
        if isinstance(seen, Before) and self.allows(PrintedFirst(seen)):
            self.handle(PrintedFirst(seen))
        self.files.answer(NO_REDRAW)

    def record_shell(self) -> None:
        """Record the shell about to be typed into (``directory``, Rule 2)."""
        self.files.record_shell(self.shell_pid or self.pane_pid)

    def close(self) -> None:
        """Release the shell and close the run's files. Once: a second close raises
        ``InternalError`` (``files`` Rule 1); the run's end closes them, in one place."""
        # A probe gives back the status it found (Rule 5), not its empty command's.
        status = self.status_before if self.probe and self.status is not None else self.status
        self.files.close(going=self.pending, status=status, restore_path=self.restore_path)

    def disarm(self) -> None:
        """The shell did not run the typed line (or the start failed): make sure it never
        can. Files that were never whole had no line typed for them, so nothing to do."""
        if self.files.phase is FilesPhase.WRITTEN:
            self.files.disarm_script()
