"""Run tmux commands against the one server this process is bound to.

Every invocation is ``tmux -u -N <socket> <commands>``:

* ``-u`` and a UTF-8 locale make tmux print names and titles as UTF-8;
* ``-N`` forbids the tmux client from starting a server, so no call can
  silently create a server whose configuration tmuxmcp did not choose;
* the socket flags come from the startup selection and nothing else.

Each call is prefixed, in the same tmux process, by a gate: one ``show-options
-s -v`` whose option name is a format the answering server expands itself::

    #{?#{==:#{pid}.#{start_time},<pid>.<start>},@tmuxmcp_<nonce>,tmuxmcp-server-replaced}

The pid and start time compared are the live server's own (``getpid()`` and
the time it started), not a stored value, so copying the ``@tmuxmcp_<nonce>``
option (any client of the socket can read it) does not make another server
pass. On a mismatch the name is ``tmuxmcp-server-replaced``: not a ``@`` user
option and not a prefix of any tmux option, so no client can create it, and
``show-options`` fails with "invalid option". On a match the bound server's
own option must still exist (it is set by ``binding.mark``). Either failure
stops the rest of the command list: tmux removes every later command of the
same group when one returns an error (``cmdq_next`` calls
``cmdq_remove_group``; cmd-queue.c, 3.3a to 3.6a). So nothing runs on a
replacement or foreign server, and the call is refused with
``ServerReplaced``; the provenance decided at startup is never claimed for, or
acted on, another server (CM-1, CM-3).

tmux's error text is mapped to the exception tree here: missing objects become
``ObjectNotFound`` (a caller mistake), a missing server ``ServerGone``.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence

import msgspec

from tmuxmcp.driver import _spawn
from tmuxmcp.driver.argv import Command, cmd, render
from tmuxmcp.driver.socket import SocketSelection
from tmuxmcp.errors import (
    ObjectNotFound,
    ServerGone,
    ServerReplaced,
    TmuxCommandFailed,
)

DEFAULT_TIMEOUT = 10.0

_NOT_FOUND = re.compile(
    r"(?:can't find|no such) (session|window|pane)[^\n]*|no current target"
    r"|(unknown|no) buffer[^\n]*"
)
_GONE = ("no server running", "error connecting to", "server exited unexpectedly")
_MAX_ERROR_CHARS = 300


class ServerIdentity(msgspec.Struct, frozen=True):
    """What distinguishes one tmux server process from its successors."""

    pid: int
    start_time: int


class TmuxOutput(msgspec.Struct, frozen=True):
    """The decoded output of a successful tmux invocation."""

    stdout: str


def decode(data: bytes) -> str:
    """tmux output as text; bytes that are not UTF-8 become U+FFFD."""
    return data.decode("utf-8", errors="replace")


def classify_failure(stderr: str, socket: SocketSelection) -> Exception:
    """Map tmux's error text to the exception tree."""
    if any(marker in stderr for marker in _GONE):
        return ServerGone(
            f"no tmux server is running on {socket.describe()}; "
            "restart tmuxmcp to start or bind a server"
        )
    found = _NOT_FOUND.search(stderr)
    if found:
        return ObjectNotFound(f"tmux says: {found.group(0)}; list objects to get current ids")
    text = " ".join(stderr.split())[:_MAX_ERROR_CHARS] or "no error text"
    return TmuxCommandFailed(f"tmux reported an error: {text}")


class TmuxClient:
    """Runs tmux commands on the selected socket, bound to one server."""

    def __init__(
        self,
        binary: str,
        socket: SocketSelection,
        env: Mapping[str, str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.binary = binary
        self.socket = socket
        self.env = dict(env)
        self.timeout = timeout
        self.bound: ServerIdentity | None = None
        self.marker = f"@tmuxmcp_{secrets.token_hex(8)}"
        """The server option that identifies the bound server (set by binding)."""

    def base_argv(self) -> list[str]:
        """``tmux -u -N <socket>``: the prefix of every call."""
        return [self.binary, "-u", "-N", *self.socket.argv()]

    def bind(self, identity: ServerIdentity) -> None:
        """Pin every later call to the server with ``identity``."""
        self.bound = identity

    async def run_unbound(
        self, commands: Sequence[Command], *, seconds: float | None = None
    ) -> TmuxOutput:
        """Run ``commands`` without the identity check (startup probes only)."""
        done = await _spawn.run_argv(
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
        gate = cmd("show-options", "-s", "-v", args=[gate_name(self.marker, bound)])
        done = await _spawn.run_argv(
            [*self.base_argv(), *render([gate, *commands])],
            env=self.env,
            seconds=self.timeout if seconds is None else seconds,
            stdin=stdin,
        )
        head, _, rest = done.stdout.partition(b"\n")
        seen = parse_identity(decode(head))
        if seen is None:
            stderr = decode(done.stderr)
            if self.marker in stderr or REPLACED_OPTION in stderr:
                raise ServerReplaced(
                    f"the tmux server on {self.socket.describe()} is not the one tmuxmcp bound "
                    "to at startup (it was restarted or replaced); nothing was run on it; "
                    "restart tmuxmcp"
                )
            raise classify_failure(stderr, self.socket)
        if seen != bound:
            raise ServerReplaced(
                f"the tmux server on {self.socket.describe()} is not the one tmuxmcp bound "
                "to at startup (it was restarted or replaced); restart tmuxmcp"
            )
        if done.returncode != 0:
            raise classify_failure(decode(done.stderr), self.socket)
        return TmuxOutput(decode(rest))


IDENTITY_FORMAT = "#{pid}:#{start_time}"
"""What the gate option holds: the bound server's pid and start time."""

REPLACED_OPTION = "tmuxmcp-server-replaced"
"""The option name the gate asks for on a server that is not the bound one.

Not a ``@`` user option and not a prefix of any tmux option name, so it never
exists and ``show-options`` always fails on it ("invalid option")."""


def gate_name(marker: str, bound: ServerIdentity) -> str:
    """The gate's option name: ``marker`` only if the live server is ``bound``.

    Built from the marker (``@tmuxmcp_`` and hex) and two integers: no caller
    data enters this format.
    """
    live = "#{pid}.#{start_time}"
    expected = f"{bound.pid}.{bound.start_time}"
    return f"#{{?#{{==:{live},{expected}}},{marker},{REPLACED_OPTION}}}"


def parse_identity(line: str) -> ServerIdentity | None:
    """``"<pid>:<start_time>"`` as an identity, or None."""
    pid, _, start = line.partition(":")
    if not (pid.isdigit() and start.isdigit()):
        return None
    return ServerIdentity(int(pid), int(start))
