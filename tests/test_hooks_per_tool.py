"""Issue 18 R2, issue 27 N2: for every tool, the hooks its tmux commands raise, each refused (CM-4).

The per-call check (``driver.client``: the gate) refuses a call when a hook
the call's commands can fire was set after startup. Which hooks those are is
the hook table of the running release (``driver.hooks.NOTIFY_HOOKS``),
the ``after-<command>`` hooks tmux has (``show-hooks``), and
``command-error``. This module shows, tool by tool, that what the calls raise
is in the table, in the gate's list for the commands they ran
(``client.hooks_for``, from the argv a ``--tmux`` wrapper logs), and refused:

1. **Enumerate.** On a server tmuxmcp did not create (so no narrow hints and
   no per-call check), with real clients attached on ptys and
   ``focus-events`` on (so ``select-pane`` raises ``pane-focus-in`` and
   ``-out``), every candidate hook is set to a ``run-shell`` that writes its
   name; the tool's call then leaves the names of the hooks it raised. A
   sentinel (a rename of a session of its own, whose session-level
   ``session-renamed`` hook writes ``END``) is queued after the call, so
   every notification hook the call queued has run when ``END`` is written.
2. **Refuse.** For each hook raised: a fresh server made by tmuxmcp, serving
   every toolset less the tools that reach a process (narrow
   hints, the check on), the same objects and clients, the hook set after
   startup, the same call. It is refused with ``[tmux-configuration-changed]``
   and the hook's mark is not left.

Issue 27 N2: a call also raises hooks through the clients attached to the
server: a killed session detaches its clients, and a client that leaves
hands each window it was the latest client of to another client viewing it
(``client-active``); with ``detach-on-destroy off`` the client is moved to
another session instead (``client-session-changed``). So step 1 runs in
every arrangement of two real clients a call can change (``ARRANGEMENTS``):
one client, two on one session, a client that leaves when its session is
killed or loses its last window while the other views a window it was the
latest client of, and the same client moved instead of detached (a tool
that only observes runs commands that change no state, so it runs in the
first arrangement only, ``OBSERVERS``). After the
call, the test waits until each client has either left (its process
exited, so the server has lost it) or is attached again, before the
sentinel. Step 2 runs in each arrangement for the hooks raised through a
client (``client-*``); the first arrangement refuses every hook raised.

Every raised hook must be one the table says a call can raise (none of
``AMBIENT``; marking the focus hooks ambient, the bug of R2, fails
``select`` of a pane; marking ``client-active`` ambient, the bug of N2, fails
``kill_session``, ``kill_window`` and ``kill_pane``). Step 2 cannot run for
a tool that reaches a process, nor for ``wait_for_command`` (its run needs
``run_command``): with such a tool served no narrow hints are published and
no per-call check exists, by design (``NOT_CHECKED``). Hooks raised only
asynchronously, after the call's own commands (``pane-died`` and
``pane-exited``, when a pane's process exits), are not seen by the
sentinel; the gate checks them for every state-changing call all the same
(``test_every_call_raised_notification_hook_is_checked``).
Before tmux 3.5 no per-call check exists (no whole array in a format) and
the hints are cautious, so step 2 is skipped there.
"""

from __future__ import annotations

import os
import pty
import shlex
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import pytest
import trio
from mcp import ClientSession

from tests.support import (
    PrivateTmux,
    error_text,
    notify_hooks_of,
    serve,
    structured,
    temporary_tmux,
    tmux_wrapper,
)
from tmuxmcp.capability.vocabulary import Effect, Reach
from tmuxmcp.definition import DEFINITION
from tmuxmcp.driver import hooks
from tmuxmcp.driver.client import OBSERVING_COMMANDS, hooks_for

Ids = dict[str, str]
Call = Callable[[Ids], dict[str, Any]]

