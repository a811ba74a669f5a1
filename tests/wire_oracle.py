"""The official SDK as the oracle: every message a server wrote, checked with ``mcp_types``.

tmuxmcp serves MCP from its own code, so whether a client accepts what it
sends is not something tmuxmcp can decide for itself. ``Conversation`` holds
one connection's traffic, the client's messages as sent and the server's lines
as written, and ``problems`` answers with what the SDK's own models reject:

* Rule 1: every server line is one JSON-RPC message, decoded by the SDK's
  ``jsonrpc_message_adapter`` exactly as its stdio transport decodes it;
* Rule 2: a result is checked by ``mcp_types.methods.parse_server_result``
  for the method of the request it answers and the protocol version of that
  request: the version the ``initialize`` result negotiated, or for a
  stateless (2026-07-28) request the version its own ``_meta`` names; for a
  method that version does not list (``ping`` at 2026-07-28), the
  version-free model alone, as the SDK client does. The
  SDK has the wire shapes of two schema eras (2025-11-25 for every handshake
  version, 2026-07-28), so an older version is checked with the 2025-11-25
  shapes, as the SDK's own client checks it;
* Rule 3: an error is a ``JSONRPCError`` that answers a request the client
  sent (an id the SDK client never used is a server bug);
* Rule 4: a notification or a request from the server must be one the
  version defines (``parse_server_notification``, ``parse_server_request``);
* Rule 5: every request the client sent is answered at most once;
* Rule 6: the Tasks extension (``io.modelcontextprotocol/tasks``, 2026-07-28)
  has no models in mcp_types 2.3, so its shapes are checked with the models
  below, written from SEP-2663's schema (research/mcp-tasks.md): a
  ``tools/call`` answered ``resultType: "task"`` is a ``CreateTaskResult``;
  ``tasks/get`` a ``DetailedTask`` whose ``result``, when there is one, the
  SDK's own ``CallToolResult`` model accepts; ``tasks/cancel`` and
  ``tasks/update`` an empty ack. Only for a request that opted in: a task
  answer to any other request is a server bug.

Pure: no IO. ``tests/recording_stdio.py`` feeds it the bytes of a real
connection; the raw-handshake tests feed it their own lines.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import pydantic
from mcp_types import PROTOCOL_VERSION_META_KEY
from mcp_types import methods as sdk_methods
from mcp_types.jsonrpc import (
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"


class _Task(pydantic.BaseModel):
    """SEP-2663's ``Task`` (Rule 6): the fields every task shape carries."""

    model_config = pydantic.ConfigDict(extra="allow", strict=True)
    resultType: Literal["task", "complete"]
    taskId: Annotated[str, pydantic.StringConstraints(pattern=r"^[\x21-\x7e]{1,1024}$")]
    status: Literal["working", "input_required", "completed", "failed", "cancelled"]
    statusMessage: str | None = None
    createdAt: str
    lastUpdatedAt: str
    ttlMs: int | None
    pollIntervalMs: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class _Ack(pydantic.BaseModel):
    """The empty ack of ``tasks/cancel`` and ``tasks/update`` (Rule 6)."""

    model_config = pydantic.ConfigDict(extra="forbid", strict=True)
    resultType: Literal["complete"]
    meta: dict[str, Any] | None = pydantic.Field(default=None, alias="_meta")


def _opted_in(request: Mapping[str, Any]) -> bool:
    params = request.get("params")
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    caps = meta.get(CLIENT_CAPABILITIES) if isinstance(meta, Mapping) else None
    extensions = caps.get("extensions") if isinstance(caps, Mapping) else None
    return isinstance(extensions, Mapping) and TASKS_EXTENSION in extensions


def _task_problem(method: str, version: str, result: dict[str, Any]) -> str | None:
    """Rule 6 for one result of a task shape; None when it is accepted."""
    try:
        if method in ("tasks/cancel", "tasks/update"):
            _Ack.model_validate(result)
            return None
        task = _Task.model_validate(result)
        expected = "task" if method == "tools/call" else "complete"
        if task.resultType != expected:
            return f"a {method} task answer with resultType {task.resultType!r} (Rule 6)"
        if task.status == "completed" and task.result is None:
            return "a completed task without its result (Rule 6)"
        if task.result is not None:
            sdk_methods.parse_server_result("tools/call", version, task.result)
    except (ValueError, pydantic.ValidationError) as error:
        return f"the {method} task answer is rejected (Rule 6): {error}"
    return None


# How the SDK parses a notification or a request the server sent, for a method
# and a protocol version (``mcp_types.methods.parse_server_*``).
_ServerMessageParser = Callable[[str, str, dict[str, Any] | None], object]

# A failure quotes this much of the offending line: a 10,000-line capture is
# close to a megabyte, and the start of it says which message it was.
QUOTED = 2000


@dataclass(frozen=True)
class Problem:
    """One server message the SDK rejects, with why."""

    line: bytes
    reason: str

    def __str__(self) -> str:
        text = self.line.decode("utf-8", "replace")
        if len(text) > QUOTED:
            text = f"{text[:QUOTED]}... ({len(self.line)} bytes)"
        return f"{self.reason}\n    server wrote: {text}"


