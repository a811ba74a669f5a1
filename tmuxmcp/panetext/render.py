"""Readable text forms of structured results.

Every result also goes out as structuredContent; the text block is for
clients and people that read text. It lists records one per line as
``key=value`` pairs, with values JSON-quoted when they need it, so a hostile
name cannot fake a line boundary.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable
from typing import Any

import msgspec

_BARE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789%$@_-./:")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime.datetime):
        # As structuredContent has it (RFC 3339, UTC as Z), not str()'s "+00:00" form.
        return msgspec.json.encode(value).decode().strip('"')
    text = str(value) if value is not None else "-"
    return text if text and set(text) <= _BARE else json.dumps(text, ensure_ascii=False)


def record_line(record: msgspec.Struct) -> str:
    """One record as ``key=value ...``."""
    data = msgspec.structs.asdict(record)
    return " ".join(f"{key}={_value(value)}" for key, value in data.items())


def record_lines(records: Iterable[msgspec.Struct], empty: str) -> str:
    """Records one per line, or ``empty`` when there are none."""
    lines = [record_line(r) for r in records]
    return "\n".join(lines) if lines else empty
