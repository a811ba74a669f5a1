"""tmux's strings read as a record Struct's field types (issue 30.1: pure, out of ``tools.query``).

Every ``-F`` query's values arrive as strings; ``typed_record`` converts them
to the record's declared types (bool, int, int | None, a UTC time, str), so
no handler parses tmux text itself. A str whose type declares a
``max_length`` (``capability.results``) is cut to it here, before any result
holds it. The readers are derived once per record type.
"""

from __future__ import annotations

import datetime
import functools
import typing
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import Meta

from tmuxmcp.capability.results import bounded


def _as_bool(value: str) -> bool:
    return value == "1"


def _as_int(value: str) -> int:
    return int(value) if value.lstrip("-").isdigit() else 0


def _as_optional_int(value: str) -> int | None:
    return int(value) if value.isdigit() else None


def _as_str(value: str) -> str:
    return value


def _as_utc(value: str) -> datetime.datetime:
    """tmux's epoch seconds (``#{session_created}``) as a UTC time; 0 if unreadable."""
    return datetime.datetime.fromtimestamp(_as_int(value), datetime.UTC)


def _max_length(annotation: Any) -> int | None:
    """The ``maxLength`` a result type declares on a text field (``capability.results``)."""
    if typing.get_origin(annotation) is not typing.Annotated:
        return None
    bounds = [m.max_length for m in typing.get_args(annotation)[1:] if isinstance(m, Meta)]
    return next((b for b in bounds if b is not None), None)


def _base(annotation: Any) -> Any:
    """The type under ``Annotated`` metadata, or ``annotation`` itself."""
    if typing.get_origin(annotation) is typing.Annotated:
        return typing.get_args(annotation)[0]
    return annotation


@functools.cache
def _readers(kind: type[msgspec.Struct]) -> dict[str, Callable[[str], Any]]:
    """Per field of ``kind``, how to read tmux's string for it.

    Cached per record type: ``msgspec.structs.fields`` resolves the type
    annotations on every call, which cost more than the rest of a record.
    """
    readers: dict[str, Callable[[str], Any]] = {}
    for field in msgspec.structs.fields(kind):
        if field.type is bool:
            readers[field.name] = _as_bool
        elif field.type is int:
            readers[field.name] = _as_int
        elif field.type == (int | None):
            readers[field.name] = _as_optional_int
        elif _base(field.type) is datetime.datetime:
            readers[field.name] = _as_utc
        elif (limit := _max_length(field.type)) is not None:
            # The declared bound is the enforcement: a pane program's megabyte title
            # is cut here, before any result or text form holds it.
            readers[field.name] = functools.partial(bounded, max_length=limit)
        else:
            readers[field.name] = _as_str
    return readers


def typed_record(raw: dict[str, str], fields: dict[str, str], kind: type[msgspec.Struct]) -> Any:
    """Convert tmux's strings to ``kind``'s field types (bool, int, int | None, str;
    a str whose type declares a ``max_length`` is cut to it)."""
    readers = _readers(kind)
    return kind(**{name: readers[name](raw[variable]) for name, variable in fields.items()})
