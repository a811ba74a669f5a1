"""Tool implementations: argument Structs, result Structs and handlers.

What each tool may do is declared in :mod:`tmuxmcp.capability.definition`;
this package only implements it. ``HANDLERS`` maps each declared tool name to
its handler; a test checks the two agree.
"""

from __future__ import annotations

from tmuxmcp.tools import (
    commands,
    execute,
    inspect,
    manage,
    options,
    search,
    since,
    snapshot,
    teardown,
    waiting,
    waiting_idle,
)
from tmuxmcp.tools.context import Handler

HANDLERS: dict[str, Handler] = {
    **inspect.HANDLERS,
    **snapshot.HANDLERS,
    **manage.HANDLERS,
    **options.HANDLERS,
    **teardown.HANDLERS,
    **execute.HANDLERS,
    **commands.HANDLERS,
    **waiting.HANDLERS,
    **waiting_idle.HANDLERS,
    **search.HANDLERS,
    **since.HANDLERS,
}
