"""Is a pane's own shell at its prompt? The check ``run_command`` makes before typing.

A name is not evidence: a program can call itself ``bash`` (``exec -a bash
cat``), and a child script waiting in ``read -p`` runs under a shell's name
too. The rules, in the order they are checked:

Rule 1: the pane is alive, not in a mode and not on the alternate screen
  (tmux's own state, read in the same invocation as the screen).
Rule 2 (Linux): the terminal's foreground process group, read from
  ``/proc/<pane pid>/stat`` (field ``tpgid``), is led by a process whose
  *executable* (``/proc/<pid>/exe``) is a POSIX shell, that runs as this
  user, whose arguments are options only (no script operand, no ``-c``), and
  that is asleep (waiting for input), not running, and waits for no child in
  its own process group (a shell in its startup files sleeps waiting for
  one). A child program or script in the foreground, a program under a
  shell's name, a root shell in a user's pane, and a busy shell are all
  refused.
Rule 3: the cursor's row does not end in a continuation prompt (``> `` of
  sh/bash/dash/ksh, ``quote> ``/``for> `` ... of zsh): a shell waiting for the
  rest of an unclosed quote, here-document or ``\\``-continued line would take
  the typed line as more of that command. This is a heuristic on the screen;
  ``run_command`` backs it with a second check after typing (the shell must
  start tmuxmcp's script, or the script is removed so the line runs nothing).

Where ``/proc`` is missing (not Linux), Rule 2 falls back to the name tmux
reports for the foreground program, which a program can fake; the docs say
so. Every refusal says what the pane is doing and what to send instead.

Rule 4: the typing invocation re-checks, inside tmux and just before the
  paste, what the decision rested on (``driver.guards.guard_name``, proven
  on the tmux at hand by ``tmuxmcp verify``, claim ``paste-guard``): the pane is the same
  process (its ``pane_pid``, whose /proc entry Rule 2 read), alive, in no
  mode, not on the alternate screen and, where the screen was not read by
  tmuxmcp itself, no visible row begins with a continuation prompt (a
  superset of Rule 3, which looks at the cursor row only), and the cursor is
  in the column where the prompt ended (``pending`` Rule 4: text typed at the
  prompt moves it). A failed re-check
  stops the invocation before anything is pasted, like the gate does.
"""

from __future__ import annotations

import os
from typing import NoReturn

import msgspec

from tmuxmcp.driver import proc as procfs
from tmuxmcp.driver.foreground import POSIX_SHELLS, interactive_arguments
from tmuxmcp.driver.kernel import HOST, Kernel
from tmuxmcp.errors import PaneNotReady
from tmuxmcp.panes.pane_state import LIVE_PANE, classify, continuation_before


class ShellBusy(PaneNotReady):
    """You get this when the pane's shell is running (not yet back at its prompt)."""


class JobJustEnded(ShellBusy):
    """You get this when the terminal's foreground job has exited and the shell has not
    yet taken the terminal back (a moment after any command that ran as a job)."""


class ProgramInForeground(PaneNotReady):
    """You get this when another program, not the shell, has the pane's terminal."""


class ScriptInForeground(ProgramInForeground):
    """You get this when the shell in the foreground runs a script or a ``-c`` command.

    Waited for like any program: it may be about to exec or exit. A pane created
    with one command word runs ``SHELL -c WORD``, and the shell execs that word a
    moment later (seen in CI: ``sh -c sh`` read before its exec was refused).
    """


class ShellReadsInput(PaneNotReady):
    """You get this when the pane's shell is in its own ``read`` (a script's question),
    which would take the typed line as its answer (issue 28.1)."""


class PaneState(msgspec.Struct, frozen=True, kw_only=True):
    """What tmux says about a pane, read together with its screen."""

    pane_id: str
    pid: int
    command: str
    in_mode: bool
    alternate: bool
    dead: bool
    cursor_x: int
    cursor_y: int


STATE_FIELDS = {
    "pane_id": "pane_id",
    "pid": "pane_pid",
    "command": "pane_current_command",
    "in_mode": "pane_in_mode",
    "alternate": "alternate_on",
    "dead": "pane_dead",
    "cursor_x": "cursor_x",
    "cursor_y": "cursor_y",
}


class Foreground(msgspec.Struct, frozen=True, kw_only=True):
    """The leader of a terminal's foreground process group, from /proc."""

    pid: int
    program: str
    """Base name of the executable (symlinks resolved): ``dash`` for /bin/sh on Debian."""
    argv: tuple[str, ...]
    uid: int
    state: str
    """One letter, as in /proc/<pid>/stat: S sleeping, R running, T stopped, ..."""


