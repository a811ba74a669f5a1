"""Issue 18 R2: for every tool, the hooks its tmux commands raise, each refused (CM-4).

The per-call check (``driver.client``: the gate) refuses a call when a hook
the call's commands can fire was set after startup. Which hooks those are is
the hook table of the running release (``driver.hooks.NOTIFY_HOOKS``),
the ``after-<command>`` hooks tmux has (``show-hooks``), and
``command-error``. This module shows, tool by tool, that what the calls raise
is in the table, in the gate's list for the commands they ran
(``client.hooks_for``, from the argv a ``--tmux`` wrapper logs), and refused:

1. **Enumerate.** On a server tmuxmcp did not create (so no narrow hints and
   no per-call check), with a real client attached on a pty and
   ``focus-events`` on (so ``select-pane`` raises ``pane-focus-in`` and
   ``-out``), every candidate hook is set to a ``run-shell`` that writes its
   name; the tool's call then leaves the names of the hooks it raised. A
   sentinel (a rename of a session of its own, whose session-level
   ``session-renamed`` hook writes ``END``) is queued after the call, so
   every notification hook the call queued has run when ``END`` is written.
2. **Refuse.** For each hook raised: a fresh server made by tmuxmcp, serving
   every toolset less the tools that reach a process (narrow
   hints, the check on), the same objects and client, the hook set after
   startup, the same call. It is refused with ``[tmux-configuration-changed]``
   and the hook's mark is not left.

Every raised hook must be one the table says a call can raise (none of
``AMBIENT``; marking the focus hooks ambient, the bug of R2, fails
``select_pane``). Step 2 cannot run for a tool that reaches a process, nor
for ``wait_for_command`` (its run needs ``run_command``): with such a tool
served no narrow hints are published and no per-call check exists, by
design (``NOT_CHECKED``). Hooks raised only asynchronously, after the call's own
commands (``pane-died`` and ``pane-exited``, when a pane's process exits),
are not seen by the sentinel; the gate checks them for every state-changing
call all the same (``test_every_call_raised_notification_hook_is_checked``).
Before tmux 3.5 no per-call check exists (no whole array in a format) and
the hints are cautious, so step 2 is skipped there.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from typing import Any

import pytest
import trio
from mcp import ClientSession

from tests.support import (
    PrivateTmux,
    error_text,
    focus_client,
    notify_hooks_of,
    serve,
    structured,
    temporary_tmux,
    tmux_wrapper,
)
from tmuxmcp.capability.vocabulary import Reach
from tmuxmcp.definition import DEFINITION
from tmuxmcp.driver import hooks
from tmuxmcp.driver.client import hooks_for

Ids = dict[str, str]
Call = Callable[[Ids], dict[str, Any]]

CALLS: dict[str, Call] = {
    "list_sessions": lambda ids: {},
    "list_windows": lambda ids: {"session_id": ids["s"]},
    "list_panes": lambda ids: {"window_id": ids["w0"]},
    "get_pane_info": lambda ids: {"pane_id": ids["p0"]},
    "capture_pane": lambda ids: {"pane_id": ids["p0"]},
    "list_buffers": lambda ids: {},
    "snapshot": lambda ids: {"session_id": ids["s"]},
    "server_info": lambda ids: {},
    "create_session": lambda ids: {"name": "made"},
    "create_window": lambda ids: {"session_id": ids["s"], "name": "made"},
    "split_pane": lambda ids: {"pane_id": ids["p0"], "direction": "horizontal"},
    "rename_session": lambda ids: {"session_id": ids["t"], "name": "renamed"},
    "rename_window": lambda ids: {"window_id": ids["w1"], "name": "renamed"},
    "set_pane_title": lambda ids: {"pane_id": ids["p1"], "title": "titled"},
    "select_window": lambda ids: {"window_id": ids["w1"]},
    "select_pane": lambda ids: {"pane_id": ids["p1"]},
    "select_layout": lambda ids: {"window_id": ids["w0"], "layout": "even-vertical"},
    "resize_pane": lambda ids: {"pane_id": ids["p0"], "direction": "right", "amount": 2},
    "swap_pane": lambda ids: {"pane_id": ids["p0"], "other_pane_id": ids["p1"]},
    "move_window": lambda ids: {"window_id": ids["w1"], "session_id": ids["t"]},
    "set_option": lambda ids: {"option": "history-limit", "value": 5000, "session_id": ids["s"]},
    "kill_session": lambda ids: {"session_id": ids["t"]},
    "kill_window": lambda ids: {"window_id": ids["w1"]},
    "kill_pane": lambda ids: {"pane_id": ids["p1"]},
    "clear_history": lambda ids: {"pane_id": ids["p0"]},
    "delete_buffer": lambda ids: {"buffer": "notes"},
    "send_keys": lambda ids: {"pane_id": ids["p0"], "keys": ["C-l"]},
    "send_text": lambda ids: {"pane_id": ids["p0"], "text": "echo typed", "enter": True},
    "run_command": lambda ids: {"pane_id": ids["p2"], "command": "echo ran"},
    "wait_for_command": lambda ids: {"pane_id": ids["p2"], "run_id": ids["run"], "timeout": 30},
    "paste_buffer": lambda ids: {"pane_id": ids["p0"], "buffer": "notes"},
    "respawn_pane": lambda ids: {"pane_id": ids["p1"]},
    "wait_for_text": lambda ids: {"pane_id": ids["p0"], "pattern": "absent", "timeout": 0},
    "wait_for_idle": lambda ids: {"pane_id": ids["p0"], "quiet_ms": 100, "timeout": 10},
    "search_panes": lambda ids: {"pattern": "absent"},
    "capture_since": lambda ids: {"pane_id": ids["p0"]},
}
"""The call of each tool, on the objects ``_objects`` makes."""

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
    assert sorted(CALLS) == sorted(spec.name for spec in DEFINITION)


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
    wait_for_command (it ends once ``go`` exists, which ``_go`` makes)."""
    await tmux.wait_for_prompt(ids["p2"])
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


