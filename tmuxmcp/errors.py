"""The one exception tree of tmuxmcp.

Foreign exceptions (OS, Unicode, trio deadlines, msgspec validation) are
translated into these classes exactly once, at the edge where they arise: the
process spawner, the argument decoder and the sink encoders. Everything above
that edge sees only this tree. The MCP layer turns every ``TmuxMcpError`` into
a tool result with ``isError`` whose text names a stable ``reference`` slug, so
a client can tell error kinds apart without parsing prose.

    TmuxMcpError
    ├── CallerError              the caller can fix the call
    │   ├── InvalidArguments     arguments do not match the tool's schema
    │   │   └── ArgumentConflict parameters each valid, but not together
    │   ├── UnsafeValue          a value cannot be made safe for its sink
    │   ├── ObjectNotFound       a named tmux object does not exist
    │   │   └── NoSessions       the server has no sessions, so nothing can be named
    │   ├── PaneNotReady         the pane cannot take a shell command (or text) now
    │   │   ├── ShellBusy        its shell is not back at its prompt (*)
    │   │   │   └── JobJustEnded its job exited, the shell has not taken the terminal back (*)
    │   │   ├── InputPending     text waits at its prompt, typed but not entered (*)
    │   │   ├── ShellReadsInput  its shell runs its own read builtin, not its prompt (*)
    │   │   └── ProgramInForeground  another program has the terminal (*)
    │   │       └── ScriptInForeground  a shell running a script or -c command (*)
    │   ├── SelfTeardownRefused  a teardown would remove tmuxmcp's own pane
    │   ├── ZoomedTeardownRefused kill_session would crash tmux 3.4 (a zoomed window)
    │   └── RunLimit             as many panes run commands as this process can watch (*)
    ├── CommandInterrupted       a run_command run ended without its exit status
    ├── TmuxError                tmux could not do what was asked
    │   ├── TmuxCommandFailed    tmux ran and reported an error
    │   │   ├── CommandTooLong   tmuxmcp built a command list too long for tmux (*)
    │   │   └── GuardRefused     a guard after the gate stopped the invocation (*)
    │   ├── TmuxTimeout          tmux did not answer before the deadline
    │   ├── TmuxUnavailable      the tmux binary cannot be run
    │   ├── DescriptorsExhausted tmuxmcp (or the system) has no open files left to run tmux
    │   ├── TmuxUnsupported      the tmux binary is older than tmuxmcp supports
    │   ├── ServerGone           no tmux server answers on the socket
    │   ├── ServerReplaced       a different tmux server now owns the socket
    │   ├── BoundServerLost      the bound server exited or was replaced; every call is refused
    │   └── ConfigurationChanged an alias or hook appeared that voids the hints
    ├── ConfigError              the operator's startup configuration is invalid
    ├── InternalError            a bug in tmuxmcp; the details are only in its log
    └── LockDirUnsafe            the pane lock directory is not tmuxmcp's own (*)

(*) defined beside the code that raises it (``panes.readiness``, ``runs.pending``,
``driver.client``, ``driver.guards``, ``runs.panelock``, ``runs.turns``), with
the reference of its parent unless it declares its own. ``tests/test_errors.py``
compares this drawing with the class hierarchy, so a new class cannot be left out.

The dispatcher (``server.call``) maps this tree to results in one place, and
the audit log takes a call's outcome from the exception's ``reference``; no
code parses a slug back out of text.

Rule: messages never include payloads (text, commands, keys) or environment
data; they name the parameter and say what to change. A message may quote
tmux's own one-line error, which can repeat an id or name the caller sent.
"""

from __future__ import annotations

import errno
import resource


class TmuxMcpError(Exception):
    """Base of every error tmuxmcp raises on purpose."""

    reference = "tmuxmcp-error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def for_client(self) -> str:
        """The text a client sees: the stable slug, then what to do."""
        return f"[{self.reference}] {self.message}"


class CallerError(TmuxMcpError):
    """You get this when the call itself is wrong; changing it fixes it."""

    reference = "caller-error"


class InvalidArguments(CallerError):
    """You get this when the arguments do not match the tool's input schema."""

    reference = "invalid-arguments"


class ArgumentConflict(InvalidArguments, ValueError):
    """You get this when parameters that are each valid do not go together
    (two that exclude each other, a range whose ends are reversed).

    Raised by an argument Struct's ``__post_init__`` (``capability.arguments``);
    it is a ``ValueError`` so that msgspec reports it while decoding, and the
    decoder raises it unchanged. ``params`` names the parameters involved.
    """

    def __init__(self, message: str, *, params: tuple[str, ...]) -> None:
        super().__init__(message)
        self.params = params


class UnsafeValue(CallerError):
    """You get this when a value cannot be made safe for the interpreter it reaches."""

    reference = "unsafe-value"


class ObjectNotFound(CallerError):
    """You get this when a session, window or pane id names nothing on the socket."""

    reference = "object-not-found"


class NoSessions(ObjectNotFound):
    """You get this when a call names a tmux object and the server has no sessions.

    tmux says "no current target" then. A listing of every session catches it
    and answers an empty collection instead: on an empty server there is
    nothing to list, which is not an error (issue 18, R7).
    """


