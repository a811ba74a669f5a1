"""``transport``: the stdio wire, claimed from fds 0 and 1 and driven without threads.

Promises under test: lines end at LF, CRLF, and a CR where a message can end
(outside every JSON string and bracket, where the SDK's universal-newline
reader is the oracle), a CR inside a message is whitespace (issue 27 N5),
whatever the chunks are, and a line over the limit is never held whole; a
response is written whole even under cancellation; while serving, fd 0 reads
/dev/null and fd 1 writes to stderr, so stray output never reaches the wire;
both are restored, blocking, afterwards; a pipe, a socketpair (Node clients)
and a regular file all work, the last through the thread-backed path. What
each line becomes is ``tests/protocol/test_wire.py``.
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
from hypothesis import example, given
from hypothesis import strategies as st

from tests.raw_client import handshake
from tests.support import PrivateTmux
from tmuxmcp.protocol.wire import Oversized, Splitter, split_lines
from tmuxmcp.transport import StreamLines, StreamWriter

# ------------------------------------------------------------------- pure parts


def _as_text_file_reads(data: bytes) -> list[str]:
    """What the SDK's reader yields, less line ends: a text file in universal-newline mode."""
    wrapper = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace")
    return [line.removesuffix("\n") for line in wrapper]


class _Chunks(trio.abc.ReceiveStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = list(chunks)

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.lowlevel.checkpoint()
        return self._chunks.pop(0) if self._chunks else b""

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


def _read_all(chunks: list[bytes]) -> list[Any]:
    async def main() -> list[Any]:
        return [line async for line in StreamLines(_Chunks(chunks))]

    return trio.run(main)


_PIECES = st.lists(
    st.sampled_from(
        [b"\n", b"\r", b"\r\n", b"{", b'"a"', b" ", b"\xc3\xa9", b"\xe2\x80\xa8", b"\xff", b"\xc3"]
    ),
    max_size=40,
)
_JSON_PIECES = st.lists(
    st.sampled_from([b"\n", b"\r", b"\r\n", b"{", b"}", b"[", b"]", b'"', b"\\", b"a", b" "]),
    max_size=40,
)


def _chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = sorted({min(c, len(data)) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *bounds], [*bounds, len(data)], strict=True)]
    return [c for c in chunks if c]


@given(_PIECES, st.lists(st.integers(0, 40), max_size=8))
def test_lines_outside_json_brackets_match_the_sdk_text_reader_however_chunked(
    pieces: list[bytes], cuts: list[int]
) -> None:
    """Where no bracket is open, ``\\r``, ``\\n`` and ``\\r\\n`` end lines as the SDK's
    universal-newline reader ends them (wire Rule 4)."""
    data = b"".join(piece for piece in pieces if piece != b"{")
    lines = _read_all(_chunked(data, cuts))
    assert [line.decode("utf-8", "replace") for line in lines] == _as_text_file_reads(data)


@given(_JSON_PIECES, st.lists(st.integers(0, 40), max_size=8))
# A CR in brackets, then CRLF, cut before the LF: the line kept one CR more whole.
@example(pieces=[b"{", b"\r", b"\r\n"], cuts=[3])
def test_lines_are_the_same_however_the_bytes_are_chunked(
    pieces: list[bytes], cuts: list[int]
) -> None:
    data = b"".join(pieces)
    assert _read_all(_chunked(data, cuts)) == _read_all([data])


def test_a_line_ended_by_a_lone_cr_is_read_at_once() -> None:
    """Issue 27 N5: the line is complete when its CR arrives, not at a later LF."""
    splitter = Splitter()
    assert splitter.feed(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\r') == [
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    ]
    assert splitter.feed(b"\n") == [], "the LF of a CRLF ends nothing more"
    assert splitter.feed(b'{"id":2}\r{"id":3}\r\r\n') == [b'{"id":2}', b'{"id":3}', b""]


def test_a_cr_inside_a_message_is_whitespace() -> None:
    """Issue 27 N5: a raw CR between JSON tokens does not split the message; one inside
    a string does not either (the line is then not JSON, and answered so)."""
    message = b'{"jsonrpc":"2.0",\r"id":4,\r"method":"ping",\r"params":{\r}\r}'
    assert _read_all([message + b"\r\n"]) == [message]
    assert _read_all([message[:20], message[20:] + b"\r"]) == [message]
    in_string = b'{"a":"x\ry]{","b":1}'
    assert _read_all([in_string + b"\r"]) == [in_string]
    escaped_quote = b'{"a":"x\\"\r"}'
    assert _read_all([escaped_quote[:8], escaped_quote[8:] + b"\r"]) == [escaped_quote]
    assert _read_all([b"not json\r", b'{"id":5}\r']) == [b"not json", b'{"id":5}']


def test_line_separators_inside_json_strings_do_not_split() -> None:
    """U+2028, U+0085 and form feeds are valid unescaped in JSON strings."""
    line = '{"a":"x\u2028y\u0085z\x0c"}'.encode()
    assert split_lines(line + b"\n") == [line]


def test_a_final_line_without_newline_is_read() -> None:
    assert _read_all([b'{"id":1}\n{"id"', b":2}"]) == [b'{"id":1}', b'{"id":2}']
    assert _read_all([]) == []


