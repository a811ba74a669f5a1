"""The MCP Tasks extension (``io.modelcontextprotocol/tasks``, SEP-2663, 2026-07-28): the store.

A task is a durable handle a ``tools/call`` may answer with instead of its
result, when the work outlives the call. This module knows nothing of tmux:
the work behind a task is a ``Work`` (the run wing's is
``tools.run.RunTask``, adapted by ``server``); the store keeps the tasks of
this process, and ``task_methods`` serves ``tasks/get``, ``tasks/cancel``
and ``tasks/update``. Field names follow the SEP and its schema
(research/mcp-tasks.md, section 1): the flat ``CreateTaskResult``
(``resultType: "task"``), ``ttlMs`` and ``pollIntervalMs``, the final result
inline in ``tasks/get``, empty acks for cancel and update.

Rule 1: a task only for a request that opted in: its own ``_meta`` client
  capabilities name the extension (``opted_in``), on a 2026-07-28
  connection. A declaration made elsewhere (discover time, another request)
  never counts.
Rule 2: a task is in the store before the answer that names it is written,
  so an immediate ``tasks/get`` finds it; an id is 128 random bits, a bearer
  token, never derived from anything else.
Rule 3: a task lives ``ttl_ms`` from its creation, whatever its status, and
  nothing else removes it (no count-based eviction); after it, every method
  answers ``-32602`` "Task has expired", and an id never issued ``-32602``
  "Task not found". At most ``limit`` tasks live at once: past it ``create``
  gives None, and the caller answers as it would without the opt-in. A call
  that may become a task ``reserve``-s its place when it starts (issue
  29.1): a call that would hand over after a few seconds must know then
  that it can, or wait as it would without the opt-in.
Rule 4: ``statusMessage`` is one line of printable text of at most
  ``STATUS_MESSAGE_MAX`` characters (``status_line``), whatever the work
  reports: it is often untrusted text a client shows to its user.
Rule 5: statuses move ``working`` to ``completed`` or ``cancelled`` only,
  once. A tool-level error is ``completed`` (its result has ``isError``);
  ``failed`` is never used, since a protocol error ends a call before a
  task exists. ``tasks/cancel`` is acknowledged even when the work had
  already finished (the task then stays ``completed``). A task is
  ``cancelled`` only when the stop ended the work (``Stop``): work that goes
  on after it keeps the task ``working``, its ``statusMessage`` saying so,
  and the task follows it to its real end (issue 27 N7).
Rule 6: the tasks live in this process: a server that exits takes them
  with it, and a poll after a restart gets ``-32602``.
Rule 7: a task's end is noticed when it happens, not when a client polls
  (issue 27 N10): once the store is ``attach``-ed to a nursery, each task is
  followed there, so its work's end makes it ``completed`` (and the ``Work``
  reports its outcome) and its TTL's end expires it (``Work.release``), with
  or without a ``tasks/get``.
"""

from __future__ import annotations

import secrets
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from typing import Any, Final, Literal, Protocol

import msgspec
import trio

from tmuxmcp.protocol import params
from tmuxmcp.protocol.codes import INVALID_PARAMS, RpcError
from tmuxmcp.protocol.dispatch import Method, RequestContext
from tmuxmcp.protocol.results import UNSET, Implementation, Result, Unset
from tmuxmcp.protocol.versions import CLIENT_CAPABILITIES_KEY, stamp

EXTENSION: Final = "io.modelcontextprotocol/tasks"
DEFAULT_TTL_MS: Final = 3_600_000
"""One hour from creation (research/mcp-tasks.md, section 4)."""
POLL_INTERVAL_MS: Final = 1000
"""A poll is a lookup and one pane capture; Claude Code clamps it to 250-30,000 ms."""
MIN_TTL_MS: Final = 5 * POLL_INTERVAL_MS
"""The shortest TTL an operator may set (issue 27 N6): a task lives its TTL from its
creation, and a client polls it once per ``POLL_INTERVAL_MS``; a TTL of one or two poll
intervals has it expire at the first or second poll. The interval stays fixed rather
than shrinking with the TTL: clients clamp it (Claude Code to 250 ms at least), and a
task that expires before a command of a few seconds can finish is of no use."""
MAX_LIVE_TASKS: Final = 64
"""Tasks held at once (Rule 3); past it a call answers as without the opt-in."""
STATUS_MESSAGE_MAX: Final = 128
EXPIRED_REMEMBERED: Final = 4096
"""Expired ids remembered to answer "expired" rather than "not found" (a bound)."""

Status = Literal["working", "completed", "cancelled"]
Stop = Literal["stopped", "ended", "running"]
"""What asking work to stop did: it ``stopped`` because of it, it had ``ended`` by
itself (its outcome is ready), or it is still ``running`` (Rule 5)."""
Ending = Literal["expired", "closed"]
"""Why a task let go of its work: its TTL passed, or the server is closing."""
CANCELLED_MESSAGE: Final = "cancelled: the command was interrupted"
STILL_RUNNING: Final = "cancel asked: the command did not stop on the interrupt (C-c)"


