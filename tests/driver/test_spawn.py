"""``driver._spawn``: the one process spawner (style rules 1 and 6).

Promises under test: argv only, never a shell; exactly the given environment;
no stdin unless bytes are given; stdout and stderr captured; on timeout or
cancellation the child is SIGKILLed *and reaped* before the call returns;
OS errors become ``TmuxUnavailable`` and deadlines ``TmuxTimeout``. The
spawner is generic, so these tests run ordinary programs, not tmux.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
from pathlib import Path

import pytest
import trio

from tmuxmcp.driver._spawn import Completed, run_argv
from tmuxmcp.errors import TmuxError, TmuxTimeout, TmuxUnavailable


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
