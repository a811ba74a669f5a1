"""``driver._spawn``: the one process spawner (style rules 1 and 6).

Promises under test: argv only, never a shell; exactly the given environment;
no stdin unless bytes are given; stdout and stderr captured; on timeout or
cancellation the child is SIGKILLed *and reaped* before the call returns;
OS errors become ``TmuxUnavailable`` and deadlines ``TmuxTimeout``; no
descriptor leaks, in the parent or into the child. The spawner is generic, so
these tests run ordinary programs, not tmux.

Every test runs three times: on the Linux pidfd path (``posix_spawn``) with
the output in memfds and with pipes (where ``memfd_create`` is refused), and
on the ``trio.run_process`` fallback, which all must keep the same promises.
The memfd path ends a call at the child's exit, the pipes at EOF: the tests of
a leftover process holding the outputs say which they hold to (issue 31.1).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from tests.support import temporary_tmux
from tmuxmcp.driver import _spawn
from tmuxmcp.driver._spawn import Completed, run_argv
from tmuxmcp.errors import TmuxError, TmuxTimeout, TmuxUnavailable

CHOSEN_AT_IMPORT = _spawn.USE_PIDFD
MEMFD_AT_IMPORT = _spawn.USE_MEMFD


def _pidfd_works() -> bool:
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError):
        return False
    return True


def _memfd_works() -> bool:
    try:
        os.close(os.memfd_create("probe", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING))
    except (AttributeError, OSError):
        return False
    return True


@pytest.fixture(autouse=True, params=["memfd", "pipes", "run_process"])
def mechanism(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test on one of the three spawn mechanisms."""
    if request.param == "run_process":
        monkeypatch.setattr(_spawn, "USE_PIDFD", False)
        return "run_process"
    if not _pidfd_works():
        pytest.skip("no pidfd_open on this platform or kernel")
    if request.param == "memfd" and not _memfd_works():
        pytest.skip("no sealable memfd_create on this platform or kernel")
    monkeypatch.setattr(_spawn, "USE_PIDFD", True)
    monkeypatch.setattr(_spawn, "USE_MEMFD", request.param == "memfd")
    return str(request.param)


def _which(program: str) -> str:
    found = shutil.which(program)
    assert found is not None, f"{program} is needed by this test"
    return found


SH = _which("sh")
ENV = {"PATH": os.environ.get("PATH", os.defpath)}


def _assert_reaped(pid: int) -> None:
    """The pid is gone entirely: not running and not a zombie.

    ``kill(pid, 0)`` succeeds on a zombie, so ``ProcessLookupError`` proves
    the child was waited for.
    """
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert not os.path.exists(f"/proc/{pid}")


