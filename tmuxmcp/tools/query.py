"""Reading tmux objects as typed records: one framed ``-F`` query per call.

Shared by every toolset. Templates come from constant field maps; results are
converted to the record Struct's field types here, so handlers never parse
tmux text themselves.
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
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.errors import NoSessions
from tmuxmcp.tools.context import ToolContext


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


def pane_listing(session_id: str | None, window_id: str | None) -> Command:
    """``list-panes`` of one window, one session, or (neither given) every pane.

    The argument Structs that take both ids refuse both at once
    (``capability.arguments``, Rule 4); here a window id wins.
    """
    if window_id is not None:
        return cmd("list-panes", t=window_id)
    if session_id is not None:
        return cmd("list-panes", "-s", t=session_id)
    return cmd("list-panes", "-a")


def with_format(command: Command, frame: RecordFormat) -> Command:
    """``command`` with ``-F <frame template>`` added."""
    return msgspec.structs.replace(command, options=(*command.options, ("-F", frame.template)))


async def list_records(
    ctx: ToolContext,
    command: Command,
    fields: dict[str, str],
    kind: type[msgspec.Struct],
    *,
    before: tuple[Command, ...] = (),
) -> list[Any]:
    """Run ``before`` then ``command -F``; return the records as ``kind``.

    A listing of every session (``-a``) on a server with no sessions is
    empty: tmux refuses it with "no current target", which lists nothing
    (issue 18, R7). A listing that names a target keeps the error.
    """
    frame = RecordFormat(list(fields.values()))
    try:
        out = await ctx.client.run(*before, with_format(command, frame))
    except NoSessions:
        if "-a" in command.flags and not before:
            return []
        raise
    return [typed_record(raw, fields, kind) for raw in frame.parse(out.stdout)]
