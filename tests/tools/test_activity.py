"""The per-pane activity hint (tmuxmcp.tools.activity.PaneTree) on real processes.

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

import pytest

from tmuxmcp.tools import activity
from tmuxmcp.tools.activity import PaneTree


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


def test_a_pane_process_with_thousands_of_threads_costs_a_bounded_number_of_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 18 R5: every listing read each thread's ``children`` file (8,000 threads:
    8,000 opens every 20 ms). Now a listing reads a bounded number, and the child
    the main thread forked is still followed."""
    reads: list[str] = []

    def spy(path: str, *args: Any, **kwargs: Any) -> Any:
        if str(path).endswith("/children"):
            reads.append(str(path))
        return open(path, *args, **kwargs)

    monkeypatch.setattr(activity, "open", spy, raising=False)
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
                reads.clear()
                tree.refresh()
                # Far fewer than one per thread (before: one per thread, 3,001).
                assert 0 < len(reads) <= _MANY_THREADS // 10, len(reads)
                _say(pane, b"from cat, the main thread's child")
                assert tree.changed() is True
            finally:
                tree.close()
        finally:
            pane.kill()