class PaneNotReady(CallerError):
    """You get this when run_command names a pane that is not at a shell prompt,
    or text (send_keys' text, paste_buffer) would reach a pane in a tmux mode.

    For example an editor, a pager, a dead pane, or a pane in copy mode:
    tmuxmcp refuses rather than typing a command into it, and refuses text
    that would reach the program behind a mode unseen (the key q leaves it).
    """

    reference = "pane-not-ready"


class CommandInterrupted(TmuxMcpError):
    """You get this when a run_command run ended without reporting its exit status.

    Its shell left the script tmuxmcp had it source and its status cannot be
    told: tmuxmcp itself interrupted it (an MCP Task's cancellation types
    C-c), the command replaced the shell (exec), or the pane was not safe to
    type into to read the status back. A command ended by C-c from anyone
    else (send_keys, a person) gets its exit status (130) instead. The pane is
    free again; what the command printed is on its screen (capture_pane).
    """

    reference = "command-interrupted"


class SelfTeardownRefused(CallerError):
    """You get this when a teardown tool names the pane tmuxmcp itself runs in.

    This guard covers direct teardown tools only; it does not stop an
    equivalent command typed into a pane, or another tmux client.
    """

    reference = "self-teardown-refused"


class ZoomedTeardownRefused(CallerError):
    """You get this when kill_session would destroy a zoomed window on tmux 3.4,
    whose server crashes then; unzoom the window first."""

    reference = "zoomed-teardown-refused"


class TmuxError(TmuxMcpError):
    """You get this when tmux could not carry out a well-formed call."""

    reference = "tmux-error"


class TmuxCommandFailed(TmuxError):
    """You get this when tmux ran the command and reported an error."""

    reference = "tmux-command-failed"


class TmuxTimeout(TmuxError):
    """You get this when tmux did not answer before the call's deadline.

    This is a transport deadline; it is never reported as a matching timeout.
    """

    reference = "tmux-timeout"


class TmuxUnavailable(TmuxError):
    """You get this when the tmux binary cannot be started at all."""

    reference = "tmux-unavailable"


class DescriptorsExhausted(TmuxError):
    """You get this when tmuxmcp could not start a tmux client, or create a run's files,
    because this process, or the whole system, has no open file descriptors left
    (``EMFILE``, ``ENFILE``)."""

    reference = "descriptors-exhausted"

    @classmethod
    def when(cls, doing: str, code: int) -> DescriptorsExhausted:
        """The error for ``OSError`` ``code`` (``EMFILE`` or ``ENFILE``) while ``doing``
        (``"run tmux"``): which limit ran out, and what to do."""
        if code == errno.ENFILE:
            return cls(
                f"could not {doing}: the system has no open files left (ENFILE); close "
                "programs that hold many files, or raise the system's limit (fs.file-max)"
            )
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        return cls(
            f"could not {doing}: this tmuxmcp process has all the open files its limit "
            f"allows ({soft}, ulimit -n) in use (EMFILE); let running commands end "
            "(wait_for_command) or stop them (send_keys C-c), or start tmuxmcp with a "
            "higher open-file limit"
        )


EXHAUSTED = frozenset({errno.EMFILE, errno.ENFILE})
"""The ``OSError`` codes that mean no descriptor was left (``DescriptorsExhausted``)."""


class TmuxUnsupported(TmuxError):
    """You get this at startup when the tmux binary is older than the oldest
    version tmuxmcp can drive (``driver.versions``); nothing was run on a server."""

    reference = "tmux-unsupported"

    def __init__(self, message: str, *, version: str) -> None:
        super().__init__(message)
        self.version = version
        """The version the binary reported, e.g. ``3.1c``."""


class ServerGone(TmuxError):
    """You get this when no tmux server answers on the selected socket."""

    reference = "tmux-server-gone"


class ServerReplaced(TmuxError):
    """You get this when the socket is now served by a different tmux server.

    tmuxmcp binds to the server it saw at startup and refuses to act on another
    one, so it never carries provenance claims over to a server it did not see
    start (ADR 0001, CM-1).
    """

    reference = "tmux-server-replaced"


class BoundServerLost(TmuxError):
    """You get this once the tmux server tmuxmcp bound to at startup has exited or
    another server answers on its socket.

    From then on no tmux command runs for any call (a replacement's hooks and
    aliases would run on every command sent to it); every call is refused with
    this error until tmuxmcp is restarted and binds again (ADR 0001, CM-1).
    """

    reference = "tmux-bound-server-lost"

    def __init__(self, message: str, *, state: str) -> None:
        super().__init__(message)
        self.state = state
        """``gone`` (the bound server exited) or ``replaced`` (another answers)."""


class ConfigurationChanged(TmuxError):
    """You get this when the bound server's command aliases changed, or a hook the
    call would run is set, after tmuxmcp published narrow annotations (CM-4).

    The call is refused before its operation runs, because the advertised hints
    no longer describe the whole call; every later call is refused too, until
    tmuxmcp is restarted and derives its annotations again.
    """

    reference = "tmux-configuration-changed"


class ConfigError(TmuxMcpError):
    """You get this at startup when a flag or environment variable is invalid."""

    reference = "config-error"


class InternalError(TmuxMcpError):
    """You get this when tmuxmcp hit an unexpected error (a bug); see its log.

    The dispatcher raises nothing else for a foreign exception, and the
    message never carries the exception's text (it may quote arguments).
    """

    reference = "internal-error"

    def __init__(self, message: str = "tmuxmcp hit an unexpected error; see its log") -> None:
        super().__init__(message)