CALLS: dict[str, Call] = {
    "list_sessions": lambda ids: {},
    "list_windows": lambda ids: {"session_id": ids["s"]},
    "list_panes": lambda ids: {"window_id": ids["w0"]},
    "capture_pane": lambda ids: {"pane_id": ids["p0"]},
    "list_buffers": lambda ids: {},
    "snapshot": lambda ids: {"session_id": ids["s"]},
    "server_info": lambda ids: {},
    "create_session": lambda ids: {"name": "made"},
    "create_window": lambda ids: {"session_id": ids["s"], "name": "made"},
    "split_pane": lambda ids: {"pane_id": ids["p0"], "direction": "horizontal"},
    "rename": lambda ids: {"session_id": ids["t"], "name": "renamed"},
    "rename:window": lambda ids: {"window_id": ids["w1"], "name": "renamed"},
    "set_pane_title": lambda ids: {"pane_id": ids["p1"], "title": "titled"},
    "select": lambda ids: {"pane_id": ids["p1"]},
    "select:window": lambda ids: {"window_id": ids["w1"]},
    "select_layout": lambda ids: {"window_id": ids["w0"], "layout": "even-vertical"},
    "resize_pane": lambda ids: {"pane_id": ids["p0"], "direction": "right", "amount": 2},
    "swap_pane": lambda ids: {"pane_id": ids["p0"], "other_pane_id": ids["p1"]},
    "move_window": lambda ids: {"window_id": ids["w1"], "session_id": ids["t"]},
    "set_option": lambda ids: {"option": "history-limit", "value": 5000, "session_id": ids["s"]},
    "kill_session": lambda ids: {"session_id": ids["t"]},
    "kill_window": lambda ids: {"window_id": ids["w1"]},
    "kill_pane": lambda ids: {"pane_id": ids["p2"]},
    "clear_history": lambda ids: {"pane_id": ids["p0"]},
    "delete_buffer": lambda ids: {"buffer": "notes"},
    "send_keys": lambda ids: {
        "pane_id": ids["p0"],
        "keys": ["C-l", {"text": "echo typed"}, "Enter"],
    },
    "run_command": lambda ids: {"pane_id": ids["p2"], "command": "echo ran"},
    "wait_for_command": lambda ids: {"pane_id": ids["p2"], "run_id": ids["run"], "timeout": 30},
    "paste_buffer": lambda ids: {"pane_id": ids["p0"], "buffer": "notes"},
    "respawn_pane": lambda ids: {"pane_id": ids["p1"]},
    "recover_pane": lambda ids: {"pane_id": ids["p1"]},
    "wait_for_text": lambda ids: {"pane_id": ids["p0"], "pattern": "absent", "timeout": 0},
    "wait_for_state": lambda ids: {"pane_id": ids["p0"], "quiet_ms": 100, "timeout": 10},
    "search_panes": lambda ids: {"pattern": "absent"},
    "capture_since": lambda ids: {"pane_id": ids["p0"]},
}
"""The call of each tool, on the objects ``_objects`` makes; a tool that runs other
commands for other arguments (issue 28.9: ``select`` and ``rename`` merged two tools
each) has a case per path, ``tool:path`` (``_tool_of``)."""


def _tool_of(case: str) -> str:
    """The tool a case of ``CALLS`` calls."""
    return case.partition(":")[0]


REFUSED = "[tmux-configuration-changed]"

PROCESS_TOOLS = tuple(sorted(spec.name for spec in DEFINITION if spec.reach is not Reach.NONE))
"""Tools that reach a process: with any of them served, narrow hints are never
published and the per-call check is never on (CM-4, ``annotations``, rule 3)."""
NOT_CHECKED = {
    **{
        name: "a tool that reaches a process: no narrow hints, so no per-call check"
        for name in PROCESS_TOOLS
    },
    "wait_for_command": (
        "its run comes from run_command, a tool that reaches a process: on that surface "
        "no narrow hints are published, so no per-call check"
    ),
}
"""Tools whose step 2 cannot run, and why."""


def test_every_tool_has_a_call() -> None:
    assert sorted({_tool_of(case) for case in CALLS}) == sorted(spec.name for spec in DEFINITION)


def _candidates(tmux: PrivateTmux) -> list[str]:
    """The table's hooks for this release, and the command hooks tmux has: the
    ``after-<command>`` hooks it lists (not every command has one) and command-error."""
    listed = {
        line.split()[0].partition("[")[0]
        for scope in ("-g", "-gw")
        for line in tmux.bare("show-hooks", scope).stdout.splitlines()
        if line.strip()
    }
    # command-error exists from tmux 3.5.
    command_hooks = {name for name in listed if name.startswith("after-")} | (
        {"command-error"} & listed
    )
    return sorted(notify_hooks_of(tmux) | command_hooks)


