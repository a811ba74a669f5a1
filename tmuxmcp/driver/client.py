"""Run tmux commands against the one server this process is bound to.

Every invocation is ``tmux -u -N <socket> <commands>``:

* ``-u`` and a UTF-8 locale make tmux print names and titles as UTF-8;
* ``-N`` forbids the tmux client from starting a server, so no call can
  silently create a server whose configuration tmuxmcp did not choose;
* the socket flags come from the startup selection and nothing else.

Each call is prefixed, in the same tmux process, by a gate: one ``show-options
-s -v`` whose option name is a format the answering server expands itself::

    #{?#{==:#{pid}.#{start_time}.#{@tmuxmcp_<nonce>},<pid>.<start>.<pid>:<start>},
       @tmuxmcp_<nonce>,tmuxmcp-server-replaced}

The pid and start time compared are the live server's own (``getpid()`` and
the time it started), not a stored value, so copying the ``@tmuxmcp_<nonce>``
option (any client of the socket can read it) does not make another server
pass. The bound server's own option must also still hold the identity
``binding.mark`` set, compared in the same expansion: ``show-options`` on a
missing user option fails from tmux 3.3 but prints nothing and succeeds on
3.2a (tmux commit 7bd9cdf6f, GitHub issue 2938), so the option's existence
cannot be left to ``show-options`` alone. On a mismatch the name is
``tmuxmcp-server-replaced``: not a ``@`` user option and not a prefix of any
tmux option, so no client can create it, and ``show-options`` fails with
"invalid option" on every version. That failure stops the rest of the command
list: tmux removes every later command of the same group when one returns an
error (``cmdq_next`` calls ``cmdq_remove_group``; cmd-queue.c, 3.3a to 3.6a).
So nothing runs on a replacement or foreign server, and the call is refused with
``BoundServerLost``; the provenance decided at startup is never claimed for, or
acted on, another server (CM-1, CM-3).

With narrow annotations published (CM-4), the gate also re-checks, in the same
expansion, the configured behaviour the call can activate (``ConfigWatch``):
the ``command-alias`` list must equal tmux's built-in one on a server tmuxmcp
started (``pristine``; never what the server held at binding), and no hook
the call's commands can fire may be set. Which hooks that is, from tmux's
source (cmd-queue.c ``cmdq_fire_command`` and ``cmdq_insert_hook``, notify.c
``notify_insert_hook``, 3.3a to 3.6a): ``after-<command>`` for each command of
the list, the gate's own ``after-show-options`` included, looked up in the
options of the session the command resolved to, inheriting the global session
options; from 3.5, ``command-error``, run when any command fails; and, for a
list with a command that changes state, the notification hooks it can raise,
those it raises through the clients attached to the server included
(``EVENT_HOOKS``, ``hooks.raised_by``), looked up in session, then pane and
window options. The
gate reads each of them outside any session and in every pane of every window
of every session (``#{S:#{W:#{P:...}}}``). On a change the name is ``tmuxmcp-alias-changed``
or ``tmuxmcp-hook-set`` (as unsettable as the one above), the list stops, and
the call is refused with ``ConfigurationChanged``; the client then refuses
every later call without running tmux. A whole array option is only readable
in a format from tmux 3.5 (``options_to_string``, commit ddd4e57c6); on older
tmux no watch is possible and the binding never sets one.

What the check cannot cover, because tmux gives no in-band way to, is stated
where the hints are derived (``capability.annotations``).

tmux's error text is mapped to the exception tree here: missing objects become
``ObjectNotFound`` (a caller mistake), a missing server ``ServerGone``. The
messages that mean the server is gone are whole lines of the tmux client's
own (client.c, 3.3a to 3.6a), matched as lines so that no name quoted in an
error can pass for one (``GONE_LINES``). A client that failed silently (no
gate line, no error text: the server told it to exit) is classified by
asking whether the server process has exited (``liveness``).
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Mapping, Sequence

import msgspec

from tmuxmcp.driver import doorbell, guards, hooks, liveness, proc
from tmuxmcp.driver.argv import Command, render
from tmuxmcp.driver.guards import GuardRefused, Refusal, choose
from tmuxmcp.driver.runner import Runner, spawn
from tmuxmcp.driver.socket import SocketSelection
from tmuxmcp.driver.versions import version_tuple
from tmuxmcp.errors import (
    BoundServerLost,
    ConfigurationChanged,
    NoSessions,
    ObjectNotFound,
    ServerGone,
    TmuxCommandFailed,
)

DEFAULT_TIMEOUT = 10.0

_NOT_FOUND = re.compile(
    r"(?:can't find|no such) (session|window|pane)[^\n]*|(unknown|no) buffer[^\n]*"
)
# tmux's cmd-find.c says this when it has no session to resolve a target
# against: the server has no sessions at all (with -a listings too).
_NO_SESSIONS = re.compile(r"^no current target$", re.MULTILINE)
GONE_LINES = re.compile(
    r"^(?:no server running on .*"
    r"|error connecting to .* \((?:No such file or directory|Connection refused)\)"
    r"|server exited(?: unexpectedly)?"
    r"|lost server)$",
    re.MULTILINE,
)
"""The tmux client's own lines for a server that is not there (client.c):
no socket, or a socket nobody listens on; a socket that vanished (its
directory removed); the connection dropped in the middle of a command list
(3.3a to 3.6a say "server exited unexpectedly", older releases "lost
server"). "error connecting to" with another reason (permission denied, a
path too long) is a reachable problem, not a missing server."""
_MAX_ERROR_CHARS = 300

MAX_COMMAND_BYTES = 16364
"""The most bytes tmux accepts in one invocation's command list: the words after
the global flags, each with its terminating NUL (client.c packs them into one
message of at most ``MAX_IMSGSIZE``, 16384 in every release; beyond this tmux
answers "command too long" and runs nothing; research tmux-sinks.md)."""
GATE_RESERVE = 4096
"""Bytes of ``MAX_COMMAND_BYTES`` that ``run_groups`` leaves for the gate (about
150 bytes, up to about 2,000 with the configuration watch and many hooks)."""


def packed_size(words: Sequence[str]) -> int:
    """The bytes ``words`` take in tmux's command message (each word and its NUL)."""
    return sum(len(word.encode("utf-8", "surrogateescape")) + 1 for word in words)


