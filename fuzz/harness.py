"""One private tmux server, tmuxmcp in process, and the checks every example shares.

The harness owns:

* a ``PrivateTmux`` (its own ``TMUX_TMPDIR``) whose dedicated socket a
  tmuxmcp runtime bound to with ``runtime.start``; calls go through
  ``server.call``, the dispatcher ``tools/call`` uses;
* a spawn recorder: while a call runs, ``driver._spawn.run_argv`` is wrapped so
  the harness sees every tmux argv and stdin it produced ("never reaches
  tmux" means this list is empty);
* a bystander session and buffer, created first and never named by any
  example; ``check_common`` compares their snapshot before and after each
  call (invariant 4);
* a sentinel directory; payloads name files in it, so an executed ``#()`` job
  or injected command leaves a file behind (invariant 2);
* a disposable world (two sessions, a split pane, a buffer) that examples
  address; it is rebuilt after any call that could have changed it;
* raw reader panes (``fuzz/reader.py``) that record the bytes a pane program
  receives.

Panes run ``sh`` (never the user's shell) in a scratch directory with
``HOME`` pointing there, so text a fuzzed call types into a shell stays in it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any, NamedTuple

import msgspec
import trio

from tests.support import DEDICATED, PrivateTmux
from tmuxmcp import errors, runtime, server
from tmuxmcp.config import Options, load
from tmuxmcp.driver import _spawn, proc
from tmuxmcp.runtime import Runtime

READER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reader.py")

_BYSTANDER_FIELDS = (
    "#{session_id}|#{session_name}|#{session_windows}|#{window_id}|#{window_index}|"
    "#{window_name}|#{window_layout}|#{window_active}|#{window_zoomed_flag}|#{pane_id}|"
    "#{pane_index}|#{pane_title}|#{pane_pid}|#{pane_dead}|#{pane_width}x#{pane_height}|"
    "#{pane_active}|#{pane_in_mode}|#{history_size}"
)


def _children(pid: int) -> set[int]:
    """The pids of ``pid``'s children, from ``/proc`` (each thread's ``children`` list)."""
    found: set[int] = set()
    with contextlib.suppress(FileNotFoundError):
        for task in os.listdir(f"/proc/{pid}/task"):
            path = f"/proc/{pid}/task/{task}/children"
            with contextlib.suppress(FileNotFoundError), open(path) as f:
                found.update(int(child) for child in f.read().split())
    return found


_SESSION = 3
"""Index of the session id (proc(5) field 6) in ``proc.stat_fields``."""


def _session(pid: int) -> int | None:
    fields = proc.stat_fields(pid)
    return int(fields[_SESSION]) if fields is not None and fields[_SESSION].isdigit() else None


def describe(pid: int) -> str:
    """``pid``, its command name and its command line, as ``/proc`` has them now."""
    parts = [f"pid {pid}"]
    for name in ("comm", "cmdline"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/{name}", "rb") as f:
            text = f.read().replace(b"\0", b" ").strip().decode("utf-8", "replace")
            parts.append(f"{name} {text!r}")
    return " ".join(parts)


def server_jobs(server_pid: int, panes: set[int]) -> set[int]:
    """The tmux server's children that are jobs (``#()``, ``run-shell``, ``pipe-pane``).

    tmux starts a job with ``fork`` (job.c), so it stays in the server's session;
    it starts a pane's process with ``forkpty`` (spawn.c), which makes it the
    leader of a session of its own. So a pane's process is never taken for a
    job, also once its pane is gone and it is still exiting (a killed pane is
    no longer listed, but its shell may take a while to end on a loaded
    machine); its descendants are not the server's children at all. The
    listed panes' pids are left out too, for the instant between ``forkpty``
    and the child's ``setsid``.
    """
    own = _session(server_pid)
    return {
        child
        for child in _children(server_pid) - panes
        if own is not None and _session(child) == own
    }


def slug_of(text: str) -> str:
    """The ``[slug]`` an error result's text starts with; empty if it has none."""
    return text[1 : text.index("]")] if text.startswith("[") and "]" in text else ""


