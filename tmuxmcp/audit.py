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

Nothing on the audit path can stop serving (issue 27 N4):

* the log is a regular file, opened once at startup without following a
  symbolic link and without waiting (``O_NOFOLLOW | O_NONBLOCK``, then
  ``fstat``): a FIFO, a device (``/dev/stderr``), a socket or a link there is
  refused with an error that says what to name instead, so a reader that
  never opens or never reads cannot hold the server;
* a record is handed to a ``spool.Spool`` and written by its worker thread,
  so even a regular file on a filesystem that hangs never blocks the event
  loop: past ``spool.DEFAULT_LIMIT`` records waiting, a record is dropped and
  counted;
* a record that is dropped or cannot be written is reported once on stderr,
  and the count lost when the server stops; the call answers all the same.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import hmac
import logging
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Collection
from typing import Any

import msgspec
from msgspec import inspect as mi

from tmuxmcp.capability.decode import closed_values, fields_of, id_kind
from tmuxmcp.capability.model import ToolSpec, params_of
from tmuxmcp.errors import ConfigError
from tmuxmcp.sinks import Encoding
from tmuxmcp.sinks.target import ID_PATTERNS
from tmuxmcp.spool import Spool

log = logging.getLogger("tmuxmcp.audit")

SECRET: dict[str, Any] = {"secret": True}
"""How an argument typed into a password prompt is recorded: nothing of it, not even its
length (issue 28.6)."""

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


FLUSH_SECONDS = 2.0
"""How long the end of serving waits for records still queued (``close``)."""

_OPEN_FLAGS = (
    os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOCTTY | os.O_NOFOLLOW
) | os.O_NONBLOCK  # a FIFO without a reader fails at once (ENXIO) instead of waiting


def _kind(mode: int) -> str:
    """What a file that is not a regular one is, in the words of a refusal."""
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _refusal(path: str, what: str) -> ConfigError:
    return ConfigError(
        f"--audit-log {path} is {what}; the audit log is written only to a regular file, "
        "so that no reader can hold the server: name a regular file, or a new one to create"
    )


def open_log(path: str) -> int:
    """A descriptor for appending to the regular file ``path`` (created 0600), opened
    without following a link or waiting; ``ConfigError`` saying what to fix otherwise."""
    absolute = os.path.abspath(path)
    if not os.path.isdir(os.path.dirname(absolute)):
        raise ConfigError("--audit-log must be in an existing directory")
    try:
        found = os.lstat(absolute)
    except FileNotFoundError:
        found = None
    except OSError as exc:
        raise ConfigError(f"cannot open --audit-log: {exc.strerror}") from None
    if found is not None and stat.S_ISLNK(found.st_mode):
        raise ConfigError(
            f"--audit-log {path} is a symbolic link, which tmuxmcp does not follow there; "
            "name the regular file itself (for example its `realpath`)"
        )
    if found is not None and not stat.S_ISREG(found.st_mode):
        # Refused before opening: opening a device or a FIFO can itself act or wait.
        raise _refusal(path, _kind(found.st_mode))
    try:
        fd = os.open(absolute, _OPEN_FLAGS, 0o600)
    except OSError as exc:
        # Replaced between the look and the open: the flags refuse what the look would.
        if exc.errno == errno.ELOOP:
            raise _refusal(path, "a symbolic link") from None
        if exc.errno == errno.ENXIO:
            raise _refusal(path, "a FIFO or a device") from None
        raise ConfigError(f"cannot open --audit-log: {exc.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise _refusal(path, _kind(mode))
    return fd


class AuditLog:
    """An append-only JSON-lines regular file, opened once at startup, written by a spool."""

    def __init__(self, path: str) -> None:
        self._fd = open_log(path)
        self.path = os.path.abspath(path)
        self._key = secrets.token_bytes(32)
        self._spool = Spool(self._fd, on_loss=self._losing)

    def _losing(self, why: str) -> None:
        # Once per process (spool Rule 3): the count is given again at the end.
        log.error(
            "the audit log %s is losing records (%s); calls are answered all the same",
            self.path,
            why,
        )

    @property
    def lost(self) -> int:
        """Records dropped or not written so far."""
        return self._spool.lost

    def close(self, timeout: float = FLUSH_SECONDS) -> None:
        """Wait a bounded time for the records still queued; say how many were lost."""
        if not self._spool.flush(timeout):
            log.error(
                "the audit log %s was still being written after %g s; records still "
                "queued are lost",
                self.path,
                timeout,
            )
        if self._spool.lost:
            log.error("the audit log %s lost %d record(s)", self.path, self._spool.lost)

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
        secret: Collection[str] = (),
    ) -> None:
        """Queue one line; the spool writes each line whole, in order (``spool`` Rule 2).

        ``secret`` names the arguments the call found typed into a password prompt
        (``tools.context.CallNotes``): they are recorded as ``{"secret": true}``,
        without the length or hash every other payload gets (issue 28.6)."""
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
            + f".{int(time.time() * 1000) % 1000:03d}Z",
            "tool": tool if spec is not None else self.digest(tool),
            "outcome": outcome,
            "duration_ms": round(duration * 1000, 3),
            "arguments": {
                key: SECRET if key in secret else value
                for key, value in self.arguments(spec, arguments or {}).items()
            },
        }
        unknown = self.unknown(spec, arguments or {})
        if unknown:
            entry["unknown_arguments"] = unknown
        # Queued, never written here: the event loop must not wait for the disk
        # (module docstring); an audit failure never fails the call.
        self._spool.put(msgspec.json.encode(entry) + b"\n")
