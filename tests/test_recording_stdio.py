"""The tests' recording stdio transport: exact bytes recorded, the server always reaped."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import trio
from mcp import StdioServerParameters
from mcp.shared.message import SessionMessage
from mcp_types.jsonrpc import JSONRPCNotification

from tests.process_support import alive
from tests.recording_stdio import recorded_stdio
from tests.wire_oracle import Conversation


async def test_every_byte_of_every_line_is_recorded_and_the_client_side_too() -> None:
    """Lines are recorded as written (key order, spacing, escapes), and one that is not
    JSON-RPC reaches the session as an exception while the connection goes on."""
    lines = [b'{"jsonrpc":"2.0" ,  "method":"notifications/x","params":{"s":"\\u00e9"}}', b"oops"]
    written = b"".join(line + b"\n" for line in lines)
    script = (
        f"import sys\nsys.stdout.buffer.write({written!r})\nsys.stdout.flush()\nsys.stdin.read()\n"
    )
    conversation = Conversation()
    params = StdioServerParameters(command=sys.executable, args=["-c", script])
    async with recorded_stdio(params, conversation) as (read, write):
        first = await read.receive()
        second = await read.receive()
        sent = JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized")
        await write.send(SessionMessage(sent))
    assert conversation.received == lines
    assert isinstance(first, SessionMessage)
    assert isinstance(second, Exception)
    assert conversation.sent == [{"jsonrpc": "2.0", "method": "notifications/initialized"}]


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return ""


async def test_a_server_that_ignores_eof_and_sigterm_is_killed_and_reaped(tmp_path: Path) -> None:
    """Shutdown escalates to the process group's SIGKILL; no process is left behind."""
    pid_file = os.path.join(tmp_path, "pid")
    script = textwrap.dedent(
        f"""
        import os, signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        with open({pid_file!r}, "w") as f:
            f.write(str(os.getpid()))
        while True:
            time.sleep(1)
        """
    )
    params = StdioServerParameters(command=sys.executable, args=["-c", script])
    async with recorded_stdio(params, Conversation()):
        with trio.fail_after(20):
            while not _read(pid_file):
                await trio.sleep(0.01)
    pid = int(_read(pid_file))
    assert not alive(pid)
    assert not os.path.exists(f"/proc/{pid}"), "the server was not reaped"
