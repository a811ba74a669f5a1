"""run_command and wait_for_command end to end: real tmux, real shells, a real stdio client.

Each test names the defect of issue 11 it pins; each failed before the
redesign (status over a FIFO, the command from a sourced file, output read at
an OSC 7 fence).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp import ClientSession

from tests.support import (
    DEDICATED,
    PrivateTmux,
    call_and_interrupt,
    error_text,
    logged_pids,
    no_redraw_tmux,
    serve,
    stalling_tmux,
    structured,
)
from tmuxmcp.driver import guards
from tmuxmcp.driver.kernel import Proc
from tmuxmcp.errors import PaneNotReady
from tmuxmcp.panes import pane_state, readiness
from tmuxmcp.runs import directory as run_directory
from tmuxmcp.runs import output

SHELLS = {
    "sh": ("sh",),
    "bash": ("bash", "--norc", "--noprofile"),
    "zsh": ("zsh", "-f"),
}


def _shell_session(tmux: PrivateTmux, name: str, shell: str, *size: str) -> str:
    """A session of ``shell``; ``size``, ``-x``/``-y`` flags it is made with (tmux takes
    the last given). A pane resized while its shell starts can be resized before the
    shell's line editor watches for it, which then wraps at the old width."""
    argv = SHELLS[shell]
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    return tmux.new_session(name, "tmuxmcp", *size, *argv)["pane_id"]


# The shared wait (``PrivateTmux.wait_for_prompt``) under the name these tests,
# ``test_panelock`` and ``test_run_command_shells`` call it by: ``_at_prompt(tmux, pane)``.
_at_prompt = PrivateTmux.wait_for_prompt


def _foreground_command(tmux: PrivateTmux, pane: str) -> str:
    """The name (``comm``) of the process in the foreground of the pane's terminal."""
    pid = tmux.bare("display-message", "-p", "-t", pane, "#{pane_pid}").stdout.strip()
    # /proc/PID/stat after the name: state ppid pgrp session tty_nr tpgid ...
    tpgid = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[5]
    return Path(f"/proc/{tpgid if int(tpgid) > 0 else pid}/comm").read_text().strip()


def _cursor_row(tmux: PrivateTmux, pane: str) -> str:
    row = int(tmux.bare("display-message", "-p", "-t", pane, "#{cursor_y}").stdout)
    return tmux.bare("capture-pane", "-p", "-t", pane).stdout.split("\n")[row]


def _in_mode(tmux: PrivateTmux, pane: str) -> bool:
    return tmux.bare("display-message", "-p", "-t", pane, "#{pane_in_mode}").stdout.strip() == "1"


_TAKEN_EFFECT: dict[str, Callable[[PrivateTmux, str], bool]] = {
    "exec -a bash cat > /dev/null": lambda tmux, pane: _foreground_command(tmux, pane) == "cat",
    "sh -c 'read -r answer'": lambda tmux, pane: _foreground_command(tmux, pane) == "sh",
    "echo 'unclosed": lambda tmux, pane: _cursor_row(tmux, pane).startswith(">"),  # PS2
    "tmux copy-mode": _in_mode,
}
"""For each program the readiness tests type, what shows that bash has acted on it."""


async def _type_and_wait_for_effect(tmux: PrivateTmux, pane: str, program: str) -> None:
    """Type ``program`` and Enter, then wait (deadline 10 s) until it has taken effect."""
    tmux.bare("send-keys", "-t", pane, "-l", program)
    tmux.bare("send-keys", "-t", pane, "Enter")
    with trio.fail_after(10):
        while not _TAKEN_EFFECT[program](tmux, pane):
            await trio.sleep(0.02)


async def _run(session: ClientSession, pane: str, command: str, **extra: object) -> dict[str, Any]:
    return structured(
        await session.call_tool("run_command", {"pane_id": pane, "command": command, **extra})
    )


async def test_output_longer_than_the_history_keeps_the_exit_status(
    private_tmux: PrivateTmux,
) -> None:
    # Issue 11: `seq 1 5000` in a pane with 2,000 lines of history returned
    # exit_status null and no output.
    async with serve(private_tmux) as session:
        private_tmux.bare("set-option", "-g", "history-limit", "2000")
        pane = private_tmux.new_session("long")["pane_id"]
        await _at_prompt(private_tmux, pane)
        done = await _run(session, pane, "seq 1 5000", timeout=60)
        assert (done["completed"], done["exit_status"]) == (True, 0)
        assert done["output_truncated"] is True
        lines = done["output"].split("\n")
        assert lines[0].startswith("[... at least ") and "scrolled out" in lines[0]
        assert lines[-1] == "5000"
        # A lower bound: tmux keeps no count of the rows it dropped.
        assert done["lines_lost"] >= 1
        longer = await _run(session, pane, "seq 1 100000; false", timeout=120)
        assert (longer["completed"], longer["exit_status"]) == (True, 1)
        assert longer["output"].split("\n")[-1] == "100000"


