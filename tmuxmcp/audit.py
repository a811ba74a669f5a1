"""The audit log: one JSON line per tool call (and resource request), payloads redacted.

Enabled with ``--audit-log PATH`` (``TMUXMCP_AUDIT_LOG``). Each line holds the
time, the tool, the outcome (``ok``, ``cancelled`` or an error reference), the
duration, and the arguments, where a value is kept as sent only when it
carries no caller text:

* booleans and numbers;
* a string of a parameter declared ``id-only`` that is exactly an id of the
  declared kind (``%3``), or of a parameter declared ``closed-vocabulary``
  that is one of the declared values (an option name, a layout).

Every other value (text, commands, keys, names, titles, option values given as
strings, buffer names, patterns, lists, an id or closed value that failed to
validate) is replaced by its length and a short keyed hash (HMAC-SHA256 with a
key made fresh for each tmuxmcp process, 12 hex digits). Within one process
equal payloads get equal hashes; across processes they cannot be compared, and
the key makes guessing short payloads from their hash impractical. Argument
keys that are not declared parameters are not echoed: they are listed under
``unknown_arguments`` as hashes of key and value.

Which values stay readable is derived from each parameter's declared encoding
and type (``capability.decode``), never from a per-tool list, so a new string
parameter is redacted unless it is declared an id or a closed list.

Boundary (ADR, redaction): redaction applies to this audit record only. It
removes nothing from client transcripts, pane scrollback, process arguments,
shell history or anything else the operating system can observe.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import logging
import os
import re
import secrets
import time
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import inspect as mi

from tmuxmcp.capability.decode import closed_values, fields_of, id_kind
from tmuxmcp.capability.model import ToolSpec, params_of
from tmuxmcp.errors import ConfigError
from tmuxmcp.sinks import Encoding
from tmuxmcp.sinks.target import ID_PATTERNS

log = logging.getLogger("tmuxmcp.audit")

Readable = Callable[[Any], bool]


def _number(value: Any) -> bool:
    return isinstance(value, (bool, int, float))


def _clear_test(encoding: Encoding, declared: mi.Type) -> Readable:
    """Whether a value of this parameter may be logged as sent."""
    kind = id_kind(declared) if encoding is Encoding.ID_ONLY else None
    values = closed_values(declared) if encoding is Encoding.CLOSED_VOCABULARY else None
    if kind is not None:
        pattern = re.compile(ID_PATTERNS[kind])
        return lambda v: _number(v) or (isinstance(v, str) and pattern.fullmatch(v) is not None)
    if values is not None:
        allowed = frozenset(values)
        return lambda v: _number(v) or (isinstance(v, str) and v in allowed)
    return _number


@functools.cache
def _readable(spec: ToolSpec[Any, Any]) -> dict[str, Readable]:
    declared = fields_of(spec.args)
    return {p.name: _clear_test(p.encoding, declared[p.name]) for p in params_of(spec)}


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

    def arguments(
        self, spec: ToolSpec[Any, Any] | None, arguments: dict[str, Any]
    ) -> dict[str, Any]:
        """The declared arguments as they may appear in the record."""
        readable = _readable(spec) if spec is not None else {}
        return {
            key: value if key in readable and readable[key](value) else self.digest(value)
            for key, value in arguments.items()
            if key in readable
        }

    def unknown(
        self, spec: ToolSpec[Any, Any] | None, arguments: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """Arguments that are not declared parameters: key and value both hashed."""
        declared = _readable(spec) if spec is not None else {}
        return [
            {"key": self.digest(str(key)), "value": self.digest(value)}
            for key, value in arguments.items()
            if key not in declared
        ]

    def record(
        self,
        *,
        tool: str,
        spec: ToolSpec[Any, Any] | None,
        arguments: dict[str, Any] | None,
        outcome: str,
        duration: float,
    ) -> None:
        """Append one line; the write is a single append so lines never interleave."""
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
            + f".{int(time.time() * 1000) % 1000:03d}Z",
            "tool": tool if spec is not None else self.digest(tool),
            "outcome": outcome,
            "duration_ms": round(duration * 1000, 3),
            "arguments": self.arguments(spec, arguments or {}),
        }
        unknown = self.unknown(spec, arguments or {})
        if unknown:
            entry["unknown_arguments"] = unknown
        line = msgspec.json.encode(entry) + b"\n"
        try:
            os.write(self._fd, line)
        except OSError as exc:
            # An audit failure must not turn a finished call into a protocol error.
            log.error("could not write the audit log: %s", exc.strerror)