@given(st.integers(1, 64), st.integers(0, 3))
def test_an_oversized_line_is_never_held_whole(chunk: int, extra: int) -> None:
    """The splitter holds at most the limit plus one chunk; the next line is intact."""
    limit = 100
    big = b'{"jsonrpc":"2.0","id":7,' + b"x" * (limit + 1 + extra * 1000) + b"}"
    data = big + b"\r\n" + b'{"id":8}\n'
    splitter = Splitter(limit)
    lines: list[Any] = []
    held = 0
    for at in range(0, len(data), chunk):
        lines += splitter.feed(data[at : at + chunk])
        held = max(held, len(splitter._pending))  # the bound under test
    lines += splitter.close()
    assert held <= limit + chunk
    assert len(lines) == 2
    assert isinstance(lines[0], Oversized)
    assert lines[0].size == len(big)
    assert lines[0].head == big[: len(lines[0].head)]
    assert big.endswith(lines[0].tail)
    assert lines[1] == b'{"id":8}'


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
        await trio.lowlevel.checkpoint()  # the cancellation lands here, after the whole line
    assert scope.cancelled_caught
    assert sink.sent == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'


# ------------------------------------------------- open_stdio in a child process

_CHILD = textwrap.dedent(
    """
    import json, os, subprocess, sys, trio
    from tmuxmcp.transport import ThreadWriter, claim_stdio

    async def main():
        async with claim_stdio() as (stdin, stdout):
            print("stray print")  # buffered: flushed to stderr, never to the wire
            os.write(1, b"stray write\\n")
            seen = {
                "fd0": os.readlink("/proc/self/fd/0"),
                "fd1_is_stderr": os.stat(1) == os.stat(2),
                "threaded": isinstance(stdout, ThreadWriter),
                "child_stdin": subprocess.run(
                    ["cat"], stdout=subprocess.PIPE, check=True
                ).stdout.decode(),
            }
            async for line in stdin:
                await stdout.write(json.dumps({"echo": line.decode(), **seen}) + "\\n")
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
    assert [r["echo"] for r in replies] == ['{"a":1}', '{"b":"\u00e9"}']
    for reply in replies:
        assert reply["fd0"] == "/dev/null"
        assert reply["child_stdin"] == ""
        assert reply["threaded"] is threaded
        assert reply["fd1_is_stderr"] is True
    assert after == {"fd0_blocking": True, "fd1_blocking": True}
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
    messages: list[dict[str, Any]] = [
        *handshake("t"),
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


# ------------------------------------------------------------ writing responses


@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
        max_leaves=12,
    )
)
def test_a_response_is_one_line_of_the_json_the_standard_library_reads(value: Any) -> None:
    """Rule 5: a response's bytes decode, with ``json``, to the message it was made from."""
    from tmuxmcp.protocol.messages import Response, encode

    line = encode(Response(7, {"value": value}))
    assert json.loads(line) == {"jsonrpc": "2.0", "id": 7, "result": {"value": value}}
    assert b"\n" not in line, "one message, one line"


def test_the_output_pipe_holds_a_large_result_in_one_write() -> None:
    """Rule 5: on Linux the server widens its output pipe to 1 MiB (64 KiB by default)."""
    import fcntl

    import pytest

    get_size = getattr(fcntl, "F_GETPIPE_SZ", None)
    if get_size is None:
        pytest.skip("no F_GETPIPE_SZ on this system")
    read_end, write_end = os.pipe()
    child = (
        "import trio\nfrom tmuxmcp.transport import claim_stdio\n"
        "async def main():\n"
        "    async with claim_stdio() as (_, out):\n"
        "        await out.write('{}\\n')\n"
        "trio.run(main)\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", child],
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert os.read(read_end, 16) == b"{}\n"
        assert fcntl.fcntl(read_end, get_size) >= 1 << 20
    finally:
        os.close(read_end)
        os.close(write_end)


def test_a_client_that_stops_reading_ends_serving_quietly(private_tmux: PrivateTmux) -> None:
    """Rule 4: a client that closed its end of the server's output (it died, or gave
    up) ends serving: exit status 0, no traceback, and tmuxmcp's gate option is gone
    from the tmux server it was bound to."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tmuxmcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=private_tmux.env,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    initialize, _ = handshake()
    proc.stdin.write(json.dumps(initialize).encode() + b"\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    assert "@tmuxmcp_" in private_tmux.bare("show-options", "-s").stdout
    # A session of its own keeps the server after tmuxmcp's exit, which ends an empty
    # server it started (issue 27.3), so the gate option can be read back as gone.
    private_tmux.new_session("stays")
    proc.stdout.close()
    proc.stdin.write(b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n')
    proc.stdin.flush()
    try:
        status = proc.wait(timeout=30)
    finally:
        proc.kill()
        proc.stdin.close()
    stderr = proc.stderr.read().decode()
    proc.stderr.close()
    assert status == 0, stderr
    assert "Traceback" not in stderr
    assert "@tmuxmcp_" not in private_tmux.bare("show-options", "-s").stdout