def _objects(tmux: PrivateTmux) -> Ids:
    """Two sessions; the first with two windows, its first window two panes; a buffer."""
    first = tmux.new_session("s")
    # No window renames itself during a call: automatic-rename (on a timer,
    # after a pane's program changes) would raise window-renamed while a read
    # runs, and a program's title escape could do the same; neither is the
    # call's doing (seen on 3.3a as a read tool "raising" window-renamed).
    tmux.bare(
        "set-option",
        "-wg",
        "automatic-rename",
        "off",
        ";",
        "set-option",
        "-wg",
        "allow-rename",
        "off",
    )
    p1 = tmux.bare("split-window", "-d", "-t", first["pane_id"], "-P", "-F", "#{pane_id}", "sh")
    w1 = tmux.bare(
        "new-window", "-d", "-t", first["session_id"], "-P", "-F", "#{window_id} #{pane_id}", "sh"
    ).stdout.split()
    second = tmux.new_session("t")
    tmux.bare("set-buffer", "-b", "notes", "echo from a buffer")
    return {
        "s": first["session_id"],
        "w0": first["window_id"],
        "p0": first["pane_id"],
        "p1": p1.stdout.strip(),
        "w1": w1[0],
        "p2": w1[1],
        "t": second["session_id"],
    }


class _Client:
    """A real tmux client attached on a pty; what it prints is read and dropped."""

    def __init__(self, process: subprocess.Popen[bytes], leader: int) -> None:
        self.process = process
        self.leader = leader

    def drain(self) -> None:
        """Read what the client wrote, so it never blocks on a full pty."""
        try:
            while os.read(self.leader, 65536):
                pass
        except (BlockingIOError, OSError):
            return

    def settled(self, tmux: PrivateTmux) -> bool:
        """Left (its process exited: the server has lost it) or attached to a session."""
        self.drain()
        if self.process.poll() is not None:
            return True
        listed = tmux.bare("list-clients", "-F", "#{client_pid}").stdout.split()
        return str(self.process.pid) in listed


@asynccontextmanager
async def _attached(tmux: PrivateTmux, target: str) -> AsyncIterator[_Client]:
    """A client attached to ``target`` (a session or ``session:index``), listed by the
    server before this returns; killed and reaped, its pty closed, at the end."""
    leader, follower = pty.openpty()
    os.set_blocking(leader, False)
    process = subprocess.Popen(
        [*tmux.argv(), "attach", "-t", target],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**tmux.env, "TERM": "xterm"},
        start_new_session=True,
    )
    os.close(follower)
    client = _Client(process, leader)
    try:
        with trio.fail_after(10):
            while str(process.pid) not in tmux.bare("list-clients", "-F", "#{client_pid}").stdout:
                client.drain()
                await trio.sleep(0.01)
        yield client
    finally:
        process.kill()
        process.wait()
        os.close(leader)


Arrange = Callable[[PrivateTmux, Ids, AsyncExitStack], Awaitable[list[_Client]]]


async def _one_client(tmux: PrivateTmux, ids: Ids, stack: AsyncExitStack) -> list[_Client]:
    """A client on the first session (issue 18 R2)."""
    return [await stack.enter_async_context(_attached(tmux, ids["s"]))]


async def _two_on_one_session(tmux: PrivateTmux, ids: Ids, stack: AsyncExitStack) -> list[_Client]:
    """Two clients on the first session, viewing the same window."""
    return [
        await stack.enter_async_context(_attached(tmux, ids["s"])),
        await stack.enter_async_context(_attached(tmux, ids["s"])),
    ]


async def _leaves_killed_session(
    tmux: PrivateTmux, ids: Ids, stack: AsyncExitStack
) -> list[_Client]:
    """The second session also shows the first session's first window; one client
    views it there, attached last (so the latest client of that window), the other
    views it in the first session. Killing the second session makes the latest
    client leave, which hands the window to the other client."""
    tmux.bare("link-window", "-s", ids["w0"], "-t", f"{ids['t']}:9")
    tmux.bare("select-window", "-t", f"{ids['t']}:9")
    viewer = await stack.enter_async_context(_attached(tmux, ids["s"]))
    latest = await stack.enter_async_context(_attached(tmux, ids["t"]))
    return [viewer, latest]


async def _moved_from_killed_session(
    tmux: PrivateTmux, ids: Ids, stack: AsyncExitStack
) -> list[_Client]:
    """As ``_leaves_killed_session``, with detach-on-destroy off: the client of a
    killed session is moved to another session instead of leaving."""
    tmux.bare("set-option", "-g", "detach-on-destroy", "off")
    return await _leaves_killed_session(tmux, ids, stack)