class CommandTooLong(TmuxCommandFailed):
    """You get this when tmuxmcp built a tmux command list longer than tmux accepts
    in one invocation (a tmuxmcp defect: report it)."""


class ServerIdentity(msgspec.Struct, frozen=True):
    """What distinguishes one tmux server process from its successors."""

    pid: int
    start_time: int


class ConfigWatch(msgspec.Struct, frozen=True):
    """The configured behaviour every gated call re-checks (CM-4)."""

    aliases: str
    """The ``#{command-alias}`` text every call must see: on a minimal server
    tmux's built-in list (``pristine``), never one read from the server."""


class TmuxOutput(msgspec.Struct, frozen=True):
    """The decoded output of a successful tmux invocation."""

    stdout: str


def decode(data: bytes) -> str:
    """tmux output as text; bytes that are not UTF-8 become U+FFFD."""
    return data.decode("utf-8", errors="replace")


def server_gone(socket: SocketSelection) -> ServerGone:
    """The error for a server that is not there (any more)."""
    return ServerGone(
        f"no tmux server is running on {socket.describe()}; "
        "restart tmuxmcp to start or bind a server"
    )


def classify_failure(stderr: str, socket: SocketSelection) -> Exception:
    """Map tmux's error text to the exception tree."""
    if GONE_LINES.search(stderr):
        return server_gone(socket)
    if _NO_SESSIONS.search(stderr):
        return NoSessions(
            "tmux says: no current target; the server has no sessions (create_session makes one)"
        )
    found = _NOT_FOUND.search(stderr)
    if found:
        return ObjectNotFound(f"tmux says: {found.group(0)}; list objects to get current ids")
    text = " ".join(stderr.split())[:_MAX_ERROR_CHARS] or "no error text"
    return TmuxCommandFailed(f"tmux reported an error: {text}")


