"""Reading tmux objects as typed records: one framed ``-F`` query per call.

Shared by every toolset. Templates come from constant field maps; results are
converted to the record Struct's field types (``panetext.typed_records``), so
handlers never parse tmux text themselves.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.errors import NoSessions
from tmuxmcp.panetext.typed_records import typed_record
from tmuxmcp.tools.context import ToolContext


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