async def _leaves_with_last_window(
    tmux: PrivateTmux, ids: Ids, stack: AsyncExitStack
) -> list[_Client]:
    """A third session holding only the window ``w1`` (``p2``), whose client was the
    latest client of ``w0`` before, while the other client views ``w0``: killing
    ``w1`` (or its only pane) kills that session and the client leaves."""
    made = tmux.bare("new-session", "-d", "-s", "u", "-P", "-F", "#{window_id}", "sh")
    tmux.bare("link-window", "-s", ids["w0"], "-t", "u:8")
    tmux.bare("link-window", "-s", ids["w1"], "-t", "u:9")
    tmux.bare("kill-window", "-t", made.stdout.strip())
    tmux.bare("select-window", "-t", "u:8")
    viewer = await stack.enter_async_context(_attached(tmux, ids["s"]))
    latest = await stack.enter_async_context(_attached(tmux, "u"))
    tmux.bare("unlink-window", "-t", "u:8")
    return [viewer, latest]


ARRANGEMENTS: dict[str, Arrange] = {
    "one-client": _one_client,
    "two-on-one-session": _two_on_one_session,
    "leaves-killed-session": _leaves_killed_session,
    "moved-from-killed-session": _moved_from_killed_session,
    "leaves-with-last-window": _leaves_with_last_window,
}
"""Where two real clients are when a call runs: every arrangement a call can change
(issue 27 N2). The first is the one every hook raised is refused in."""
FIRST = "one-client"

OBSERVERS = frozenset(spec.name for spec in DEFINITION if spec.effects == {Effect.OBSERVE})
"""Tools whose declared effect is to observe only: they run only commands that change
no tmux state (``client.OBSERVING_COMMANDS``, which the first arrangement's
``hooks_for`` check holds them to), so they move no client and make none leave;
they run in the first arrangement only."""

CASES = [
    (tool, arrangement)
    for tool in sorted(CALLS)
    for arrangement in ARRANGEMENTS
    if arrangement == FIRST or _tool_of(tool) not in OBSERVERS
]


async def _clients(
    tmux: PrivateTmux, ids: Ids, stack: AsyncExitStack, arrangement: str
) -> list[_Client]:
    """Arrange the clients, then turn focus-events on (``select-pane`` then raises
    ``pane-focus-in`` and ``-out``, issue 18 R2)."""
    clients = await ARRANGEMENTS[arrangement](tmux, ids, stack)
    tmux.bare("set-option", "-g", "focus-events", "on")
    return clients


_WAIT_HOOK = "after-list-clients"
"""The hook ``_wait_settled``'s own ``list-clients`` raises: not counted as the call's
unless the call ran ``list-clients`` itself (no tool does)."""


async def _wait_settled(tmux: PrivateTmux, clients: list[_Client]) -> None:
    """Until every client has left or is attached: a client a call detached has
    exited and the server has lost it (raising what that raises) before the
    sentinel is queued."""
    with trio.fail_after(20):
        while not all(client.settled(tmux) for client in clients):
            await trio.sleep(0.01)


def _marks(tmux: PrivateTmux) -> list[str]:
    try:
        with open(os.path.join(tmux.directory, "marks")) as f:
            return f.read().split()
    except FileNotFoundError:
        return []


def _mark(tmux: PrivateTmux, name: str) -> str:
    return f"run-shell 'echo {name} >> {os.path.join(tmux.directory, 'marks')}'"


async def _prepare(tmux: PrivateTmux, session: ClientSession, tool: str, ids: Ids) -> None:
    """What a tool's call needs before the hooks are set: a run still going, for
    wait_for_command (it ends once ``go`` exists, which ``_go`` makes); a pane in copy
    mode for recover_pane, so it runs the command that leaves it (issue 28.5)."""
    await tmux.wait_for_prompt(ids["p2"])
    if tool == "recover_pane":
        await tmux.wait_for_prompt(ids["p1"])
        tmux.bare("copy-mode", "-t", ids["p1"])
    if tool != "wait_for_command":
        return
    go = os.path.join(tmux.directory, "go")
    command = f"while [ ! -e {go} ]; do sleep 0.05; done; echo went"
    started = structured(
        await session.call_tool(
            "run_command", {"pane_id": ids["p2"], "command": command, "timeout": 0.2}
        )
    )
    assert started["completed"] is False
    ids["run"] = started["run_id"]


