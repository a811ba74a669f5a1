"""The tests' stdio transport for the SDK client: the SDK's framing, with a recorder on it.

``recorded_stdio`` is what ``mcp.client.stdio.stdio_client`` is to a
``ClientSession`` or an ``mcp.Client`` (it yields the same read and write
streams of ``SessionMessage``), and it also hands every line the server wrote,
byte for byte, and every message the client sent to a
``tests.wire_oracle.Conversation``. The SDK's own transport decodes the
server's output inside itself, so no wrapper around it sees those bytes.

The rules it keeps, the SDK transport's own:

* framing: newline-delimited JSON; a line is decoded with the SDK's
  ``jsonrpc_message_adapter``, and one it cannot decode reaches the session
  as an exception (the session reports it, the connection goes on);
* a message the client sends is written as the SDK writes it
  (``model_dump_json(by_alias=True, exclude_unset=True)``);
* the environment is the SDK's safe default under the given one; the server
  runs in its own session (process group), with stderr to ``errlog``;
* shutdown closes stdin, gives the server 2 s to exit, then signals its
  process group (SIGTERM, SIGKILL 2 s later); every wait is bounded, and the
  server is reaped before this returns, whatever cancelled the caller.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import TextIO

import anyio
from anyio.abc import Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import StdioServerParameters
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage
from mcp_types.jsonrpc import jsonrpc_message_adapter

from tests.wire_oracle import Conversation

EXIT_GRACE = 2.0  # the SDK transport's grace after stdin closes, and after SIGTERM

Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]


def _decoded(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as error:
        return error


async def _stop(process: Process) -> None:
    """Close stdin, then escalate to the process group; bounded, always reaped."""
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        if process.stdin is not None:
            await process.stdin.aclose()
    for sent in (None, signal.SIGTERM, signal.SIGKILL):
        if sent is not None:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sent)
        with anyio.move_on_after(EXIT_GRACE):
            await process.wait()
            return


@asynccontextmanager
async def recorded_stdio(
    server: StdioServerParameters, conversation: Conversation, errlog: TextIO = sys.stderr
) -> AsyncIterator[Streams]:
    """Start ``server``; yield the session's streams; record the traffic in ``conversation``."""
    process = await anyio.open_process(
        [server.command, *server.args],
        env=get_default_environment() | (server.env or {}),
        stderr=errlog,
        cwd=server.cwd,
        start_new_session=True,
    )
    to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    read_all = anyio.Event()

    async def read_server() -> None:
        assert process.stdout is not None
        buffer = b""
        delivering = True
        try:
            async with to_session:
                async for chunk in process.stdout:
                    *lines, buffer = (buffer + chunk).split(b"\n")
                    for line in lines:
                        conversation.server_wrote(line)
                        if delivering:
                            try:
                                await to_session.send(_decoded(line))
                            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                                delivering = False  # the session is gone; keep recording
            if buffer:
                conversation.server_wrote(buffer)
        finally:
            read_all.set()

    async def write_server() -> None:
        assert process.stdin is not None
        async with from_session:
            async for outgoing in from_session:
                text = outgoing.message.model_dump_json(by_alias=True, exclude_unset=True)
                conversation.client_sent(json.loads(text))
                try:
                    await process.stdin.send(text.encode() + b"\n")
                except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                    return

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_server)
        tasks.start_soon(write_server)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await write_stream.aclose()
                await read_stream.aclose()
                await _stop(process)
                # The reader ends at the server's EOF, with every line
                # recorded; a descendant holding the pipe open must not hold
                # this transport open too.
                with anyio.move_on_after(EXIT_GRACE):
                    await read_all.wait()
            tasks.cancel_scope.cancel()
