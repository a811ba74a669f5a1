"""A newline-JSON MCP client over a real ``python -m tmuxmcp`` subprocess.

Like ``tests.support.RawClient``, but byte-exact and safe for fuzzing:

* each message is ``json.dumps`` with ASCII escapes, so lone surrogates and
  NUL travel as ``\\udXXX`` and ``\\u0000`` exactly as a hostile client would
  send them;
* the server's stderr goes to a file, so megabytes of logged tracebacks can
  never fill a pipe and stall the server; ``stderr()`` reads it back;
* every reply is awaited with a deadline; a reply that never comes, or a
  closed stdout, is a failure of invariant 3, not a hang.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from typing import Any


class WireClient:
    """One tmuxmcp server process and a synchronous JSON-RPC client for it."""

    def __init__(self, env: dict[str, str], cwd: str, *args: str) -> None:
        self._stderr_path = os.path.join(cwd, "tmuxmcp-stderr.log")
        self._stderr = open(self._stderr_path, "wb")  # noqa: SIM115 (closed in close())
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tmuxmcp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            cwd=cwd,
        )
        assert self.proc.stdout is not None
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)
        self._buffer = b""
        self._next = 0
        reply = self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "fuzz", "version": "0"},
            },
        )
        assert "result" in reply, reply
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode("ascii") + b"\n")
        self.proc.stdin.flush()

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
        return line

    def request(self, method: str, params: Any, timeout: float = 60.0) -> dict[str, Any]:
        """Send a request; return its reply (result or error), skipping notifications."""
        self._next += 1
        wanted = self._next
        self._send({"jsonrpc": "2.0", "id": wanted, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            reply: dict[str, Any] = json.loads(self._line(deadline))
            if reply.get("id") == wanted:
                return reply

    def stderr(self) -> str:
        """Everything the server wrote to stderr so far (also after ``close``)."""
        with open(self._stderr_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def close(self) -> int:
        """Close stdin and wait for the server to exit; its exit status."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            status = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            status = self.proc.wait()
        self._selector.close()
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        self._stderr.close()
        return status
