"""The one /proc reader (issue 21.4): stat parsed once, zombies are exited, no procfs is no answer.

Real processes throughout (this process, and a child left a zombie); a
procfs root of the test's own for the parsing rules and for a machine
without /proc.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tmuxmcp.driver import proc
from tmuxmcp.runs import directory

pytestmark = pytest.mark.skipif(not proc.PROC.is_dir(), reason="needs Linux's /proc")


def _zombie() -> subprocess.Popen[bytes]:
    """A child that has exited and is not reaped yet (``WNOWAIT`` leaves it a zombie)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
    return child


def test_this_process_is_running_and_visible() -> None:
    assert proc.running(os.getpid())
    assert proc.visible(os.getpid())
    assert proc.state(os.getpid()) == "R"


def test_a_zombie_has_exited_and_has_no_start_time() -> None:
    """Rule 2: its entry is still there, but it runs nothing."""
    child = _zombie()
    try:
        assert proc.visible(child.pid)
        assert not proc.running(child.pid)
        assert proc.start_time(child.pid) is None
    finally:
        child.wait()
    assert not proc.running(child.pid)  # reaped: no such process


def test_a_start_time_names_one_process() -> None:
    mine = proc.start_time(os.getpid())
    assert isinstance(mine, int)
    assert mine == proc.start_time(os.getpid())
    with subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    ) as child:
        try:
            theirs = proc.start_time(child.pid)
            assert theirs is not None
            assert theirs >= mine
        finally:
            child.communicate(b"")


def _fake_stat(root: Path, pid: int, text: str) -> Path:
    (root / str(pid)).mkdir(parents=True)
    (root / str(pid) / "stat").write_text(text)
    return root


def test_stat_is_split_after_the_last_parenthesis(tmp_path: Path) -> None:
    """Rule 1: a command name a program chose, with spaces and ``) (``, does not shift fields."""
    after = ["S", *[str(n) for n in range(4, 22)], "4242", "0"]
    root = _fake_stat(tmp_path, 77, "77 (evil) R 1 (x) " + " ".join(after) + "\n")
    assert proc.state(77, root) == "S"
    assert proc.start_time(77, root) == 4242


def test_an_unreadable_stat_is_no_answer(tmp_path: Path) -> None:
    root = _fake_stat(tmp_path, 78, "78 no closing parenthesis S 1 2 3\n")
    assert proc.stat_fields(78, root) is None
    assert proc.start_time(78, root) is None


def test_without_a_procfs_the_signal_answer_stands(tmp_path: Path) -> None:
    """Rule 3: ``running`` keeps what kill(pid, 0) said; the rest have no answer."""
    assert proc.running(os.getpid(), tmp_path)
    assert proc.state(os.getpid(), tmp_path) is None
    assert proc.start_time(os.getpid(), tmp_path) is None
    assert not proc.visible(os.getpid(), tmp_path)


def test_open_descriptors_lists_a_file_just_opened(tmp_path: Path) -> None:
    fd = os.open(tmp_path / "f", os.O_CREAT | os.O_RDONLY, 0o600)
    try:
        assert fd in proc.open_descriptors()
    finally:
        os.close(fd)


def test_a_program_image_changes_when_a_process_execs(tmp_path: Path) -> None:
    """issue 22.2: a shell replaced by ``exec`` keeps its pid and start time, not where
    its program's stack, arguments and environment lie (address-space randomization)."""
    aslr = Path("/proc/sys/kernel/randomize_va_space")
    if aslr.exists() and aslr.read_text().strip() == "0":
        pytest.skip("address-space randomization is off: an exec may reuse the addresses")
    after_exec = "import sys; print('exec', flush=True); sys.stdin.readline()"
    code = (
        "import os, sys; sys.stdin.readline(); "
        f"os.execv(sys.executable, [sys.executable, '-c', {after_exec!r}])"
    )
    with subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as child:
        assert child.stdin is not None and child.stdout is not None
        try:
            before = proc.image(child.pid)
            assert before is not None
            assert before == proc.image(child.pid)
            started = proc.start_time(child.pid)
            child.stdin.write(b"go\n")
            child.stdin.flush()
            assert child.stdout.readline() == b"exec\n"  # the new program runs
            now = proc.image(child.pid)
            assert now is not None and now != before
            assert proc.start_time(child.pid) == started
        finally:
            child.communicate(b"\n")
    hidden = ["S", *["0"] * 60]
    root = _fake_stat(tmp_path, 79, "79 (sh) " + " ".join(hidden) + "\n")
    assert proc.image(79, root) is None  # hidden (all 0): nothing can be told


