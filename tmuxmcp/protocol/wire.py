"""Inbound lines to JSON-RPC messages, or to the error that answers them. Pure: no IO.

Invariant: every line a client sends is answered or is a notification. A
line that is not a JSON-RPC message is never dropped (the SDK's reader, which
served before issue 19, dropped it silently and the client waited forever):
it gets an error response here, with the request's id when one can be read
from it, else ``null``.

Rule 1: a line is at most ``MAX_LINE_BYTES`` bytes. A longer one is never
  held whole: the reader keeps its first and last ``EDGE_BYTES`` (to find its
  ``id``) and discards the rest as it arrives, then answers ``-32600``. A
  line may hold at most ``MAX_LINE_VALUES`` of the bytes ``[``, ``{`` and
  ``,``, which bounds what parsing it can allocate; more are ``-32600`` too.
Rule 2: blank lines are skipped. Bytes that do not parse as JSON get
  ``-32700`` (parse error, id ``null``); JSON that is not a JSON-RPC message,
  or whose containers nest deeper than ``MAX_DEPTH``, gets ``-32600``.
  Nothing here recurses on the message's structure: depth costs no Python
  stack.
Rule 2a: a line whose ``id`` can be read is answered to that id (issue 18,
  R6), byte for byte where its value cannot stand for it (issue 27 N5): a
  string id holding a lone surrogate or bytes that are not UTF-8, and an
  integer id longer than Python converts, are answered with the bytes the
  line held (``messages.RawId``), so two such ids never become one. A
  leading UTF-8 byte-order mark is dropped (RFC 8259 section 8.1 lets a
  parser ignore it). An integer longer than Python's conversion limit
  (``sys.get_int_max_str_digits()``, 4300 digits by default) is valid JSON
  that the server cannot hold: ``-32600`` to the request's id (its bytes),
  not ``-32700`` with ``null``. A ``jsonrpc``/``method`` object whose ``id``
  is neither a string nor an integer (``null``, ``true``, ``1.5``) is a
  malformed request, not a notification: ``-32600``, id ``null`` (JSON-RPC
  allows no other).
Rule 3: text that is not valid Unicode is never acted on. JSON can carry a
  lone UTF-16 surrogate (``"\\ud800"``); a line can hold bytes that are not
  UTF-8. Either is replaced with U+FFFD (one for each byte that is not
  UTF-8), so that the line can be decoded, ids excepted (Rule 2a: a
  ``notifications/cancelled`` names such a request by its bytes too),
  and a ``tools/call`` is marked in its ``_meta`` so that the dispatcher
  refuses it with an ``invalid-arguments`` result instead of acting on
  altered text. Other requests (a ping, an initialize) are served.

Rule 4: a line ends at ``\\n`` (MCP's stdio framing), and at a ``\\r`` that
  stands outside every JSON string and bracket, where a message can end: a
  line ended by a lone ``\\r`` is answered at once, not when a later ``\\n``
  comes, and ``\\r\\n`` is one line end (issue 27 N5). A ``\\r`` inside an
  object or an array is whitespace, as JSON has it, and never splits the
  message. Where a line's CRs stand is read only for a line that holds one,
  in one pass over it (at most ``MAX_SCAN_STEPS`` tokens; past them its CRs
  are all whitespace). An oversized line ends only at its ``\\n``.

Memory: one line costs at most its bytes, its text (no more code points than
bytes) and its parsed objects; see docs/reliability.md for the measured peak.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Iterator
from typing import Any

import msgspec

from tmuxmcp.protocol import messages
from tmuxmcp.protocol.codes import INVALID_REQUEST, PARSE_ERROR

MAX_LINE_BYTES = 8 * 1024 * 1024
"""The longest request line accepted: room for the largest text argument
(``send_keys``' text, 1 MiB of UTF-8) even when JSON escapes every byte (6 bytes each)."""

MAX_LINE_VALUES = 262_144
"""The most ``[``, ``{`` and ``,`` bytes a line may hold (an upper bound on the
values it can decode to, strings' own commas included): parsed objects cost
tens of bytes per value, so this, not the byte limit, bounds a line of many
tiny values (8 MiB of ``[],`` decoded to 580 MB before)."""

MAX_DEPTH = 200
"""The deepest nesting of objects and arrays a message may have, itself included (the
limit of the SDK's parser before issue 19; no tool argument nests more than a few levels)."""

EDGE_BYTES = 4096
"""How much of each end of an oversized line is kept to find its id."""

ALTERED_META = "io.tmuxmcp/altered-text"
"""The ``_meta`` key that marks a ``tools/call`` whose text was replaced; its value says why."""
LONE_SURROGATE = "lone-surrogate"
INVALID_UTF8 = "invalid-utf8"

_SURROGATE = re.compile("[\ud800-\udfff]")


class Oversized(msgspec.Struct, frozen=True):
    """A line longer than ``MAX_LINE_BYTES``: only its ends were kept."""

    head: bytes
    tail: bytes
    size: int


Inbound = bytes | Oversized
"""What the reader yields: a whole line (without its end) or an oversized one."""


# -- splitting -----------------------------------------------------------------------


MAX_SCAN_STEPS = 2 * MAX_LINE_VALUES
"""The most tokens (strings, brackets, carriage returns) read to place a line's CRs; past
them the rest of the line's CRs are whitespace, as JSON has them (Rule 4)."""

_PLAIN = re.compile(rb'[^"\[\]{}\r]*')
"""Bytes outside strings that say nothing of where a line can end."""
_STRING_REST = re.compile(rb'(?:[^"\\]|\\[\s\S])*')
"""The rest of a string up to its closing quote (or a backslash whose byte is still to come)."""


class _Depth:
    """Where a line's bytes stand in its JSON, read up to ``at``: inside how many
    brackets, and whether inside a string (Rule 4). Brackets are counted, not
    matched: a line that is not JSON gets an error whatever its cuts are."""

    __slots__ = ("at", "depth", "in_string", "steps")

    def __init__(self) -> None:
        self.at = 0
        self.depth = 0
        self.in_string = False
        self.steps = 0

    def next_end(self, line: bytes | bytearray) -> int:
        """The first CR from ``at`` on that ends the line, or -1 (read to the end)."""
        at, end = self.at, len(line)
        while at < end and self.steps <= MAX_SCAN_STEPS:
            self.steps += 1
            if self.in_string:
                at = _STRING_REST.match(line, at).end()  # type: ignore[union-attr]
                if at < end and line[at] == 0x22:  # the closing quote
                    self.in_string = False
                    at += 1
                    continue
                break  # the string, or the byte a backslash escapes, is still to come
            at = _PLAIN.match(line, at).end()  # type: ignore[union-attr]
            if at == end:
                break
            byte = line[at]
            at += 1
            if byte == 0x22:
                self.in_string = True
            elif byte in b"[{":
                self.depth += 1
            elif byte in b"]}":
                self.depth = max(0, self.depth - 1)
            elif self.depth == 0:  # a CR outside every bracket: a message can end here
                self.at = at
                return at - 1
        self.at = end if self.steps > MAX_SCAN_STEPS else at
        return -1


def split_lines(data: bytes) -> list[Inbound]:
    """``data`` (which ends where a line ends) cut into lines, without their ends."""
    splitter = Splitter(limit=max(len(data), 1))
    return splitter.feed(data) + splitter.close()


class Splitter:
    """Cuts a byte stream into ``Inbound`` lines, holding at most one line's limit
    (Rule 1) and cutting at each line end as Rule 4 says."""

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self._limit = limit
        self._pending = bytearray()
        self._over: tuple[bytes, bytearray, int] | None = None  # head, tail, size so far
        self._depth: _Depth | None = None  # only once the line holds a CR
        self._after_cr = False  # the last byte taken was a CR that ended a line

    def feed(self, data: bytes | bytearray) -> list[Inbound]:
        """The lines that ``data`` completes."""
        out: list[Inbound] = []
        data = bytes(data)
        start = 0
        while True:
            newline = data.find(b"\n", start)
            piece = data[start:] if newline < 0 else data[start:newline]
            crlf = False
            if self._over is not None:
                self._discard(piece)
            else:
                if newline >= 0 and piece.endswith(b"\r"):
                    piece, crlf = piece[:-1], True  # the CR of a CRLF: the LF ends the line
                if piece:
                    self._take(piece, out)
            if newline < 0:
                return out
            if self._over is not None:
                out.append(self._finish_oversized())
            elif self._after_cr and not self._pending and not crlf:
                self._after_cr = False  # the LF of a CRLF whose CR ended the line
            else:
                line = bytes(self._pending)
                # One CR before the LF is the CRLF's: taken off above when it came in the
                # same read, here when it ended an earlier one; never a second (a CR
                # inside brackets is the line's own whitespace, however chunked).
                ends_crlf = not crlf and line.endswith(b"\r")
                out.append(self._checked(line[:-1] if ends_crlf else line))
                self._end_line()
            start = newline + 1

    def close(self) -> list[Inbound]:
        """The last line, if the stream ended without a line end."""
        if self._over is not None:
            return [self._finish_oversized()]
        rest = bytes(self._pending)
        self._end_line()
        return [self._checked(rest)] if rest else []

    def _end_line(self) -> None:
        self._pending = bytearray()
        self._depth = None
        self._after_cr = False

    def _take(self, piece: bytes, out: list[Inbound]) -> None:
        """Add bytes without an LF to the line, cutting it at each CR that ends it."""
        self._after_cr = False
        self._pending += piece
        if self._depth is None and b"\r" not in piece:
            pass  # the usual line: no CR, nothing to place
        else:
            self._depth = self._depth or _Depth()
            while (cut := self._depth.next_end(self._pending)) >= 0:
                out.append(self._checked(bytes(self._pending[:cut])))
                del self._pending[: cut + 1]
                self._depth = _Depth() if b"\r" in self._pending else None
                self._after_cr = not self._pending
                if self._depth is None:
                    break
        if len(self._pending) > self._limit:
            pending = bytes(self._pending)
            self._end_line()
            self._over = (pending[:EDGE_BYTES], bytearray(), 0)
            self._discard(pending)

    def _checked(self, line: bytes) -> Inbound:
        if len(line) <= self._limit:
            return line
        return Oversized(line[:EDGE_BYTES], line[-EDGE_BYTES:], len(line))

    def _discard(self, data: bytes | bytearray) -> None:
        assert self._over is not None
        head, tail, size = self._over
        tail += data[-EDGE_BYTES:]
        del tail[:-EDGE_BYTES]
        self._over = (head, tail, size + len(data))

    def _finish_oversized(self) -> Oversized:
        assert self._over is not None
        head, tail, size = self._over
        self._over = None
        if tail.endswith(b"\r"):  # the line ended with "\r\n"
            return Oversized(head, bytes(tail[:-1]), size - 1)
        return Oversized(head, bytes(tail), size)


# -- lone surrogates: the one scanner --------------------------------------------------


def _scalars(value: object) -> Iterator[object]:
    """Every key and every non-container value in a JSON value, without recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        else:
            yield item


def _strings(value: object) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    return (item for item in _scalars(value) if isinstance(item, str))


def too_deep(value: object, depth: int = 1) -> bool:
    """Whether ``value``'s containers nest deeper than ``MAX_DEPTH``, counting from ``depth``."""
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, list | dict):
            if level > MAX_DEPTH:
                return True
            children = item if isinstance(item, list) else item.values()
            stack.extend((child, level + 1) for child in children)
    return False


