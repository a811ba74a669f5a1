"""``wire``: every inbound line becomes a message or the error that answers it.

Invariant under test (issue 13, item 1): no line ends the process or goes
unanswered: deep nesting, oversized lines, bytes that are not UTF-8, lone
surrogates and non-JSON each get a JSON-RPC error or a result, and text that
had to be replaced is never acted on (a marked ``tools/call``).
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from typing import Any

import mcp_types as types  # the SDK's codes: an oracle independent of ours
import msgspec
from hypothesis import given
from hypothesis import strategies as st

from tests.raw_client import RawClient, handshake
from tests.support import PrivateTmux
from tmuxmcp.protocol.messages import ErrorResponse, Notification, RawId, Request, Response, encode
from tmuxmcp.protocol.wire import (
    ALTERED_META,
    EDGE_BYTES,
    INVALID_UTF8,
    LONE_SURROGATE,
    MAX_DEPTH,
    MAX_LINE_BYTES,
    MAX_LINE_VALUES,
    Oversized,
    has_lone_surrogate,
    scrub,
    triage,
)


def _error(line: bytes | Oversized) -> tuple[Any, int]:
    message = triage(line)
    assert isinstance(message, ErrorResponse), message
    return message.id, message.error.code


def _request(line: bytes) -> dict[str, Any]:
    message = triage(line)
    assert isinstance(message, Request), message
    dumped: dict[str, Any] = msgspec.to_builtins(message)
    return dumped


def _nested(depth: int, leaf: str = '"\\u00e9"') -> bytes:
    inner = "[" * depth + leaf + "]" * depth
    return (
        '{"jsonrpc":"2.0","id":2,"method":"tools/call",'
        f'"params":{{"name":"list_sessions","arguments":{{"x":{inner}}}}}}}'
    ).encode()


def test_deep_nesting_is_answered_with_its_id() -> None:
    """The reported crash: ~950 levels plus a \\u escape raised RecursionError."""
    for depth in (950, 5000, 100_000):
        assert _error(_nested(depth)) == (2, types.INVALID_REQUEST)
    # Without an escape the line takes the one-pass decoder: the same bound
    # (MAX_DEPTH levels, counting the message, params and arguments objects).
    assert _error(_nested(MAX_DEPTH - 2, leaf="1")) == (2, types.INVALID_REQUEST)
    assert _request(_nested(MAX_DEPTH - 3, leaf="1"))["id"] == 2
    assert _request(_nested(MAX_DEPTH - 3))["id"] == 2
    assert has_lone_surrogate([[[["\ud800"]]]] * 2) is True
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    assert has_lone_surrogate(deep) is False  # no recursion, no RecursionError


def test_non_json_and_non_messages_are_answered() -> None:
    assert _error(b"not json") == (None, types.PARSE_ERROR)
    assert _error(b'{"jsonrpc":"2.0","id":3,"method":') == (None, types.PARSE_ERROR)
    assert _error(b"[1,2]") == (None, types.INVALID_REQUEST)
    assert _error(b'{"id":7}') == (7, types.INVALID_REQUEST)
    assert _error(b'{"id":"a","jsonrpc":"1.0","method":"ping"}') == ("a", types.INVALID_REQUEST)
    assert _error(b'{"id":true,"method":"ping"}') == (None, types.INVALID_REQUEST)
    assert triage(b"") is None
    assert triage(b" \t ") is None


def test_a_readable_id_is_answered_whatever_else_the_line_holds() -> None:
    """Issue 18 R6 (wire Rule 2a): valid JSON the server cannot hold is not a parse error."""
    huge = "9" * 4400  # past Python's 4300-digit int conversion limit
    call = (
        '{"jsonrpc":"2.0","id":%s,"method":"tools/call",'
        '"params":{"name":"list_sessions","arguments":{"n":%s}}}'
    )
    assert _error((call % ("7", huge)).encode()) == (7, types.INVALID_REQUEST)
    assert _error((call % ('"k"', "-" + huge)).encode()) == ("k", types.INVALID_REQUEST)
    # Issue 27 N5: an id too long to hold is answered with its own bytes.
    assert _error((call % (huge, "1")).encode()) == (RawId(huge.encode()), types.INVALID_REQUEST)
    ping = b'{"jsonrpc":"2.0","id":8,"method":"ping"}'
    served = _request(b"\xef\xbb\xbf" + ping)
    assert (served["id"], served["method"]) == (8, "ping")
    assert _request(b'{"jsonrpc":"2.0","id":9,"id":10,"method":"ping"}')["id"] == 10
    for bad_id in (b"1.5", b"true", b"null", b"{}"):
        line = b'{"jsonrpc":"2.0","id":' + bad_id + b',"method":"ping"}'
        assert _error(line) == (None, types.INVALID_REQUEST), bad_id
    notification = triage(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert notification == Notification("notifications/initialized")


def test_oversized_lines_are_answered_with_their_id_where_it_shows() -> None:
    head = b'{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"a":"'
    assert _error(Oversized(head, b'"}}', MAX_LINE_BYTES + 1)) == (41, types.INVALID_REQUEST)
    tail = b'xxx"}},"jsonrpc":"2.0","id":"t-1"}'
    assert _error(Oversized(b'{"method":"x","params":{"a', tail, 10**9)) == (
        "t-1",
        types.INVALID_REQUEST,
    )
    nested_tail = b'xxx","id":5}}'  # an id that closes a nested object is not the request's
    assert _error(Oversized(b'{"params":{"a":"', nested_tail, 10**9)) == (
        None,
        types.INVALID_REQUEST,
    )
    message = triage(Oversized(head, b"", MAX_LINE_BYTES + 1))
    assert isinstance(message, ErrorResponse)
    assert str(MAX_LINE_BYTES) in message.error.message
    assert EDGE_BYTES <= 4096


def test_a_line_of_many_tiny_values_is_refused_before_parsing() -> None:
    """8 MiB of ``[],`` decoded to about 580 MB; the value count stops it first."""
    line = (
        b'{"jsonrpc":"2.0","id":12,"method":"ping","params":{"x":['
        + b",".join([b"[]"] * MAX_LINE_VALUES)
        + b"]}}"
    )
    assert _error(line) == (12, types.INVALID_REQUEST)
    under = b'{"jsonrpc":"2.0","id":13,"method":"ping","params":{"x":[' + b"1," * 1000 + b"1]}}"
    assert _request(under)["id"] == 13


def test_an_id_whose_value_cannot_stand_for_it_is_answered_with_its_own_bytes() -> None:
    """Issue 27 N5 (wire Rule 2a): a string id with a lone surrogate or bytes that are
    not UTF-8 came back as U+FFFD, so two such ids were one; each is now answered with
    the bytes the line held, and a real U+FFFD id stays a value."""
    ids = [rb'"\ud800"', rb'"\udfff"', rb'"\uD800"', b'"\xff"', b'"\xfe"', b'"a\xff\xfeb"',
           rb'"\ud800\u00e9"', rb'"x\ud800"']  # fmt: skip
    answered = []
    for raw in ids:
        line = b'{"jsonrpc":"2.0","id":' + raw + b',"method":"ping","params":{}}'
        message = triage(line)
        assert isinstance(message, Request), raw
        assert message.id == RawId(raw)
        reply = encode(Response(message.id, {}))
        assert reply == b'{"jsonrpc":"2.0","id":' + raw + b',"result":{}}'
        answered.append(message.id)
    assert len(set(answered)) == len(ids), "no two ids collide"
    assert _request('{"jsonrpc":"2.0","id":"\ufffd","method":"ping"}'.encode())["id"] == "\ufffd"
    # The id is the last top-level "id" member, however it is spelled, wherever it is.
    line = (
        rb'{"params":{"id":"\udc01"},"\u0069d":"\ud801",' + b'"method" : "ping" ,"jsonrpc":"2.0"}'
    )
    message = triage(line)
    assert isinstance(message, Request) and message.id == RawId(rb'"\ud801"')
    # Refused lines are answered to those bytes too.
    for line in (
        b'{"jsonrpc":"2.0","id":"\xff","method":"nope","params":[]}',
        b'{"jsonrpc":"1.0","id":"\xff","method":"ping"}',
    ):
        assert _error(line) == (RawId(b'"\xff"'), types.INVALID_REQUEST), line
    oversized = Oversized(
        b'{"jsonrpc":"2.0","id":"\xff","method":"ping","params":{"a":"', b"", 10**9
    )
    assert _error(oversized) == (RawId(b'"\xff"'), types.INVALID_REQUEST)


def test_id_neighbours_keep_their_values() -> None:
    """Large integers, negative ones and unusual spacing keep their values; a fraction,
    an exponent, an object or an array is not an id (-32600 with null, as JSON-RPC
    says for an id that cannot be detected)."""
    for raw, value in ((b"123456789012345678901234567890", 123456789012345678901234567890),
                       (b"-9223372036854775809", -9223372036854775809), (rb'"\u00e9"', "\u00e9"),
                       (b' \t"k" ', "k")):  # fmt: skip
        line = b'{"jsonrpc":"2.0","id":' + raw + b',"method":"ping"}'
        message = triage(line)
        assert isinstance(message, Request) and message.id == value, raw
    for raw in (b"1.0", b"1e2", b'{"a":1}', b"[1]"):
        line = b'{"jsonrpc":"2.0","id":' + raw + b',"method":"ping"}'
        assert _error(line) == (None, types.INVALID_REQUEST), raw


def test_lone_surrogates_are_scrubbed_and_a_tool_call_is_marked() -> None:
    call = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "x", "arguments": {"t": "a\ud800b", "\udfff": 1}}}
    )  # fmt: skip
    message = _request(call.encode())
    assert message["params"]["arguments"] == {"t": "a\ufffdb", "\ufffd": 1}
    assert message["params"]["_meta"][ALTERED_META] == LONE_SURROGATE
    ping = _request(b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"s":"\\ud800"}}')
    assert ALTERED_META not in ping["params"].get("_meta", {}), "only tools/call is marked"


def test_bytes_that_are_not_utf8_mark_a_tool_call() -> None:
    line = (
        b'{"jsonrpc":"2.0","id":4,"method":"tools/call",'
        b'"params":{"name":"x","arguments":{"t":"\xff"}}}'
    )
    message = _request(line)
    assert message["params"]["arguments"] == {"t": "\ufffd"}
    assert message["params"]["_meta"][ALTERED_META] == INVALID_UTF8


def test_valid_lines_pass_unchanged() -> None:
    line = (
        b'{"jsonrpc":"2.0","id":9,"method":"tools/call",'
        b'"params":{"name":"x","arguments":{"s":"\\u00e9\\ud83d\\ude00"}}}'
    )
    message = _request(line)
    assert message["params"]["arguments"] == {"s": "\u00e9\U0001f600"}
    assert "_meta" not in message["params"] or ALTERED_META not in message["params"]["_meta"]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(_JSON)
def test_scrub_leaves_no_surrogate_and_keeps_valid_text(value: Any) -> None:
    before = json.dumps(value)
    after = scrub(json.loads(before))
    assert not has_lone_surrogate(after)
    if not has_lone_surrogate(value):
        assert json.dumps(after) == before


@given(st.binary(max_size=200))
def test_any_bytes_are_a_message_an_error_or_blank(line: bytes) -> None:
    line = line.replace(b"\n", b"").replace(b"\r", b"")
    message = triage(line)
    assert message is not None or not line.strip()


# ------------------------------------------------------------------ over the wire


def _feed(client: RawClient, data: bytes) -> None:
    with contextlib.suppress(OSError):
        client.send_line(data)


def test_every_hostile_line_is_answered_and_the_server_keeps_serving(
    private_tmux: PrivateTmux,
) -> None:
    oversized = (
        b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_sessions",'
        b'"arguments":{"x":"' + b"a" * (MAX_LINE_BYTES + 1) + b'"}}}'
    )
    lines = [
        *(json.dumps(message).encode() for message in handshake()),
        _nested(950),
        b"not json",
        b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_sessions","arguments":{"x":"\xff"}}}',
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_sessions","arguments":{"x":"\\udc00"}}}',
        oversized,
        b'{"id":7}',
        b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"n":' + b"1" * 4400 + b"}}",
        b'\xef\xbb\xbf{"jsonrpc":"2.0","id":10,"method":"ping"}',
        b"",
        b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}',
    ]
    with RawClient(private_tmux.env, initialize=False) as client:
        # Written by a thread: a server that stopped reading must fail the
        # test, not block it.
        feeder = threading.Thread(target=_feed, args=(client, b"\n".join(lines)))
        feeder.start()
        got = client.messages({1, 2, 4, 5, 6, 7, 8, 9, 10}, 30)
        feeder.join(timeout=10)
        assert client.close() == 0
    stderr = client.stderr()
    by_id = {r["id"]: r for r in got if r.get("id") is not None}
    assert by_id[2]["error"]["code"] == types.INVALID_REQUEST
    assert [r["error"]["code"] for r in got if r.get("id") is None] == [types.PARSE_ERROR]
    for request_id in (4, 5):
        assert by_id[request_id]["result"]["isError"] is True
        assert by_id[request_id]["result"]["content"][0]["text"].startswith("[invalid-arguments]")
    assert by_id[6]["error"]["code"] == types.INVALID_REQUEST
    assert by_id[7]["error"]["code"] == types.INVALID_REQUEST
    assert by_id[8]["result"]["isError"] is False, "the server keeps serving"
    assert by_id[9]["error"]["code"] == types.INVALID_REQUEST
    assert by_id[10]["result"] == {}
    assert "Traceback" not in stderr


_ANSWER = re.compile(rb'^\{"jsonrpc":"2\.0","id":(.*?),"(result|error)":')


def _answers(lines: list[bytes]) -> dict[bytes, bytes]:
    """Each answer line by its id's bytes."""
    found = {}
    for line in lines:
        match = _ANSWER.match(line)
        assert match is not None, line
        found[match.group(1)] = line
    return found