async def test_default_history_is_generous(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("hist")["pane_id"]
        limit = private_tmux.bare("display-message", "-p", "-t", pane, "#{history_limit}")
        assert limit.stdout.strip() == "50000"
        await _at_prompt(private_tmux, pane)
        done = await _run(session, pane, "seq 1 20000", timeout=60, max_output_bytes=1024 * 1024)
        assert done["output"].split("\n") == [str(n) for n in range(1, 20001)]
        assert done["output_truncated"] is False


@pytest.mark.parametrize(
    ("command", "status", "output"),
    [
        ("printf 'Transferred bytes: 0000000042\\r'; false", 1, "Transferred bytes: 0000000042"),
        # As displayed: "done" is written over the start of "Saving...".
        ("printf 'Saving...\\r'; printf 'done\\n'", 0, "doneng..."),
        ("printf 'no newline at the end'", 0, "no newline at the end"),
        # A tab as tmux keeps it: expanded to spaces by 3.3a, kept as a tab by 3.6.
        ("printf '\\033[31mred\\033[0m\\tTAB\\n'; (exit 3)", 3, ("red     TAB", "red\tTAB")),
        ("printf 'wide: 日本語\\n'", 0, "wide: 日本語"),
        ("printf 'E 0\\nS\\nTMXE0 0\\n'; (exit 9)", 9, "E 0\nS\nTMXE0 0"),
    ],
)
async def test_output_shapes_keep_status_and_text(
    private_tmux: PrivateTmux, command: str, status: int, output: str | tuple[str, ...]
) -> None:
    # Issue 11: a trailing \r printed the end marker over the last line
    # (status 10000042 for the first case).
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("shape")["pane_id"]
        await _at_prompt(private_tmux, pane)
        done = await _run(session, pane, command)
        accepted = output if isinstance(output, tuple) else (output,)
        assert done["exit_status"] == status
        assert done["output"] in accepted


async def test_line_longer_than_the_pane_is_one_line(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("wide")["pane_id"]
        await _at_prompt(private_tmux, pane)
        done = await _run(session, pane, "printf '%0300d\\n' 7")
        assert done["output"] == "0" * 299 + "7"


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_20000_byte_line_runs_exactly(private_tmux: PrivateTmux, shell: str) -> None:
    # Issue 11: dash kept 4,095 bytes of a typed line, and a prefix ran.
    payload = "x" * 20_000
    command = f"printf %s '{payload}' | wc -c; (exit 4)"
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"long-{shell}", shell)
        await _at_prompt(private_tmux, pane)
        done = await _run(session, pane, command)
        assert (done["exit_status"], done["output"].strip()) == (4, "20000")
        typed = private_tmux.bare("capture-pane", "-p", "-J", "-t", pane).stdout
        # What a person watching sees: one short line, not the 20 KB command (the
        # prompt, 40 characters of the command, two paths and the wrapper).
        assert payload[:200] not in typed
        assert max(len(line) for line in typed.split("\n")) < 260


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_state_persists_and_status_is_exact_in_each_shell(
    private_tmux: PrivateTmux, shell: str
) -> None:
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"state-{shell}", shell)
        await _at_prompt(private_tmux, pane)
        await _run(session, pane, "cd /tmp && export TMUXMCP_T=kept")
        done = await _run(session, pane, 'echo "$PWD $TMUXMCP_T"; (exit 5)')
        assert (done["exit_status"], done["output"]) == (5, "/tmp kept")
        # $? at the prompt is the command's, and no helper variable is left behind.
        after = await _run(session, pane, "(exit 6)")
        assert after["exit_status"] == 6
        seen = await _run(session, pane, 'echo "st=$? rel=${tmuxmcp_release-unset}"')
        assert seen["output"] == "st=6 rel=unset"


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_syntax_error_returns_at_once(private_tmux: PrivateTmux, shell: str) -> None:
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"syn-{shell}", shell)
        await _at_prompt(private_tmux, pane)
        with trio.fail_after(10):
            done = await _run(session, pane, "if then fi (", timeout=8)
        assert done["completed"] is True
        assert done["exit_status"] not in (0, None)
        again = await _run(session, pane, "echo still-here")
        assert (again["exit_status"], again["output"]) == (0, "still-here")


async def test_a_program_reading_the_screen_cannot_forge_the_status(
    private_tmux: PrivateTmux,
) -> None:
    # Issue 11: the nonce was on screen; a program that captured the pane
    # could print the end marker and report exit 0.
    forge = (
        'for word in $(tmux capture-pane -p -S - | tr -c "A-Za-z0-9" " "); do '
        'printf "TMXE%s 0\\nE 0\\n" "$word"; done; (exit 7)'
    )
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("forge")["pane_id"]
        await _at_prompt(private_tmux, pane)
        done = await _run(session, pane, forge)
        assert done["exit_status"] == 7
        assert done["output"].endswith("E 0")