def has_lone_surrogate(value: object) -> bool:
    """Whether any string in ``value`` (a decoded JSON value) holds a lone surrogate."""
    return any(_SURROGATE.search(text) for text in _strings(value))


def _clean(value: Any) -> Any:
    return _SURROGATE.sub("\ufffd", value) if isinstance(value, str) else value


def scrub(value: Any) -> Any:
    """``value`` with every lone surrogate replaced by U+FFFD (containers changed in place)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            for index, child in enumerate(item):
                item[index] = _clean(child)
                stack.append(child)
        elif isinstance(item, dict):
            pairs = list(item.items())
            item.clear()
            for key, child in pairs:
                item[_clean(key)] = _clean(child)
                stack.append(child)
    return _clean(value)


# -- triage ------------------------------------------------------------------------------


Triaged = messages.Message | messages.ErrorResponse
"""A line's message, or the error response that answers it."""


def error_reply(
    request_id: messages.RequestId | None, code: int, message: str
) -> messages.ErrorResponse:
    """A JSON-RPC error response, ready for the writer."""
    return messages.error_response(request_id, code, message)


def _id_of(message: object, text: str) -> messages.RequestId | None:
    """A request's id: its value, or its bytes when the value cannot stand for them
    (Rule 2a)."""
    if isinstance(message, dict):
        found = message.get("id")
        if _held_as_bytes(found):
            token = _raw_member(text, "id")
            return None if token is None else messages.RawId(token)
        if isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool)):
            return found
    return None


