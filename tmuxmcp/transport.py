"""stdin for the stdio transport, with lone surrogates turned into tool errors.

JSON can carry a lone UTF-16 surrogate (``"\\ud800"``) that is not valid
Unicode. The SDK's parser rejects such a line and silently drops it, so the
client would wait forever for an answer. This reader keeps every request
answerable: a line whose strings hold lone surrogates is re-encoded with
U+FFFD in their place, and a ``tools/call`` is marked in its ``_meta`` so that
the dispatcher refuses it with an ``invalid-arguments`` result instead of
acting on altered text. Other lines pass through untouched.

It also claims fd 0 the way the SDK does: the wire moves to a private
descriptor and fd 0 points at /dev/null, so no child can read the protocol.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any

import anyio

LONE_SURROGATE_META = "io.tmuxmcp/lone-surrogate"


def _has_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


def _scrub(value: Any) -> tuple[Any, bool]:
    """``value`` with lone surrogates replaced, and whether any were found."""
    if isinstance(value, str):
        if not _has_surrogate(value):
            return value, False
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value), True
    if isinstance(value, list):
        items = [_scrub(v) for v in value]
        return [v for v, _ in items], any(found for _, found in items)
    if isinstance(value, dict):
        pairs = [(_scrub(k), _scrub(v)) for k, v in value.items()]
        scrubbed = {k: v for (k, _), (v, _) in pairs}
        return scrubbed, any(fk or fv for (_, fk), (_, fv) in pairs)
    return value, False


def guard_line(line: str) -> str:
    """The line to hand to the SDK."""
    if "\\u" not in line and "\\U" not in line:
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line
    scrubbed, found = _scrub(message)
    if not found:
        return line
    if isinstance(scrubbed, dict) and scrubbed.get("method") == "tools/call":
        params = scrubbed.get("params")
        if isinstance(params, dict):
            meta = params.get("_meta")
            params["_meta"] = {
                **(meta if isinstance(meta, dict) else {}),
                LONE_SURROGATE_META: True,
            }
    return json.dumps(scrubbed, ensure_ascii=False) + "\n"


class GuardedStdin:
    """An async line iterator over the protocol's stdin."""

    def __init__(self) -> None:
        wire = os.dup(0)
        os.set_inheritable(wire, False)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        self._file = anyio.wrap_file(
            open(wire, encoding="utf-8", errors="replace", closefd=True)  # noqa: SIM115
        )

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self._file:
            yield guard_line(line)
