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
    CANCELLED_MESSAGE,
    EXPIRED,
    NOT_FOUND,
    STATUS_MESSAGE_MAX,
    STILL_RUNNING,
    Ending,
    Stop,
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
    """A ``Work`` the test finishes by hand (fakes are for pure logic); ``obeys``: whether
    a stop ends it."""

    def __init__(self, progress: str = "working on it", *, obeys: bool = True) -> None:
        self.done = False
        self.ended = trio.Event()
        self.released: Ending | None = None
        self.stops = 0
        self.outcomes = 0
        self.stopped_it = False
        self.obeys = obeys
        self.line = progress

    def finish(self) -> None:
        self.done = True
        self.ended.set()

    def finished(self) -> bool:
        return self.done

    async def wait_finished(self) -> None:
        await self.ended.wait()

    async def outcome(self) -> Result:
        self.outcomes += 1
        return EmptyResult(meta={"which": id(self)})

    async def progress(self) -> str | None:
        return self.line

    async def stop(self) -> Stop:
        if self.done:
            return "stopped" if self.stopped_it else "ended"
        self.stops += 1
        if not self.obeys:
            return "running"
        self.stopped_it = True
        self.finish()
        return "stopped"

    def release(self, ending: Ending) -> None:
        self.released = ending


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
    assert work.released == "expired"
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
    first.finish()  # finished tasks still count: they are kept for their TTL
    assert store.create(FakeWork()) is None
    clock.seconds += 0.5
    assert store.create(FakeWork()) is not None, "the first expired: a place is free"
    assert len(store) == 2


def test_a_reserved_place_counts_toward_the_bound_until_taken_or_given_back() -> None:
    """Rule 3 (issue 29.1): a call that may hand over keeps its place from its start,
    so the task it makes later always has room, and a place it gives back is free."""
    store = TaskStore(now=Clock(), ttl_ms=1000, limit=2)
    assert store.reserve() and store.reserve()
    assert not store.reserve(), "two places kept: the bound is reached"
    assert store.create(FakeWork()) is None, "a task not reserved finds no room"
    assert store.create(FakeWork(), reserved=True) is not None
    store.unreserve()
    assert store.reserve(), "the place given back is free again"
    assert store.create(FakeWork(), reserved=True) is not None
    assert len(store) == 2 and not store.reserve()


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
    assert task.status_message == CANCELLED_MESSAGE
    ending.finish()
    await done.cancel(store.now)
    assert done.status == "completed"
    assert done.result == EmptyResult(meta={"which": id(ending)})
    view = done.view()
    assert view.result == done.result and view.ttl_ms == store.ttl_ms


async def test_a_stop_the_work_ignores_keeps_the_task_working_to_its_real_end() -> None:
    """Rule 5 (issue 27 N7): a cancel that did not end the work is no cancellation: the
    task stays working and says so, and completes with the outcome when the work ends."""
    store = TaskStore()
    stubborn = FakeWork("still going", obeys=False)
    task = store.create(stubborn)
    assert task is not None
    await task.cancel(store.now)
    assert task.status == "working"
    assert task.status_message == f"{STILL_RUNNING}; still going"
    stubborn.finish()
    await task.refresh(store.now())
    assert (task.status, task.result) == ("completed", EmptyResult(meta={"which": id(stubborn)}))
    assert task.status_message is None


async def test_a_followed_task_completes_and_expires_with_nobody_polling() -> None:
    """Rule 7 (issue 27 N10): attached to a nursery, the store completes a task when its
    work ends (its outcome taken once) and expires it when its TTL passes, releasing
    the work, without a refresh or a find."""
    store = TaskStore(ttl_ms=200)
    ending, waiting = FakeWork(), FakeWork()
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            store.attach(nursery)
            completed = store.create(ending)
            store.create(waiting)
            assert completed is not None
            ending.finish()
            while completed.status != "completed":
                await trio.sleep(0.001)
            assert ending.outcomes == 1
            while waiting.released is None or ending.released is None:
                await trio.sleep(0.01)
            assert (waiting.released, ending.released) == ("expired", "expired")
            assert (waiting.outcomes, ending.outcomes) == (0, 1)
            nursery.cancel_scope.cancel()


def test_closing_the_store_releases_each_task_saying_why() -> None:
    """Rule 6: the server is going; its work is told so (to audit an abandoned task)."""
    store = TaskStore()
    work = FakeWork()
    assert store.create(work) is not None
    store.close()
    assert work.released == "closed"