_WS = re.compile(r"[ \t\n\r]*")


def _member_text(text: str, key: str) -> str | None:
    """The text of the value of the last top-level member ``key`` of the object in
    ``text`` (json keeps the last of a repeated name), or None."""
    member = json.JSONDecoder(parse_int=_bounded_int)
    found: str | None = None
    try:
        at = _WS.match(text).end()  # type: ignore[union-attr]
        if not text.startswith("{", at):
            return None
        at = _WS.match(text, at + 1).end()  # type: ignore[union-attr]
        while text.startswith('"', at):
            name, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
            at = _WS.match(text, _WS.match(text, at).end() + 1).end()  # type: ignore[union-attr]
            _, end = member.raw_decode(text, at)
            if name == key:
                found = text[at:end]
            at = _WS.match(text, end).end()  # type: ignore[union-attr]
            if not text.startswith(",", at):
                break
            at = _WS.match(text, at + 1).end()  # type: ignore[union-attr]
    except (ValueError, RecursionError):
        return None
    return found


def _raw_member(text: str, *path: str) -> bytes | None:
    """The bytes the line held for the member at ``path`` (top-level object first).

    ``text`` parsed as JSON already; it was decoded from the line with
    ``surrogateescape``, so encoding a slice back gives the line's own bytes.
    """
    found: str | None = text
    for key in path:
        found = None if found is None else _member_text(found, key)
    return None if found is None else found.encode("utf-8", "surrogateescape")