def _fake_process(root: Path, pid: int, threads: int) -> None:
    """A procfs entry for ``pid`` with ``threads`` threads, each with a stat and an io."""
    fields = ["S"] + ["0"] * 16 + [str(threads)] + ["0"] * 30
    for tid in [pid, *range(pid + 1, pid + threads)]:
        task = root / str(pid) / "task" / str(tid)
        task.mkdir(parents=True)
        (task / "stat").write_text(f"{tid} (prog) {' '.join(fields)}\n")
        (task / "io").write_text("rchar: 1\nwchar: 2\n")
        (task / "children").write_text("")
    (root / str(pid) / "stat").write_text(f"{pid} (prog) {' '.join(fields)}\n")
    (root / str(pid) / "io").write_text("rchar: 10\nwchar: 20\n")


def test_many_threads_are_counted_and_not_listed(tmp_path: Path) -> None:
    """Rule 4 (issue 27, N9): the thread count comes from the main thread's own stat;
    past ``LISTED_THREADS`` no listing is made, and past ``SUMMED_THREADS`` the counters
    are the main thread's, not the whole process's (which the kernel sums per thread)."""
    many = proc.LISTED_THREADS + 1
    _fake_process(tmp_path, 100, many)
    _fake_process(tmp_path, 900, 3)
    assert proc.threads(100, tmp_path) == many
    assert proc.other_threads(100, many, 1000, tmp_path) == []
    assert sorted(proc.other_threads(900, 3, 1000, tmp_path)) == ["901", "902"]
    assert proc.other_threads(900, 3, 1, tmp_path) in (["901"], ["902"])
    assert proc.other_threads(900, 1, 1000, tmp_path) == []  # one thread: nothing to list
    for pid, wchar in ((100, 2), (900, 20)):
        fd = proc.counters(pid, proc.threads(pid, tmp_path), tmp_path)
        assert fd is not None
        try:
            assert proc.counter(fd, b"wchar:") == wchar
        finally:
            os.close(fd)
    unknown = proc.counters(100, None, tmp_path)  # an unknown count: the main thread's
    assert unknown is not None
    os.close(unknown)
    assert proc.threads(555, tmp_path) is None
    assert proc.counters(555, None, tmp_path) is None


def test_a_run_directory_reads_start_times_as_proc_does(tmp_path: Path) -> None:
    """Issue 30.3: the run wing's records read a start time through this module, so a
    command name that is not UTF-8 still names a running process, and a dead one
    (``X``) runs nothing (the wing's own copy decoded and judged both otherwise)."""
    after = ["S", *[str(n) for n in range(4, 22)], "4242", "0"]
    (tmp_path / "77").mkdir()
    (tmp_path / "77" / "stat").write_bytes(b"77 (\xff\xfe) " + " ".join(after).encode() + b"\n")
    (tmp_path / "78").mkdir()
    (tmp_path / "78" / "stat").write_text("78 (gone) " + " ".join(["X", *after[1:]]) + "\n")
    assert directory.running(directory.ProcessMark(pid=77, start=4242), tmp_path)
    assert not directory.running(directory.ProcessMark(pid=78, start=4242), tmp_path)
    assert proc.start_time(78, tmp_path) is None


ROOT_NAMES = ("proc", "procfs", "_proc", "PROC")
"""What code calls the procfs root (a module's ``PROC``, a function's ``proc``)."""


def _root_name(node: ast.expr) -> str | None:
    """The name a path is joined onto: ``proc`` in ``proc / x``, ``_proc`` in
    ``self._proc / x``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def test_only_this_module_names_the_procfs_root() -> None:
    """Issue 30.3: one module reads /proc. Every other module takes its root from
    ``proc.PROC`` (or a caller's ``proc`` argument) and hands it back to this module;
    a literal ``/proc`` path in code (a docstring may say it), or a path joined below
    the root (``proc / str(pid)``, ``f"{proc}/{pid}"``), is a second reader."""
    package = Path(proc.__file__).parent.parent
    found = []
    for path in sorted(package.rglob("*.py")):
        if path == Path(proc.__file__):
            continue
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.BinOp)
                and isinstance(node.op, ast.Div)
                and _root_name(node.left) in ROOT_NAMES
            ) or (isinstance(node, ast.FormattedValue) and _root_name(node.value) in ROOT_NAMES):
                found.append(f"{path.relative_to(package)}:{node.lineno}")
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and (node.value == "/proc" or node.value.startswith("/proc/"))
            ):
                found.append(f"{path.relative_to(package)}:{node.lineno}")
    assert found == []
