"""Forged and edited cursors over a real stdio client (issue 18 R1, CM-1).

The red team's repro: a capture_since cursor whose row is 2**62 and whose
fingerprint matches nothing, on a pane with more than 65 history rows, kept
the server computing without a tmux call or a checkpoint; a width of -1 gave
an internal error. Each cursor here is built the way a caller can build one
(msgpack of the fields a real cursor shows, with or without the bytes before
them) and must be refused with an error that says to start over, while the
same server keeps answering pings.
"""

from __future__ import annotations

import base64
from typing import Any

import msgspec
import pytest

from tests.raw_client import RawClient
from tests.support import PrivateTmux

HANG_DETECTOR = 20.0
"""Seconds a reply may take before the test calls the server stuck (not a speed bound)."""


def _raw(cursor: str) -> bytes:
    return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))


def _text(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _split(cursor: str) -> tuple[bytes, list[Any]]:
    """The bytes before the msgpack array a cursor shows, and the array's fields."""
    raw = _raw(cursor)
    for skip in range(len(raw)):
        try:
            fields = msgspec.msgpack.decode(raw[skip:])
        except msgspec.DecodeError:
            continue
        if isinstance(fields, list) and len(fields) >= 5 and isinstance(fields[4], list):
            return raw[:skip], fields
    raise AssertionError(f"no msgpack array in {cursor!r}")


def _forged(prefix: bytes, fields: list[Any], **mark: Any) -> str:
    """``fields`` with mark fields replaced (row 0, fingerprint 1, history 2, width 3)."""
    at = {"row": 0, "fingerprint": 1, "history_size": 2, "width": 3, "column": 6}
    edited = list(fields[4])
    for name, value in mark.items():
        edited[at[name]] = value
    return _text(prefix + msgspec.msgpack.encode([*fields[:4], edited, *fields[5:]]))


def _cursor_of(client: RawClient, pane: str) -> str:
    result = client.call("capture_since", {"pane_id": pane})
    assert not result.get("isError"), result
    cursor: str = result["structuredContent"]["cursor"]
    return cursor


def _refused_while_pinging(client: RawClient, pane: str, cursor: str) -> str:
    """Send capture_since with ``cursor`` and a ping right after; both must be answered.

    ``max_lines`` 1: the near read then reaches 65 history rows up, so a cursor
    not found there is looked for further up (``since._far``), as in the repro.
    """
    call_id, ping_id = "forged", "ping"
    client.send(
        {
            "jsonrpc": "2.0",
            "id": call_id,
            "method": "tools/call",
            "params": {
                "name": "capture_since",
                "arguments": {"pane_id": pane, "cursor": cursor, "max_lines": 1},
            },
        }
    )
    client.send({"jsonrpc": "2.0", "id": ping_id, "method": "ping", "params": {}})
    replies = client.replies({call_id, ping_id}, HANG_DETECTOR)
    assert replies.get(ping_id, {}).get("result") == {}, "the ping went unanswered"
    assert call_id in replies, "the call with the forged cursor was never answered"
    result = replies[call_id]["result"]
    assert result.get("isError"), result
    text: str = result["content"][0]["text"]
    assert "internal" not in text.lower(), text
    return text


@pytest.fixture
def panes(private_tmux: PrivateTmux) -> tuple[str, str]:
    first = private_tmux.new_session("forge")["pane_id"]
    second = private_tmux.new_session("other")["pane_id"]
    return first, second


def test_forged_and_edited_cursors_are_refused_and_the_server_keeps_serving(
    private_tmux: PrivateTmux, panes: tuple[str, str]
) -> None:
    pane, other = panes
    with RawClient(private_tmux.env) as client:
        ran = client.call("run_command", {"pane_id": pane, "command": "seq 1 300", "timeout": 20})
        assert not ran.get("isError"), ran
        prefix, fields = _split(_cursor_of(client, pane))
        assert fields[4][2] > 65, "the repro needs more than 65 history rows"
        cases = {
            # The red team's: far below any row, matching nothing.
            "row 2**62, tag kept": _forged(prefix, fields, row=2**62, fingerprint="0" * 16),
            "row 2**62, unsigned": _forged(b"", fields, row=2**62, fingerprint="0" * 16),
            "width -1": _forged(prefix, fields, width=-1),
            "width 0": _forged(prefix, fields, width=0),
            "history -1": _forged(prefix, fields, history_size=-1),
            "column -1": _forged(prefix, fields, column=-1),
        }
        # Every field edited to another value of its own type.
        for index, value in enumerate(fields[4]):
            if isinstance(value, bool):
                changed: Any = not value
            elif isinstance(value, int):
                changed = value + 1
            else:
                changed = value[::-1] + "0" if value else "1:0"
            edited = list(fields[4])
            edited[index] = changed
            cases[f"mark field {index}"] = _text(
                prefix + msgspec.msgpack.encode([*fields[:4], edited, *fields[5:]])
            )
        for index in (0, 1, 2):
            top = list(fields)
            top[index] += 1
            cases[f"cursor field {index}"] = _text(prefix + msgspec.msgpack.encode(top))
        for name, cursor in cases.items():
            text = _refused_while_pinging(client, pane, cursor)
            assert "start over" in text, (name, text)
        # A genuine cursor of another pane: refused, naming what to do instead.
        text = _refused_while_pinging(client, pane, _cursor_of(client, other))
        assert "another pane" in text
        # And a genuine cursor still works after all that.
        good = client.call("capture_since", {"pane_id": pane, "cursor": _cursor_of(client, pane)})
        assert not good.get("isError"), good


def test_a_forged_since_cursor_of_wait_for_text_is_refused(
    private_tmux: PrivateTmux, panes: tuple[str, str]
) -> None:
    """The same cursors reach wait_for_text as ``since``: refused there too, at once."""
    pane, _ = panes
    with RawClient(private_tmux.env) as client:
        prefix, fields = _split(_cursor_of(client, pane))
        for cursor in (
            _forged(prefix, fields, row=2**62, fingerprint="0" * 16),
            _forged(prefix, fields, width=-1),
            _forged(prefix, fields, column=fields[4][6] + 1),
        ):
            args = {"pane_id": pane, "pattern": "never", "since": cursor, "timeout": 5}
            result = client.call("wait_for_text", args)
            assert result.get("isError"), result
            assert "start over" in result["content"][0]["text"], result
