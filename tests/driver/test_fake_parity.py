"""The fake tmux against real tmux (issue 30.2): the fake's answers, played on real tmux.

The fast tier trusts ``driver.fake.FakeTmux`` to answer as tmux does: the
gate's line before a passing call's output, the refusal a replaced server
gives, the line a client gets when no server listens, a ``-F`` template
expanded per row, and the answers the fast tests script
(``tests/fake_answers.py``). Here a ``Parity`` runner under a real
``TmuxClient`` hands every argv to real tmux on a private socket and the
same argv to a fake scripted as the fast tests script it, and the two
answers must be the same bytes and status. Run on each tmux of the matrix
(``.ci/run`` MATRIX_TESTS), so a release that words an answer otherwise
fails here, not in a fast test that still passes on the old words (CM-1:
the gate's refusal is the one the client maps to a lost server).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import msgspec
import pytest
import trio

from tests.fake_answers import (
    BASH,
    guard_refused,
    missing_pane,
    missing_pane_look,
    program_leader,
    reading_keys,
    running_command,
    shell_leader,
    shell_prompt,
    shell_reading_line,
)
from tests.fake_support import words
from tests.support import DEDICATED, PrivateTmux
from tmuxmcp import runtime, server
from tmuxmcp.capability.surface import SurfaceRequest
from tmuxmcp.config import Config
from tmuxmcp.driver.argv import cmd
from tmuxmcp.driver.client import ServerIdentity, classify_failure
from tmuxmcp.driver.fake import ANY, FakeCall, FakeTmux, Reply, Word, rows_reply
from tmuxmcp.driver.foreground import TerminalReading
from tmuxmcp.driver.guards import GuardRefused, Refusal
from tmuxmcp.driver.kernel import HOST
from tmuxmcp.driver.runner import Completed, spawn
from tmuxmcp.driver.socket import SocketKind, SocketSelection
from tmuxmcp.panes.pane_state import LIVE_PANE, classify
from tmuxmcp.tools.teardown import zoom_guard


class Parity:
    """A runner that runs each argv on real tmux and asks the fake the same; the real
    answer goes on up, and both are kept."""

    def __init__(self, fake: FakeTmux) -> None:
        self.fake = fake
        self.played: list[tuple[tuple[str, ...], Completed, Completed]] = []

    async def __call__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        seconds: float,
        stdin: bytes | None = None,
    ) -> Completed:
        real = await spawn(argv, env=env, seconds=seconds, stdin=stdin)
        faked = await self.fake(argv, env=env, seconds=seconds, stdin=stdin)
        self.played.append((tuple(argv), faked, real))
        return real

    def differences(self) -> list[str]:
        """Each call whose two answers differ, with both."""
        return [
            f"{list(argv[-3:])}: fake {_shown(faked)} / tmux {_shown(real)}"
            for argv, faked, real in self.played
            if (faked.returncode, faked.stdout, faked.stderr)
            != (real.returncode, real.stdout, real.stderr)
        ]


def _shown(done: Completed) -> str:
    return f"status {done.returncode}, stdout {done.stdout!r}, stderr {done.stderr!r}"


@pytest.fixture
def bound(private_tmux: PrivateTmux) -> Iterator[tuple[runtime.Runtime, FakeTmux, Parity]]:
    """A runtime bound to real tmux (a server tmuxmcp started), whose client runs
    every later call through a ``Parity`` with a fake of the same server."""
    config = Config(
        socket=SocketSelection(SocketKind.NAME, DEDICATED),
        tmux_binary=private_tmux.binary,
        request=SurfaceRequest(),
        timeout=10.0,
        env=dict(private_tmux.env),
    )
    served = trio.run(runtime.start, config)
    client = served.context.client
    assert client.bound is not None
    with FakeTmux(socket=config.socket, identity=client.bound, binary=client.binary) as fake:
        parity = Parity(fake)
        client.runner = parity
        yield served, fake, parity


async def test_a_missing_pane_is_answered_as_the_fake_answers_it(
    bound: tuple[runtime.Runtime, FakeTmux, Parity], private_tmux: PrivateTmux
) -> None:
    """The fast tests' ``missing_pane``, after the passing gate's line: same bytes, on a
    server with a session (with none, tmux says "no current target" instead)."""
    served, fake, parity = bound
    private_tmux.bare("new-session", "-d", "-s", "work")
    fake.expect(*words("list-panes -t %9 -F"), ANY, answer=missing_pane("%9"))
    result = await server.call(served, "list_panes", {"pane_id": "%9"})
    assert result.is_error
    assert parity.differences() == []
    assert len(parity.played) == 1


async def test_rows_are_expanded_as_tmux_expands_the_template(
    bound: tuple[runtime.Runtime, FakeTmux, Parity], private_tmux: PrivateTmux
) -> None:
    """Rule 4 of the fake: the listing's own framed ``-F`` template, expanded with each
    session's values as tmux prints them one variable at a time, is what tmux prints
    for the list, a backslash in a name doubled where the template says so."""
    served, fake, parity = bound
    for name in ("a\\b", "plain"):
        private_tmux.bare("new-session", "-d", "-s", name)

    def as_tmux_has_them(call: FakeCall) -> Reply:
        template = call.words[call.words.index("-F") + 1]
        names = sorted(set(re.findall(r"#\{(?:s/[^:]*:)?([a-z_]+)\}", template)))
        columns = {
            name: private_tmux.bare("list-sessions", "-F", f"#{{{name}}}").stdout.splitlines()
            for name in names
        }
        count = len(columns[names[0]])
        return rows_reply(call, [{n: columns[n][i] for n in names} for i in range(count)])

    fake.expect(*words("list-sessions -F"), ANY, answer=as_tmux_has_them)
    result = await server.call(served, "list_sessions", {})
    assert not result.is_error
    assert parity.differences() == []
    assert isinstance(result.structured_content, msgspec.Raw)
    listed = msgspec.json.decode(result.structured_content)["sessions"]
    assert len(listed) == 2


async def test_a_replaced_server_refuses_the_gate_as_the_fake_refuses_it(
    bound: tuple[runtime.Runtime, FakeTmux, Parity],
) -> None:
    """Rule 2 of the fake, CM-1: a client bound to another server (same pid, another
    start time) is refused by the gate; the fake, whose server is the live one, refuses
    the same argv with the same line, and the client maps both to a lost server."""
    served, _, parity = bound
    client = served.context.client
    assert client.bound is not None
    client.bind(ServerIdentity(client.bound.pid, client.bound.start_time + 1))
    result = await server.call(served, "list_sessions", {})
    assert result.is_error
    assert "[tmux-bound-server-lost]" in str(result.content[0])
    assert parity.differences() == []
    assert len(parity.played) == 1


async def test_no_server_is_answered_as_the_fake_answers_it(
    bound: tuple[runtime.Runtime, FakeTmux, Parity], private_tmux: PrivateTmux
) -> None:
    """Rule 3 of the fake: once the server is gone, a client gets the same line from
    both (the socket's path aside, which the fake cannot know) and the client maps it
    to the same error."""
    served, fake, parity = bound
    client = served.context.client
    private_tmux.kill_server()  # waits until the server has exited, not only been told to
    fake.stop_server()
    argv = [*client.base_argv(), "list-sessions"]
    await parity(argv, env=client.env, seconds=10.0)
    ((_, faked, real),) = parity.played
    assert (faked.returncode, faked.stdout) == (real.returncode, real.stdout)
    path = re.compile(rb" on \S+\n")
    assert path.sub(b" on <socket>\n", faked.stderr) == path.sub(b" on <socket>\n", real.stderr)
    assert real.stderr.startswith(b"no server running on ")
    same = {type(classify_failure(done.stderr.decode(), client.socket)) for done in (faked, real)}
    assert len(same) == 1


async def test_a_guard_refuses_as_the_fake_refuses_it(
    bound: tuple[runtime.Runtime, FakeTmux, Parity], private_tmux: PrivateTmux
) -> None:
    """The fast tests' ``guard_refused``: kill_session's zoom guard over a session with
    a zoomed window fails with the refusal's name after the gate's line, and the kill
    after it does not run, on real tmux as on the fake."""
    served, fake, parity = bound
    private_tmux.bare("new-session", "-d", "-s", "zoomed")
    private_tmux.bare("split-window", "-t", "zoomed")
    private_tmux.bare("resize-pane", "-Z", "-t", "zoomed")
    session = private_tmux.bare("display-message", "-p", "-t", "zoomed", "#{session_id}")
    target = session.stdout.strip()
    client = served.context.client
    fake.expect(
        *words(f"show-options -s -v -t {target} --"),
        ANY,
        *words(f"; kill-session -t {target}"),
        answer=guard_refused(Refusal.WINDOW_ZOOMED),
    )
    with pytest.raises(GuardRefused):
        await client.run(zoom_guard(client.marker, target), cmd("kill-session", t=target))
    assert parity.differences() == []
    assert private_tmux.bare("has-session", "-t", target, check=False).returncode == 0


# -- the fake world's kernel (``FakeTmux.kernel``) against a real pane's ------------------

Told = Callable[[int, int], TerminalReading]
"""The fast tests' reading of a scene, from the pane's pid and its foreground group."""


def _at_prompt(pane: int, group: int) -> TerminalReading:
    return shell_prompt(pane)


def _reading(pane: int, group: int) -> TerminalReading:
    return shell_reading_line(pane)


def _running(pane: int, group: int) -> TerminalReading:
    return running_command(group)


def _paging(pane: int, group: int) -> TerminalReading:
    return reading_keys(group)


KERNEL_SCENES: dict[str, tuple[str | None, Told]] = {
    # scene: (what is typed at bash's prompt, the fast tests' reading of it)
    "shell-ready": (None, _at_prompt),
    "running": ("sleep 600", _running),
    "awaiting-line": ("read line", _reading),
    "awaiting-keys": ("less /etc/passwd", _paging),
}


@pytest.mark.parametrize("scene", sorted(KERNEL_SCENES))
async def test_a_panes_kernel_reads_as_the_fake_kernel_is_told(
    private_tmux: PrivateTmux, scene: str
) -> None:
    """Rule 5 of the fake: the readings the fast tests give ``FakeTmux.kernel``
    (``tests/fake_answers.py``) are, field for field, what ``driver.kernel.Proc``
    reads of a real pane in that state (bash at its prompt or in its ``read``, running
    ``sleep``, ``less`` reading keys), and ``pane_state`` decides the same state from
    both; the foreground leader is the fake's ``shell_leader`` or ``program_leader``.
    Waited for with a deadline: a shell that just forked is ``running`` a moment
    before its program."""
    typed, told = KERNEL_SCENES[scene]
    if typed is not None and typed != "read line" and shutil.which(typed.split()[0]) is None:
        pytest.skip(f"{typed.split()[0]} is not installed")
    private_tmux.private_home("/bin/sh")
    pane = private_tmux.new_session("k", DEDICATED, *BASH)["pane_id"]
    await private_tmux.wait_for_prompt(pane)
    facts = private_tmux.bare("display-message", "-p", "-t", pane, "#{pane_pid} #{pane_tty}")
    pid_text, tty = facts.stdout.split()
    pid = int(pid_text)
    if typed is not None:
        private_tmux.bare("send-keys", "-t", pane, "-l", typed)
        private_tmux.bare("send-keys", "-t", pane, "Enter")
    real: TerminalReading | None = None
    expected: TerminalReading | None = None
    with trio.move_on_after(10):
        while True:
            real = HOST.read_terminal(pid, tty)
            expected = told(pid, 0 if real is None else real.group)
            if real == expected:
                break
            await trio.sleep(0.02)
    assert real == expected, f"real {real!r} / fake {expected!r}"
    assert classify(LIVE_PANE, real).state == classify(LIVE_PANE, expected).state == scene
    if scene in ("shell-ready", "awaiting-line"):
        assert HOST.foreground_leader(pid) == shell_leader(pid)
    if scene == "running":
        assert real is not None and HOST.running(real.group)  # the fake's ``alive``
        assert HOST.foreground_leader(pid) == program_leader(real.group)


LOOKS: dict[str, tuple[dict[str, Any], list[Word]]] = {
    # tool: (its arguments on pane %9, the words of its first read)
    "wait_for_state": (
        {"pane_id": "%9", "states": ["dead"], "timeout": 1},
        [
            *words("display-message -p -t %9 --"),
            ANY,
            *words("; display-message -p -t %9 --"),
            ANY,
            *words("; capture-pane -p -t %9 -S"),
            ANY,
        ],
    ),
    "run_command": (
        {"pane_id": "%9", "command": "true", "timeout": 5},
        [*words("display-message -p -t %9 --"), ANY, *words("; capture-pane -p -t %9")],
    ),
}


@pytest.mark.parametrize("tool", sorted(LOOKS))
async def test_a_look_at_a_missing_pane_is_answered_as_the_fake_answers_it(
    bound: tuple[runtime.Runtime, FakeTmux, Parity], private_tmux: PrivateTmux, tool: str
) -> None:
    """wait_for_state's look and run_command's read of a pane that is not there (the
    fast tests' ``missing_pane_look``: ``display-message`` prints its format with the
    pane's variables empty, the capture after it fails as ``missing_pane``): same bytes
    as real tmux, and the same ``[object-not-found]``."""
    served, fake, parity = bound
    private_tmux.bare("new-session", "-d", "-s", "work")
    arguments, first_read = LOOKS[tool]
    fake.expect(*first_read, answer=missing_pane_look)
    result = await server.call(served, tool, arguments)
    assert result.is_error
    assert "[object-not-found]" in str(result.content[0])
    assert parity.differences() == []
    assert len(parity.played) == 1