def opted_in(modern: bool, meta: dict[str, Any] | None) -> bool:
    """Whether this request may get a task (Rule 1)."""
    if not modern or meta is None:
        return False
    capabilities = meta.get(CLIENT_CAPABILITIES_KEY)
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return isinstance(extensions, dict) and isinstance(extensions.get(EXTENSION), dict)


def status_line(text: str | None) -> str | None:
    """``text`` as a status message: its last non-blank line, printable only, bounded (Rule 4).

    Control characters (escape sequences' ESC, tabs, C1) and other
    non-printing code points (format, surrogates) are dropped; what an escape
    sequence leaves behind is printable text, harmless to show.
    """
    if not text:
        return None
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    kept = "".join(
        c if unicodedata.category(c)[0] != "C" else " " for c in lines[-1][: STATUS_MESSAGE_MAX * 8]
    )
    kept = " ".join(kept.split())
    if len(kept) > STATUS_MESSAGE_MAX:
        kept = kept[: STATUS_MESSAGE_MAX - 1] + "\u2026"
    return kept or None


class Work(Protocol):
    """What a task follows: work that started in a call and goes on after it."""

    def finished(self) -> bool:
        """Whether the work has ended (its ``outcome`` is ready)."""
        ...

    async def outcome(self) -> Result:
        """The result the call would have returned had it waited (once ``finished``)."""
        ...

    async def progress(self) -> str | None:
        """A line saying how the work goes, for ``statusMessage`` (untrusted)."""
        ...

    async def wait_finished(self) -> None:
        """Return once the work has ended (Rule 7)."""
        ...

    async def stop(self) -> Stop:
        """Ask the work to stop (cooperative, bounded); what that did. Asked again of
        finished work, whether a stop is what ended it."""
        ...

    def release(self, ending: Ending) -> None:
        """The task is gone (``ending`` says why): let go of what the work holds."""
        ...


def _iso(seconds: float) -> str:
    whole = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return f"{whole}.{int(seconds * 1000) % 1000:03d}Z"


class TaskView(Result, kw_only=True, omit_defaults=True, rename="camel"):
    """A task as the wire shows it: ``CreateTaskResult`` (``resultType`` ``task``) and the
    ``DetailedTask`` of ``tasks/get`` (with ``result`` once ``completed``)."""

    task_id: str
    status: Status
    status_message: str | Unset = UNSET
    created_at: str
    last_updated_at: str
    ttl_ms: int
    poll_interval_ms: int
    result: Any = UNSET


class Task:
    """One task of the store; its fields are written only here and by ``TaskStore``."""

    def __init__(self, task_id: str, work: Work, created: float, ttl_ms: int) -> None:
        self.task_id = task_id
        self.work = work
        self.created = created
        self.updated = created
        self.ttl_ms = ttl_ms
        self.status: Status = "working"
        self.status_message: str | None = None
        self.result: Result | None = None
        self.stop_asked = False
        """A ``tasks/cancel`` asked the work to stop (Rule 5)."""
        self._lock = trio.Lock()

    def view(self, result_type: str | Unset = UNSET) -> TaskView:
        return TaskView(
            result_type=result_type,
            task_id=self.task_id,
            status=self.status,
            status_message=UNSET if self.status_message is None else self.status_message,
            created_at=_iso(self.created),
            last_updated_at=_iso(self.updated),
            ttl_ms=self.ttl_ms,
            poll_interval_ms=POLL_INTERVAL_MS,
            result=UNSET if self.result is None else self.result,
        )

    async def refresh(self, now: float) -> None:
        """Bring the status up to date: the outcome once the work ended, else its progress."""
        async with self._lock:
            if self.status != "working":
                return
            if self.work.finished():
                # After a stop that left the work running, whether the stop is
                # what ended it after all (Rule 5).
                if self.stop_asked and await self.work.stop() == "stopped":
                    self._cancelled(now)
                    return
                self.result = await self.work.outcome()
                self.status = "completed"
                self.status_message = None
                self.updated = now
                return
            progress = await self.work.progress()
            if self.stop_asked:
                progress = f"{STILL_RUNNING}; {progress}" if progress else STILL_RUNNING
            message = status_line(progress)
            if message is not None and message != self.status_message:
                self.status_message = message
                self.updated = now

    def _cancelled(self, now: float) -> None:
        self.status = "cancelled"
        self.status_message = CANCELLED_MESSAGE
        self.updated = now

    async def cancel(self, now: Callable[[], float]) -> None:
        """Stop the work (Rule 5): ``cancelled`` if that ended it, ``completed`` if it had
        ended first, still ``working`` (and saying so) if it goes on."""
        async with self._lock:
            if self.status != "working":
                return
            self.stop_asked = True
            stop = await self.work.stop()
            if stop == "stopped":
                self._cancelled(now())
                return
        await self.refresh(now())

    def due(self, now: float) -> bool:
        """Whether the task's TTL has passed (Rule 3)."""
        return now >= self.created + self.ttl_ms / 1000


NOT_FOUND = "Failed to retrieve task: Task not found"
EXPIRED = "Failed to retrieve task: Task has expired"