def _commands_ran(tmux: PrivateTmux) -> list[str]:
    """The tmux commands of every invocation logged since ``argv`` was emptied."""
    known = set(tmux.bare("list-commands", "-F", "#{command_list_name}").stdout.split())
    with open(os.path.join(tmux.directory, "argv")) as f:
        invocations = f.read().split(_END_OF_ARGV + "\n")
    ran: list[str] = []
    for invocation in invocations:
        words = invocation.splitlines()
        first = next((i for i, word in enumerate(words) if word in known), None)
        if first is None:
            continue  # tmux -V
        ran.append(words[first])
        ran += [words[i + 1] for i, word in enumerate(words[:-1]) if i > first and word == ";"]
    return ran


async def _raised(tool: str) -> tuple[set[str], list[str]]:
    """Step 1: the hooks ``tool``'s call raises, on a server tmuxmcp did not create,
    and the tmux commands the call ran."""
    with temporary_tmux() as tmux:
        ids = _objects(tmux)
        sentinel = tmux.new_session("sentinel")["session_id"]
        served = ("--toolsets", "all", "--tmux", _logging_tmux(tmux))
        async with focus_client(tmux, ids["s"]), serve(tmux, *served) as session:
            await _prepare(tmux, session, tool, ids)
            words: list[str] = []
            for hook in _candidates(tmux):
                words += ["set-hook", "-g", hook, _mark(tmux, hook), ";"]
            tmux.bare(*words[:-1])
            # The sentinel's own hooks: its rename writes END and nothing else.
            tmux.bare("set-hook", "-t", sentinel, "session-renamed", _mark(tmux, "END"))
            tmux.bare("set-hook", "-t", sentinel, "after-rename-session", "run-shell true")
            await _settle(tmux, sentinel, 1)
            before = len(_marks(tmux))
            open(os.path.join(tmux.directory, "argv"), "w").close()
            if tool == "wait_for_command":
                _go(tmux)
            result = await session.call_tool(tool, CALLS[tool](ids))
            assert not result.is_error, error_text(result)
            ran = _commands_ran(tmux)
            await _settle(tmux, sentinel, 2)
            # Read before tmuxmcp exits: its shutdown unsets its marker (set-option).
            return set(_marks(tmux)[before:]) - {"END"}, ran


async def _refused(tool: str, hook: str) -> None:
    """Step 2: with ``hook`` set after startup, ``tool``'s call is refused, no mark left."""
    with temporary_tmux() as tmux:
        served = ("--toolsets", "all", "--exclude-tools", ",".join(PROCESS_TOOLS))
        async with serve(tmux, *served) as session:
            ids = _objects(tmux)
            async with focus_client(tmux, ids["s"]):
                await _prepare(tmux, session, tool, ids)
                tmux.bare("set-hook", "-g", hook, _mark(tmux, hook))
                if tool == "wait_for_command":
                    _go(tmux)
                result = await session.call_tool(tool, CALLS[tool](ids))
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


@pytest.mark.parametrize("tool", sorted(CALLS))
async def test_every_hook_a_tool_raises_is_checked(private_tmux: PrivateTmux, tool: str) -> None:
    """Issue 18 R2, per tool: what its call raises (a client attached, focus-events
    on) is in the table of hooks a call can raise and in the gate's list for the
    commands it ran; on 3.5 and later each one set after startup refuses the call."""
    raised, ran = await _raised(tool)
    assert ran and ran[0] == "show-options", "every call passes the gate first"
    assert not raised & hooks.AMBIENT, f"{tool} raised hooks the table calls ambient"
    assert raised <= set(hooks_for(ran)), f"{tool}: raised hooks the gate does not check"
    if tool in NOT_CHECKED:
        pytest.skip(f"{tool}: {NOT_CHECKED[tool]}")
    if not _checks_per_call(private_tmux):
        pytest.skip("before tmux 3.5 no per-call check exists and the hints are cautious")
    for hook in sorted(raised):
        await _refused(tool, hook)