def _go(tmux: PrivateTmux) -> None:
    open(os.path.join(tmux.directory, "go"), "w").close()


async def _settle(tmux: PrivateTmux, sentinel: str, count: int) -> None:
    """Queue the sentinel's notification after everything queued so far; wait for it."""
    tmux.bare("rename-session", "-t", sentinel, f"sentinel{count}")
    with trio.fail_after(20):
        while _marks(tmux).count("END") < count:
            await trio.sleep(0.01)


_END_OF_ARGV = "\x1e"


def _logging_tmux(tmux: PrivateTmux) -> str:
    """A ``--tmux`` wrapper that logs each invocation's argv, one word a line."""
    log = shlex.quote(os.path.join(tmux.directory, "argv"))
    words = f'for word in "$@"; do printf \'%s\\n\' "$word"; done >> {log}'
    body = f"{words}; echo {_END_OF_ARGV} >> {log}"
    return tmux_wrapper(os.path.join(tmux.directory, "logging-tmux"), body)


def _is_pane_id_read(words: list[str]) -> bool:
    """Whether an invocation is the server's own read of the pane ids (``pane_changes``,
    issue 29.3: ``list-panes -a`` of two fields, ``pane_id`` and ``pane_dead``), not a
    call's."""
    if "list-panes" not in words or "-a" not in words:
        return False
    template = words[words.index("-F") + 1] if "-F" in words[:-1] else ""
    return template.count("#{") == 2 and ":pane_id}" in template and ":pane_dead}" in template


def _commands_ran(tmux: PrivateTmux) -> tuple[list[str], list[str]]:
    """The tmux commands of every invocation logged since ``argv`` was emptied: the
    call's, and the server's own reads of the pane ids, which run when they will."""
    known = set(tmux.bare("list-commands", "-F", "#{command_list_name}").stdout.split())
    with open(os.path.join(tmux.directory, "argv")) as f:
        invocations = f.read().split(_END_OF_ARGV + "\n")
    ran: list[str] = []
    own: list[str] = []
    for invocation in invocations:
        words = invocation.splitlines()
        first = next((i for i, word in enumerate(words) if word in known), None)
        if first is None:
            continue  # tmux -V
        commands = [words[first]]
        commands += [words[i + 1] for i, word in enumerate(words[:-1]) if i > first and word == ";"]
        (own if _is_pane_id_read(words) else ran).extend(commands)
    return ran, own


async def _raised(tool: str, arrangement: str) -> tuple[set[str], list[str]]:
    """Step 1: the hooks ``tool``'s call raises, on a server tmuxmcp did not create,
    with the clients as ``arrangement`` has them, and the tmux commands the call ran."""
    with temporary_tmux() as tmux:
        ids = _objects(tmux)
        sentinel = tmux.new_session("sentinel")["session_id"]
        served = ("--toolsets", "all", "--tmux", _logging_tmux(tmux))
        async with AsyncExitStack() as stack:
            clients = await _clients(tmux, ids, stack, arrangement)
            session = await stack.enter_async_context(serve(tmux, *served))
            await _prepare(tmux, session, tool, ids)
            words: list[str] = []
            for hook in _candidates(tmux):
                words += ["set-hook", "-g", hook, _mark(tmux, hook), ";"]
            tmux.bare(*words[:-1])
            # The sentinel's own hooks: its rename writes END and nothing else.
            tmux.bare("set-hook", "-t", sentinel, "session-renamed", _mark(tmux, "END"))
            tmux.bare("set-hook", "-t", sentinel, "after-rename-session", "run-shell true")
            open(os.path.join(tmux.directory, "argv"), "w").close()
            await _settle(tmux, sentinel, 1)
            before = len(_marks(tmux))
            # The server's own reads of the ids from just before the call: their hooks
            # may land after ``before`` (only a call that adds or removes panes reads
            # them after it, pane_changes Rule 1, so nothing else hides them).
            _, early = _commands_ran(tmux)
            open(os.path.join(tmux.directory, "argv"), "w").close()
            if tool == "wait_for_command":
                _go(tmux)
            result = await session.call_tool(_tool_of(tool), CALLS[tool](ids))
            assert not result.is_error, error_text(result)
            ran, _ = _commands_ran(tmux)
            await _wait_settled(tmux, clients)
            await _settle(tmux, sentinel, 2)
            # Read before tmuxmcp exits: its shutdown unsets its marker (set-option).
            raised = set(_marks(tmux)[before:]) - {"END"}
            # The server's own reads of the pane ids (pane_changes, issue 29.3) run when a
            # call changed panes or the tmux server's children changed, during a call or
            # after it, each through the gate like any invocation: the after-hooks of their
            # commands are theirs, not the call's (a call raises after-X only by running X).
            _, own = _commands_ran(tmux)
            assert set(own) <= {"show-options", "list-panes"}, own
            raised -= {f"after-{command}" for command in own + early if command not in ran}
            if "list-clients" not in ran:
                raised.discard(_WAIT_HOOK)  # the waiting's own, not the call's
            return raised, ran