class TmuxClient:
    """Runs tmux commands on the selected socket, bound to one server.

    ``runner`` is what runs each finished argv (``driver.runner``): real tmux
    by default, ``driver.fake.FakeTmux`` in tests. Everything this class does
    (the gate, the size check, the error mapping) happens before or after it.
    """

    def __init__(
        self,
        binary: str,
        socket: SocketSelection,
        env: Mapping[str, str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        runner: Runner = spawn,
    ) -> None:
        self.binary = binary
        self.socket = socket
        self.env = dict(env)
        self.timeout = timeout
        self.runner = runner
        self.bound: ServerIdentity | None = None
        self.watch: ConfigWatch | None = None
        """Set when narrow annotations are published: the gate then re-checks it."""
        self.changed: str | None = None
        """Why the configuration check failed; every later call is refused with it."""
        self.lost: BoundServerLost | None = None
        """Set once the bound server is gone or replaced; every later call is
        refused with it and runs no tmux command."""
        self._socket_path: str | None = None
        self._socket_id: tuple[int, int] | None = None
        self._pid_visible = False
        self.marker = f"@tmuxmcp_{secrets.token_hex(8)}"
        """The server option that identifies the bound server (set by binding)."""

    def base_argv(self) -> list[str]:
        """``tmux -u -N <socket>``: the prefix of every call."""
        return [self.binary, "-u", "-N", *self.socket.argv()]

    def bind(self, identity: ServerIdentity, socket_path: str | None = None) -> None:
        """Pin every later call to the server with ``identity``.

        With ``socket_path`` (the server's own ``#{socket_path}``), the socket
        file's device and inode are kept too, for ``lost_without_asking``.
        """
        self.bound = identity
        self._socket_path = socket_path
        self._socket_id = _file_id(socket_path) if socket_path else None
        # A server in another pid namespace reports a pid that names nothing
        # here; only a pid seen running at binding is watched (liveness rule 3).
        self._pid_visible = proc.running(identity.pid) and proc.visible(identity.pid)

    def lost_without_asking(self, bound: ServerIdentity) -> str | None:
        """``gone`` or ``replaced`` if the kernel already says so, else None.

        Asks only the kernel, never the socket: any command sent to a
        replacement can run its hooks (``command-error``, ``after-*``) and
        aliases before a gate could refuse it. A server that exited has no
        process; a server that took over the socket created a new socket file
        (tmux unlinks and binds the path again: server.c
        ``server_create_socket``), so its inode differs while the bound server
        lives. Once the bound server has exited its inode can be reused by the
        next socket file, so an exited server reads as ``gone`` whatever
        answers on the socket now.
        """
        if self._pid_visible and not proc.running(bound.pid):
            return "gone"
        if self._socket_path is not None and self._socket_id is not None:
            now = _file_id(self._socket_path)
            if now is None:
                return "gone"
            if now != self._socket_id:
                return "replaced"
        return None

    def _lose(self, state: str, detail: str) -> BoundServerLost:
        """Latch the loss of the bound server and return the error every call gets."""
        if self.lost is None:
            self.lost = BoundServerLost(
                f"the tmux server tmuxmcp bound to at startup on {self.socket.describe()} "
                f"{detail}; nothing was run, and no tmux command runs any more (a new "
                "server's hooks and aliases would run on it); restart tmuxmcp to bind a "
                "server again",
                state=state,
            )
        return self.lost

    async def run_unbound(
        self, commands: Sequence[Command], *, seconds: float | None = None
    ) -> TmuxOutput:
        """Run ``commands`` without the identity check (startup probes only)."""
        done = await self.runner(
            [*self.base_argv(), *render(commands)],
            env=self.env,
            seconds=self.timeout if seconds is None else seconds,
        )
        if done.returncode != 0:
            raise classify_failure(decode(done.stderr), self.socket)
        return TmuxOutput(decode(done.stdout))

    async def run(
        self,
        *commands: Command,
        stdin: bytes | None = None,
        seconds: float | None = None,
    ) -> TmuxOutput:
        """Run ``commands`` in one tmux process on the bound server."""
        bound = self.bound
        if bound is None:
            raise RuntimeError("TmuxClient.run before bind()")
        if self.lost is not None:
            raise self.lost
        if self.changed is not None:
            raise ConfigurationChanged(self.changed)
        state = self.lost_without_asking(bound)
        if state is not None:
            raise self._lose(state, _LOST[state])
        name = gate_name(self.marker, bound, self.watch, [c.name for c in commands])
        gate = guards.guard(name)
        words = render([gate, *commands])
        if packed_size(words) > MAX_COMMAND_BYTES:
            # tmux would refuse it whole ("command too long"); say whose fault it is.
            raise CommandTooLong(
                f"tmuxmcp built a tmux command list of {packed_size(words)} bytes, over the "
                f"{MAX_COMMAND_BYTES} tmux accepts in one invocation; nothing ran. This is a "
                "tmuxmcp defect: please report it with the call that caused it"
            )
        done = await self.runner(
            [*self.base_argv(), *words],
            env=self.env,
            seconds=self.timeout if seconds is None else seconds,
            stdin=stdin,
        )
        if not INPUT_COMMANDS.isdisjoint(c.name for c in commands):
            doorbell.stir()  # its echo rings no doorbell: the waits look now
        head, _, rest = done.stdout.partition(b"\n")
        seen = parse_identity(decode(head))
        if seen is None:
            stderr = decode(done.stderr)
            if GONE_LINES.search(stderr):
                raise self._lose("gone", _LOST["gone"])
            refusal = guards.refusal_in(stderr)
            if refusal in _CHANGES:
                self.changed = (
                    f"{_CHANGES[refusal]} on the tmux server on {self.socket.describe()} "
                    "since tmuxmcp started, so the annotations it advertised (for example "
                    "readOnlyHint) no longer hold for this call; nothing was run; "
                    "restart tmuxmcp to derive them again"
                )
                raise ConfigurationChanged(self.changed)
            if refusal is Refusal.SERVER_REPLACED or self.marker in stderr:
                raise self._lose("replaced", _LOST["replaced"])
            raise await self._failure(stderr, bound)
        if seen != bound:
            raise self._lose("replaced", _LOST["replaced"])
        if done.returncode != 0:
            raise await self._failure(decode(done.stderr), bound)
        return TmuxOutput(decode(rest))

    async def run_groups(
        self, groups: Sequence[Sequence[Command]], *, seconds: float | None = None
    ) -> TmuxOutput:
        """Run ``groups`` in order, each whole in one invocation, in as few invocations
        as tmux's size limit allows; their outputs joined in order.

        For reads that scale with the number of panes (``snapshot``,
        ``search_panes``): one invocation for 1,000 panes is over the limit,
        which made the whole call fail. A group is what must share an
        invocation (a section marker and the capture it announces).
        """
        batches: list[list[Command]] = [[]]
        size = 0
        budget = MAX_COMMAND_BYTES - GATE_RESERVE
        for group in groups:
            words = packed_size(render(group)) + 2  # and the ";" that joins it
            if batches[-1] and size + words > budget:
                batches.append([])
                size = 0
            batches[-1].extend(group)
            size += words
        outputs = [await self.run(*batch, seconds=seconds) for batch in batches if batch]
        return TmuxOutput("".join(out.stdout for out in outputs))

    async def _failure(self, stderr: str, bound: ServerIdentity) -> Exception:
        """The error for a failed gated call; a silent one is gone if the server exited.

        A guard after the gate that refused is ``GuardRefused`` (``guards``, Rule 2)."""
        refusal = guards.refusal_in(stderr)
        if refusal is not None:
            return GuardRefused(refusal)
        if not stderr.strip() and await liveness.wait_server_exited(bound.pid):
            return self._lose("gone", _LOST["gone"])
        return classify_failure(stderr, self.socket)


_LOST = {
    "gone": "has exited",
    "replaced": "was restarted or replaced by another server",
}


def _file_id(path: str) -> tuple[int, int] | None:
    """The device and inode of the file at ``path``, or None if there is none."""
    try:
        seen = os.stat(path)
    except OSError:
        return None
    return (seen.st_dev, seen.st_ino)


IDENTITY_FORMAT = "#{pid}:#{start_time}"
"""What the gate option holds: the bound server's pid and start time."""


ARRAYS_IN_FORMATS = (3, 5)
"""The first tmux release whose formats expand a whole array option."""


async def arrays_in_formats(client: TmuxClient) -> bool:
    """Whether ``client``'s tmux binary can run the per-call check, by its version.

    Only for predicting a surface with no server to ask; a bound server is
    asked directly (``binding.readable_aliases``).
    """
    done = await client.runner([client.binary, "-V"], env=client.env, seconds=client.timeout)
    seen = version_tuple(decode(done.stdout)) if done.returncode == 0 else None
    return seen is not None and seen >= ARRAYS_IN_FORMATS


_CHANGES = {
    Refusal.ALIAS_CHANGED: "a command alias was added or changed",
    Refusal.HOOK_SET: "a hook that this call would run was set",
}
"""The gate's refusals that void the published annotations (CM-4)."""

GATE_COMMAND = "show-options"
"""The gate's own command; its after-hook is checked like the operation's."""

SAFE_ALIASES = re.compile(r"[A-Za-z0-9 =_.-]*")
"""Alias text the gate can compare literally (no ``#``, ``,``, braces)."""


OBSERVING_COMMANDS = frozenset(
    {
        "capture-pane",
        "display-message",
        "list-buffers",
        "list-panes",
        "list-sessions",
        "list-windows",
        "show-buffer",
        "show-environment",
        GATE_COMMAND,
    }
)
"""Commands that change no tmux state, so they raise no notification (notify.c)."""

INPUT_COMMANDS = frozenset({"send-keys", "paste-buffer"})
"""Commands that write input to a pane: the kernel may echo it, which rings no doorbell
(``doorbell`` Rule 2a)."""

EVENT_HOOKS = hooks.CALL_RAISED
"""Notification hooks a state-changing command can raise (notify.c
``notify_insert_hook``; session options first, then the pane's and the
window's), from every call site in tmux's source per release, those reached
through an attached client included (``hooks.RAISED_FROM``)."""


def hooks_for(names: Sequence[str]) -> list[str]:
    """The hook options a gated list of commands named ``names`` can fire.

    ``after-<command>`` of each (the gate's own included) and ``command-error``;
    the notification hooks those commands can raise (``hooks.raised_by``):
    every one a state change reaches if any command can change state.
    """
    fired = {"command-error", f"after-{GATE_COMMAND}", *(f"after-{n}" for n in names)}
    changes_state = not OBSERVING_COMMANDS.issuperset(names)
    fired.update(hooks.raised_by(set(names), changes_state=changes_state))
    return sorted(fired)


def gate_name(
    marker: str,
    bound: ServerIdentity,
    watch: ConfigWatch | None = None,
    names: Sequence[str] = (),
) -> str:
    """The gate's option name: ``marker`` only if the live server is ``bound`` and
    its ``marker`` option holds that identity (and, with a ``watch``, its aliases
    and the hooks of ``names`` unchanged).

    Built from the marker (``@tmuxmcp_`` and hex), two integers, the startup
    alias text (``SAFE_ALIASES`` only) and command names of this package: no
    caller data enters this format.
    """
    # The marker's value is compared here too: tmux 3.2a's show-options succeeds
    # on a missing user option, so a server without it must already fail here.
    live = f"#{{pid}}.#{{start_time}}.#{{{marker}}}"
    expected = f"{bound.pid}.{bound.start_time}.{bound.pid}:{bound.start_time}"
    chosen = marker
    if watch is not None:
        if not SAFE_ALIASES.fullmatch(watch.aliases):
            raise ValueError("alias text the gate cannot compare literally")
        hooks = "".join(f"#{{{hook}}}" for hook in hooks_for(names))
        # Outside any session (the global options), then in every pane of every
        # window of every session: a pane's lookup walks pane, window, global
        # window, then session and global session options (format.c format_find).
        every_pane = "#{S:#{W:#{P:" + hooks + "}}}"
        no_hook = f"#{{==:{hooks}{every_pane},}}"
        same_aliases = f"#{{==:#{{command-alias}},{watch.aliases}}}"
        chosen = choose(
            same_aliases, choose(no_hook, marker, Refusal.HOOK_SET), Refusal.ALIAS_CHANGED
        )
    return choose(f"#{{==:{live},{expected}}}", chosen, Refusal.SERVER_REPLACED)


def parse_identity(line: str) -> ServerIdentity | None:
    """``"<pid>:<start_time>"`` as an identity, or None."""
    pid, _, start = line.partition(":")
    if not (pid.isdigit() and start.isdigit()):
        return None
    return ServerIdentity(int(pid), int(start))
