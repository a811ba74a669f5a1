"""``transport``: the stdio wire, claimed from fds 0 and 1 and driven without threads.

Promises under test: lines are split and decoded as the SDK's text-file
reader does (universal newlines, U+FFFD for bad UTF-8), however the bytes are
chunked; lone surrogates are scrubbed and marked; a response is written
whole even under cancellation; while serving, fd 0 reads /dev/null and fd 1
writes to stderr, so stray output never reaches the wire; both are restored,
blocking, afterwards; a pipe, a socketpair (Node clients) and a regular file
all work, the last through the thread-backed path.
"""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import textwrap
from typing import Any

import trio
from hypothesis import given
from hypothesis import strategies as st

from tests.support import PrivateTmux
from tmuxmcp.transport import (
    LONE_SURROGATE_META,
    StreamLines,
    StreamWriter,
    guard_line,
    split_lines,
)

# ------------------------------------------------------------------- pure parts


def _as_text_file_reads(data: bytes) -> list[str]:
    """What the SDK's reader yields: a UTF-8 text file in universal-newline mode."""
    return list(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace"))


class _Chunks(trio.abc.ReceiveStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = list(chunks)

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.lowlevel.checkpoint()
        return self._chunks.pop(0) if self._chunks else b""

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


def _read_all(chunks: list[bytes]) -> list[str]:
    async def main() -> list[str]:
        return [line async for line in StreamLines(_Chunks(chunks))]

    return trio.run(main)


_PIECES = st.lists(
    st.sampled_from(
        [b"\n", b"\r", b"\r\n", b"{", b'"a"', b" ", b"\xc3\xa9", b"\xe2\x80\xa8", b"\xff", b"\xc3"]
    ),
    max_size=40,
)


@given(_PIECES, st.lists(st.integers(0, 40), max_size=8))
def test_lines_match_the_sdk_text_reader_however_chunked(
    pieces: list[bytes], cuts: list[int]
) -> None:
    data = b"".join(pieces)
    bounds = sorted({min(c, len(data)) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *bounds], [*bounds, len(data)], strict=True)]
    expected = [guard_line(line) for line in _as_text_file_reads(data)]
    assert _read_all([c for c in chunks if c]) == expected


def test_line_separators_inside_json_strings_do_not_split() -> None:
    """U+2028, U+0085 and form feeds are valid unescaped in JSON strings."""
    text = '{"a":"x\u2028y\u0085z\x0c"}\n'
    assert split_lines(text) == [text]


def test_a_final_line_without_newline_is_read() -> None:
    assert _read_all([b'{"id":1}\n{"id"', b":2}"]) == ['{"id":1}\n', '{"id":2}']
    assert _read_all([]) == []


def test_lone_surrogates_are_scrubbed_and_a_tool_call_is_marked() -> None:
    call = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "x", "arguments": {"t": "a\ud800b"}}}
    )  # fmt: skip
    message = json.loads(_read_all([call.encode() + b"\n"])[0])
    assert message["params"]["arguments"]["t"] == "a\ufffdb"
    assert message["params"]["_meta"][LONE_SURROGATE_META] is True
    plain = '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"s":"\\u00e9"}}\n'
    assert guard_line(plain) == plain


class _SlowSink(trio.abc.SendStream):
    def __init__(self) -> None:
        self.sent = b""

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        for i in range(len(data)):  # a checkpoint between every byte
            await trio.lowlevel.checkpoint()
            self.sent += bytes(data[i : i + 1])

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


async def test_a_response_is_written_whole_even_when_cancelled() -> None:
    sink = _SlowSink()
    writer = StreamWriter(sink)
    with trio.CancelScope() as scope:
        scope.cancel()
        await writer.write('{"jsonrpc":"2.0","id":1,"result":{}}\n')
        await writer.flush()  # the cancellation lands here, after the whole line
    assert scope.cancelled_caught
    assert sink.sent == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'


# ------------------------------------------------- open_stdio in a child process