def references() -> frozenset[str]:
    """Every error slug tmuxmcp can report."""
    found = set()
    pending: list[type[errors.TmuxMcpError]] = [errors.TmuxMcpError]
    while pending:
        kind = pending.pop()
        found.add(kind.reference)
        pending.extend(kind.__subclasses__())
    return frozenset(found | {"invalid-arguments"})


REFERENCES = references()
REFUSED = frozenset({"invalid-arguments", "unsafe-value"})
"""Slugs of a value refused before it reaches tmux."""


def escape_argv(value: str) -> str:
    """The argv rule from research/tmux-sinks.md §2, restated for bare tmux calls."""
    return value[:-1] + "\\;" if value.endswith(";") else value


class World(NamedTuple):
    """Objects examples may address (rebuilt whenever a call may have changed them)."""

    session: str
    window: str
    pane: str
    pane2: str
    dest_session: str
    dest_window: str
    buffer: str


PLACEHOLDERS = World(
    "<session>", "<window>", "<pane>", "<pane2>", "<dest_session>", "<dest_window>", "fuzz-buffer"
)
"""A world of placeholder strings, for calls drawn before the real world exists;
``Harness.substitute`` puts the real ids in (the buffer's name is already real)."""


def placeholder_ids(world: World) -> dict[str, str]:
    """Each placeholder of ``PLACEHOLDERS`` and the id it stands for in ``world``."""
    return dict(zip(PLACEHOLDERS, world, strict=True))


class Outcome(NamedTuple):
    """One call's result, as a client and as tmux saw it."""

    is_error: bool
    slug: str | None
    text: str
    structured: dict[str, Any] | None
    spawned: list[tuple[list[str], bytes | None]]

    def touched(self, value: str) -> bool:
        """Whether ``value`` occurs in any tmux argv element or stdin of the call."""
        data = value.encode("utf-8", "surrogatepass")
        return any(value in element for argv, _ in self.spawned for element in argv) or any(
            stdin is not None and data in stdin for _, stdin in self.spawned
        )


class Reader(NamedTuple):
    """A raw reader pane and where its bytes go."""

    pane: str
    out: str
    channel: str