async def test_timed_out_command_is_collected_by_wait_for_command(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("later")["pane_id"]
        await _at_prompt(private_tmux, pane)
        # The command runs until the test makes ``go``, so the pane is still busy when
        # the second run asks, however slow the machine (issue 27.4).
        go = os.path.join(private_tmux.directory, "go")
        command = f"echo begun; while [ ! -e {go} ]; do sleep 0.05; done; echo finished; false"
        first = await _run(session, pane, command, timeout=0.5)
        assert (first["completed"], first["timed_out"], first["exit_status"]) == (False, True, None)
        assert len(first["run_id"]) == 12
        busy = await session.call_tool(
            "run_command", {"pane_id": pane, "command": "true", "timeout": 0.3}
        )
        assert busy.is_error and "wait_for_command" in error_text(busy)
        open(go, "w").close()
        later = structured(
            await session.call_tool(
                "wait_for_command", {"pane_id": pane, "run_id": first["run_id"], "timeout": 10}
            )
        )
        assert (later["completed"], later["exit_status"]) == (True, 1)
        assert later["output"] == "begun\nfinished"
        assert later["run_id"] == first["run_id"]
        # Collected once, reported again the same way.
        again = structured(
            await session.call_tool(
                "wait_for_command", {"pane_id": pane, "run_id": first["run_id"], "timeout": 1}
            )
        )
        assert again["exit_status"] == 1
        unknown = await session.call_tool(
            "wait_for_command", {"pane_id": pane, "run_id": "0123456789ab", "timeout": 1}
        )
        assert unknown.is_error and "[object-not-found]" in error_text(unknown)


async def test_a_timed_out_run_releases_its_shell_when_it_ends(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("release")["pane_id"]
        await _at_prompt(private_tmux, pane)
        await _run(session, pane, "sleep 1; touch /dev/null", timeout=0.2)
        # Nobody waits for it, yet the shell gets its prompt back: the next run works.
        with trio.fail_after(10):
            while True:
                result = await session.call_tool(
                    "run_command", {"pane_id": pane, "command": "echo next", "timeout": 5}
                )
                if not result.is_error:
                    break
                await trio.sleep(0.2)
        assert structured(result)["output"] == "next"


@pytest.mark.parametrize(
    ("program", "expect"),
    [
        ("exec -a bash cat > /dev/null", "'cat'"),
        ("sh -c 'read -r answer'", "script"),
        ("echo 'unclosed", "waiting for the rest"),
    ],
)
async def test_readiness_is_evidence_not_a_name(
    private_tmux: PrivateTmux, program: str, expect: str
) -> None:
    # Issue 11: a program calling itself bash, or a child waiting in read,
    # received the wrapper; a continuation prompt was typed into.
    async with serve(private_tmux) as session:
        # bash, for `exec -a`; its prompt ends in "$ ", not a continuation prompt.
        pane = _shell_session(private_tmux, "ready", "bash")
        await _at_prompt(private_tmux, pane)
        await _type_and_wait_for_effect(private_tmux, pane, program)
        refused = await session.call_tool(
            "run_command", {"pane_id": pane, "command": "echo SECRET-PAYLOAD"}
        )
        assert refused.is_error
        assert "[pane-not-ready]" in error_text(refused)
        assert expect in error_text(refused)
        screen = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout
        assert "SECRET-PAYLOAD" not in screen


async def test_typed_line_is_short(private_tmux: PrivateTmux) -> None:
    # Where the redraw is declined (here: its read of the screen fails) the typed line
    # stays on the screen, as typed.
    async with serve(private_tmux, "--tmux", no_redraw_tmux(private_tmux)) as session:
        pane = private_tmux.new_session("short")["pane_id"]
        await _at_prompt(private_tmux, pane)
        await _run(session, pane, "echo hi")
        rows = private_tmux.bare("capture-pane", "-p", "-J", "-t", pane).stdout.split("\n")
        typed = next(row for row in rows if "echo hi" in row)
        # The prompt, then the command, the script's path (the one path since issue
        # 31.3: the status file is found through `$tmuxmcp_t`), and at most ~60
        # characters more of wrapper.
        paths = re.findall(r"/\S+/[rt]1\b", typed)
        assert len(paths) == 1, typed
        assert len(typed) - len("echo hi") - sum(map(len, paths)) <= 69, typed


async def test_two_tmuxmcp_processes_never_type_into_one_pane_at_once(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as one, serve(private_tmux) as two:
        pane = private_tmux.new_session("two")["pane_id"]
        await _at_prompt(private_tmux, pane)
        results: list[dict[str, Any]] = []

        async def go(session: ClientSession, tag: str) -> None:
            results.append(await _run(session, pane, f"sleep 0.5; echo {tag}"))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(go, one, "first")
            nursery.start_soon(go, two, "second")
        assert sorted(r["output"] for r in results) == ["first", "second"]
        assert all(r["exit_status"] == 0 for r in results)


async def test_no_files_are_left_behind(private_tmux: PrivateTmux) -> None:
    tmp = run_directory.directory_base() or tempfile.gettempdir()
    before = {name for name in os.listdir(tmp) if name.startswith("tmuxmcp-")}
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("files")["pane_id"]
        await _at_prompt(private_tmux, pane)
        await _run(session, pane, "true")
    with trio.fail_after(5):
        while {n for n in os.listdir(tmp) if n.startswith("tmuxmcp-")} - before:
            await trio.sleep(0.05)


async def test_pane_killed_during_a_run_returns_an_error(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("killed")["pane_id"]
        private_tmux.new_session("bystander")
        await _at_prompt(private_tmux, pane)
        result = await call_and_interrupt(
            session,
            "run_command",
            {"pane_id": pane, "command": "sleep 30", "timeout": 20},
            lambda: private_tmux.bare("kill-pane", "-t", pane),
            once=lambda: _foreground_command(private_tmux, pane) == "sleep",
            seconds=8,
        )
        assert result.is_error
        assert "exited" in error_text(result)
        await session.send_ping()


@pytest.mark.parametrize("collect", ["run_command", "wait_for_command"])
async def test_tmux_killed_during_a_run_returns_an_error(
    private_tmux: PrivateTmux, collect: str
) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("doomed")["pane_id"]
        await _at_prompt(private_tmux, pane)
        timeout = 20 if collect == "run_command" else 0.3
        if collect == "wait_for_command":
            first = await _run(session, pane, "sleep 30", timeout=timeout)
            assert first["timed_out"] is True
        if collect == "run_command":
            call = {"pane_id": pane, "command": "sleep 30", "timeout": 20}
        else:
            call = {"pane_id": pane, "run_id": first["run_id"], "timeout": 20}
        result = await call_and_interrupt(
            session, collect, call, private_tmux.kill_server, seconds=8
        )
        assert result.is_error
        await session.send_ping()


async def test_a_command_outliving_tmuxmcp_ends_cleanly(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("outlive")["pane_id"]
        await _at_prompt(private_tmux, pane)
        go = os.path.join(private_tmux.directory, "go")
        command = f"while [ ! -e {go} ]; do sleep 0.05; done; echo surv$((1 + 1))ived"
        first = await _run(session, pane, command, timeout=0.2)
        assert first["timed_out"] is True
    # tmuxmcp has exited; only now the command ends (it waited for ``go``, so it
    # cannot have ended before the exit on a slow machine) and the shell returns
    # to its prompt without an error from a missing file.
    open(go, "w").close()
    with trio.fail_after(10):
        while "surv2ived" not in private_tmux.bare("capture-pane", "-p", "-t", pane).stdout:
            await trio.sleep(0.05)
    # The shell answers a new line only after it has finished the old one, so
    # anything it printed about a missing file is on the screen above back-42.
    private_tmux.bare("send-keys", "-t", pane, "echo back-$((6*7))", "Enter")
    await private_tmux.wait_for_screen(pane, "back-42")
    screen = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout
    assert "open" not in screen and "No such file" not in screen, screen
    assert "nonexistent" not in screen, screen


async def test_a_cleared_screen_says_why_the_start_is_gone(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("clear")["pane_id"]
        await _at_prompt(private_tmux, pane)
        # clear clears the history only where TERM has E3: tmux before 3.3 sets
        # TERM=screen, which lacks it (3.2a kept "before" in the history), so the
        # E3 sequence follows clear explicitly.
        done = await _run(
            session, pane, "echo before; tmux clear-history; clear; printf '\\033[3J'; echo after"
        )
        assert done["exit_status"] == 0
        assert done["output_truncated"] is True
        lines = done["output"].split("\n")
        assert "cleared" in lines[0] and lines[-1] == "after"
        assert "before" not in done["output"]


# -- readiness from /proc, with a fake /proc (pure) --------------------------------------


def _fake_proc(root: str, entries: dict[int, tuple[str, str] | None]) -> Path:
    """A /proc with ``stat`` lines (and ``exe`` links) for pure readiness checks."""
    proc = Path(root)
    (proc / "self").mkdir()
    (proc / "self" / "stat").write_text("1 (python) R 0 1 1 0 -1 0\n")
    for pid, entry in entries.items():
        if entry is None:
            continue
        stat, exe = entry
        (proc / str(pid)).mkdir()
        (proc / str(pid) / "stat").write_text(stat)
        if exe:
            os.symlink(exe, proc / str(pid) / "exe")
            (proc / str(pid) / "cmdline").write_bytes(b"sh\0")
            (proc / str(pid) / "status").write_text(f"Name: sh\nUid:\t{os.getuid()}\t0\t0\t0\n")
    return proc


def _fail_reads_of(
    monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, pid: int, error: OSError
) -> None:
    """Make ``owner.name`` (``Path.read_text``, ``os.readlink``) raise ``error`` for the
    entries of process ``pid`` in a fake /proc, as a real one does for such a process."""
    real = getattr(owner, name)

    def failing(path: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(path).parent.name == str(pid):
            raise error
        return real(path, *args, **kwargs)

    monkeypatch.setattr(owner, name, failing)


def _state(pid: int) -> readiness.PaneState:
    return readiness.PaneState(
        pane_id="%1",
        pid=pid,
        command="sh",
        in_mode=False,
        alternate=False,
        dead=False,
        cursor_x=2,
        cursor_y=0,
    )


@pytest.mark.parametrize("leader", ["gone", "zombie"])
def test_a_job_that_just_ended_is_waited_for_not_refused(tmp_path: Any, leader: str) -> None:
    """The terminal's foreground group still names a job's exited leader for a moment
    after the job ends: a transient state, retried like a busy shell. It was refused at
    once ("cannot see which process"), which the benchmark hit after a `( ... &)`."""
    job = None if leader == "gone" else ("200 (sleep) Z 100 200 100 34816 200 0\n", "")
    proc = _fake_proc(
        str(tmp_path), {100: ("100 (sh) S 1 100 100 34816 200 0\n", "/bin/sh"), 200: job}
    )
    with pytest.raises(readiness.ShellBusy, match="has just exited"):
        readiness.check("%1", _state(100), ["$ "], kernel=Proc(proc))


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_run_stopped_with_c_c_frees_the_pane(private_tmux: PrivateTmux, shell: str) -> None:
    """The busy refusal says to stop a run with send_keys C-c. C-c makes every shell
    leave the sourced script, which then never reports: the run stayed busy forever,
    wait_for_command timed out and the next run_command was refused. A C-c sent with
    send_keys is the caller's, as a person's would be: the run ends with the status
    the shell then shows, 130 (issue 22.2; it was `command-interrupted`)."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"int-{shell}", shell)
        await _at_prompt(private_tmux, pane)
        first = await _run(session, pane, "sleep 60; echo never", timeout=1)
        assert first["timed_out"] is True
        await session.call_tool("send_keys", {"pane_id": pane, "keys": ["C-c"]})
        waited = await session.call_tool(
            "wait_for_command", {"pane_id": pane, "run_id": first["run_id"], "timeout": 30}
        )
        assert structured(waited)["exit_status"] == 130
        done = await _run(session, pane, "echo after", timeout=30)
        assert (done["exit_status"], done["output"]) == (0, "after")
        screen = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout.split("\n")
        assert "never" not in [row.strip() for row in screen]  # the echo after sleep never ran


def test_a_foreground_job_exiting_while_it_is_read_is_waited_for(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A login shell's .profile runs `mesg` in the foreground; read while it exits, its
    /proc entry answers ESRCH (ProcessLookupError), which was refused as unreadable."""
    proc = _fake_proc(
        str(tmp_path),
        {
            100: ("100 (sh) S 1 100 100 34816 200 0\n", "/bin/sh"),
            200: ("200 (mesg) R 100 200 100 34816 200 0\n", "/usr/bin/mesg"),
        },
    )
    _fail_reads_of(monkeypatch, Path, "read_text", 200, ProcessLookupError(3, "No such process"))
    with pytest.raises(readiness.ShellBusy, match="has just exited"):
        readiness.check("%1", _state(100), ["$ "], kernel=Proc(proc))


def test_a_pane_whose_program_has_no_terminal_yet_is_waited_for_not_refused(
    tmp_path: Any,
) -> None:
    """Right after new-session the pane's process runs before it has taken its terminal
    (tpgid -1, measured with bash). `run_command` straight after `create_session` was
    refused ("cannot see which process", the docs' long-running example in CI)."""
    proc = _fake_proc(str(tmp_path), {100: ("100 (bash) R 1 100 100 0 -1 0\n", "/bin/bash")})
    with pytest.raises(readiness.ShellBusy, match="just starting"):
        readiness.check("%1", _state(100), ["$ "], kernel=Proc(proc))


async def test_run_command_right_after_create_session_runs(private_tmux: PrivateTmux) -> None:
    """The race above, over a real server, many times: each run completes."""
    async with serve(private_tmux) as session:
        # sh reads no startup file, so only the new terminal's race is left.
        private_tmux.bare("set-option", "-g", "default-shell", "/bin/sh")
        for index in range(10):
            created = structured(
                await session.call_tool("create_session", {"name": f"fresh{index}"})
            )
            done = await _run(session, created["pane_id"], "echo ok", timeout=30)
            assert done["exit_status"] == 0, done
            assert done["output"] == "ok"


def test_a_shell_waiting_for_a_child_in_its_own_group_is_busy(tmp_path: Any) -> None:
    """A shell asleep in its startup files (`.bashrc` running `pyenv`, `sleep`) waits for a
    child in its own process group, which holds the terminal: not at its prompt. It passed
    as ready, so the typed line waited unread and the script was removed after 2 s."""
    proc = _fake_proc(
        str(tmp_path),
        {
            100: ("100 (bash) S 1 100 100 34816 100 0\n", "/bin/bash"),
            200: ("200 (sleep) S 100 100 100 34816 100 0\n", "/bin/sleep"),
        },
    )
    (proc / "100" / "task" / "100").mkdir(parents=True)
    (proc / "100" / "task" / "100" / "children").write_text("200 ")
    with pytest.raises(readiness.ShellBusy, match="running a command in the foreground") as busy:
        readiness.check("%1", _state(100), ["$ "], kernel=Proc(proc))
    # The hint names a wait the tools have (wait_for_idle is gone, issue 28.3).
    assert "(wait_for_state with states [shell-ready])" in str(busy.value)
    # A background job (its own process group) does not make the shell busy.
    (proc / "200" / "stat").write_text("200 (sleep) S 100 200 100 34816 100 0\n")
    assert readiness.check("%1", _state(100), ["$ "], kernel=Proc(proc)).pid == 100


async def test_a_shell_still_in_its_startup_files_is_not_typed_into(
    private_tmux: PrivateTmux, tmp_path: Any
) -> None:
    """Over a real server: bash sleeping in its .bashrc gets a refusal that says so, and
    nothing is typed; once at its prompt, the same call runs."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("sleep 4\nPS1='ready$ '\n")
    async with serve(private_tmux) as session:
        argv = ("env", f"HOME={home}", "bash", "--noprofile", "-i")
        pane = private_tmux.new_session("rc", DEDICATED, *argv)["pane_id"]
        refused = await session.call_tool(
            "run_command", {"pane_id": pane, "command": "echo typed-too-early", "timeout": 10}
        )
        assert refused.is_error
        assert "running a command in the foreground" in error_text(refused)
        with trio.fail_after(30):
            while "ready$" not in private_tmux.bare("capture-pane", "-p", "-t", pane).stdout:
                await trio.sleep(0.1)
        done = await _run(session, pane, "echo late", timeout=30)
        assert done["output"] == "late"
        assert "typed-too-early" not in private_tmux.bare("capture-pane", "-p", "-t", pane).stdout


def test_a_shell_running_a_c_command_is_waited_for_as_a_program(tmp_path: Any) -> None:
    """A pane created with one command word runs ``SHELL -c WORD`` until the shell execs
    it. Read in that moment, the pane was refused at once ("runs a script or a -c
    command"; the fuzz suite's `sh` panes on tmux 3.6 in CI): now it is waited for
    like any program in the foreground, within the program settle time."""
    proc = _fake_proc(str(tmp_path), {100: ("100 (sh) S 1 100 100 34816 100 0\n", "/bin/sh")})
    (proc / "100" / "cmdline").write_bytes(b"sh\0-c\0sh\0")
    with pytest.raises(readiness.ProgramInForeground, match="-c command"):
        readiness.check("%1", _state(100), ["$ "], kernel=Proc(proc))


async def test_run_command_waits_for_a_c_shell_to_exec_its_shell(
    private_tmux: PrivateTmux,
) -> None:
    """The same over real tmux: the pane's `sh -c` runs a moment before it execs an
    interactive shell; run_command straight after new-session gets that shell."""
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("cshell", "tmuxmcp", "sh", "-c", "sleep 0.1; exec sh")[
            "pane_id"
        ]
        done = await _run(session, pane, "echo ok", timeout=30)
        assert (done["exit_status"], done["output"]) == (0, "ok"), done


def test_a_program_s_long_argv0_is_quoted_short_in_the_refusal(tmp_path: Any) -> None:
    """argv[0] is the foreground program's to choose (``exec -a``), at any length; the
    refusal quoted it whole, so a 100,000-character name went into the error text."""
    proc = _fake_proc(
        str(tmp_path),
        {
            100: ("100 (sh) S 1 100 100 34816 200 0\n", "/bin/sh"),
            200: ("200 (cat) S 100 200 100 34816 200 0\n", "/usr/bin/cat"),
        },
    )
    (proc / "200" / "cmdline").write_bytes(b"bash" + b"x" * 100_000 + b"\0")
    with pytest.raises(readiness.ProgramInForeground, match="calls itself") as refused:
        readiness.check("%1", _state(100), ["$ "], kernel=Proc(proc))
    assert len(str(refused.value)) < 1000


def test_an_unreadable_foreground_is_still_refused(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A foreground process that exists but cannot be read (another user's: its exe link
    answers EACCES) is no job that just ended: refused, not waited for."""
    proc = _fake_proc(
        str(tmp_path),
        {
            100: ("100 (sh) S 1 100 100 34816 200 0\n", "/bin/sh"),
            200: ("200 (sudo) S 100 200 100 34816 200 0\n", "/usr/bin/sudo"),
        },
    )
    _fail_reads_of(monkeypatch, os, "readlink", 200, PermissionError(13, "Permission denied"))
    with pytest.raises(PaneNotReady, match="cannot see") as refused:
        readiness.check("%1", _state(100), ["$ "], kernel=Proc(proc))
    assert not isinstance(refused.value, readiness.ShellBusy)


def test_a_leader_exiting_before_it_is_a_zombie_is_waited_for(tmp_path: Any) -> None:
    """A process that is exiting drops its memory (and so its exe link: ENOENT) before
    its state turns Z. Read in that window, the job that just ended was refused ("cannot
    see which process"): CI's run_command right after create_session, whose login shell
    runs `mesg` from .profile in the foreground."""
    proc = _fake_proc(
        str(tmp_path),
        {
            100: ("100 (sh) S 1 100 100 34816 200 0\n", "/bin/sh"),
            200: ("200 (mesg) R 100 200 100 34816 200 0\n", ""),
        },
    )
    with pytest.raises(readiness.ShellBusy, match="has just exited"):
        readiness.check("%1", _state(100), ["$ "], kernel=Proc(proc))


def test_the_foreground_is_judged_on_one_reading_of_the_terminal(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shell may take the terminal back between two reads of ``tpgid``. The facts
    of the first reading decide; a second look that found the shell's own group made
    the exited job's missing entry look like an unreadable process."""
    proc = _fake_proc(
        str(tmp_path),
        {
            100: ("100 (sh) S 1 100 100 34816 200 0\n", "/bin/sh"),
            200: ("200 (mesg) Z 100 200 100 34816 200 0\n", ""),
        },
    )
    real = Path.read_text
    reads = []

    def shell_takes_terminal_back(path: Path, *args: Any, **kwargs: Any) -> str:
        text = real(path, *args, **kwargs)
        if path == proc / "100" / "stat":
            reads.append(path)
            if len(reads) > 1:  # from the second look on, the shell has the terminal
                return text.replace(" 200 0\n", " 100 0\n")
        return text

    monkeypatch.setattr(Path, "read_text", shell_takes_terminal_back)
    with pytest.raises(readiness.ShellBusy, match="has just exited"):
        readiness.check_process("%1", 100, kernel=Proc(proc))
    assert len(reads) == 1


# -- the Python side of a call: files and the typed-line search ---------------------------


def test_the_typed_line_is_found_across_joined_lines_first_copy_first() -> None:
    """The typed line may be split over several joined lines by a line editor; the
    first copy is the typed one (a later copy is output). Linear now, same answer."""
    typed = " : 'echo hi'; . /tmp/tmuxmcp-x/r1\n"
    lines = ["old output", "$  : 'echo", " hi'; . /tmp/tmux", "mcp-x/r1", typed.strip(), "hi"]
    assert output.typed_index(lines, typed) == 3
    assert output.typed_index(["a" * 5000, "b"], typed) is None


def test_the_private_directory_prefers_a_memory_file_system(tmp_path: Any) -> None:
    """Each run creates four files and two FIFOs; on /tmp on a disk that was about a
    millisecond of a call. ``$TMPDIR`` set by the user still wins."""
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    assert run_directory.directory_base({"XDG_RUNTIME_DIR": str(runtime)}) == str(runtime)
    assert (
        run_directory.directory_base({"TMPDIR": "/somewhere", "XDG_RUNTIME_DIR": str(runtime)})
        is None
    )
    runtime.chmod(0o755)  # not private: not used
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    assert run_directory.directory_base({"XDG_RUNTIME_DIR": str(runtime)}) == shm


# -- speed without a weaker check (issue 11: run_command within 1.2x of the bare floor) --


async def test_a_pane_seen_before_takes_three_tmux_processes(private_tmux: PrivateTmux) -> None:
    """Once a pane's pane_pid is known, readiness reads /proc and no tmux; tmux re-checks
    the pane (Rule 4 of ``readiness``) in the invocation that types, one reads the
    screen after ``S`` for the confirmed redraw (issue 31.3, ``redraw``), and one more
    reads the output. Two before 31.3, when the typed line stayed on the screen."""
    wrapper, log, _ = stalling_tmux(private_tmux.directory)
    async with serve(private_tmux, "--tmux", wrapper) as session:
        pane = private_tmux.new_session("two-calls")["pane_id"]
        await _at_prompt(private_tmux, pane)
        first = await _run(session, pane, "echo one")
        assert first["output"] == "one"
        for word in ("two", "three"):
            before = len(logged_pids(log))
            done = await _run(session, pane, f"echo {word}; (exit 3)")
            assert (done["exit_status"], done["output"]) == (3, word)
            assert len(logged_pids(log)) - before == 3


@pytest.mark.parametrize(
    ("program", "expect"),
    [
        ("exec -a bash cat > /dev/null", "'cat'"),
        ("sh -c 'read -r answer'", "script"),
        ("echo 'unclosed", "waiting for the rest"),
        ("tmux copy-mode", "copy or view mode"),
    ],
)
async def test_readiness_after_a_run_is_still_evidence(
    private_tmux: PrivateTmux, program: str, expect: str
) -> None:
    """The same refusals when the pane ran a command before (its pane_pid is known and
    the fast check reads /proc alone): a continuation prompt or a mode is caught by
    tmux's guard before the paste, and nothing is typed (CM-6)."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, "ready-again", "bash")
        await _at_prompt(private_tmux, pane)
        assert (await _run(session, pane, "echo warm"))["output"] == "warm"
        await _type_and_wait_for_effect(private_tmux, pane, program)
        refused = await session.call_tool(
            "run_command", {"pane_id": pane, "command": "echo SECRET-PAYLOAD"}
        )
        assert "[pane-not-ready]" in error_text(refused)
        assert expect in error_text(refused)
        screen = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout
        assert "SECRET-PAYLOAD" not in screen
        history = private_tmux.bare("show-buffer", check=False)
        assert "SECRET-PAYLOAD" not in history.stdout


async def test_rows_that_only_look_like_a_continuation_do_not_block(
    private_tmux: PrivateTmux,
) -> None:
    """tmux's guard refuses any screen row beginning with ``>``, a superset of the
    continuation check; the full check then looks at the cursor row and the run goes on."""
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("quoted")["pane_id"]
        await _at_prompt(private_tmux, pane)
        await _run(session, pane, "printf '> quoted\\n>>> prompt-like\\n'")
        done = await _run(session, pane, "echo after; (exit 2)")
        assert (done["exit_status"], done["output"]) == (2, "after")


async def test_a_respawned_pane_is_checked_again(private_tmux: PrivateTmux) -> None:
    """A pane respawned since its last run has another pane_pid: tmux's guard refuses
    the one read from /proc, and the full check reads the new one."""
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("respawn")["pane_id"]
        await _at_prompt(private_tmux, pane)
        await _run(session, pane, "cd / && export TMUXMCP_OLD=1")
        old = private_tmux.bare("display-message", "-p", "-t", pane, "#{pane_pid}").stdout
        private_tmux.bare("respawn-pane", "-k", "-t", pane, "sh")
        new = private_tmux.bare("display-message", "-p", "-t", pane, "#{pane_pid}").stdout
        assert old != new
        await _at_prompt(private_tmux, pane)
        done = await _run(session, pane, 'echo "${TMUXMCP_OLD-fresh}"')
        assert (done["exit_status"], done["output"]) == (0, "fresh")


@pytest.mark.parametrize(
    "before_cursor", ["> ", ">", "quote> ", "for dquote> ", "cmdsubst> ", "heredoc> "]
)
def test_the_guard_pattern_covers_every_continuation_prompt(before_cursor: str) -> None:
    """Rule 4's row pattern matches every row whose text left of the cursor is a
    continuation prompt (Rule 3), with tmux's trailing spaces stripped and with text
    right of the cursor. (The pattern is POSIX ERE; tmux itself runs it in
    test_readiness_after_a_run_is_still_evidence.)"""
    assert pane_state.continuation_before(before_cursor, len(before_cursor))
    for row in (before_cursor.rstrip(), before_cursor + "more text"):
        assert re.match(guards.CONTINUATION_ROW, row), row


def test_guard_names_hold_no_caller_text() -> None:
    """The guard is a tmux format: built from a pane id, an integer and a marker only."""
    name = guards.guard_name("@tmuxmcp_00ff", "%3", 42, rows=True)
    assert name.startswith("#{?#{==:#{pane_id}.#{pane_pid}.") and "%3.42.000.0" in name
    for bad in ("%3}", "%3,x", "3"):
        with pytest.raises(ValueError, match="pane id"):
            guards.guard_name("@tmuxmcp_00ff", bad, 42, rows=True)
