"""Test support: bare tmux on a private socket, and tmuxmcp over real stdio.

The one private-tmux helper of the tests, the fuzz suite and the benchmarks
(``bench/benchlib.py`` imports it):

* ``PrivateTmux`` confines tmux to its own ``TMUX_TMPDIR``, so even the
  default dedicated label ``-L tmuxmcp`` is a private socket and the user's
  own servers are never contacted; ``bare`` runs the tmux binary directly
  (read-back through bare tmux, never through tmuxmcp);
* ``temporary_tmux`` makes one in a fresh directory and removes both after;
* ``serve`` starts ``python -m tmuxmcp`` as a subprocess and connects the
  official SDK client over stdio (``tests.recording_stdio``); when the
  session ends, every message the server wrote is checked against the SDK's
  ``mcp_types`` (``tests.wire_oracle``), so a test whose server said
  something the SDK rejects fails. The raw JSON-RPC client is
  ``tests.raw_client``;
* ``call_and_interrupt`` interrupts a waiting call once it reports that it
  waits (its first progress notification), never after a guessed sleep;
* ``focus_client`` attaches a real client on a pty, for what tmux does only
  with a client attached (the focus hooks).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from mcp import Client, ClientSession, StdioServerParameters
from mcp.types import CallToolResult
from mcp_types.version import LATEST_MODERN_VERSION

from tests.recording_stdio import recorded_stdio
from tests.wire_oracle import Conversation
from tmuxmcp.driver.argv import escape_element
from tmuxmcp.driver.hooks import NOTIFY_HOOKS
from tmuxmcp.driver.versions import version_tuple
from tmuxmcp.tools.manage import DETACHED_SIZE_KEPT

DEDICATED = "tmuxmcp"
# "stateless": serve() connects the SDK client as Claude Code does, in the
# 2026-07-28 form (server/discover, _meta on every request) instead of the
# initialize handshake; .ci/run runs the modules that send no ping so.
CLIENT_PROTOCOL = "TMUXMCP_TEST_CLIENT_PROTOCOL"


@functools.cache
def _ignores_detached_size(binary: str) -> bool:
    """Whether ``binary`` is a tmux before 3.3 (``tools.manage``'s rules say why)."""
    done = subprocess.run([binary, "-V"], capture_output=True, text=True, check=False)
    found = version_tuple(done.stdout)
    return found is not None and found < DETACHED_SIZE_KEPT


class PrivateTmux:
    """tmux confined to one private ``TMUX_TMPDIR``."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
        self.env["TMUX_TMPDIR"] = directory
        self.labels: set[str] = {DEDICATED}
        # Resolved once, so a benchmark's baseline pays no PATH search; a missing
        # tmux fails at the first call (the fixtures say so before that).
        found = shutil.which("tmux", path=self.env.get("PATH"))
        self.binary = os.path.realpath(found) if found else "tmux"

    def argv(self, *args: str, label: str = DEDICATED) -> list[str]:
        """``tmux -L label args``: the command line any program would run."""
        self.labels.add(label)
        return [self.binary, "-L", label, *args]

    def bare(
        self, *args: str, label: str = DEDICATED, check: bool = True, config: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``tmux -u -L label args`` on the private directory (deadline 20 s)."""
        head = self.argv(label=label)
        argv = [head[0], "-u", *head[1:]]
        if config is not None:
            argv += ["-f", config]
        done = subprocess.run(
            [*argv, *args],
            capture_output=True,
            text=True,
            env=self.env,
            check=False,
            timeout=20,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"tmux {args} failed: {done.stderr}")
        return done

    def holds(self, target: str, variable: str, value: str, label: str = DEDICATED) -> bool:
        """Whether ``#{variable}`` of ``target`` is exactly ``value``, compared by tmux itself.

        For values bare tmux does not print as they are: 3.4 and 3.5a print a
        control character as an octal escape and 3.4 a ``$`` before a letter
        as ``\\$``, so printed output is no oracle there. ``value`` goes into a
        user option (stored as given) and ``#{==:}`` prints ``1`` or ``0``.
        """
        option = "@tmuxmcp_test_expected"
        self.bare("set-option", "-s", "--", option, escape_element(value), label=label)
        same = f"#{{==:#{{{variable}}},#{{{option}}}}}"
        return self.bare("display-message", "-p", "-t", target, same, label=label).stdout == "1\n"

    def private_home(self, shell: str) -> str:
        """An empty ``HOME`` inside the directory and ``shell`` as ``SHELL``, for pane shells
        that must read none of the user's rc files; returns the ``HOME``."""
        home = os.path.join(self.directory, "home")
        os.makedirs(home, exist_ok=True)
        self.env.update(HOME=home, SHELL=shell)
        return home

    def start_foreign_server(self, label: str = DEDICATED) -> None:
        """Start a server *not* created by tmuxmcp, holding one session."""
        self.bare("-f", "/dev/null", "new-session", "-d", "-s", "foreign", label=label)

    def new_session(self, name: str = "s", label: str = DEDICATED, *extra: str) -> dict[str, str]:
        """Create a 80x24 session with bare tmux; return its ids.

        ``extra`` is appended to the new-session argv (flags, then a command).
        Without it the pane runs plain ``sh``: it reads no rc files, so typed
        input is never eaten by a slow interactive start-up. Then this returns
        once the pane's program is ``sh`` (deadline 10 s): until the child has
        exec'd it, tmux reports the forked ``tmux`` itself as the pane's command
        (seen on 3.6), and ``run_command`` rightly refuses such a pane.
        """
        out = self.bare(
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            "80",
            "-y",
            "24",
            "-P",
            "-F",
            "#{session_id} #{window_id} #{pane_id}",
            *(extra or ("sh",)),
            label=label,
        ).stdout.split()
        if _ignores_detached_size(self.binary):
            # tmux before 3.3 sizes a detached session by the command client
            # (80x23 here), not by -x/-y (tmux commit df3fe2aa7).
            self.bare("resize-window", "-t", out[1], "-x", "80", "-y", "24", label=label)
        if not extra:
            deadline = time.monotonic() + 10
            while self.pane_command(out[2], label) != "sh":
                assert time.monotonic() < deadline, f"pane {out[2]} never ran sh"
                time.sleep(0.01)
        return {"session_id": out[0], "window_id": out[1], "pane_id": out[2]}

    def pane_command(self, pane: str, label: str = DEDICATED) -> str:
        """The pane's current command, as tmux reports it."""
        return self.bare(
            "display-message", "-p", "-t", pane, "#{pane_current_command}", label=label
        ).stdout.strip()

    def kill_server(self, label: str = DEDICATED) -> None:
        """``kill-server``, then wait (with a deadline) until the process has exited.

        ``kill-server`` returns before the server has gone, and a client started
        in that window can still reach the dying server. A pidfd becomes
        readable when the process exits, so this waits without polling.
        """
        import select

        pid = int(self.server_pid(label))
        fd = os.pidfd_open(pid)
        try:
            self.bare("kill-server", label=label)
            readable, _, _ = select.select([fd], [], [], 10)
            assert readable, "the tmux server did not exit within 10 s"
        finally:
            os.close(fd)

    async def wait_for_screen(self, pane: str, needle: str, label: str = DEDICATED) -> None:
        """Wait (with a deadline) until ``needle`` is on the pane's screen."""
        import trio

        with trio.fail_after(10):
            while needle not in self.bare("capture-pane", "-p", "-t", pane, label=label).stdout:
                await trio.sleep(0.02)

    async def wait_for_prompt(
        self, pane: str, *, seconds: float = 10, label: str = DEDICATED
    ) -> None:
        """Wait (with a deadline of ``seconds``) until the pane's shell has drawn a
        prompt: the cursor has left column 0 of its row."""
        import trio

        with trio.fail_after(seconds):
            while self.bare(
                "display-message", "-p", "-t", pane, "#{cursor_x}", label=label
            ).stdout.strip() in ("", "0"):
                await trio.sleep(0.02)

    def server_pid(self, label: str = DEDICATED) -> str:
        """The pid of the tmux server on ``label``."""
        return self.bare("display-message", "-p", "#{pid}", label=label).stdout.strip()

    def kill_all(self) -> None:
        """Kill every server this helper touched."""
        for label in sorted(self.labels):
            subprocess.run(
                self.argv("kill-server", label=label),
                env=self.env,
                capture_output=True,
                check=False,
                timeout=20,
            )

    def close(self) -> None:
        """Kill every server this helper touched and remove its directory."""
        self.kill_all()
        shutil.rmtree(self.directory, ignore_errors=True)


@contextmanager
def temporary_tmux(prefix: str = "tmx") -> Iterator[PrivateTmux]:
    """A ``PrivateTmux`` in a fresh directory; its servers and the directory go after."""
    # Unix socket paths are short (108 bytes): keep the directory near the root.
    tmux = PrivateTmux(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    try:
        yield tmux
    finally:
        tmux.close()


@asynccontextmanager
async def focus_client(tmux: PrivateTmux, session: str) -> AsyncIterator[None]:
    """A real client on a pty attached to ``session``, with ``focus-events`` on.

    Only then does ``select-pane`` raise ``pane-focus-in`` and ``pane-focus-out``
    (the hooks the per-call check must not treat as ambient); the client is
    killed and reaped, and the pty closed, when the block ends.
    """
    import pty

    import trio

    leader, follower = pty.openpty()
    client = subprocess.Popen(
        [*tmux.argv(), "attach", "-t", session],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**tmux.env, "TERM": "xterm"},
        start_new_session=True,
    )
    os.close(follower)
    try:
        with trio.fail_after(10):
            while not tmux.bare("list-clients").stdout.strip():
                await trio.sleep(0.01)
        tmux.bare("set-option", "-g", "focus-events", "on")
        yield
    finally:
        client.kill()
        client.wait()
        os.close(leader)


def notify_hooks_of(tmux: PrivateTmux) -> frozenset[str]:
    """``driver.hooks.NOTIFY_HOOKS`` for the release of ``tmux``'s binary: the table of
    the newest release it lists at or before it. Skips the test before 3.3 (no table)."""
    import pytest

    version = version_tuple(tmux.bare("-V").stdout)
    assert version is not None
    known = [release for release in NOTIFY_HOOKS if release <= version[:2]]
    if not known:
        pytest.skip("no hook table for a tmux before 3.3")
    return NOTIFY_HOOKS[max(known)]


def server_params(env: dict[str, str], *args: str) -> StdioServerParameters:
    """How to start tmuxmcp as a stdio subprocess."""
    return StdioServerParameters(command=sys.executable, args=["-m", "tmuxmcp", *args], env=env)


@asynccontextmanager
async def serve(tmux: PrivateTmux, *args: str) -> AsyncIterator[ClientSession]:
    """A connected SDK client session to ``tmuxmcp serve args`` over stdio.

    The client does the initialize handshake, or with
    ``TMUXMCP_TEST_CLIENT_PROTOCOL=stateless`` speaks the stateless
    2026-07-28 form (which has no ``ping``). After the session closed, every
    server message is validated (a failure names the message and the SDK's
    reason); a test that failed already is left with its own failure.
    """
    conversation = Conversation()
    transport = recorded_stdio(server_params(tmux.env, *args), conversation)
    protocol = os.environ.get(CLIENT_PROTOCOL, "handshake")
    assert protocol in ("handshake", "stateless"), f"{CLIENT_PROTOCOL}={protocol}: not a mode"
    if protocol == "stateless":
        async with Client(transport, mode="auto") as client:
            assert client.protocol_version == LATEST_MODERN_VERSION, client.protocol_version
            yield client.session
    else:
        async with transport as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session
    conversation.assert_valid()


async def call_and_interrupt(
    session: ClientSession,
    name: str,
    arguments: dict[str, Any],
    interrupt: Callable[[], object],
    *,
    once: Callable[[], bool] | None = None,
    seconds: float = 20,
) -> CallToolResult:
    """Call ``name``, run ``interrupt`` once the call is waiting, and return its result.

    "Waiting" is ``once()`` turning true (polled), or without ``once`` the
    call's first progress notification: the handler is in its wait loop then
    (``wait_for_text``, ``wait_for_state``, ``run_command`` and
    ``wait_for_command`` report progress every second while they wait). So
    the interruption lands inside the wait, not before it, without a guessed
    sleep. Deadline ``seconds`` for all of it.
    """
    import trio

    waiting = trio.Event()
    outcome: list[CallToolResult] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        waiting.set()

    async def call() -> None:
        reports = on_progress if once is None else None
        outcome.append(await session.call_tool(name, arguments, progress_callback=reports))
        waiting.set()

    async def poll(condition: Callable[[], bool]) -> None:
        while not condition() and not outcome:
            await trio.sleep(0.02)
        waiting.set()

    with trio.fail_after(seconds):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(call)
            if once is not None:
                nursery.start_soon(poll, once)
            await waiting.wait()
            if outcome:
                raise AssertionError(f"{name} ended before it waited: {outcome[0]}")
            interrupt()
    return outcome[0]


def structured(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a successful call, or fail with its text."""
    if result.is_error:
        texts: Sequence[Any] = result.content
        raise AssertionError(f"tool call failed: {[getattr(t, 'text', t) for t in texts]}")
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    """The text of an isError result, or fail."""
    assert result.is_error, f"expected an error, got {result.structured_content}"
    return " ".join(getattr(block, "text", "") for block in result.content)


def tmux_wrapper(path: str, before_exec: str, real: str | None = None) -> str:
    """Write a ``--tmux`` wrapper script at ``path`` and return ``path``.

    The script runs the shell lines ``before_exec`` (log, count, stall, fail
    on purpose), then execs ``real`` (default: the tmux on PATH) with its own
    arguments. It is executable by its owner only.
    """
    import shlex
    import stat

    binary = real or shutil.which("tmux") or "tmux"
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\n{before_exec}\nexec {shlex.quote(binary)} "$@"\n')
    os.chmod(path, stat.S_IRWXU)
    return path


def stalling_tmux(directory: str) -> tuple[str, str, str]:
    """A tmux wrapper for ``--tmux``: logs each call's pid, stalls while a flag file exists.

    Returns the wrapper's path, the pid log and the flag path.
    """
    log = os.path.join(directory, "calls")
    flag = os.path.join(directory, "stall")
    path = tmux_wrapper(
        os.path.join(directory, "logging-tmux"),
        f'echo $$ >> "{log}"\nif [ -e "{flag}" ]; then exec sleep 30; fi',
    )
    return path, log, flag


def no_redraw_tmux(tmux: PrivateTmux) -> str:
    """A tmux wrapper for ``--tmux`` whose read of the screen after ``S`` fails, so that
    every run declines the confirmed redraw (issue 31.3) and its typed line stays on
    the screen, as a test of the typed line itself needs."""
    return tmux_wrapper(
        os.path.join(tmux.directory, "no-redraw-tmux"),
        'case "$*" in *"#{pane_height} #{pane_width} #{alternate_on}"*) exit 1 ;; esac',
    )


def logged_pids(log: str) -> list[int]:
    """The pids a ``stalling_tmux`` wrapper logged, oldest first."""
    try:
        with open(log) as f:
            return [int(line) for line in f.read().split()]
    except FileNotFoundError:
        return []
