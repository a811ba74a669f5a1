"""Reading tmux objects as typed records: one framed ``-F`` query per call.

Shared by every toolset. Templates come from constant field maps; results are
converted to the record Struct's field types here, so handlers never parse
tmux text themselves.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tmuxmcp.driver.argv import Command
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.tools.context import ToolContext


def typed_record(raw: dict[str, str], fields: dict[str, str], kind: type[msgspec.Struct]) -> Any:
    """Convert tmux's strings to ``kind``'s field types (bool, int, int | None, str)."""
    types = {f.name: f.type for f in msgspec.structs.fields(kind)}
    out: dict[str, Any] = {}
    for name, variable in fields.items():
        value = raw[variable]
        field_type = types[name]
        if field_type is bool:
            out[name] = value == "1"
        elif field_type is int:
            out[name] = int(value) if value.lstrip("-").isdigit() else 0
        elif field_type == (int | None):
            out[name] = int(value) if value.isdigit() else None
        else:
            out[name] = value
    return kind(**out)


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
    """Run ``before`` then ``command -F``; return the records as ``kind``."""
    frame = RecordFormat(list(fields.values()))
    out = await ctx.client.run(*before, with_format(command, frame))
    return [typed_record(raw, fields, kind) for raw in frame.parse(out.stdout)]
