"""The pane state's rules on kernel readings made by hand (issue 28.1, ``panes.pane_state``).

The real programs are in ``test_pane_state.py``; here are the cases this
machine cannot produce on demand: a reader hidden from this user (``sudo``,
``su``), a terminal that cannot be opened, another user's shell, and the
exact read sizes that tell dash's prompt from its ``read``.
"""

from __future__ import annotations

import msgspec
import pytest

from tmuxmcp.driver.foreground import Member, Reading, TerminalReading
from tmuxmcp.driver.tty import LineModes
from tmuxmcp.panes.pane_state import STATES, TmuxFacts, classify

ME = 1000
ALIVE = TmuxFacts(
    pid=10,
    tty="/dev/pts/9",
    dead=False,
    dead_status=None,
    dead_signal=None,
    in_mode=False,
    mode="",
    alternate_screen=False,
    cursor_x=2,
    cursor_y=0,
)
RAW = LineModes(canonical=False, echo=False)
LINE = LineModes(canonical=True, echo=True)
SECRET = LineModes(canonical=True, echo=False)
KEY = LineModes(canonical=False, echo=True)


def _member(
    program: str | None,
    reading: Reading,
    *,
    pid: int = 10,
    uid: int | None = ME,
    argv: tuple[str, ...] | None = None,
    state: str = "S",
    size: int | None = None,
) -> Member:
    if argv is None and program is not None:
        argv = (program,)
    return Member(
        pid=pid, program=program, uid=uid, argv=argv, state=state, reading=reading, read_size=size
    )


def _state(*members: Member, modes: LineModes | None, row: str | None = "$ ") -> str:
    reading = TerminalReading(group=10, members=members, modes=modes, walk_complete=True)
    facts = msgspec.structs.replace(ALIVE, cursor_x=len(row or ""))
    return classify(facts, reading, uid=ME, cursor_row=row).state


@pytest.mark.parametrize(
    ("shell", "modes", "size", "wanted"),
    [
        ("bash", RAW, None, "shell-ready"),
        ("zsh", RAW, 1, "shell-ready"),
        ("bash", LINE, 4096, "awaiting-line"),  # its read builtin (Rule 2)
        ("zsh", SECRET, 1, "awaiting-secret"),  # read -s
        ("bash", KEY, 1, "awaiting-keys"),  # read -n1
        ("dash", LINE, 8192, "shell-ready"),  # its prompt
        ("dash", LINE, 1, "awaiting-line"),  # its read builtin, one byte at a time
        ("sh", SECRET, 8192, "shell-ready"),  # its prompt after stty -echo
        ("sh", SECRET, 1, "awaiting-secret"),  # stty -echo; read
    ],
)
def test_a_shell_reading_its_terminal(
    shell: str, modes: LineModes, size: int | None, wanted: str
) -> None:
    reading: Reading = "terminal" if size is not None else "terminal-inferred"
    assert _state(_member(shell, reading, size=size), modes=modes) == wanted


def test_a_continuation_prompt_is_seen_only_at_a_shells_prompt() -> None:
    shell = _member("bash", "terminal-inferred")
    assert _state(shell, modes=RAW, row="> ") == "shell-continuation"
    assert _state(shell, modes=RAW, row="quote> ") == "shell-continuation"
    # A program printing "> " decides nothing: only a shell at its prompt is looked at.
    assert _state(_member("cat", "terminal", size=4096), modes=LINE, row="> ") == "awaiting-line"


def test_a_program_under_a_shells_name_is_not_a_shell() -> None:
    """The executable decides (``exec -a bash cat``): argv[0] is the program's choice."""
    spoof = _member("cat", "terminal", argv=("bash",), size=131072)
    assert _state(spoof, modes=LINE) == "awaiting-line"


def test_another_users_shell_or_a_script_is_never_ready() -> None:
    assert _state(_member("bash", "terminal-inferred", uid=0), modes=RAW) == "awaiting-keys"
    script = _member("bash", "terminal", argv=("bash", "script.sh"), size=1)
    assert _state(script, modes=LINE) == "awaiting-line"
    command = _member("sh", "terminal", argv=("sh", "-c", "read x"), size=8192)
    assert _state(command, modes=LINE) == "awaiting-line"


def test_a_hidden_reader_is_judged_by_the_line_modes_alone() -> None:
    """Rule 3: ``sudo`` asking for a password shows only echo off in canonical mode."""
    hidden = _member(None, "hidden", uid=None)
    assert _state(hidden, modes=SECRET) == "awaiting-secret"
    assert _state(hidden, modes=RAW) == "awaiting-keys"
    # Echo on in canonical mode is every running program's: nothing says it reads.
    assert _state(hidden, modes=LINE) == "running"


def test_running_and_unknown_take_the_safe_side() -> None:
    waiting_child = _member("bash", "other", argv=("bash",))
    busy = _member("python3", "running", pid=11, state="R")
    assert _state(waiting_child, busy, modes=LINE) == "running"
    assert _state(_member("sleep", "other"), modes=LINE) == "running"
    # A reader whose terminal could not be opened: running, evidence unknown.
    reading = TerminalReading(
        group=10, members=(_member("cat", "terminal", size=1),), modes=None, walk_complete=True
    )
    verdict = classify(ALIVE, reading, uid=ME)
    assert (verdict.state, verdict.evidence) == ("running", "unknown")
    assert classify(ALIVE, None, uid=ME).state == "running"
    starting = TerminalReading(group=0, members=(), modes=None, walk_complete=True)
    assert classify(ALIVE, starting, uid=ME).evidence == "unknown"


def test_the_group_leader_waits_while_its_child_reads() -> None:
    """``git log``: git waits for its pager, the pager reads the terminal (Rule 2 of
    ``driver.foreground``); a pager's keys leave it."""
    git = _member("git", "other", argv=("git", "log"))
    pager = _member("less", "terminal", pid=11, size=1)
    reading = TerminalReading(group=10, members=(git, pager), modes=RAW, walk_complete=True)
    verdict = classify(ALIVE, reading, uid=ME)
    assert (verdict.state, verdict.foreground_program, verdict.leave_keys) == (
        "awaiting-keys",
        "less",
        ["q"],
    )


def test_tmux_states_come_first() -> None:
    dead = classify(msgspec.structs.replace(ALIVE, dead=True, dead_status=3), None, uid=ME)
    assert (dead.state, dead.exit_status) == ("dead", 3)
    mode = classify(msgspec.structs.replace(ALIVE, in_mode=True, mode="view-mode"), None, uid=ME)
    assert (mode.state, mode.mode) == ("copy-mode", "view-mode")


def test_every_state_is_listed_once() -> None:
    assert len(set(STATES)) == len(STATES) == 8