class Unseen(msgspec.Struct, frozen=True):
    """Why the foreground of a pane's terminal could not be read, from one reading."""

    reason: procfs.Unseen
    """``pane-gone``: the pane's own process is gone. ``starting``: its terminal has
    no foreground group yet (a pane just created). ``leader-gone``: the group's
    leader has exited or is exiting (a job just ended; the shell takes the
    terminal back in a moment). ``hidden``: the leader exists but its facts
    cannot be read (another user's process)."""


def foreground_of(pane_pid: int, kernel: Kernel = HOST) -> Foreground | Unseen:
    """The foreground process group leader of ``pane_pid``'s terminal, or why it is unseen
    (one reading of ``tpgid`` decides: ``driver.proc.foreground_leader``)."""
    found = kernel.foreground_leader(pane_pid)
    if isinstance(found, str):
        return Unseen(found)
    return Foreground(
        pid=found.pid, program=found.program, argv=found.argv, uid=found.uid, state=found.state
    )


def busy_with_foreground_child(shell_pid: int, kernel: Kernel = HOST) -> bool:
    """True when the shell sleeps waiting for a child in its own process group.

    A shell asleep is not always at its prompt: while it runs its startup
    files (``.bashrc`` calling ``pyenv``, ``nvm``, ``sleep``), or a command
    before job control is on, it waits for a child in its own process group,
    which holds the terminal (measured: ``do_wait``, the child's pgrp is the
    shell's). Read by ``driver.proc.has_group_child``.
    """
    return kernel.has_group_child(shell_pid)


def refuse_unseen(pane: str, unseen: Unseen) -> NoReturn:
    """Rule 2 when the foreground could not be read: wait out a transient state, refuse
    the rest (a process tmuxmcp may not read is not one it may type into)."""
    if unseen.reason == "leader-gone":
        raise JobJustEnded(
            f"pane {pane}: the job in the foreground of its terminal has just exited and "
            "the shell has not taken the terminal back yet; retry, or send_keys C-c"
        )
    if unseen.reason == "starting":
        raise JobJustEnded(
            f"pane {pane}: its program has not taken its terminal yet (the pane is just "
            "starting); retry in a moment"
        )
    if unseen.reason == "pane-gone":
        raise PaneNotReady(
            f"pane {pane}'s program has exited (its process is gone); respawn the pane or "
            "use another one"
        )
    raise PaneNotReady(
        f"pane {pane}: tmuxmcp cannot see which process is in the foreground of its "
        "terminal (it may belong to another user), so it does not type into it; use "
        "send_keys (keys and text) instead"
    )


def refuse_foreground(pane: str, pane_pid: int, fg: Foreground, uid: int) -> None:
    """Rule 2: raise ``PaneNotReady`` unless ``fg`` is a shell waiting at its prompt."""
    program = fg.program.lstrip("-")
    if program not in POSIX_SHELLS:
        # argv[0] is the program's to choose, at any length: quote 80 characters of it.
        shown = (os.path.basename(fg.argv[0]) if fg.argv else program)[:80]
        faked = f" (it calls itself {shown!r})" if shown.lstrip("-") != program else ""
        raise ProgramInForeground(
            f"pane {pane} is running {program!r}{faked} in the foreground, not a shell at its "
            "prompt; run_command only types into a POSIX shell waiting for a command. Use "
            "send_keys (keys and text) to talk to that program, or send_keys C-c to stop it"
        )
    if fg.uid != uid:
        raise PaneNotReady(
            f"pane {pane}'s foreground shell runs as another user (uid {fg.uid}); run_command "
            "types only into shells of the user tmuxmcp runs as. Use send_keys instead"
        )
    if fg.pid != pane_pid and not interactive_arguments(fg.argv):
        raise ScriptInForeground(
            f"pane {pane} is running a shell script ({' '.join(fg.argv)[:80]!r}) in the "
            "foreground, which may be waiting for an answer; run_command does not type into "
            "it. Answer it with send_keys (its text, then Enter), or stop it with send_keys C-c"
        )
    if not interactive_arguments(fg.argv):
        raise ScriptInForeground(
            f"pane {pane}'s shell runs a script or a -c command, not an interactive prompt; "
            "use send_keys (keys and text) instead"
        )
    if fg.state not in ("S", "I"):
        raise ShellBusy(
            f"pane {pane}'s shell is busy (process state {fg.state}), not waiting at its "
            "prompt; wait for it (wait_for_state with states [shell-ready]) or send_keys C-c"
        )


def refuse_by_name(pane: str, state: PaneState) -> None:
    """Rule 2 without /proc: the name tmux reports (weaker: a program can fake it)."""
    program = os.path.basename(state.command).lstrip("-")
    if program not in POSIX_SHELLS:
        raise PaneNotReady(
            f"pane {pane} is running {program or 'an unknown program'!r}, not a shell at its "
            "prompt; run_command only types into POSIX shells (use send_keys for other "
            "programs)"
        )


