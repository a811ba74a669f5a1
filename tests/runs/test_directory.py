"""No private run directory is left behind for good (``tools/run_directory``, ``run_sweep``).

A tmuxmcp killed with SIGKILL, or one that exits while a command it started
still runs, leaves its directory; the next tmuxmcp to start removes it once
its owner and its shells are gone, and never earlier. Real processes
throughout: tmuxmcp servers killed for real, shells in real panes, owners
that really exited. Each test gives the servers a private ``TMPDIR``, so the
sweep sees only the directories the test made.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.process_support import wait_exit
from tests.raw_client import RawClient, initialize_params
from tests.support import PrivateTmux
from tmuxmcp.runs import directory as run_directory
from tmuxmcp.runs import sweep as run_sweep
from tmuxmcp.runs.directory import OWNER_FILE
from tmuxmcp.runs.sweep import SHELL_GRACE, UNOWNED_GRACE

HANG_DETECTOR = 20.0
"""Seconds a reply may take before the test calls the start hung (not a speed bound)."""


@pytest.fixture
def base(private_tmux: PrivateTmux) -> str:
    """A private ``TMPDIR`` for the servers of the test, where their directories go."""
    path = os.path.join(private_tmux.directory, "runs")
    os.mkdir(path, 0o700)
    private_tmux.env["TMPDIR"] = path
    return path


def _directories(base: str) -> set[str]:
    return {name for name in os.listdir(base) if name.startswith(run_directory.PREFIX)}


def _made_by_an_exited_process(base: str) -> str:
    """A directory whose owner record names a process that has exited (a real one)."""
    made = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from tmuxmcp.runs import directory as r; print(r.make(sys.argv[1]))",
            base,
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout.strip()
    assert os.path.isfile(os.path.join(made, OWNER_FILE))
    return made


def _start_run(client: RawClient, pane: str, command: str, timeout: float) -> dict[str, Any]:
    result = client.call("run_command", {"pane_id": pane, "command": command, "timeout": timeout})
    assert not result.get("isError"), result
    structured: dict[str, Any] = result["structuredContent"]
    return structured


def _run_then_kill(
    tmux: PrivateTmux, base: str, pane: str, command: str, timeout: float
) -> tuple[dict[str, Any], str]:
    """One run_command in a fresh server, then SIGKILL; the result and the directory left."""
    with RawClient(tmux.env) as server:
        result = _start_run(server, pane, command, timeout)
        (left,) = _directories(base)
        server.proc.send_signal(signal.SIGKILL)
        assert wait_exit(server.proc) == -signal.SIGKILL
    return result, left


async def _until(condition: Any, seconds: float = 20) -> None:
    with trio.fail_after(seconds):
        while not condition():
            await trio.sleep(0.05)


async def test_a_killed_server_s_directory_is_removed_by_the_next_one(
    private_tmux: PrivateTmux, base: str
) -> None:
    """SIGKILL after a run: the directory stays; the next tmuxmcp removes it at startup."""
    pane = private_tmux.new_session("killed")["pane_id"]
    finished, left = _run_then_kill(private_tmux, base, pane, "echo one", 20)
    assert finished["output"] == "one"
    assert _directories(base) == {left}, "a killed tmuxmcp removes nothing"
    with RawClient(private_tmux.env) as second:
        assert second.request("ping", {})["result"] == {}
        assert left not in _directories(base)
        # Its own directory is made on first use and works.
        assert _start_run(second, pane, "echo two", 20)["output"] == "two"


async def test_a_command_outliving_its_server_keeps_the_directory_until_it_ends(
    private_tmux: PrivateTmux, base: str
) -> None:
    """The run outlives a SIGKILLed server: no sweep removes its files while the shell
    still runs the script, and once it has ended a sweep does."""
    pane = private_tmux.new_session("outlived")["pane_id"]
    gate = os.path.join(private_tmux.directory, "gate")
    waiting = f"while [ ! -e {gate} ]; do sleep 0.05; done"
    started, left = _run_then_kill(private_tmux, base, pane, waiting, 0.5)
    assert started["completed"] is False
    later = time.time() + SHELL_GRACE + 1
    # A new server starts and sweeps; the shell is still in the script.
    with RawClient(private_tmux.env) as second:
        assert second.request("ping", {})["result"] == {}
    assert left in _directories(base)
    assert run_sweep.sweep(base, now=later) == []
    assert left in _directories(base)
    # The command ends; the script, released by the dead server's closed FIFO,
    # sources its last file and the shell is back at its prompt.
    open(gate, "w").close()
    # (The shell's output, not the echo of the typed line: 42 appears only once it ran.)
    private_tmux.bare("send-keys", "-t", pane, "echo $((6 * 7))-after", "Enter")
    await private_tmux.wait_for_screen(pane, "42-after\n")
    # Recorded only moments ago, the shell still keeps it within the grace...
    assert run_sweep.sweep(base) == []
    # ... and not after it: it holds nothing of the directory open.
    assert run_sweep.sweep(base, now=later) == [os.path.join(base, left)]
    assert _directories(base) == set()


async def test_a_shell_that_is_gone_frees_its_directory_at_once(
    private_tmux: PrivateTmux, base: str
) -> None:
    pane = private_tmux.new_session("gone")["pane_id"]
    private_tmux.new_session("bystander")
    started, left = _run_then_kill(private_tmux, base, pane, "sleep 30", 0.5)
    assert started["completed"] is False
    assert run_sweep.sweep(base) == [], "its shell still runs the command"
    private_tmux.bare("kill-pane", "-t", pane)
    await _until(lambda: run_sweep.sweep(base) == [os.path.join(base, left)])


async def test_a_running_server_s_directory_is_never_removed(
    private_tmux: PrivateTmux, base: str
) -> None:
    pane = private_tmux.new_session("alive")["pane_id"]
    with RawClient(private_tmux.env) as first:
        assert _start_run(first, pane, "echo one", 20)["output"] == "one"
        (mine,) = _directories(base)
        with RawClient(private_tmux.env) as second:
            assert second.request("ping", {})["result"] == {}
        assert run_sweep.sweep(base, now=time.time() + UNOWNED_GRACE + 1) == []
        assert mine in _directories(base)
        assert _start_run(first, pane, "echo again", 20)["output"] == "again"
    assert _directories(base) == set(), "a clean exit removes its own directory"


def test_only_real_private_directories_of_this_user_are_removed(
    private_tmux: PrivateTmux, base: str
) -> None:
    """Never a symlink (nor what it points to), never another user's, never one open to
    others, never one whose owner ran on another boot or in another pid namespace."""
    stale = _made_by_an_exited_process(base)
    target = _made_by_an_exited_process(private_tmux.directory)
    os.symlink(target, os.path.join(base, "tmuxmcp-link"))
    shared = _made_by_an_exited_process(base)
    os.chmod(shared, 0o755)
    elsewhere = _made_by_an_exited_process(base)
    record = Path(elsewhere, OWNER_FILE)
    text = record.read_text()
    mark = run_directory.this_process()
    record.write_text(text.replace(mark.boot, "another-boot"))
    foreign = _made_by_an_exited_process(base)
    if os.getuid() == 0:
        os.chown(foreign, 4242, 4242)
    removed = run_sweep.sweep(base)
    assert removed == [stale]
    assert os.path.isdir(target) and os.path.islink(os.path.join(base, "tmuxmcp-link"))
    assert os.path.isdir(shared) and os.path.isdir(elsewhere)
    if os.getuid() == 0:
        assert os.path.isdir(foreign)


_NAMED_TMUXMCP = [sys.executable, "-c", "import time; time.sleep(60)", "tmuxmcp"]
"""A process that names tmuxmcp on its command line and does nothing."""


def _named_tmuxmcp() -> subprocess.Popen[bytes]:
    """A process naming tmuxmcp on its command line, once it does (it has exec'd)."""
    named = subprocess.Popen(_NAMED_TMUXMCP)
    deadline = time.monotonic() + 20
    while b"tmuxmcp" not in Path(f"/proc/{named.pid}/cmdline").read_bytes():
        assert time.monotonic() < deadline, "the named process never ran"
        time.sleep(0.02)
    return named


def _proc_view(directory: str, pids: list[int], *, boot_later: int = 0) -> Path:
    """A /proc that shows only ``pids`` (links to their real entries) and the system's
    own files: the sweep judges by the processes of the test alone, not by the
    tmuxmcp processes other work on this machine runs. With ``boot_later``, its
    ``stat`` says the system booted that many seconds later than it did, so every
    process reads as started that much later (instead of waiting that long)."""
    view = Path(directory, f"proc-{len(os.listdir(directory))}")
    view.mkdir()
    if boot_later:
        lines = Path("/proc/stat").read_text().splitlines()
        moved = [
            f"btime {int(line.split()[1]) + boot_later}" if line.startswith("btime ") else line
            for line in lines
        ]
        (view / "stat").write_text("\n".join(moved) + "\n")
    else:
        (view / "stat").symlink_to("/proc/stat")
    (view / "sys").symlink_to("/proc/sys")
    (view / "self").symlink_to("/proc/self")
    for pid in pids:
        (view / str(pid)).symlink_to(f"/proc/{pid}")
    return view


def _wait_until_open(pid: int, path: str) -> None:
    target = os.stat(path)
    deadline = time.monotonic() + 20
    while not _has_open(pid, target):
        assert time.monotonic() < deadline, f"{pid} never opened {path}"
        time.sleep(0.02)


def test_a_directory_without_an_owner_record_is_kept_while_anything_may_use_it(
    private_tmux: PrivateTmux, base: str
) -> None:
    """One made by an older tmuxmcp (or being made this instant): kept while young,
    while a process holds a file of it open, and while a tmuxmcp that started before
    it changed still runs (its owner may be one); removed after that."""
    old = os.path.join(base, "tmuxmcp-olderversion")
    os.mkdir(old, 0o700)
    Path(old, "t1").write_text("return 0\n")
    fifo = os.path.join(old, "g1")
    os.mkfifo(fifo, 0o600)
    assert run_sweep.sweep(base) == [], "young: it may be being made"
    later = time.time() + UNOWNED_GRACE + 1
    # A shell of an older tmuxmcp, still in its script, holds the release FIFO.
    holder = subprocess.Popen(["sh", "-c", 'exec 9<>"$1"; read -r line <&9', "holder", fifo])
    try:
        _wait_until_open(holder.pid, fifo)
        seen = _proc_view(private_tmux.directory, [holder.pid])
        assert run_sweep.sweep(base, proc=seen, now=later) == []
    finally:
        holder.kill()
        holder.wait()
    # An idle tmuxmcp that may have made it (started before the directory last
    # changed; it holds nothing open).
    ran_before = _named_tmuxmcp()
    try:
        Path(old, "t1").write_text("return 1\n")  # a change after it started
        os.utime(old)
        seen = _proc_view(private_tmux.directory, [ran_before.pid])
        assert run_sweep.sweep(base, proc=seen, now=later) == []
    finally:
        ran_before.kill()
        ran_before.wait()
    # One that started after the last change cannot have made it (the sweep
    # allows START_SLACK for start times known to a second).
    os.utime(old)
    started_after = _named_tmuxmcp()
    try:
        # Read as started START_SLACK + 1 s after the change, as if that long had passed.
        later_start = int(run_sweep.START_SLACK) + 1
        seen = _proc_view(private_tmux.directory, [started_after.pid], boot_later=later_start)
        assert run_sweep.sweep(base, proc=seen, now=later) == [old]
    finally:
        started_after.kill()
        started_after.wait()
    assert not os.path.exists(old)


def _has_open(pid: int, target: os.stat_result) -> bool:
    try:
        links = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for link in links:
        try:
            found = os.stat(link)
        except OSError:
            continue
        if (found.st_dev, found.st_ino) == (target.st_dev, target.st_ino):
            return True
    return False


def test_sweeps_at_once_remove_each_directory_once_and_never_fail(
    private_tmux: PrivateTmux, base: str
) -> None:
    stale = {_made_by_an_exited_process(base) for _ in range(8)}
    results: list[list[str]] = []
    errors: list[BaseException] = []

    def sweep() -> None:
        try:
            results.append(run_sweep.sweep(base))
        except BaseException as exc:  # the assertion below reports it
            errors.append(exc)

    threads = [threading.Thread(target=sweep) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    removed = [path for result in results for path in result]
    assert len(removed) == len(set(removed)), removed
    assert set(removed) <= stale
    assert _directories(base) == set()


def _plant_hostile(base: str, outside: str) -> list[str]:
    """Entries any process of this user can plant under a base (issue 18 R4); their paths."""
    fifo_outside = os.path.join(outside, "fifo")
    os.mkfifo(fifo_outside)
    planted: list[str] = []

    def private(name: str) -> str:
        path = os.path.join(base, run_directory.PREFIX + name)
        os.mkdir(path, 0o700)
        planted.append(path)
        return path

    os.mkfifo(os.path.join(private("fifo-owner"), OWNER_FILE))
    os.symlink(fifo_outside, os.path.join(private("link-owner"), OWNER_FILE))
    with open(os.path.join(private("huge-owner"), OWNER_FILE), "wb") as huge:
        huge.truncate(1 << 40)  # sparse: a terabyte that takes no disk
    os.mkdir(os.path.join(private("dir-owner"), OWNER_FILE))
    unreadable = os.path.join(private("unreadable-owner"), OWNER_FILE)
    with open(unreadable, "wb") as f:
        f.write(b'{"pid": 1, "start": 1}')
    os.chmod(unreadable, 0)
    with contextlib.suppress(PermissionError):  # device nodes need CAP_MKNOD
        os.mknod(os.path.join(private("device-owner"), OWNER_FILE), 0o600 | stat.S_IFCHR, 0)
    # In the base itself: a FIFO and a symlink with the directories' prefix.
    os.mkfifo(os.path.join(base, run_directory.PREFIX + "fifo"))
    os.symlink(outside, os.path.join(base, run_directory.PREFIX + "link"))
    planted += [os.path.join(base, run_directory.PREFIX + n) for n in ("fifo", "link")]
    return planted


def _state(paths: list[str]) -> dict[str, list[tuple[str, int, int, float]]]:
    """What each planted path is, and holds, without following or opening anything."""
    found: dict[str, list[tuple[str, int, int, float]]] = {}
    for path in paths:
        names = [path]
        if stat.S_ISDIR(os.lstat(path).st_mode) and not os.path.islink(path):
            names += [os.path.join(path, name) for name in sorted(os.listdir(path))]
        found[path] = []
        for name in names:
            info = os.lstat(name)
            found[path].append((name, info.st_mode, info.st_ino, info.st_mtime))
    return found


@pytest.mark.parametrize("variable", ["TMPDIR", "XDG_RUNTIME_DIR"])
def test_hostile_entries_under_a_base_neither_hang_a_start_nor_are_touched(
    private_tmux: PrivateTmux, tmp_path: Path, variable: str
) -> None:
    """R4: a FIFO named owner hung every later start in its open; now initialize is
    answered, every hostile entry is left as it was, and a directory whose owner is
    gone is still removed (the sweep ran past them). /dev/shm, the third base, is
    never the real one in a test; it is reached by the same code as these two."""
    base = tmp_path / "base"
    base.mkdir(mode=0o700)
    outside = tmp_path / "outside"
    outside.mkdir()
    env = dict(private_tmux.env)
    env.pop("TMPDIR", None)
    env[variable] = str(base)
    planted = _plant_hostile(str(base), str(outside))
    gone = _made_by_an_exited_process(str(base))
    # Its shell record a FIFO: not a record, so no shell keeps it, and it is not opened.
    os.mkfifo(os.path.join(gone, run_directory.SHELL_PREFIX + "1"))
    before = _state(planted)
    with RawClient(env, initialize=False) as client:
        reply = client.request("initialize", initialize_params(), timeout=HANG_DETECTOR)
        assert "result" in reply, reply
        client.notify("notifications/initialized")
        assert client.request("ping", {}, timeout=HANG_DETECTOR)["result"] == {}
    assert _state(planted) == before
    assert not os.path.exists(gone), "the sweep stopped at a hostile entry"
