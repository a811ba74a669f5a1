"""tmux objects read as typed records: one framed ``-F`` query, with the client given.

The reader under ``tools.query`` (which hands it a call's client) and under
``pane_reading`` (which is given one): templates come from constant field
maps, the records are framed by a nonce (``driver.records.RecordFormat``) and
converted to the record Struct's field types (``panetext.typed_records``), so
no caller parses tmux text itself.

Rule: it takes the ``TmuxClient`` it runs on, never a ``ToolContext``
(``tmuxmcp.panes`` knows no tool).
"""

from __future__ import annotations

from typing import Any

import msgspec

from tmuxmcp.driver.argv import Command
from tmuxmcp.driver.client import TmuxClient
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.errors import NoSessions
from tmuxmcp.panetext.typed_records import typed_record


def with_format(command: Command, frame: RecordFormat) -> Command:
    """``command`` with ``-F <frame template>`` added."""
    return msgspec.structs.replace(command, options=(*command.options, ("-F", frame.template)))


async def read_records(
    client: TmuxClient,
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
        out = await client.run(*before, with_format(command, frame))
    except NoSessions:
        if "-a" in command.flags and not before:
            return []
        raise
    return [typed_record(raw, fields, kind) for raw in frame.parse(out.stdout)]