def refuse_state(pane: str, state: PaneState) -> None:
    """Rule 1."""
    if state.dead:
        raise PaneNotReady(f"pane {pane} is dead; respawn it or use another pane")
    if state.in_mode:
        raise PaneNotReady(
            f"pane {pane} is in a tmux mode (copy or view mode); leave it first with the "
            'key q (send_keys keys ["q"]), then retry'
        )
    if state.alternate:
        raise PaneNotReady(
            f"pane {pane} shows a full-screen program (the alternate screen is on), not a "
            "shell prompt; use send_keys, or quit that program first (get_pane_info's "
            "state.leave_keys)"
        )


def refuse_continuation(pane: str, state: PaneState, screen: list[str]) -> None:
    """Rule 3: the text left of the cursor is not a continuation prompt."""
    if not 0 <= state.cursor_y < len(screen):
        return
    before = screen[state.cursor_y][: state.cursor_x]
    if continuation_before(before, state.cursor_x):
        raise PaneNotReady(
            f"pane {pane}'s shell is waiting for the rest of a command (its prompt is "
            f"{before!r}: an unclosed quote, here-document, loop or a line ending in \\); "
            "typing now would add to that command. Cancel it with send_keys C-c, then retry. "
            "If that is the shell's own prompt (PS1 set to '> ', which looks exactly like the "
            "continuation prompt PS2), tmuxmcp cannot tell the two apart: give PS1 another "
            "ending in that shell (PS1='$ ' or '% ')"
        )


class Shell(msgspec.Struct, frozen=True):
    """The shell found waiting at its prompt."""

    pid: int | None
    """None where /proc is missing."""
    program: str


def check(pane: str, state: PaneState, screen: list[str], *, kernel: Kernel = HOST) -> Shell:
    """Raise ``PaneNotReady`` unless ``pane``'s shell is waiting at its prompt (its
    processes read through ``kernel``, ``driver.kernel``)."""
    refuse_state(pane, state)
    if kernel.available():
        shell = check_process(pane, state.pid, kernel=kernel)
    else:
        refuse_by_name(pane, state)
        shell = Shell(None, os.path.basename(state.command).lstrip("-"))
    refuse_continuation(pane, state, screen)
    return shell


def check_process(pane: str, pane_pid: int, *, kernel: Kernel = HOST) -> Shell:
    """Rule 2 alone, from /proc: raise ``PaneNotReady`` unless ``pane_pid``'s terminal
    has a shell of this user waiting at its prompt in the foreground."""
    fg = foreground_of(pane_pid, kernel)
    if isinstance(fg, Unseen):
        refuse_unseen(pane, fg)
    refuse_foreground(pane, pane_pid, fg, os.getuid())
    if busy_with_foreground_child(fg.pid, kernel):
        raise ShellBusy(
            f"pane {pane}'s shell is running a command in the foreground (its startup files, "
            "or a command it waits for), not waiting at its prompt; wait for it "
            "(wait_for_state with states [shell-ready]) or send_keys C-c"
        )
    refuse_shell_reading(pane, pane_pid, fg.pid, kernel)
    return Shell(fg.pid, fg.program.lstrip("-"))


def refuse_shell_reading(pane: str, pane_pid: int, shell_pid: int, kernel: Kernel = HOST) -> None:
    """Rule 2, the terminal's side (issue 28.1): a shell waiting in its ``read`` builtin
    looks like one at its prompt to every check above (same process, asleep, no child);
    the terminal's line modes and the shell's read tell them apart (``pane_state`` Rule 2).
    Where they cannot be read, nothing is refused here."""
    reading = kernel.read_terminal(pane_pid, None)
    if reading is None or reading.modes is None:
        return
    verdict = classify(LIVE_PANE, reading)
    if verdict.foreground_pid != shell_pid or not verdict.state.startswith("awaiting-"):
        return
    what = {
        "awaiting-line": "a line (echo on)",
        "awaiting-secret": "a line with echo off, such as a password",
        "awaiting-keys": "a key",
    }[verdict.state]
    raise ShellReadsInput(
        f"pane {pane}'s shell is not at its prompt: it runs its own read builtin and waits "
        f"for {what} (state {verdict.state}); a typed command would become that answer. "
        "Answer it with send_keys (its text, then Enter), or stop it with send_keys C-c"
    )


def still_waiting_at_prompt(pane_pid: int, shell_pid: int | None, kernel: Kernel = HOST) -> bool:
    """After typing: the same shell is in the foreground and asleep (it read, but ran nothing)."""
    if shell_pid is None or not kernel.available():
        return False
    fg = foreground_of(pane_pid, kernel)
    return isinstance(fg, Foreground) and fg.pid == shell_pid and fg.state in ("S", "I")