class Harness:
    """See the module docstring."""

    def __init__(self) -> None:
        self.tmux = PrivateTmux(tempfile.mkdtemp(prefix="tmx", dir="/tmp"))
        self.directory = self.tmux.directory
        self.scratch = os.path.join(self.directory, "scratch")
        self.sentinels = os.path.join(self.directory, "sentinels")
        os.mkdir(self.scratch)
        os.mkdir(self.sentinels)
        self.examples = 0
        self.sentinel = os.path.join(self.sentinels, "ran0")
        self.tmux.env.update(HOME=self.scratch, SHELL="/bin/sh")
        self.socket = os.path.join(self.directory, f"tmux-{os.getuid()}", DEDICATED)
        config = load(Options(), self.tmux.env)
        self.runtime: Runtime = trio.run(runtime.start, config)
        ids = self.tmux.new_session("bystander", DEDICATED, "sleep", "100000").values()
        self.bystander_ids = frozenset(ids)
        self.tmux.bare("set-buffer", "-b", "bystander-buffer", "--", "kept")
        self._world: World | None = None
        self._readers = 0
        self.before = self.snapshot()

    def close(self) -> None:
        """Kill the server and remove the directory."""
        self.tmux.close()

    # -- calls -------------------------------------------------------------------

    def call(self, tool: str, arguments: Any) -> Outcome:
        """Call ``tool`` in process, recording every tmux process it starts."""
        self.begin()
        job = "#(" in repr(arguments)
        spawned: list[tuple[list[str], bytes | None]] = []
        original = _spawn.run_argv

        async def recording(argv: Any, *, env: Any, seconds: float, stdin: bytes | None = None):
            spawned.append((list(argv), stdin))
            return await original(argv, env=env, seconds=seconds, stdin=stdin)

        _spawn.run_argv = recording  # type: ignore[assignment]
        try:
            result = trio.run(server.call, self.runtime, tool, arguments)
        finally:
            _spawn.run_argv = original  # type: ignore[assignment]
        text = " ".join(getattr(block, "text", "") for block in result.content)
        slug = slug_of(text) if result.is_error else None
        if spawned:
            self._world = None  # anything that reached tmux may have changed the world
        if spawned and job:
            # A #() job runs asynchronously; wait until any that did start has ended
            # (and so left its sentinel), so the failure is reported for this call
            # rather than a later one.
            self.wait_for_jobs()
        content = result.structured_content
        structured = msgspec.json.decode(content) if isinstance(content, msgspec.Raw) else None
        return Outcome(bool(result.is_error), slug, text, structured, spawned)

    def wait_for_jobs(self, seconds: float = 10) -> None:
        """Wait (deadline ``seconds``) until the server runs no job (``server_jobs``).

        tmux forks a ``#()`` job while it expands the format, before the call's
        tmux client exits; a job that ran has written its sentinel by the time it
        has ended. With no job (the usual case) this returns at once.
        """
        found = self.tmux.bare("display-message", "-p", "#{pid}", check=False)
        if found.returncode != 0:
            return  # no server: nothing of it runs
        server_pid = int(found.stdout)
        deadline = time.monotonic() + seconds
        while True:
            listed = self.tmux.bare("list-panes", "-a", "-F", "#{pane_pid}", check=False)
            jobs = server_jobs(server_pid, {int(pid) for pid in listed.stdout.split()})
            if not jobs:
                return
            if time.monotonic() >= deadline:
                waited = "; ".join(describe(pid) for pid in sorted(jobs))
                raise AssertionError(f"tmux jobs never ended within {seconds:g} s: {waited}")
            time.sleep(0.02)

    def begin(self) -> None:
        """Start a call: clear sentinels an earlier call already reported."""
        self.examples += 1
        for name in self.fired():
            os.unlink(os.path.join(self.sentinels, name))

    def check_common(self, outcome: Outcome) -> None:
        """Invariants 2, 3 and 4, after every call."""
        if outcome.is_error:
            assert outcome.slug in REFERENCES, f"not one of tmuxmcp's errors: {outcome.text!r}"
            assert outcome.slug != "internal-error", f"an unexpected exception: {outcome.text!r}"
        assert not self.fired(), f"a job or injected command ran: {self.fired()}"
        if outcome.spawned:
            after = self.snapshot()
            assert after == self.before, f"the bystander changed:\n{self.before}\n->\n{after}"

    def refused(self, outcome: Outcome, *, param: str | None = None) -> None:
        """The value was refused before any tmux process started."""
        assert outcome.is_error and outcome.slug in REFUSED, outcome.text
        assert not outcome.spawned, f"a refused value reached tmux: {outcome.spawned[:1]}"
        if param is not None and outcome.slug == "invalid-arguments":
            assert f"$.{param}" in outcome.text or param in outcome.text, outcome.text

    # -- tmux state --------------------------------------------------------------

    def bare(self, *args: str, check: bool = True) -> str:
        """Bare tmux on the private socket; its stdout without the final newline."""
        return self.tmux.bare(*args, check=check).stdout.removesuffix("\n")

    def holds(self, target: str, variable: str, value: str) -> bool:
        """Whether tmux's ``variable`` (``#{name}``) of ``target`` is exactly ``value``.

        Compared by tmux itself (``PrivateTmux.holds``): bare tmux 3.4 prints a
        ``$`` before a letter as ``\\$``, so its printed output is no oracle.
        """
        name = variable.removeprefix("#{").removesuffix("}")
        return self.tmux.holds(target, name, value)

    def snapshot(self) -> str:
        """The bystander session and buffer, as bare tmux reports them."""
        session = min(i for i in self.bystander_ids if i.startswith("$"))
        panes = self.tmux.bare(
            "list-panes", "-s", "-t", session, "-F", _BYSTANDER_FIELDS, check=False
        )
        buffers = self.bare("list-buffers", "-F", "#{buffer_name}=#{buffer_size}", check=False)
        kept = [line for line in buffers.splitlines() if line.startswith("bystander-buffer=")]
        return panes.stdout + panes.stderr + "\n".join(kept)

    def fired(self) -> list[str]:
        """Sentinel files that exist (any means something ran)."""
        return sorted(os.listdir(self.sentinels))

    def substitute(self, value: Any, world: World | None = None) -> Any:
        """``value`` with every SENTINEL placeholder replaced by a sentinel path,
        and, given ``world``, every string that is a ``PLACEHOLDERS`` id by the real id.

        Each call gets its own file name (``ran<n>``), so a file names the call.
        """
        self.sentinel = os.path.join(self.sentinels, f"ran{self.examples + 1}")
        return self._substitute(value, placeholder_ids(world) if world else {})

    def _substitute(self, value: Any, ids: dict[str, str]) -> Any:
        from fuzz.strategies import SENTINEL

        if isinstance(value, str):
            return ids.get(value, value).replace(SENTINEL, self.sentinel)
        if isinstance(value, list | tuple):
            return type(value)(self._substitute(v, ids) for v in value)
        if isinstance(value, dict):
            return {self._substitute(k, ids): self._substitute(v, ids) for k, v in value.items()}
        return value

    # -- the world ---------------------------------------------------------------

    def world(self) -> World:
        """The current world, rebuilt if a call may have changed it."""
        if self._world is None:
            self._world = self._build_world()
        return self._world

    def dirty(self) -> None:
        """Force the next ``world()`` to rebuild (after bare changes)."""
        self._world = None

    def _build_world(self) -> World:
        # tmux 3.4's server crashes when kill-session destroys a zoomed window
        # (tools.teardown's zoom guard): unzoom first (found by resize_pane.zoom).
        listed = self.bare("list-windows", "-a", "-F", "#{window_id} #{window_zoomed_flag}")
        for line in listed.splitlines():
            window, zoomed = line.split()
            if zoomed == "1" and window not in self.bystander_ids:
                self.bare("resize-pane", "-Z", "-t", window, check=False)
        for session in self.bare("list-sessions", "-F", "#{session_id}").split():
            if session not in self.bystander_ids:
                self.bare("kill-session", "-t", session, check=False)
        for name in self.bare("list-buffers", "-F", "#{buffer_name}").split("\n"):
            if name and name != "bystander-buffer":
                self.bare("delete-buffer", "-b", escape_argv(name), check=False)
        ids = "#{session_id} #{window_id} #{pane_id}"
        session, window, pane = self.bare(
            "new-session", "-d", "-s", "work", "-x", "80", "-y", "24", "-c", self.scratch,
            "-P", "-F", ids, "--", "sh",
        ).split()  # fmt: skip
        out = self.bare(
            "split-window", "-d", "-t", pane, "-c", self.scratch, "-P", "-F", "#{pane_id}",
            "--", "sh", ";",
            "new-session", "-d", "-s", "dest", "-c", self.scratch, "-P", "-F", ids, "--", "sh", ";",
            "set-buffer", "-b", "fuzz-buffer", "--", "buffer text",
        ).split()  # fmt: skip
        pane2, dest_session, dest_window, _ = out
        return World(session, window, pane, pane2, dest_session, dest_window, "fuzz-buffer")

    # -- raw readers -------------------------------------------------------------

    def reader(self, *, count: int | None = None, until: str | None = None) -> Reader:
        """A new window of the world session running ``reader.py``; waits until raw."""
        self._readers += 1
        channel = f"fuzzreader{self._readers}"
        out = os.path.join(self.directory, channel)
        mode, value = ("count", str(count)) if count is not None else ("until", str(until))
        command = [sys.executable, READER, out, channel, mode, value, "tmux", "-S", self.socket]
        pane = self.bare(
            "new-window", "-d", "-t", self.world().session + ":", "-P", "-F", "#{pane_id}",
            "--", *command,
        )  # fmt: skip
        self.bare("wait-for", f"{channel}-ready")
        return Reader(pane, out, channel)

    def received(self, reader: Reader) -> bytes:
        """Wait (tmux wait-for, with the bare client's deadline) for the reader's bytes."""
        self.bare("wait-for", f"{reader.channel}-done")
        with open(reader.out, "rb") as f:
            return f.read()


@contextlib.contextmanager
def harness() -> Iterator[Harness]:
    """A harness for one test module; its server is killed afterwards."""
    h = Harness()
    try:
        yield h
    finally:
        h.close()