_CHILD = textwrap.dedent(
    """
    import json, os, subprocess, sys, trio
    from tmuxmcp.transport import open_stdio

    async def main():
        async with open_stdio() as (stdin, stdout):
            if stdout is not None:  # fd 1 is claimed here, not by the SDK
                print("stray print")  # buffered: flushed to stderr, never to the wire
                os.write(1, b"stray write\\n")
            seen = {
                "fd0": os.readlink("/proc/self/fd/0"),
                "fd1_is_stderr": os.stat(1) == os.stat(2),
                "threaded": stdout is None,
                "child_stdin": subprocess.run(
                    ["cat"], stdout=subprocess.PIPE, check=True
                ).stdout.decode(),
            }
            async for line in stdin:
                reply = json.dumps({"echo": line, **seen}) + "\\n"
                if stdout is None:
                    sys.stdout.write(reply)
                    sys.stdout.flush()
                else:
                    await stdout.write(reply)
                    await stdout.flush()
        after = {"fd0_blocking": os.get_blocking(0), "fd1_blocking": os.get_blocking(1)}
        os.write(1, (json.dumps(after) + "\\n").encode())

    trio.run(main)
    """
)


# Buffered stdout, so that the stray print is still buffered when serving ends.
_CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def _run_child(stdin: Any, stdout: Any) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", _CHILD],
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=_CHILD_ENV,
        timeout=60,
        check=False,
    )


def _check_served(out: bytes, err: bytes, *, threaded: bool) -> None:
    *replies, after = [json.loads(line) for line in out.decode().splitlines()]
    assert [r["echo"] for r in replies] == ['{"a":1}\n', '{"b":"\u00e9"}\n']
    for reply in replies:
        assert reply["fd0"] == "/dev/null"
        assert reply["child_stdin"] == ""
        assert reply["threaded"] is threaded
        if not threaded:
            assert reply["fd1_is_stderr"] is True
    assert after == {"fd0_blocking": True, "fd1_blocking": True}
    if not threaded:
        assert b"stray print" in err
        assert b"stray write" in err


def test_pipes_are_claimed_served_on_the_loop_and_restored() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input='{"a":1}\n{"b":"\u00e9"}\n'.encode(),
        capture_output=True,
        env=_CHILD_ENV,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    _check_served(done.stdout, done.stderr, threaded=False)


def test_a_socketpair_is_served_like_a_pipe() -> None:
    """Node's child_process (libuv) gives a server socketpairs, not pipes."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        ours.sendall('{"a":1}\n{"b":"\u00e9"}\n'.encode())
        ours.shutdown(socket.SHUT_WR)
        done = _run_child(theirs.fileno(), theirs.fileno())
        theirs.close()
        out = b""
        while chunk := ours.recv(65536):
            out += chunk
    assert done.returncode == 0, done.stderr.decode()
    _check_served(out, done.stderr, threaded=False)


def test_files_take_the_threaded_path(tmp_path: Any) -> None:
    source = tmp_path / "in"
    source.write_bytes('{"a":1}\n{"b":"\u00e9"}\n'.encode())
    sink = tmp_path / "out"
    with source.open("rb") as stdin, sink.open("wb") as stdout:
        done = _run_child(stdin, stdout)
    assert done.returncode == 0, done.stderr.decode()
    _check_served(sink.read_bytes(), done.stderr, threaded=True)


# ------------------------------------------------------ the server over a socketpair


def test_the_server_answers_over_a_socketpair(private_tmux: PrivateTmux) -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "list_sessions", "arguments": {}}},
    ]  # fmt: skip
    ours, theirs = socket.socketpair()
    with ours, theirs:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tmuxmcp"],
            stdin=theirs.fileno(),
            stdout=theirs.fileno(),
            stderr=subprocess.PIPE,
            env=private_tmux.env,
        )
        theirs.close()
        ours.settimeout(30)
        replies: dict[int, Any] = {}
        reader = ours.makefile("rb")
        try:
            for message in messages:
                ours.sendall(json.dumps(message).encode() + b"\n")
                if "id" in message:
                    reply = json.loads(reader.readline())
                    replies[reply["id"]] = reply
            ours.shutdown(socket.SHUT_WR)  # stdin EOF: the server exits
            assert proc.wait(timeout=30) == 0
        finally:
            reader.close()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            assert proc.stderr is not None
            proc.stderr.close()
    assert replies[1]["result"]["serverInfo"]["name"] == "tmuxmcp"
    assert replies[2]["result"]["isError"] is False
    assert replies[2]["result"]["structuredContent"] == {"sessions": []}
