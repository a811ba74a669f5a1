"""The answers the fast tests script for the fake tmux, named once.

A fast test that scripts what tmux says (an error line, a status) takes it
from here, and ``tests/driver/test_fake_parity.py`` plays each one against
real tmux on every version of the matrix: if tmux words an answer otherwise,
the parity test fails, not a fast test that still passes on the old words
(issue 30.2). The answers the fake makes up itself (the gate's line, a
replaced or stopped server, ``rows``) are played there too, and so are the
kernel's readings the fast tests give the fake world (``FakeTmux.kernel``):
each against ``driver.kernel.Proc``'s reading of a real pane in that state.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Final

from tmuxmcp.driver.fake import FakeCall, Reply, expand_format
from tmuxmcp.driver.foreground import Member, TerminalReading
from tmuxmcp.driver.guards import Refusal
from tmuxmcp.driver.proc import Leader
from tmuxmcp.driver.tty import LineModes


def missing_pane(pane: str) -> Reply:
    """What a command targeting ``pane`` (``-t %9``), which does not exist, gets."""
    return Reply(stderr=f"can't find pane: {pane}\n", status=1)


class _NoPane(Mapping[str, str]):
    """Every variable of a pane that is not there: empty, as tmux expands it."""

    def __getitem__(self, name: str) -> str:
        return ""

    def __contains__(self, name: object) -> bool:
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def missing_pane_look(call: FakeCall) -> Reply:
    """What a look at a pane that does not exist gets (``display-message -p -t %9`` then
    ``capture-pane -t %9``, as wait_for_state's looks read): ``display-message`` does not
    fail on a missing target, it prints its format with every pane variable empty; the
    ``capture-pane`` after it fails as ``missing_pane``."""
    out: list[str] = []
    command: list[str] = []
    pane = ""
    for word in [*call.words, ";"]:
        if word != ";":
            command.append(word)
            continue
        if command[:1] == ["display-message"]:
            out.append(expand_format(command[-1], _NoPane()) + "\n")
        else:
            pane = command[command.index("-t") + 1]
            break
        command = []
    return Reply(stdout="".join(out), stderr=missing_pane(pane).stderr, status=1)


def guard_refused(refusal: Refusal) -> Reply:
    """What a guard after the gate gets when its condition fails (``driver.guards``):
    tmux refuses the option name, and the rest of the command list does not run."""
    return Reply(stderr=f"invalid option: {refusal.value}\n", status=1)


# -- the kernel's side (``FakeTmux.kernel``, ``driver.kernel``) ----------------------------
# What the kernel says of a pane's processes, as ``driver.kernel.Proc`` reads a real
# pane of each kind (the parity test plays each against one): the pane's process is a
# ``bash --norc --noprofile`` of this user, and ``child`` a process it started.

BASH: Final = ("bash", "--norc", "--noprofile")
"""The pane's shell, as its arguments read."""


def shell_prompt(pane_pid: int, argv: tuple[str, ...] = BASH) -> TerminalReading:
    """bash at its prompt: its line editor waits in ``pselect`` with the terminal open,
    raw (not canonical, no echo); ``pane_state`` says ``shell-ready``."""
    shell = Member(
        pid=pane_pid,
        program=argv[0],
        uid=os.getuid(),
        state="S",
        reading="terminal-inferred",
        argv=argv,
    )
    return TerminalReading(
        group=pane_pid, members=(shell,), modes=LineModes(False, False), walk_complete=True
    )


def shell_leader(pane_pid: int, argv: tuple[str, ...] = BASH) -> Leader:
    """The foreground leader of a pane whose bash waits at its prompt (readiness Rule 2)."""
    return Leader(pane_pid, argv[0], argv, os.getuid(), "S")


def shell_reading_line(pane_pid: int, argv: tuple[str, ...] = BASH) -> TerminalReading:
    """bash in its own ``read`` builtin (``read line``): it reads the terminal, 4,096 bytes
    at a time, in canonical mode with echo: ``awaiting-line``, which ``run_command`` must
    not take for its prompt."""
    shell = Member(
        pid=pane_pid,
        program=argv[0],
        uid=os.getuid(),
        state="S",
        reading="terminal",
        argv=argv,
        read_size=4096,
    )
    return TerminalReading(
        group=pane_pid, members=(shell,), modes=LineModes(True, True), walk_complete=True
    )


def program_leader(child: int, argv: tuple[str, ...] = ("sleep", "600")) -> Leader:
    """The foreground leader of a pane whose shell runs ``argv`` (readiness Rule 2 refuses
    it: a program, not a shell)."""
    return Leader(child, argv[0], argv, os.getuid(), "S")


def running_command(child: int, program: str = "sleep") -> TerminalReading:
    """A command the shell runs in the foreground, asleep on something other than the
    terminal (``sleep 600``), the terminal back in canonical mode with echo:
    ``running``."""
    member = Member(pid=child, program=program, uid=os.getuid(), state="S", reading="other")
    return TerminalReading(
        group=child, members=(member,), modes=LineModes(True, True), walk_complete=True
    )


def reading_keys(child: int, program: str = "less") -> TerminalReading:
    """A pager in the foreground reading keys from the terminal it set raw:
    ``awaiting-keys``, left with ``q``."""
    member = Member(
        pid=child, program=program, uid=os.getuid(), state="S", reading="terminal", read_size=1
    )
    return TerminalReading(
        group=child, members=(member,), modes=LineModes(False, False), walk_complete=True
    )