@dataclass
class Conversation:
    """One connection's traffic: the client's messages and the server's raw lines."""

    sent: list[Mapping[str, Any]] = field(default_factory=list)
    received: list[bytes] = field(default_factory=list)

    def client_sent(self, message: Mapping[str, Any]) -> None:
        self.sent.append(message)

    def server_wrote(self, line: bytes) -> None:
        self.received.append(line)

    def problems(self) -> list[Problem]:
        """Every server line the SDK's models reject (Rules 1-5), in the order written."""
        requests = {m["id"]: m for m in self.sent if "id" in m and "method" in m}
        checker = _Checker(requests)
        found: list[Problem] = []
        for line in self.received:
            reason = checker.check(line)
            if reason is not None:
                found.append(Problem(line, reason))
        return found

    def assert_valid(self) -> None:
        """Fail with every rejected message and the SDK's reason."""
        found = self.problems()
        if found:
            listed = "\n".join(f"- {p}" for p in found)
            raise AssertionError(
                f"the server sent {len(found)} message(s) the SDK's mcp_types reject:\n{listed}"
            )


def _request_version(request: Mapping[str, Any]) -> str | None:
    """The protocol version a stateless request names in its ``_meta``, if any."""
    params = request.get("params")
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    version = meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, Mapping) else None
    return version if isinstance(version, str) else None


@functools.cache
def _adapter(model: Any) -> pydantic.TypeAdapter[Any]:
    return pydantic.TypeAdapter(model)


class _Checker:
    """Walks the server's lines in order, learning the negotiated version on the way."""

    def __init__(self, requests: Mapping[Any, Mapping[str, Any]]) -> None:
        self.requests = requests
        self.negotiated: str | None = None
        self.answered: set[Any] = set()

    def check(self, line: bytes) -> str | None:
        try:
            message = jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError as error:  # pydantic's ValidationError is a ValueError
            return f"not a JSON-RPC message the SDK can decode (Rule 1): {error}"
        match message:
            case JSONRPCResponse(id=request_id, result=result):
                return self._result(request_id, result)
            case JSONRPCError(id=request_id):
                return self._error(request_id)
            case JSONRPCNotification(method=method, params=params):
                return self._from_server(
                    "notification", sdk_methods.parse_server_notification, method, params
                )
            case JSONRPCRequest(method=method, params=params):
                return self._from_server(
                    "request", sdk_methods.parse_server_request, method, params
                )

    def _version_for(self, request: Mapping[str, Any]) -> str | None:
        return _request_version(request) or self.negotiated

    def _answer(self, request_id: Any) -> tuple[Mapping[str, Any] | None, str | None]:
        """The request an answer belongs to, or why it belongs to none (Rules 3, 5)."""
        request = self.requests.get(request_id)
        if request is None:
            return None, f"answers id {request_id!r}, which the client never sent (Rule 3)"
        if request_id in self.answered:
            return None, f"a second answer to request id {request_id!r} (Rule 5)"
        self.answered.add(request_id)
        return request, None

    def _result(self, request_id: Any, result: dict[str, Any]) -> str | None:
        request, wrong = self._answer(request_id)
        if request is None:
            return wrong
        method = request["method"]
        if method == "initialize":
            version = result.get("protocolVersion")
            if not isinstance(version, str):
                return "an initialize result without a protocolVersion string (Rule 2)"
            self.negotiated = version
        else:
            version = self._version_for(request)
        if version is None:
            return f"a {method} result before any protocol version was negotiated (Rule 2)"
        if method.startswith("tasks/") or result.get("resultType") == "task":
            if not _opted_in(request):
                return f"a {method} task answer to a request that did not opt in (Rule 6)"
            return _task_problem(method, version, result)
        try:
            sdk_methods.parse_server_result(method, version, result)
        except KeyError:
            # The SDK client then checks the version-free model alone (a
            # method this version's schema dropped, e.g. ping at 2026-07-28).
            model = sdk_methods.MONOLITH_RESULTS.get(method)
            if model is None:
                return f"the SDK has no result model for {method} (Rule 2)"
            try:
                _adapter(model).validate_python(result, by_name=False)
            except pydantic.ValidationError as error:
                return f"the {method} result is rejected (Rule 2): {error}"
        except (ValueError, pydantic.ValidationError) as error:
            return f"the {method} result at protocol {version} is rejected (Rule 2): {error}"
        return None

    def _error(self, request_id: Any) -> str | None:
        if request_id is None:
            return "an error with id null, though every request the client sent had an id (Rule 3)"
        _, wrong = self._answer(request_id)
        return wrong

    def _from_server(
        self, kind: str, parse: _ServerMessageParser, method: str, params: dict[str, Any] | None
    ) -> str | None:
        """Rule 4 for a server's ``kind`` ("notification" or "request"), with the SDK's
        ``parse`` for that kind."""
        version = self._connection_version()
        if version is None:
            return f"{kind} {method} before any protocol version was negotiated (Rule 4)"
        try:
            parse(method, version, params)
        except KeyError:
            return f"protocol {version} defines no server {kind} {method} (Rule 4)"
        except (ValueError, pydantic.ValidationError) as error:
            return f"{kind} {method} at protocol {version} is rejected (Rule 4): {error}"
        return None

    def _connection_version(self) -> str | None:
        """The handshake's version, or the version the latest stateless request named."""
        if self.negotiated is not None:
            return self.negotiated
        named = [v for v in map(_request_version, self.requests.values()) if v is not None]
        return named[-1] if named else None
