"""The lab: one throwaway tmux server in a private directory, and the encoders under test.

Rules every probe relies on:

* Rule 1, private: everything happens in a fresh directory from
  ``tempfile.mkdtemp``: the server's socket (``-S``), ``TMUX_TMPDIR`` and the
  sentinel files. No probe names a ``-L`` label, so the user's sockets are
  never contacted; ``open_lab`` kills the server and removes the directory
  at the end.
* Rule 2, deterministic: fixed inputs, no randomness, every tmux call and
  every wait has a deadline (``PROBE_SECONDS``). A probe passes only when
  tmux behaves as the claim says; it reports otherwise by raising
  ``ClaimFailed`` (the runner turns any other exception into a FAIL too,
  never a traceback).
* Rule 3, the code under test is passed in: ``Encoders`` holds the functions
  tmuxmcp uses, looked up when a run starts, so a test can substitute a
  broken encoder (or monkeypatch ``tmuxmcp.sinks.format.escape_format``) and
  watch the claim FAIL.
* Rule 4, a sentinel file exists only if tmux ran a shell job or a command it
  should not have: ``#(touch S)`` payloads and injected ``run-shell`` both
  name a file in the sentinel directory, cleared before each claim.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import msgspec

from tmuxmcp.config import child_environment
from tmuxmcp.driver import _spawn
from tmuxmcp.driver import argv as driver_argv
from tmuxmcp.errors import TmuxMcpError
from tmuxmcp.sinks import format as sinks_format
from tmuxmcp.sinks import names as sinks_names
from tmuxmcp.sinks import path as sinks_path
from tmuxmcp.sinks import target as sinks_target
from tmuxmcp.sinks import text as sinks_text
from tmuxmcp.sinks.names import NameKind

PROBE_SECONDS = 10.0
"""Deadline for each tmux invocation and each wait inside a probe."""


class ClaimFailed(Exception):
    """A probe observed tmux contradicting its claim."""


class Encoders(msgspec.Struct, frozen=True, kw_only=True):
    """The encoding functions under test (Rule 3)."""

    format: Callable[[str], str]
    """``sinks.format.escape_format``: text whose expansion is the value."""
    argv: Callable[[str], str]
    """``driver.argv.escape_element``: one argv element tmux never splits."""
    name: Callable[[str, NameKind, str], str]
    """``sinks.names.encode_name``: the name rule, then the format escape."""
    directory: Callable[[str, str], str]
    """``sinks.path.encode_directory``: an existing directory, format-escaped."""
    text: Callable[..., bytes]
    """``sinks.text.encode_text``: the bytes pasted for a pane program."""
    target: Callable[[str, Any, str], str]
    """``sinks.target.encode_id``: an exact id or an error."""


def current_encoders() -> Encoders:
    """The functions tmuxmcp uses right now (looked up, so monkeypatching shows)."""
    return Encoders(
        format=sinks_format.escape_format,
        argv=driver_argv.escape_element,
        name=sinks_names.encode_name,
        directory=sinks_path.encode_directory,
        text=sinks_text.encode_text,
        target=sinks_target.encode_id,
    )


def fill_argv(template: str, *values: str) -> list[str]:
    """Constant words split on spaces; each ``{}`` word is replaced by the next value whole.

    ``fill_argv("show-buffer -b {}", name)`` -> ``["show-buffer", "-b", name]``.
    """
    pending = iter(values)
    out = [next(pending) if word == "{}" else word for word in template.split()]
    if next(pending, None) is not None:
        raise ValueError("more values than {} slots")
    return out


class Lab:
    """One throwaway tmux server in a private directory (Rule 1)."""

    def __init__(self, binary: str, directory: str, encoders: Encoders) -> None:
        self.binary = binary
        self.directory = directory
        self.encoders = encoders
        self.socket = os.path.join(directory, "s")
        self.sentinels = os.path.join(directory, "sentinels")
        os.mkdir(self.sentinels)
        self.env = {
            **child_environment(os.environ),
            "TMUX_TMPDIR": directory,
            "SHELL": "/bin/sh",
        }
        self.session = self.window = self.pane = ""

    async def start(self) -> str:
        """Start the server with the session every probe may use; tmux's ``#{version}``."""
        self.session, self.window, self.pane = await self.new_session("verify")
        return (await self.ok(["display-message", "-p", "#{version}"])).strip()

    async def tmux(
        self, argv: Sequence[str], *, stdin: bytes | None = None, socket: str | None = None
    ) -> _spawn.Completed:
        """``tmux -u -f /dev/null -S <private socket> argv`` (never a -L label)."""
        full = [self.binary, "-u", "-f", "/dev/null", "-S", socket or self.socket, *argv]
        return await _spawn.run_argv(full, env=self.env, seconds=PROBE_SECONDS, stdin=stdin)

    async def ok(self, argv: Sequence[str], *, stdin: bytes | None = None) -> str:
        """Run ``argv``; its stdout, or ClaimFailed with tmux's error."""
        done = await self.tmux(argv, stdin=stdin)
        if done.returncode != 0:
            error = done.stderr.decode("utf-8", "replace").strip()
            raise ClaimFailed(f"tmux {argv[0]} failed: {error[:200]}")
        return done.stdout.decode("utf-8", "replace")

    def signal_from_shell(self, channel: str) -> str:
        """Shell text a pane program runs to signal ``channel``, which ``wait-for`` awaits.

        Probes wait for a pane program this way instead of polling.
        """
        return f"{shlex.quote(self.binary)} -S {shlex.quote(self.socket)} wait-for -S {channel}"

    def sentinel(self, name: str) -> str:
        """A path that only an executed job or injected command would create (Rule 4)."""
        return os.path.join(self.sentinels, name)

    def fired(self) -> list[str]:
        """Sentinels that exist (there must be none)."""
        return sorted(os.listdir(self.sentinels))

    def clear_sentinels(self) -> None:
        """Remove every sentinel, so one claim's failure cannot hide another's."""
        for name in self.fired():
            os.unlink(self.sentinel(name))

    async def new_session(self, name: str, *command: str) -> tuple[str, str, str]:
        """A detached 80x24 session; its session, window and pane ids."""
        out = await self.ok(
            [
                "new-session", "-d", "-s", name, "-x", "80", "-y", "24",
                "-P", "-F", "#{session_id} #{window_id} #{pane_id}",
                "--", *(command or ("sleep", "600")),
            ]
        )  # fmt: skip
        session, window, pane = out.split()
        return session, window, pane


@contextlib.asynccontextmanager
async def open_lab(binary: str, encoders: Encoders) -> AsyncIterator[Lab]:
    """A lab in a fresh private directory; on exit its server is killed and the
    directory removed (Rule 1). The server starts with ``Lab.start``."""
    directory = tempfile.mkdtemp(prefix="tmuxmcp-verify-")
    try:
        lab = Lab(binary, directory, encoders)
        try:
            yield lab
        finally:
            with contextlib.suppress(TmuxMcpError):
                await lab.tmux(["kill-server"])
    finally:
        shutil.rmtree(directory, ignore_errors=True)
