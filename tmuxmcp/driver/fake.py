"""A scripted tmux for tests: records every argv and answers from a script.

``FakeTmux`` is a ``driver.runner.Runner``: give it to a ``TmuxClient``
(``FakeTmux.client``) or to ``runtime.start`` and no process is started.
The client above it is the real one, so the gate, the renderer and the error
mapping all run (``runner`` Rule 1); a test sees the argv real tmux would be
given and the exception a real answer would raise. It is public: tests of
code built on tmuxmcp's driver may use it too.

A script is a queue of expectations, consumed in order::

    fake = FakeTmux()
    fake.expect("list-sessions", "-F", ANY, rows=[{"session_id": "$0", ...}])
    fake.expect("kill-pane", "-t", "%9", stderr="can't find pane: %9", status=1)

Rule 1, exact words. An expectation matches the words of one invocation after
the client's prefix (binary, ``-u -N``, socket flags) and after the gate: the
rendered command list, ``--`` and ``;`` included. ``ANY`` matches any one
word (a nonce-framed ``-F`` template, a generated buffer name). A call that
matches nothing, or comes when the script is empty, is answered as a failed
tmux client (status 1, "unexpected command" on stderr) and recorded;
``check`` then raises ``UnexpectedCommand`` naming it, and so does leaving a
``with FakeTmux() as fake:`` block, which also fails for expectations left
unused. The failure is not raised inside the call, because the dispatcher
would turn it into an ``[internal-error]`` result and hide it.
Rule 2, a modelled gate. A gated call (``client.gate_name``) gets the
server's ``pid:start_time`` line before its own output, as tmux prints it,
if the gate names this fake's server; after ``replace_server`` it fails as
tmux fails it. The per-call configuration watch (aliases and hooks) is not
modelled: real tmux proves it (``tests/driver/test_client.py``).
Rule 3, a server that can go. After ``stop_server`` every call is answered
as the tmux client answers when no server listens on the socket.
Rule 4, formats. ``rows`` answers with one line per row, each the call's
``-F`` template expanded with the row's values, as tmux's list commands do.
The fake expands ``#{name}`` and ``#{s/\\\\/\\\\\\\\/:name}`` (backslashes
doubled) and nothing else; any other format, or a variable the row lacks,
is a ``FakeFormatError``.
Rule 5, a scripted kernel. ``FakeTmux.kernel`` is a ``FakeKernel``, the
``driver.kernel.Kernel`` a runtime on the fake reads its panes' processes
through: each pane process's terminal readings and foreground leaders are
told in order (``terminal``, ``leader``), a read takes the next and the last
one stays, and a process never told of answers as one that is gone. It
models no kernel behaviour: a reading is what the test says it is, and the
parity test holds the readings the fast tests script to real panes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Final, TypeVar

import msgspec

from tmuxmcp.driver.binding import Provenance, ServerFacts
from tmuxmcp.driver.client import ServerIdentity, TmuxClient
from tmuxmcp.driver.foreground import TerminalReading
from tmuxmcp.driver.proc import Leader, Unseen
from tmuxmcp.driver.runner import Completed
from tmuxmcp.driver.socket import DEFAULT_SOCKET_NAME, SocketKind, SocketSelection


class _Any:
    """The wildcard word of an expectation."""

    def __repr__(self) -> str:
        return "ANY"


ANY: Final = _Any()
"""Matches any one word of an invocation (Rule 1)."""

Word = str | _Any

FAKE_PID = 4_194_305
"""The fake server's pid: above Linux's largest pid (2**22), so it names no
process here and the client's kernel checks (``liveness``) see none."""

FAKE_BINARY = "/nonexistent/fake-tmux"
"""The binary path the fake's client names: no such file, so nothing can run it."""


class UnexpectedCommand(AssertionError):
    """You get this from ``check`` when the code under test ran a tmux command the
    script did not expect, or left expected commands unrun."""


class FakeFormatError(AssertionError):
    """You get this when a ``rows`` answer meets a format the fake does not expand."""


class Reply(msgspec.Struct, frozen=True, kw_only=True):
    """What the tmux client prints and exits with (after the gate's line)."""

    stdout: str = ""
    stderr: str = ""
    status: int = 0


class FakeCall(msgspec.Struct, frozen=True, kw_only=True):
    """One invocation as the runner received it."""

    argv: tuple[str, ...]
    """Everything, from the binary on: exactly what would be executed."""
    words: tuple[str, ...]
    """The command list: ``argv`` after the client's prefix and the gate."""
    gated: bool
    """Whether the invocation began with the client's gate."""
    env: dict[str, str]
    seconds: float
    stdin: bytes | None = None


Answer = Reply | BaseException | Callable[[FakeCall], Reply]
"""What an expectation answers: a reply, an exception the runner raises (as
``_spawn`` raises ``TmuxTimeout``), or a function of the call."""