def _only_cancelled(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return all(_only_cancelled(inner) for inner in exc.exceptions)
    return isinstance(exc, trio.Cancelled)


async def test_stdout_stderr_and_returncode_are_captured() -> None:
    done = await run_argv(
        [SH, "-c", "printf out; printf 'e\\377r' >&2; exit 3"], env=ENV, seconds=10
    )
    assert done == Completed(returncode=3, stdout=b"out", stderr=b"e\xffr")


async def test_argv_is_never_given_to_a_shell() -> None:
    payload = "$HOME;`id`|*$(echo x)'\"\n"
    done = await run_argv([_which("printf"), "%s", payload], env=ENV, seconds=10)
    assert done.stdout == payload.encode()


async def test_child_gets_exactly_the_given_environment() -> None:
    done = await run_argv([_which("env")], env={"ONLY": "x y"}, seconds=10)
    assert done.stdout == b"ONLY=x y\n"


async def test_without_stdin_bytes_the_child_reads_dev_null() -> None:
    done = await run_argv([SH, "-c", "readlink /proc/self/fd/0; cat"], env=ENV, seconds=10)
    assert done.returncode == 0
    assert done.stdout == b"/dev/null\n"


async def test_stdin_bytes_are_delivered_exactly() -> None:
    data = b"\x00\xff\xfe;#{x}\r\n" + bytes(range(256)) * 4096  # about 1 MiB: no pipe deadlock
    done = await run_argv([_which("cat")], env=ENV, seconds=20, stdin=data)
    assert done.returncode == 0
    assert done.stdout == data


async def test_empty_stdin_bytes_give_immediate_eof() -> None:
    done = await run_argv([_which("wc"), "-c"], env=ENV, seconds=10, stdin=b"")
    assert done.stdout.strip() == b"0"


async def test_timeout_raises_promptly_and_the_child_is_killed_and_reaped(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    script = f"echo $$ > {shlex.quote(str(pidfile))}; exec sleep 30"
    start = trio.current_time()
    with pytest.raises(TmuxTimeout) as info:
        await run_argv([SH, "-c", script], env=ENV, seconds=0.5)
    assert trio.current_time() - start < 5
    assert isinstance(info.value, TmuxError)
    assert info.value.reference == "tmux-timeout"
    assert "0.5" in info.value.message
    _assert_reaped(int(pidfile.read_text()))


async def test_timeout_is_prompt_even_when_a_grandchild_keeps_the_pipes_open(
    tmp_path: Path,
) -> None:
    """A leftover grandchild holding stdout must not stretch the deadline."""
    pids = tmp_path / "pids"
    script = f"sleep 30 & echo $$ $! > {shlex.quote(str(pids))}; exec sleep 30"
    start = trio.current_time()
    try:
        with pytest.raises(TmuxTimeout):
            await run_argv([SH, "-c", script], env=ENV, seconds=0.5)
        assert trio.current_time() - start < 5
    finally:
        child, grandchild = (int(p) for p in pids.read_text().split())
        os.kill(grandchild, signal.SIGKILL)  # ours: started by this test's child
    _assert_reaped(child)


async def test_outer_cancellation_kills_and_reaps_the_child(tmp_path: Path) -> None:
    """Structured concurrency: a cancelled caller leaves no process behind."""
    fifo = tmp_path / "pid"
    os.mkfifo(fifo)
    script = f"echo $$ > {shlex.quote(str(fifo))}; exec sleep 30"
    seen: list[BaseException] = []

    async def call() -> None:
        try:
            await run_argv([SH, "-c", script], env=ENV, seconds=60)
        except BaseException as exc:
            seen.append(exc)
            raise

    start = trio.current_time()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(call)
            # Opening the FIFO blocks until the child writes: a wait, not a poll.
            text = await trio.to_thread.run_sync(fifo.read_text, abandon_on_cancel=True)
            nursery.cancel_scope.cancel()
    # Only cancellation escapes (trio.run_process may wrap it in a group), never
    # TmuxTimeout or a result: the caller's scope, not the deadline, ended it.
    assert len(seen) == 1
    assert _only_cancelled(seen[0])
    assert trio.current_time() - start < 5
    _assert_reaped(int(text))


async def test_a_missing_executable_is_tmux_unavailable(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-tmux")
    with pytest.raises(TmuxUnavailable) as info:
        await run_argv([missing, "-V"], env=ENV, seconds=10)
    assert info.value.reference == "tmux-unavailable"
    assert missing not in info.value.message
    assert info.value.__cause__ is None


@pytest.mark.parametrize("kind", ["not-executable", "directory"])
async def test_an_unrunnable_file_is_tmux_unavailable(tmp_path: Path, kind: str) -> None:
    target = tmp_path / kind
    if kind == "directory":
        target.mkdir()
    else:
        target.write_text("#!/bin/sh\necho hi\n")
        target.chmod(0o644)
    with pytest.raises(TmuxUnavailable):
        await run_argv([str(target)], env=ENV, seconds=10)


def test_completed_is_frozen() -> None:
    done = Completed(0, b"", b"")
    with pytest.raises(AttributeError):
        done.returncode = 1  # type: ignore[misc]


# -- the pidfd path's own promises, checked on both mechanisms -------------------


def test_linux_uses_the_pidfd_path() -> None:
    """The fast path is not silently off where the kernel supports it."""
    assert CHOSEN_AT_IMPORT is _spawn._pidfd_available()
    if sys.platform == "linux" and _pidfd_works():
        assert CHOSEN_AT_IMPORT


def test_linux_puts_the_output_in_memfds() -> None:
    """Issue 31.1: the memfd path is not silently off where the kernel has memfds."""
    assert MEMFD_AT_IMPORT is _spawn._memfd_available()
    if sys.platform == "linux" and _memfd_works():
        assert MEMFD_AT_IMPORT


@pytest.mark.parametrize("refusal", [errno.ENOSYS, errno.EPERM, None])
def test_without_memfd_create_the_pipes_are_chosen(
    refusal: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An old kernel (ENOSYS), a seccomp filter (EPERM) or a Python without
    ``os.memfd_create`` (None): ``USE_MEMFD`` is decided off, not an error."""
    if refusal is None:
        monkeypatch.delattr(os, "memfd_create", raising=False)
    else:

        def refuse(name: str, flags: int = 0) -> int:
            raise OSError(refusal, os.strerror(refusal))

        monkeypatch.setattr(os, "memfd_create", refuse)
    assert _spawn._memfd_available() is False


async def test_the_child_writes_to_memory_files_or_pipes(mechanism: str) -> None:
    """Issue 31.1: what the child's fds 1 and 2 are, per mechanism (pipes on main)."""
    done = await run_argv(
        [SH, "-c", "readlink /proc/self/fd/1; readlink /proc/self/fd/2 >&2"], env=ENV, seconds=10
    )
    assert done.returncode == 0
    if mechanism == "memfd":
        assert done.stdout.startswith(b"/memfd:tmuxmcp-stdout"), done
        assert done.stderr.startswith(b"/memfd:tmuxmcp-stderr"), done
    else:
        assert done.stdout.startswith(b"pipe:"), done
        assert done.stderr.startswith(b"pipe:"), done


async def test_a_refused_memfd_create_falls_back_to_pipes(
    mechanism: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSYS (an old kernel) or EPERM (a seccomp filter) at call time: pipes, not an error."""
    if mechanism != "memfd":
        pytest.skip("only the memfd path calls memfd_create")
    refusals = iter([errno.ENOSYS, errno.EPERM])

    def refuse(name: str, flags: int = 0) -> int:
        code = next(refusals)
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "memfd_create", refuse)
    before = _open_fds()
    for _ in range(2):
        done = await run_argv(
            [SH, "-c", "readlink /proc/self/fd/1; printf e >&2"], env=ENV, seconds=10
        )
        assert done.stdout.startswith(b"pipe:"), done
        assert done.stderr == b"e"
    assert _open_fds() == before


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


async def test_megabytes_of_stdin_and_stdout_round_trip() -> None:
    data = os.urandom(6 * 1024 * 1024)
    done = await run_argv([_which("cat")], env=ENV, seconds=30, stdin=data)
    assert done.returncode == 0
    assert done.stdout == data
    assert done.stderr == b""


async def test_stderr_filled_before_stdout_does_not_deadlock(tmp_path: Path) -> None:
    """Both pipes are drained at once: a child may fill stderr while we wait on stdout."""
    blob = tmp_path / "blob"
    data = os.urandom(3 * 1024 * 1024)
    blob.write_bytes(data)
    quoted = shlex.quote(str(blob))
    done = await run_argv([SH, "-c", f"cat {quoted} >&2; cat {quoted}"], env=ENV, seconds=30)
    assert done.returncode == 0
    assert done.stdout == data
    assert done.stderr == data


async def test_stdin_the_child_never_reads_is_not_an_error() -> None:
    done = await run_argv([_which("true")], env=ENV, seconds=20, stdin=b"x" * (4 * 1024 * 1024))
    assert done == Completed(returncode=0, stdout=b"", stderr=b"")


async def test_death_by_signal_is_a_negative_returncode() -> None:
    done = await run_argv([SH, "-c", "printf before; kill -9 $$"], env=ENV, seconds=10)
    assert done.returncode == -signal.SIGKILL
    assert done.stdout == b"before"


async def test_child_inherits_no_descriptor_beyond_the_standard_three() -> None:
    leaky = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(leaky, True)
    try:
        script = f'for fd in 0 1 2 {leaky}; do [ -e /proc/$$/fd/$fd ] && printf "$fd "; done'
        done = await run_argv([SH, "-c", script], env=ENV, seconds=10)
    finally:
        os.close(leaky)
    assert done.stdout == b"0 1 2 "


async def test_child_gets_default_sigpipe_and_an_empty_signal_mask() -> None:
    """Python ignores SIGPIPE and SIGXFSZ; a child must not inherit that."""
    done = await run_argv([_which("cat"), "/proc/self/status"], env=ENV, seconds=10)
    status = dict(
        line.split(":\t", 1) for line in done.stdout.decode().splitlines() if ":\t" in line
    )
    ignored = int(status["SigIgn"], 16)
    assert not ignored & (1 << (signal.SIGPIPE - 1))
    assert not ignored & (1 << (signal.SIGXFSZ - 1))
    assert int(status["SigBlk"], 16) == 0


async def _cancel_once_started(argv: list[str], fifo: Path, stdin: bytes | None = None) -> int:
    """Run ``argv``, which writes its pid into ``fifo``; cancel it; return the pid."""
    seen: list[BaseException] = []

    async def call() -> None:
        try:
            await run_argv(argv, env=ENV, seconds=60, stdin=stdin)
        except BaseException as exc:
            seen.append(exc)
            raise

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(call)
            text = await trio.to_thread.run_sync(fifo.read_text, abandon_on_cancel=True)
            nursery.cancel_scope.cancel()
    assert len(seen) == 1
    assert _only_cancelled(seen[0])
    return int(text)


async def test_cancellation_mid_read_kills_reaps_and_closes(tmp_path: Path) -> None:
    """Output has begun arriving when the caller gives up."""
    fifo = tmp_path / "pid"
    os.mkfifo(fifo)
    before = _open_fds()
    script = f"head -c 200000 /dev/zero; echo $$ > {shlex.quote(str(fifo))}; exec sleep 30"
    pid = await _cancel_once_started([SH, "-c", script], fifo)
    _assert_reaped(pid)
    assert _open_fds() == before


async def test_cancellation_mid_write_kills_reaps_and_closes(tmp_path: Path) -> None:
    """The child never reads its megabytes of stdin; the feeder is blocked when cancelled."""
    fifo = tmp_path / "pid"
    os.mkfifo(fifo)
    before = _open_fds()
    script = f"echo $$ > {shlex.quote(str(fifo))}; exec sleep 30"
    pid = await _cancel_once_started([SH, "-c", script], fifo, stdin=b"y" * (8 * 1024 * 1024))
    _assert_reaped(pid)
    assert _open_fds() == before


async def test_no_descriptor_leaks_over_many_calls(tmp_path: Path) -> None:
    """Every path closes what it opened: success, failure, stdin, timeout, spawn error."""
    missing = str(tmp_path / "missing")
    cat, true = _which("cat"), _which("true")
    await run_argv([true], env=ENV, seconds=10)  # let trio open its own lazy descriptors
    before = _open_fds()
    for i in range(60):
        assert (await run_argv([SH, "-c", "echo x; exit 4"], env=ENV, seconds=10)).returncode == 4
        assert (await run_argv([cat], env=ENV, seconds=10, stdin=b"%d" % i)).stdout == b"%d" % i
        await run_argv([true], env=ENV, seconds=10, stdin=b"")
        with pytest.raises(TmuxUnavailable):
            await run_argv([missing], env=ENV, seconds=10)
        if i % 20 == 0:
            with pytest.raises(TmuxTimeout):
                await run_argv([_which("sleep"), "30"], env=ENV, seconds=0.05)
    assert _open_fds() == before


def test_pipes_avoid_the_standard_range_when_it_has_gaps(mechanism: str) -> None:
    """With fds 0 and 2 closed, new pipes land there; the file actions must still be right."""
    code = f"""if True:
        import os, trio
        from tmuxmcp.driver import _spawn
        _spawn.USE_PIDFD = {mechanism != "run_process"}
        _spawn.USE_MEMFD = {mechanism == "memfd"}
        os.close(0)
        os.close(2)
        async def main():
            done = await _spawn.run_argv(
                ["{_which("sh")}", "-c", "cat; printf err >&2"],
                env={{}}, seconds=10, stdin=b"in",
            )
            os.write(1, repr(done).encode())
        trio.run(main)
    """
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, check=False, timeout=60
    )
    assert done.stdout == b"Completed(returncode=0, stdout=b'in', stderr=b'err')", done


async def test_the_call_ends_at_the_childs_exit_with_all_its_output(
    tmp_path: Path, mechanism: str
) -> None:
    """Issue 31.1: a leftover process holding stdin, stdout and stderr, and stdin the
    child never reads, do not keep the call open: it returns when the child exits,
    with everything the child wrote (more than a pipe holds). On main this ran
    into the deadline, waiting for EOF."""
    if mechanism != "memfd":
        pytest.skip("pipes end at EOF: a leftover process holds the call open until the deadline")
    gate, told, pidfile = tmp_path / "gate", tmp_path / "told", tmp_path / "pid"
    os.mkfifo(gate)
    os.mkfifo(told)
    # The grandchild waits for a line on the gate (a FIFO the child opens before
    # it forks, so it is open when the test writes; nothing is written until
    # the call has returned), then tries to write more and says how that went.
    script = (
        f"exec 9<>{shlex.quote(str(gate))};"
        f" {{ read x <&9; printf late; echo $? > {shlex.quote(str(told))}; }} &"
        f" echo $! > {shlex.quote(str(pidfile))}; head -c 300000 /dev/zero | tr '\\0' x; exit 5"
    )
    before = _open_fds()
    try:
        done = await run_argv([SH, "-c", script], env=ENV, seconds=30, stdin=b"y" * (4 << 20))
        assert done.returncode == 5
        assert done.stdout == b"x" * 300000
        assert done.stderr == b""
        assert _open_fds() == before
        opened = os.open(gate, os.O_WRONLY | os.O_NONBLOCK)  # the grandchild holds it
        os.write(opened, b"go\n")  # the grandchild goes on
        os.close(opened)
        # Its write after the call is refused: the memfd is sealed and empty, so
        # nothing it writes holds memory.
        status = await trio.to_thread.run_sync(told.read_text, abandon_on_cancel=True)
        assert status.strip() not in ("", "0")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)  # ours: started by this test's child


async def test_a_leftover_process_holds_no_output_memory(tmp_path: Path, mechanism: str) -> None:
    """Issue 31.1: the child's output is freed when the call returns, though a process
    the child left behind still holds its fds 1 and 2."""
    if mechanism != "memfd":
        pytest.skip("a pipe holds no output once read; the pipes' leftovers keep the call open")
    pidfile = tmp_path / "pid"
    script = f"sleep 60 & echo $! > {shlex.quote(str(pidfile))}; head -c 200000 /dev/zero"
    try:
        done = await run_argv([SH, "-c", script], env=ENV, seconds=30)
        assert done.stdout == bytes(200000)
        grandchild = int(pidfile.read_text())
        for fd in (1, 2):
            assert os.readlink(f"/proc/{grandchild}/fd/{fd}").startswith("/memfd:")
            held = os.stat(f"/proc/{grandchild}/fd/{fd}")
            assert (held.st_size, held.st_blocks) == (0, 0)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)  # ours: started by this test's child


async def test_a_tmux_client_that_starts_its_server_returns_its_whole_output() -> None:
    """Issue 31.1: ``new-session`` forks the tmux server, which holds the client's fds 1
    and 2 until it daemonizes; the call still returns the client's output, and the
    server holds none of our descriptors after."""
    with temporary_tmux("tsp") as tmux:
        before = _open_fds()
        done = await run_argv(
            tmux.argv("-f", "/dev/null", "new-session", "-d", "-P", "-F", "#{pane_id} #{pid}"),
            env=tmux.env,
            seconds=30,
        )
        assert done.returncode == 0, done
        assert _open_fds() == before
        pane, server = done.stdout.decode().split()
        assert pane.startswith("%")
        assert done.stderr == b""
        for fd in (0, 1, 2):
            assert os.readlink(f"/proc/{server}/fd/{fd}") == os.devnull
        listed = await run_argv(
            tmux.argv("list-panes", "-a", "-F", "#{pane_id}"), env=tmux.env, seconds=30
        )
        assert listed.stdout.decode().split() == [pane]


async def test_a_deadline_while_the_child_writes_without_end_frees_everything(
    tmp_path: Path, mechanism: str
) -> None:
    """Issue 31.1: a runaway child (a hostile or broken binary: the handlers bound what
    they ask tmux for) is killed at the deadline; its output, held in memory until
    then, is freed though a process it left behind still holds it."""
    pids = tmp_path / "pids"
    script = f"sleep 30 & echo $$ $! > {shlex.quote(str(pids))}; while :; do printf x; done"
    before = _open_fds()
    try:
        with pytest.raises(TmuxTimeout):
            await run_argv([SH, "-c", script], env=ENV, seconds=0.5)
        child, grandchild = (int(p) for p in pids.read_text().split())
        _assert_reaped(child)
        assert _open_fds() == before
        target = os.readlink(f"/proc/{grandchild}/fd/1")
        assert target.startswith("/memfd:" if mechanism == "memfd" else "pipe:"), target
        held = os.stat(f"/proc/{grandchild}/fd/1")
        assert (held.st_size, held.st_blocks) == (0, 0)
    finally:
        child, grandchild = (int(p) for p in pids.read_text().split())
        os.kill(grandchild, signal.SIGKILL)  # ours: started by this test's child


_OUT_OF_FILES = """
import os, resource, sys
import trio
from tmuxmcp.driver import _spawn
from tmuxmcp.errors import TmuxMcpError
_spawn.USE_PIDFD = _spawn.USE_PIDFD and sys.argv[1] != "fallback"
_spawn.USE_MEMFD = _spawn.USE_MEMFD and sys.argv[1] == "memfd"
resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
held = []
async def main():
    try:
        while True:
            held.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        pass
    try:
        await _spawn.run_argv([sys.argv[2], "-c", "true"], env={}, seconds=10)
    except TmuxMcpError as exc:
        print(exc.reference)
        print(exc)
trio.run(main)
"""


@pytest.mark.parametrize("mechanism", ["memfd", "pipes", "fallback"])
def test_no_descriptors_left_is_said_so_not_tmux_missing(mechanism: str) -> None:
    """Issue 27, N8: at the open-file limit, starting tmux failed with "check that tmux
    is installed"; it says the descriptors ran out, the limit, and what to do."""
    done = subprocess.run(
        [sys.executable, "-c", _OUT_OF_FILES, mechanism, SH],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    reference, message = done.stdout.splitlines()[:2]
    assert reference == "descriptors-exhausted", done.stdout
    assert "installed" not in message
    assert "(64, ulimit -n)" in message and "EMFILE" in message, message