async def _refused(tool: str, hook: str, arrangement: str) -> None:
    """Step 2: with ``hook`` set after startup, ``tool``'s call is refused, no mark left."""
    with temporary_tmux() as tmux:
        served = ("--toolsets", "all", "--exclude-tools", ",".join(PROCESS_TOOLS))
        async with serve(tmux, *served) as session:
            ids = _objects(tmux)
            async with AsyncExitStack() as stack:
                await _clients(tmux, ids, stack, arrangement)
                await _prepare(tmux, session, tool, ids)
                tmux.bare("set-hook", "-g", hook, _mark(tmux, hook))
                if tool == "wait_for_command":
                    _go(tmux)
                result = await session.call_tool(_tool_of(tool), CALLS[tool](ids))
                if tool == "server_info":  # it reports the refusal instead of failing
                    assert structured(result)["server_state"] == "configuration-changed", hook
                else:
                    assert result.is_error, (tool, hook, result.structured_content)
                    assert error_text(result).startswith(REFUSED), error_text(result)
                assert hook not in _marks(tmux), (tool, hook)


def _checks_per_call(tmux: PrivateTmux) -> bool:
    """Whether this tmux expands a whole array in a format (3.5 and later): the check."""
    tmux.new_session("probe")
    seen = tmux.bare("display-message", "-p", "#{command-alias}").stdout
    tmux.kill_server()
    return "split-pane=split-window" in seen


@pytest.mark.parametrize(("tool", "arrangement"), CASES, ids=[f"{t}-{a}" for t, a in CASES])
async def test_every_hook_a_tool_raises_is_checked(
    private_tmux: PrivateTmux, tool: str, arrangement: str
) -> None:
    """Issue 18 R2 and issue 27 N2, per tool and per arrangement of two attached
    clients: what its call raises (focus-events on) is in the table of hooks a call
    can raise and in the gate's list for the commands it ran; on 3.5 and later each
    one set after startup refuses the call (CM-4)."""
    raised, ran = await _raised(tool, arrangement)
    assert ran and ran[0] == "show-options", "every call passes the gate first"
    assert not raised & hooks.AMBIENT, f"{tool} raised hooks the table calls ambient"
    assert raised <= set(hooks_for(ran)), f"{tool}: raised hooks the gate does not check"
    if _tool_of(tool) in OBSERVERS:
        assert OBSERVING_COMMANDS.issuperset(ran), f"{tool} observes only, but ran {ran}"
    if _tool_of(tool) in NOT_CHECKED:
        pytest.skip(f"{tool}: {NOT_CHECKED[_tool_of(tool)]}")
    if not _checks_per_call(private_tmux):
        pytest.skip("before tmux 3.5 no per-call check exists and the hints are cautious")
    through_a_client = {hook for hook in raised if hook.startswith("client-")}
    for hook in sorted(raised if arrangement == FIRST else through_a_client):
        await _refused(tool, hook, arrangement)


LEAVING = {
    "kill_session": "leaves-killed-session",
    "kill_window": "leaves-with-last-window",
    "kill_pane": "leaves-with-last-window",
}
"""The calls that make a client leave, and the arrangement in which they do."""


@pytest.mark.parametrize("tool", sorted(LEAVING))
async def test_a_call_that_makes_a_client_leave_raises_client_active(
    private_tmux: PrivateTmux, tool: str
) -> None:
    """Issue 27 N2, the red team's case on its own: a call that makes the latest
    client of a window leave (its session killed, or its session's last window or
    pane) raises client-active for the other client viewing that window, and the
    gate checks it (on 7563819 it was filed as ambient and not checked)."""
    raised, ran = await _raised(tool, LEAVING[tool])
    assert {"client-active", "client-detached"} <= raised, raised
    assert "client-active" in hooks_for(ran)
