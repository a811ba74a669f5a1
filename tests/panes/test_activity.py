"""The per-pane activity hint (tmuxmcp.panes.activity.PaneTree) on real processes.

A pane's hint follows the bytes its process tree writes: output of the pane's
own process and of its descendants moves it, a neighbour's output does not.
Every step waits for the output to come back through a pipe before it looks
at the counter, so nothing depends on timing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tmuxmcp.panes.activity import PaneTree


@contextmanager
def _echoer(script: str) -> Iterator[subprocess.Popen[bytes]]:
    """``sh -c script`` reading lines on stdin, printing on stdout."""
    with subprocess.Popen(
        ["sh", "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as child:  # closes the pipes and reaps the child on the way out
        try:
            yield child
        finally:
            child.kill()


def _say(child: subprocess.Popen[bytes], line: bytes) -> None:
    """Send a line and wait until the child has printed it back (written it)."""
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(line + b"\n")
    child.stdin.flush()
    assert child.stdout.readline() == line + b"\n"


def test_the_pane_tree_moves_with_its_own_output_and_not_a_neighbours() -> None:
    loop = 'while IFS= read -r l; do printf "%s\\n" "$l"; done'
    with _echoer(loop) as pane, _echoer(loop) as neighbour:
        _say(pane, b"started")
        tree = PaneTree.open(pane.pid)
        assert tree is not None
        try:
            assert tree.changed() is False  # what was written before opening is the baseline
            _say(neighbour, b"busy neighbour")
            _say(neighbour, b"busy neighbour again")
            assert tree.changed() is False
            _say(pane, b"own output")
            assert tree.changed() is True
            assert tree.changed() is False
        finally:
            tree.close()


def test_the_pane_tree_follows_descendants_after_a_refresh() -> None:
    # cat runs as a child of sh (the trailing command keeps sh from exec'ing it).
    with _echoer("cat; true") as pane:
        _say(pane, b"first")
        tree = PaneTree.open(pane.pid)
        assert tree is not None
        try:
            tree.refresh()  # cat is followed from here on
            assert tree.changed() is False
            _say(pane, b"from the child")
            assert tree.changed() is True
        finally:
            tree.close()


def test_a_pane_process_that_ends_is_an_event_and_a_missing_one_no_tree() -> None:
    with _echoer("read l") as pane:
        tree = PaneTree.open(pane.pid)
        assert tree is not None
        try:
            assert tree.changed() is False
            assert pane.stdin is not None
            pane.stdin.write(b"bye\n")
            pane.stdin.flush()
            pane.wait()
            assert tree.changed() is True
        finally:
            tree.close()
    assert PaneTree.open(pane.pid) is None
    assert PaneTree.open(1) is None


_MANY_THREADS = 3000
_THREADED = f"""
import subprocess, threading
threading.stack_size(64 * 1024)
stop = threading.Event()
for _ in range({_MANY_THREADS}):
    threading.Thread(target=stop.wait, daemon=True).start()
child = subprocess.Popen(["cat"])  # forked by the main thread; echoes stdin to stdout
print("ready", flush=True)
child.wait()
"""


_SEEN: list[list[str]] = []
"""While it holds a list, every ``/proc`` file this process opens and directory it lists
lands in that list (``_audit``); audit hooks cannot be removed, so the hook stays and
this turns it on."""


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _SEEN and event in ("open", "os.scandir", "os.listdir") and args:
        path = os.fsdecode(args[0]) if isinstance(args[0], (str, bytes, os.PathLike)) else ""
        if path.startswith("/proc/"):
            _SEEN[0].append(f"{event} {path}")


sys.addaudithook(_audit)


@contextmanager
def _proc_reads() -> Iterator[list[str]]:
    seen: list[str] = []
    _SEEN.append(seen)
    try:
        yield seen
    finally:
        _SEEN.clear()


def test_a_pane_process_with_thousands_of_threads_costs_a_bounded_number_of_reads() -> None:
    """Issue 18 R5: every listing read each thread's ``children`` file (8,000 threads:
    8,000 opens every 20 ms). Issue 27 N9: each listing still listed the threads, and
    every 2 ms poll read the process's whole ``io``, which the kernel sums over every
    thread (an 8 s wait beside 8,000 sleeping threads: 2.3 s of CPU). Now a listing
    makes a few reads whatever the thread count, the counters followed are the main
    thread's own, and the child the main thread forked is still followed."""
    with subprocess.Popen(
        [sys.executable, "-c", _THREADED], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as pane:
        try:
            assert pane.stdout is not None
            assert pane.stdout.readline() == b"ready\n"
            assert len(os.listdir(f"/proc/{pane.pid}/task")) > _MANY_THREADS
            tree = PaneTree.open(pane.pid)
            assert tree is not None
            try:
                with _proc_reads() as reads:
                    tree.refresh()
                # The process's thread count, its main thread's children, and for cat
                # (one thread) the same: no listing of 3,000 threads, nothing per thread.
                assert 0 < len(reads) <= 6, reads
                assert not [r for r in reads if r.startswith(("os.scandir", "os.listdir"))]
                followed = {
                    pid: os.readlink(f"/proc/self/fd/{fd}") for pid, fd in tree._fds.items()
                }
                assert followed[pane.pid] == f"/proc/{pane.pid}/task/{pane.pid}/io", followed
                assert len(followed) == 2, followed  # the program and cat
                _say(pane, b"from cat, the main thread's child")
                assert tree.changed() is True
            finally:
                tree.close()
        finally:
            pane.kill()


def test_a_process_with_few_threads_is_followed_whole() -> None:
    """Below ``SUMMED_THREADS`` threads a process's whole counters are read (its threads'
    output, and its reaped children's), and its threads are listed for their children."""
    with subprocess.Popen(
        [sys.executable, "-c", _THREADED.replace(str(_MANY_THREADS), "4")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as pane:
        try:
            assert pane.stdout is not None
            assert pane.stdout.readline() == b"ready\n"
            tree = PaneTree.open(pane.pid)
            assert tree is not None
            try:
                with _proc_reads() as reads:
                    tree.refresh()
                assert f"os.scandir /proc/{pane.pid}/task" in reads, reads
                assert os.readlink(f"/proc/self/fd/{tree._fds[pane.pid]}") == f"/proc/{pane.pid}/io"
            finally:
                tree.close()
        finally:
            pane.kill()