class _Expectation(msgspec.Struct, frozen=True):
    words: tuple[Word, ...]
    answer: Answer

    def matches(self, words: Sequence[str]) -> bool:
        return len(words) == len(self.words) and all(
            want is ANY or want == got for want, got in zip(self.words, words, strict=True)
        )


_GATE_HEAD = ("show-options", "-s", "-v", "--")
_GATE_START = "#{?#{==:#{pid}.#{start_time}."
_REPLACED_STDERR = "invalid option: tmuxmcp-server-replaced\n"
_VARIABLE = re.compile(r"#\{(?:(s/\\\\/\\\\\\\\/):)?([a-z_]+)\}")


def expand_format(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each ``#{name}`` replaced by ``values[name]`` (Rule 4)."""
    out: list[str] = []
    at = 0
    for found in _VARIABLE.finditer(template):
        out.append(_literal(template, template[at : found.start()]))
        doubled, name = found.groups()
        if name not in values:
            raise FakeFormatError(f"the script gives no value for #{{{name}}} in {template!r}")
        value = values[name]
        out.append(value.replace("\\", "\\\\") if doubled else value)
        at = found.end()
    out.append(_literal(template, template[at:]))
    return "".join(out)


def _literal(template: str, text: str) -> str:
    """Text between variables, which holds no format the fake would misread."""
    if "#{" in text:
        raise FakeFormatError(f"the fake cannot expand this format: {template!r}")
    return text


def rows_reply(call: FakeCall, rows: Sequence[Mapping[str, str]]) -> Reply:
    """One line per row: the call's ``-F`` template expanded with the row (Rule 4)."""
    try:
        template = call.words[call.words.index("-F") + 1]
    except (ValueError, IndexError):
        raise FakeFormatError(f"rows given for a command without -F: {call.words}") from None
    return Reply(stdout="".join(expand_format(template, row) + "\n" for row in rows))


class FakeKernel:
    """A ``driver.kernel.Kernel`` that answers from a script (Rule 5)."""

    def __init__(self) -> None:
        self._terminals: dict[int, list[TerminalReading | None]] = {}
        self._leaders: dict[int, list[Leader | Unseen]] = {}
        self.group_children: set[int] = set()
        """Shells that wait for a child of their own group (``has_group_child``)."""
        self.alive: set[int] = set()
        """Processes that run (``running``); every other pid is gone."""
        self.proc_available = True
        self.read: list[int] = []
        """The pane pids whose terminal was read, in order."""

    def terminal(self, pane_pid: int, *readings: TerminalReading | None) -> None:
        """``pane_pid``'s terminal reads as ``readings``, one per read; the last one stays."""
        self._terminals[pane_pid] = list(readings)

    def leader(self, pane_pid: int, *leaders: Leader | Unseen) -> None:
        """``pane_pid``'s foreground leader reads as ``leaders``, one per read; the last stays."""
        self._leaders[pane_pid] = list(leaders)

    def available(self) -> bool:
        """Whether the script says process facts can be read."""
        return self.proc_available

    def read_terminal(self, pane_pid: int, pane_tty: str | None) -> TerminalReading | None:
        """The next reading told for ``pane_pid``; ``None`` (gone) if none was."""
        self.read.append(pane_pid)
        return _next(self._terminals.get(pane_pid), None)

    def foreground_leader(self, pane_pid: int) -> Leader | Unseen:
        """The next leader told for ``pane_pid``; ``pane-gone`` if none was."""
        return _next(self._leaders.get(pane_pid), "pane-gone")

    def has_group_child(self, shell_pid: int) -> bool:
        """Whether ``shell_pid`` is in ``group_children``."""
        return shell_pid in self.group_children

    def running(self, pid: int) -> bool:
        """Whether ``pid`` is in ``alive``."""
        return pid in self.alive


_T = TypeVar("_T")


def _next(told: list[_T] | None, otherwise: _T) -> _T:
    if not told:
        return otherwise
    return told.pop(0) if len(told) > 1 else told[0]


class FakeTmux(AbstractContextManager["FakeTmux"]):
    """A ``Runner`` that answers from a script and records every call."""

    def __init__(
        self,
        *,
        socket: SocketSelection | None = None,
        identity: ServerIdentity | None = None,
        version: str = "3.5a",
        binary: str = FAKE_BINARY,
        socket_directory: str = "/nonexistent/tmux-fake",
    ) -> None:
        self.socket = socket or SocketSelection(SocketKind.NAME, DEFAULT_SOCKET_NAME)
        self.identity = identity or ServerIdentity(FAKE_PID, 1_700_000_000)
        """The server answering on the socket now (``replace_server`` changes it)."""
        self.version = version
        self.binary = binary
        self.socket_directory = socket_directory
        """Where the server's socket is said to be: nowhere by default; a test whose code
        makes files beside the socket (``run_command``'s pane locks) gives a real one."""
        self.calls: list[FakeCall] = []
        self.unexpected: list[FakeCall] = []
        self.running = True
        self._script: list[_Expectation] = []
        self.kernel = FakeKernel()
        """The kernel of the fake's world (Rule 5): give it to ``runtime.build``."""

    # -- the script ------------------------------------------------------------

    def expect(
        self,
        *words: Word,
        stdout: str = "",
        stderr: str = "",
        status: int = 0,
        rows: Sequence[Mapping[str, str]] | None = None,
        answer: Answer | None = None,
    ) -> None:
        """Expect one invocation of exactly ``words`` next (Rule 1), and how to answer it.

        ``rows`` answers with the expanded ``-F`` template (Rule 4); ``answer``
        with a reply, an exception to raise, or a function of the call.
        """
        if answer is None:
            if rows is not None:
                answer = functools.partial(rows_reply, rows=tuple(dict(row) for row in rows))
            else:
                answer = Reply(stdout=stdout, stderr=stderr, status=status)
        self._script.append(_Expectation(tuple(words), answer))

    def stop_server(self) -> None:
        """From now on no server listens on the socket (Rule 3)."""
        self.running = False

    def replace_server(self, identity: ServerIdentity) -> None:
        """Another server answers on the socket from now on (Rule 2)."""
        self.identity = identity

    # -- what the code under test ran ------------------------------------------

    def commands(self) -> list[tuple[str, ...]]:
        """The command words of every call so far, in order."""
        return [call.words for call in self.calls]

    def check(self, *, all_used: bool = True) -> None:
        """Raise ``UnexpectedCommand`` for an unexpected call, and (``all_used``) for an
        expectation not yet consumed."""
        problems = [f"unexpected tmux command: {list(call.words)}" for call in self.unexpected]
        if all_used:
            problems += [f"expected but not run: {list(left.words)}" for left in self._script]
        if problems:
            raise UnexpectedCommand("; ".join(problems))

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if kind is None:
            self.check()

    # -- what it stands in for -------------------------------------------------

    def client(self, *, timeout: float = 10.0) -> TmuxClient:
        """A real ``TmuxClient`` on this fake, bound to its server."""
        client = TmuxClient(self.binary, self.socket, {}, timeout=timeout, runner=self)
        client.bind(self.identity)
        return client

    def facts(self, *, provenance: Provenance = Provenance.MINIMAL) -> ServerFacts:
        """What binding would have learnt about this fake's server."""
        return ServerFacts(
            identity=self.identity,
            version=self.version,
            socket_path=f"{self.socket_directory}/{self.socket.value}",
            config_files="/dev/null" if provenance is Provenance.MINIMAL else "",
            provenance=provenance,
            created_by_tmuxmcp=provenance is Provenance.MINIMAL,
        )

    def _no_server(self) -> Reply:
        return Reply(stderr=f"no server running on /tmp/tmux-fake/{self.socket.value}\n", status=1)

    def _split(self, argv: Sequence[str]) -> tuple[tuple[str, ...], bool, str | None]:
        """The command words, whether the call was gated, and the gate's option name."""
        prefix = [self.binary, "-u", "-N", *self.socket.argv()]
        if list(argv[: len(prefix)]) != prefix:
            return tuple(argv[1:]), False, None
        rest = tuple(argv[len(prefix) :])
        head = len(_GATE_HEAD)
        if rest[:head] == _GATE_HEAD and len(rest) > head and rest[head].startswith(_GATE_START):
            if len(rest) > head + 1 and rest[head + 1] != ";":
                raise UnexpectedCommand(f"a gate not followed by ';': {list(rest)}")
            return rest[head + 2 :], True, rest[head]
        return rest, False, None

    async def __call__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        seconds: float,
        stdin: bytes | None = None,
    ) -> Completed:
        """Record the call and answer it from the script (the ``Runner`` interface)."""
        words, gated, gate = self._split(argv)
        call = FakeCall(
            argv=tuple(argv), words=words, gated=gated, env=dict(env), seconds=seconds, stdin=stdin
        )
        self.calls.append(call)
        if not self.running:
            return _completed(self._no_server())
        head = ""
        if gate is not None:
            pid, start = self.identity.pid, self.identity.start_time
            if f",{pid}.{start}.{pid}:{start}}}," not in gate:
                return _completed(Reply(stderr=_REPLACED_STDERR, status=1))
            head = f"{pid}:{start}\n"  # what the passing gate prints
        if not self._script or not self._script[0].matches(words):
            self.unexpected.append(call)
            return _completed(
                Reply(stdout=head, stderr=f"unexpected command: {list(words)}\n", status=1)
            )
        answer = self._script.pop(0).answer
        if isinstance(answer, BaseException):
            raise answer
        reply = answer if isinstance(answer, Reply) else answer(call)
        return _completed(
            Reply(stdout=head + reply.stdout, stderr=reply.stderr, status=reply.status)
        )


def _completed(reply: Reply) -> Completed:
    return Completed(
        reply.status,
        reply.stdout.encode("utf-8", "surrogateescape"),
        reply.stderr.encode("utf-8", "surrogateescape"),
    )