def _held_as_bytes(value: object) -> bool:
    """Whether an id's value cannot stand for its bytes (Rule 2a)."""
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    return isinstance(value, _TooLong)


def _cancelled_id(message: object, text: str) -> messages.RawId | None:
    """The bytes of the request id a ``notifications/cancelled`` names, when only they
    can match the request's own ``RawId``."""
    if not isinstance(message, dict) or message.get("method") != "notifications/cancelled":
        return None
    params = message.get("params")
    if not isinstance(params, dict) or not _held_as_bytes(params.get("requestId")):
        return None
    token = _raw_member(text, "params", "requestId")
    return None if token is None else messages.RawId(token)


_HEAD_ID = re.compile(rb'^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]{0,64}"\s*,)*\s*"id"\s*:\s*'
                      rb'(-?[0-9]{1,18}|"[^"\\]{0,256}")')  # fmt: skip
_TAIL_ID = re.compile(rb',\s*"id"\s*:\s*(-?[0-9]{1,18}|"[^"\\]{0,256}")\s*\}\s*$')


def _edge_id(line: Oversized) -> messages.RequestId | None:
    """The id of an oversized request, if it is a top-level member at either end.

    Found at the head only after nothing but ``jsonrpc`` and ``method``
    members; at the tail only as the last member, closing the object with one
    brace (a nested object would close with two).
    """
    found = _HEAD_ID.match(line.head) or _TAIL_ID.search(line.tail)
    if found is None:
        return None
    raw = found.group(1)
    if not raw.startswith(b'"'):
        return int(raw)
    try:
        return str(json.loads(raw.decode("utf-8")))
    except UnicodeDecodeError:
        return messages.RawId(raw)  # bytes that are not UTF-8: answered as they came


def _mark(message: object, reason: str) -> None:
    if isinstance(message, dict) and message.get("method") == "tools/call":
        params = message.get("params")
        if isinstance(params, dict):
            meta = params.get("_meta")
            params["_meta"] = {**(meta if isinstance(meta, dict) else {}), ALTERED_META: reason}


_INVALID = "Invalid Request: not a JSON-RPC 2.0 message the server accepts"
_BAD_ID = "Invalid Request: the id must be a string or an integer"
_BOM = b"\xef\xbb\xbf"


