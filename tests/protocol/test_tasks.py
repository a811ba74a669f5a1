"""``protocol.tasks``: the task store and its methods, in memory (pure logic: no tmux).

Promises under test (issue 20): a task only for a request whose own
``_meta`` opted in, on a 2026-07-28 connection (Rule 1); ids are 128 random
bits (Rule 2); a task lives its TTL on a clock the test controls, then
answers ``-32602`` "expired", an unknown id ``-32602`` "not found", and no
more than ``limit`` live at once (Rule 3); a status message is one bounded
printable line whatever the work says (Rule 4); cancel is idempotent and a
task whose work had ended stays ``completed`` (Rule 5).
"""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest
import trio

from tmuxmcp.protocol.codes import INVALID_PARAMS, RpcError
from tmuxmcp.protocol.results import EmptyResult, Result
from tmuxmcp.protocol.tasks import (
    EXPIRED,
    NOT_FOUND,
    STATUS_MESSAGE_MAX,
    TaskStore,
    opted_in,
    status_line,
)

CAPS = "io.modelcontextprotocol/clientCapabilities"


class Clock:
    """Seconds the test moves by hand."""

    def __init__(self) -> None:
        self.seconds = 1_800_000_000.0

    def __call__(self) -> float:
        return self.seconds


class FakeWork:
    """A ``Work`` the test finishes by hand (fakes are for pure logic)."""

    def __init__(self, progress: str = "working on it") -> None:
        self.done = False
        self.released = False
        self.stops = 0
        self.line = progress

    def finished(self) -> bool:
        return self.done

    async def outcome(self) -> Result:
        return EmptyResult(meta={"which": id(self)})

    async def progress(self) -> str | None:
        return self.line

    async def stop(self) -> bool:
        self.stops += 1
        if self.done:
            return False
        self.done = True
        return True

    def release(self) -> None:
        self.released = True


def test_only_a_modern_request_naming_the_extension_opts_in() -> None:
    """Rule 1: the extension in this request's own client capabilities, 2026-07-28 only."""
    named: dict[str, Any] = {CAPS: {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
    assert opted_in(True, named)
    assert not opted_in(False, named), "a handshake-era request never gets a task"
    assert not opted_in(True, {CAPS: {"extensions": {}}})
    assert not opted_in(True, {CAPS: {}})
    assert not opted_in(True, {CAPS: {"extensions": {"io.modelcontextprotocol/tasks": True}}})
    assert not opted_in(True, None)


def test_ids_are_128_random_bits_and_distinct() -> None:
    """Rule 2: 32 lowercase hex characters, never repeated."""
    store = TaskStore(limit=100)
    ids = set()
    for _ in range(50):
        task = store.create(FakeWork())
        assert task is not None
        assert len(task.task_id) == 32
        assert int(task.task_id, 16) >= 0
        ids.add(task.task_id)
    assert len(ids) == 50


def test_a_task_lives_its_ttl_then_answers_expired() -> None:
    """Rule 3: found until createdAt + ttlMs, then -32602 "expired", its work released."""
    clock = Clock()
    store = TaskStore(now=clock, ttl_ms=60_000)
    work = FakeWork()
    task = store.create(work)
    assert task is not None
    clock.seconds += 59.999
    assert store.find(task.task_id) is task
    clock.seconds += 0.001
    with pytest.raises(RpcError) as expired:
        store.find(task.task_id)
    assert (expired.value.code, expired.value.message) == (INVALID_PARAMS, EXPIRED)
    assert work.released
    with pytest.raises(RpcError) as unknown:
        store.find("0" * 32)
    assert (unknown.value.code, unknown.value.message) == (INVALID_PARAMS, NOT_FOUND)


def test_past_the_bound_no_task_until_one_expires() -> None:
    """Rule 3: at most ``limit`` live tasks, finished or not; an expired one frees a place."""
    clock = Clock()
    store = TaskStore(now=clock, ttl_ms=1000, limit=2)
    first, second = FakeWork(), FakeWork()
    assert store.create(first) is not None
    clock.seconds += 0.5
    assert store.create(second) is not None
    first.done = True  # finished tasks still count: they are kept for their TTL
    assert store.create(FakeWork()) is None
    clock.seconds += 0.5
    assert store.create(FakeWork()) is not None, "the first expired: a place is free"
    assert len(store) == 2


HOSTILE = (
    "first line\n\x1b[31mred\x1b[0m \x1b]0;title\x07 \u202eevil\u200b\t"
    + "x" * 10_000
    + "\r\n\n   \n"
)


def test_a_status_message_is_one_bounded_printable_line() -> None:
    """Rule 4: the last non-blank line, control and format characters gone, bounded."""
    line = status_line(HOSTILE)
    assert line is not None
    assert len(line) <= STATUS_MESSAGE_MAX
    assert line.startswith("[31mred [0m ]0;title evil")
    assert line.endswith("\u2026")
    assert all(unicodedata.category(c)[0] != "C" for c in line)
    assert status_line("short") == "short"
    assert status_line(" \n\x00\n") is None
    assert status_line(None) is None


async def test_refresh_completes_with_the_outcome_and_cancel_is_idempotent() -> None:
    """Rule 5: working until the work ends, then completed with its outcome, once;
    cancel twice at once stops the work once; cancelling a finished task keeps it completed."""
    store = TaskStore()
    running, ending = FakeWork("step 1"), FakeWork()
    task = store.create(running, "step 0")
    done = store.create(ending)
    assert task is not None and done is not None
    assert task.status_message == "step 0"
    await task.refresh(store.now())
    assert (task.status, task.status_message) == ("working", "step 1")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(task.cancel, store.now)
        nursery.start_soon(task.cancel, store.now)
    assert (task.status, running.stops) == ("cancelled", 1)
    ending.done = True
    await done.cancel(store.now)
    assert done.status == "completed"
    assert done.result == EmptyResult(meta={"which": id(ending)})
    view = done.view()
    assert view.result == done.result and view.ttl_ms == store.ttl_ms