def test_every_id_and_line_end_is_answered_over_the_wire(private_tmux: PrivateTmux) -> None:
    """Issue 27 N5 on the real wire: ids a value cannot stand for come back as their
    bytes (two lone surrogates are two ids, a tools/call among them is refused to its
    own id); a raw CR between tokens is whitespace; CRLF ends a line; a line that is
    only whitespace is skipped; a line ended by a lone CR is answered before any LF."""
    call = b'"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}'
    with RawClient(private_tmux.env) as client:
        client.send_line(b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}')
        client.send_line(b'{"jsonrpc":"2.0","id":"\\udfff","method":"ping"}')
        client.send_line(b'{"jsonrpc":"2.0","id":"\xff","method":"ping"}')
        client.send_line(b'{"jsonrpc":"2.0","id":"\\udc00",' + call)
        client.send_line(b'{"jsonrpc":"2.0",\r"id":7,\r"method":"ping",\r"params":{\r}\r}')
        client.send_line(b'{"jsonrpc":"2.0","id":8,"method":"ping"}\r')
        client.send_line(b" \t \r")
        got = _answers(client.raw_lines(6))
        client.write(b'{"jsonrpc":"2.0","id":9,"method":"ping"}\r')  # and no LF, ever
        got |= _answers(client.raw_lines(1))
        assert client.close() == 0
    assert set(got) == {b'"\\ud800"', b'"\\udfff"', b'"\xff"', b'"\\udc00"', b"7", b"8", b"9"}
    for ping in (b'"\\ud800"', b'"\\udfff"', b'"\xff"', b"7", b"8", b"9"):
        assert got[ping].endswith(b'"result":{}}'), got[ping]
    refused = json.loads(got[b'"\\udc00"'])
    assert refused["result"]["isError"] is True
    assert refused["result"]["content"][0]["text"].startswith("[invalid-arguments]")
    assert "Traceback" not in client.stderr()