class _TooLong:
    """Stands for an integer with more digits than Python converts; never an id."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _bounded_int(text: str) -> int | _TooLong:
    """``json``'s integer hook: an oversized integer becomes a marker, not a ValueError."""
    limit = sys.get_int_max_str_digits()
    digits = len(text) - text.startswith("-")
    if limit and digits > limit:
        return _TooLong(digits)
    return int(text)


def _too_long(value: object) -> _TooLong | None:
    """The first oversized integer in a decoded JSON value."""
    return next((item for item in _scalars(value) if isinstance(item, _TooLong)), None)


def _bad_id(message: object) -> bool:
    """Whether a message names a method and an id that is neither a string nor an integer."""
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return False
    found = message["id"]
    return isinstance(found, bool) or not isinstance(found, str | int)


def triage(line: Inbound) -> Triaged | None:
    """The message a line carries, or the error that answers it; None for a blank line.

    An ``ErrorResponse`` goes to the writer; anything else to the dispatcher.
    """
    if isinstance(line, Oversized):
        return error_reply(
            _edge_id(line),
            INVALID_REQUEST,
            f"Invalid Request: the line has {line.size} bytes; "
            f"tmuxmcp reads lines of at most {MAX_LINE_BYTES} bytes",
        )
    if not line.strip():
        return None
    values = line.count(b"[") + line.count(b"{") + line.count(b",")
    if values > MAX_LINE_VALUES:
        edges = Oversized(line[:EDGE_BYTES], line[-EDGE_BYTES:], len(line))
        return error_reply(
            _edge_id(edges),
            INVALID_REQUEST,
            f"Invalid Request: the line holds {values} '[', '{{' and ',' bytes; "
            f"tmuxmcp reads lines with at most {MAX_LINE_VALUES}",
        )
    return _parsed(line.removeprefix(_BOM))


def _parsed(line: bytes) -> Triaged:  # noqa: PLR0911 -- one return per way a line fails
    marker: str | None = None
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        # One code point per byte that is not UTF-8, so the id's bytes can be found
        # again (Rule 2a); each becomes U+FFFD below (Rule 3).
        text, marker = line.decode("utf-8", errors="surrogateescape"), INVALID_UTF8
    if marker is None and b"\\u" not in line:
        # The usual line: no escape can hide a lone surrogate. Decoded once,
        # straight into the message Structs.
        with contextlib.suppress(msgspec.DecodeError, RecursionError):
            decoded = messages.decode(line)
            if decoded is not None and not isinstance(decoded, messages.Reply):
                if too_deep(decoded.params, 2):
                    return error_reply(getattr(decoded, "id", None), INVALID_REQUEST, _INVALID)
                return decoded
    try:
        message = json.loads(text, parse_int=_bounded_int)
    except ValueError:
        return error_reply(None, PARSE_ERROR, "Parse error: the line is not JSON")
    except RecursionError:
        edges = Oversized(line[:EDGE_BYTES], line[-EDGE_BYTES:], len(line))
        return error_reply(_edge_id(edges), INVALID_REQUEST, _INVALID)
    request_id = _id_of(message, text)
    if too_deep(message):
        return error_reply(request_id, INVALID_REQUEST, _INVALID)
    too_long = _too_long(message)
    if too_long is not None:
        return error_reply(
            request_id,
            INVALID_REQUEST,
            f"Invalid Request: the line holds an integer of {too_long.digits} digits; "
            f"tmuxmcp reads integers of at most {sys.get_int_max_str_digits()} digits",
        )
    if marker is not None or has_lone_surrogate(message):
        cancelled = _cancelled_id(message, text)
        message, marker = scrub(message), marker or LONE_SURROGATE
        if cancelled is not None:
            message["params"]["requestId"] = cancelled
    if marker is not None:
        _mark(message, marker)
    if _bad_id(message):
        return error_reply(None, INVALID_REQUEST, _BAD_ID)
    found = _message(message, request_id)
    return found if found is not None else error_reply(request_id, INVALID_REQUEST, _INVALID)


def _message(message: object, request_id: messages.RequestId | None) -> messages.Message | None:
    """The message JSON already parsed makes, a request keeping ``request_id`` (Rule 2a)."""
    try:
        found = messages.from_builtins(message)
    except msgspec.ValidationError:
        return None
    if isinstance(found, messages.Request) and isinstance(request_id, messages.RawId):
        return msgspec.structs.replace(found, id=request_id)  # answered to its own bytes
    return found