class TaskStore:
    """The tasks of this process (Rules 2, 3, 6); ``now`` is the wall clock, in seconds."""

    def __init__(
        self,
        *,
        now: Callable[[], float] = time.time,
        ttl_ms: int = DEFAULT_TTL_MS,
        limit: int = MAX_LIVE_TASKS,
    ) -> None:
        self.now = now
        self.ttl_ms = ttl_ms
        self.limit = limit
        self._tasks: dict[str, Task] = {}
        self._reserved = 0
        """Places kept for calls that may still become tasks (Rule 3)."""
        self._expired: deque[str] = deque(maxlen=EXPIRED_REMEMBERED)
        self._nursery: trio.Nursery | None = None

    def attach(self, nursery: trio.Nursery | None) -> None:
        """Follow each task created from now on in ``nursery`` (Rule 7); None: stop."""
        self._nursery = nursery

    async def _follow(self, task: Task) -> None:
        """Complete ``task`` when its work ends, and expire it when its TTL passes (Rule 7)."""
        with trio.move_on_after(max(0.0, task.created + task.ttl_ms / 1000 - self.now())):
            await task.work.wait_finished()
            await task.refresh(self.now())
            await trio.sleep_forever()
        # trio's clock and the wall clock the TTL is kept on may differ by a hair:
        # wait out what the wall clock still counts, in a bounded number of rounds.
        for _ in range(100):
            left = task.created + task.ttl_ms / 1000 - self.now()
            if left <= 0 or task.task_id not in self._tasks:
                break
            await trio.sleep(left)
        self.expire()

    def __len__(self) -> int:
        self.expire()
        return len(self._tasks)

    def expire(self) -> None:
        """Drop every task past its TTL, releasing its work (Rule 3)."""
        now = self.now()
        for task in [t for t in self._tasks.values() if t.due(now)]:
            del self._tasks[task.task_id]
            self._expired.append(task.task_id)
            task.work.release("expired")

    def reserve(self) -> bool:
        """Keep a place for a call that may become a task; False past the bound (Rule 3).
        The caller gives it back (``unreserve``) unless ``create`` took it."""
        self.expire()
        if len(self._tasks) + self._reserved >= self.limit:
            return False
        self._reserved += 1
        return True

    def unreserve(self) -> None:
        """A reserved place not taken by ``create`` is free again."""
        self._reserved -= 1

    def create(
        self, work: Work, status_message: str | None = None, *, reserved: bool = False
    ) -> Task | None:
        """A new working task following ``work``, or None past the bound (Rule 3);
        ``reserved``: it takes the place ``reserve`` kept, which always has room."""
        self.expire()
        if reserved:
            self._reserved -= 1
        elif len(self._tasks) + self._reserved >= self.limit:
            return None
        task = Task(secrets.token_hex(16), work, self.now(), self.ttl_ms)
        task.status_message = status_line(status_message)
        self._tasks[task.task_id] = task
        if self._nursery is not None:
            self._nursery.start_soon(self._follow, task)
        return task

    def find(self, task_id: str) -> Task:
        """The live task ``task_id``; ``-32602`` naming why there is none (Rule 3)."""
        self.expire()
        task = self._tasks.get(task_id)
        if task is None:
            raise RpcError(INVALID_PARAMS, EXPIRED if task_id in self._expired else NOT_FOUND)
        return task

    def close(self) -> None:
        """The server is going: release every task's work (Rule 6)."""
        for task in self._tasks.values():
            task.work.release("closed")
        self._tasks.clear()


class TaskParams(params.Params, frozen=True, kw_only=True, rename="camel"):
    """``tasks/get`` and ``tasks/cancel``."""

    task_id: str


class UpdateTaskParams(TaskParams, frozen=True, kw_only=True, rename="camel"):
    """``tasks/update``: answers to input requests (tmuxmcp never asks for any)."""

    input_responses: dict[str, Any] | None = None


class Ack(Result, kw_only=True, omit_defaults=True, rename="camel"):
    """The empty answer of ``tasks/cancel`` and ``tasks/update``."""


def task_methods(store: TaskStore, info: Implementation) -> dict[str, Method]:
    """The extension's rows of the method table (2026-07-28 connections only)."""

    async def get(ctx: RequestContext, p: TaskParams) -> Result:
        task = store.find(p.task_id)
        await task.refresh(store.now())
        view = task.view()
        if task.result is not None:
            # The result as the call would have carried it, stamped for its era.
            view = msgspec.structs.replace(view, result=stamp(task.result, info))
        return view

    async def cancel(ctx: RequestContext, p: TaskParams) -> Result:
        await store.find(p.task_id).cancel(store.now)
        return Ack()

    async def update(ctx: RequestContext, p: UpdateTaskParams) -> Result:
        store.find(p.task_id)  # a task never waits for input: the answers are ignored
        return Ack()

    return {
        "tasks/get": Method(params=TaskParams, handler=get, handshake=False),
        "tasks/cancel": Method(params=TaskParams, handler=cancel, handshake=False),
        "tasks/update": Method(params=UpdateTaskParams, handler=update, handshake=False),
    }
