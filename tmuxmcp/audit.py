"""The audit log: one JSON line per tool call, with payloads redacted.

Enabled with ``--audit-log PATH`` (``TMUXMCP_AUDIT_LOG``). Each line holds the
time, the tool, the outcome (``ok``, ``cancelled`` or an error reference), the
duration, and the arguments, where:

* values of parameters whose sink is ``target``, ``numeric``, ``flag`` or
  ``local`` (ids, numbers, booleans, limits) are kept as sent;
* every other value (text, commands, keys, names, titles, option names and
  values, buffer names, patterns) and every argument that is not a declared
  parameter is replaced by its length and a short keyed hash
  (HMAC-SHA256 with a key made fresh for each tmuxmcp process, 12 hex
  digits). Within one process equal payloads get equal hashes; across
  processes they cannot be compared, and the key makes guessing short
  payloads from their hash impractical.

Which values stay readable is derived from the capability definition's sink
classification, so a new parameter is redacted unless its sink says it is an
id, number or flag.

Boundary (ADR, redaction): redaction applies to this audit record only. It
removes nothing from client transcripts, pane scrollback, process arguments,
shell history or anything else the operating system can observe.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import time
from typing import Any

import msgspec

from tmuxmcp.capability.model import ToolSpec, params_of
from tmuxmcp.errors import ConfigError
from tmuxmcp.sinks import Sink

log = logging.getLogger("tmuxmcp.audit")

CLEAR_SINKS = frozenset({Sink.TARGET, Sink.NUMERIC, Sink.FLAG, Sink.LOCAL})
_MAX_CLEAR_CHARS = 64


class AuditLog:
    """An append-only JSON-lines file, opened once at startup."""

    def __init__(self, path: str) -> None:
        absolute = os.path.abspath(path)
        if not os.path.isdir(os.path.dirname(absolute)):
            raise ConfigError("--audit-log must be in an existing directory")
        try:
            self._fd = os.open(
                absolute, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600
            )
        except OSError as exc:
            raise ConfigError(f"cannot open --audit-log: {exc.strerror}") from None
        self.path = absolute
        self._key = secrets.token_bytes(32)

    def digest(self, value: Any) -> dict[str, Any]:
        """Length and keyed hash of a payload."""
        data = value if isinstance(value, str) else msgspec.json.encode(value).decode()
        mac = hmac.new(self._key, data.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return {"redacted": True, "length": len(data), "hmac": mac.hexdigest()[:12]}

    def arguments(self, spec: ToolSpec | None, arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments as they may appear in the record."""
        clear = {p.name for p in params_of(spec) if p.sink in CLEAR_SINKS} if spec else set()
        shown: dict[str, Any] = {}
        for key, value in arguments.items():
            readable = isinstance(value, (bool, int, float)) or (
                isinstance(value, str) and len(value) <= _MAX_CLEAR_CHARS
            )
            shown[str(key)[:_MAX_CLEAR_CHARS]] = (
                value if key in clear and readable else self.digest(value)
            )
        return shown

    def record(
        self,
        *,
        tool: str,
        spec: ToolSpec | None,
        arguments: dict[str, Any] | None,
        outcome: str,
        duration: float,
    ) -> None:
        """Append one line; the write is a single append so lines never interleave."""
        entry = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
            + f".{int(time.time() * 1000) % 1000:03d}Z",
            "tool": tool if spec is not None else self.digest(tool),
            "outcome": outcome,
            "duration_ms": round(duration * 1000, 3),
            "arguments": self.arguments(spec, arguments or {}),
        }
        line = msgspec.json.encode(entry) + b"\n"
        try:
            os.write(self._fd, line)
        except OSError as exc:
            # An audit failure must not turn a finished call into a protocol error.
            log.error("could not write the audit log: %s", exc.strerror)
