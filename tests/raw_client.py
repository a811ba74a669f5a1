"""The one raw JSON-RPC client of the tests, the fuzz suite and the benchmarks.

``RawClient`` runs ``python -m tmuxmcp`` as a subprocess and talks
newline-delimited JSON-RPC to it synchronously, below the SDK: for hypothesis
properties that run examples synchronously against one long-lived server,
for lines no SDK client would send, and for probes of the process itself.
The rules it keeps:

* byte-exact: a message is ``json.dumps`` with ASCII escapes, so lone
  surrogates and NUL travel as ``\\udXXX`` and ``\\u0000`` exactly as a
  hostile client would send them; ``send_line`` writes any bytes at all,
  ``write`` without a line end, and ``raw_lines`` reads lines as bytes;
* the server's stderr goes to an anonymous file, never a pipe, so megabytes
  of logged tracebacks cannot fill a pipe and stall the server; ``stderr()``
  reads it back, also after ``close``;
* ``on_line``, if given, sees every line the server wrote, byte for byte,
  before it is parsed (``tests.wire_oracle.Conversation.server_wrote``);
* every reply is awaited with a deadline, and output is read with
  ``os.read`` (a buffered ``readline`` behind ``select`` can hide a line it
  has already read); a reply that never comes, or a closed stdout, fails with
  ``AssertionError`` rather than hanging.

``raw_exchange`` is the batch form: send every line, then wait for a reply to
each request id.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

PROTOCOL_VERSION = "2025-06-18"


def initialize_params(name: str = "raw") -> dict[str, Any]:
    """The ``initialize`` params of a client that asks for nothing."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": name, "version": "0"},
    }


def handshake(name: str = "raw", protocol: str = PROTOCOL_VERSION) -> list[dict[str, Any]]:
    """The messages that open a session: ``initialize`` as request id 1, then ``initialized``."""
    params = initialize_params(name) | {"protocolVersion": protocol}
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]


class RawClient:
    """One tmuxmcp server process and a synchronous JSON-RPC client for it."""

    def __init__(
        self,
        env: dict[str, str],
        *args: str,
        cwd: str | None = None,
        initialize: bool = True,
        name: str = "raw",
        on_line: Callable[[bytes], None] | None = None,
        command: Sequence[str] | None = None,
        stderr: int | None = None,
    ) -> None:
        """``command`` replaces ``python -m tmuxmcp`` (a benchmark's peer server); ``args``
        follow it either way. ``stderr``, a descriptor, replaces the anonymous file (a
        test of a stderr nobody reads); ``stderr()`` then reads nothing."""
        self._on_line = on_line
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        self.proc = subprocess.Popen(
            [*(command or (sys.executable, "-m", "tmuxmcp")), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr if stderr is None else stderr,
            env=env,
            cwd=cwd,
        )
        assert self.proc.stdout is not None
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)
        self._buffer = b""
        self._next = 0
        self._final_stderr: str | None = None
        if initialize:
            reply = self.request("initialize", initialize_params(name))
            assert "result" in reply, reply
            self.notify("notifications/initialized")

    # -- sending ---------------------------------------------------------------------

    def send_line(self, line: bytes) -> None:
        """Write ``line`` and a newline, whatever the bytes are."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def write(self, data: bytes) -> None:
        """Write ``data`` as it is, with no line end added."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        """Write one message as a line of ASCII-escaped JSON."""
        self.send_line(json.dumps(message).encode("ascii"))

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    # -- receiving -------------------------------------------------------------------

    def _line(self, deadline: float) -> bytes:
        assert self.proc.stdout is not None
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError("tmuxmcp did not reply before the deadline")
            if not self._selector.select(timeout=min(remaining, 1.0)):
                continue
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not chunk:
                raise AssertionError("tmuxmcp closed its output (it stopped serving)")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        if self._on_line is not None:
            self._on_line(line)
        return line

    def raw_lines(self, count: int, timeout: float = 30.0) -> list[bytes]:
        """The next ``count`` lines the server writes, as bytes (a line need not be UTF-8)."""
        deadline = time.monotonic() + timeout
        return [self._line(deadline) for _ in range(count)]

    def reply(self, wanted: Any, timeout: float = 60.0) -> dict[str, Any]:
        """The reply to request id ``wanted``, skipping every other message."""
        deadline = time.monotonic() + timeout
        while True:
            message: dict[str, Any] = json.loads(self._line(deadline))
            if message.get("id") == wanted:
                return message

    def message(self, timeout: float = 30.0) -> dict[str, Any]:
        """The next message, whatever it is (a reply or a notification)."""
        found: dict[str, Any] = json.loads(self._line(time.monotonic() + timeout))
        return found

    def messages(self, wanted: set[Any], timeout: float = 30.0) -> list[dict[str, Any]]:
        """Every message, in order, until each id in ``wanted`` has a reply, the deadline
        passes or the server closes its output."""
        found: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        # A deadline or a closed output ends the wait: what arrived is the
        # answer, and the caller checks it.
        with contextlib.suppress(AssertionError):
            while not wanted <= {message.get("id") for message in found if "id" in message}:
                found.append(json.loads(self._line(deadline)))
        return found

    def replies(self, wanted: set[Any], timeout: float = 30.0) -> dict[Any, dict[str, Any]]:
        """``messages`` by id; those without an id (notifications) are left out."""
        return {m["id"]: m for m in self.messages(wanted, timeout) if "id" in m}

    # -- calls -----------------------------------------------------------------------

    def request(self, method: str, params: Any, timeout: float = 60.0) -> dict[str, Any]:
        """Send a request; return its reply (result or error)."""
        self._next += 1
        wanted = self._next
        self.send({"jsonrpc": "2.0", "id": wanted, "method": method, "params": params})
        return self.reply(wanted, timeout)

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """``tools/call``; returns the JSON-RPC result (which may have isError)."""
        reply = self.request("tools/call", {"name": name, "arguments": arguments})
        if "error" in reply:
            raise AssertionError(f"protocol error: {reply['error']}")
        result: dict[str, Any] = reply["result"]
        return result

    # -- the process -----------------------------------------------------------------

    def stderr(self) -> str:
        """Everything the server wrote to stderr so far (also after ``close``)."""
        if self._final_stderr is not None:
            return self._final_stderr
        return os.pread(self._stderr.fileno(), 1 << 30, 0).decode("utf-8", "replace")

    def close(self) -> int:
        """Close stdin and wait for the server to exit (killed after 20 s); its status."""
        if self._final_stderr is not None:
            return self.proc.returncode
        assert self.proc.stdin is not None and self.proc.stdout is not None
        # A server that already stopped reading: its exit status says why.
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.close()
        try:
            status = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            status = self.proc.wait()
        self._selector.close()
        self.proc.stdout.close()
        self._final_stderr = self.stderr()
        self._stderr.close()
        return status

    def __enter__(self) -> RawClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def raw_exchange(
    env: dict[str, str],
    args: Sequence[str],
    messages: Sequence[dict[str, Any]],
    *,
    timeout: float = 30.0,
) -> tuple[dict[Any, dict[str, Any]], str]:
    """Send raw JSON-RPC lines; wait for a reply to every request id; return replies, stderr.

    stdin stays open until every reply arrived: a stdio server may drop
    in-flight requests once its input ends.
    """
    with RawClient(env, *args, initialize=False) as client:
        for message in messages:
            client.send(message)
        replies = client.replies({m["id"] for m in messages if "id" in m}, timeout)
    return replies, client.stderr()
