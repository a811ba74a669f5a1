"""The one command string the run wing hands tmux's parser (``collect._end_frame``).

A redrawn run's end frame reads its output from an absolute row with
``run-shell -C``, whose argument tmux parses as a command: it may hold only
constants, integers and a pane id that is exactly one. A value that is not a
pane id is refused before tmux is asked (argv Rule 4's spirit: no text of the
caller's reaches a parser of tmux's).
"""

from __future__ import annotations

from typing import Any, cast

import pytest

from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.run import collect


class _Recorder:
    """A client that records every invocation and answers none."""

    def __init__(self) -> None:
        self.invocations: list[Any] = []

    async def run(self, *commands: Any) -> Any:
        self.invocations.append(commands)
        raise AssertionError("tmux was asked")


class _Context:
    def __init__(self) -> None:
        self.client = _Recorder()


@pytest.mark.parametrize("pane", ["%1; kill-server", "%1 -S 0", "$1", "%1\n"])
async def test_a_value_that_is_not_a_pane_id_never_reaches_the_parser(pane: str) -> None:
    ctx = _Context()
    with pytest.raises(ValueError, match="not a pane id"):
        await collect._end_frame(cast(ToolContext, ctx), pane, 40, 7)
    assert ctx.client.invocations == []


async def test_the_command_string_holds_the_pane_and_integers_only() -> None:
    ctx = _Context()
    with pytest.raises(AssertionError, match="tmux was asked"):
        await collect._end_frame(cast(ToolContext, ctx), "%12", 40, 7)
    (commands,) = ctx.client.invocations
    string = commands[-1].render()[-1]
    assert string.startswith("capture-pane -p -J -t %12 -S ")
    assert "#{e|-|:7,#{history_size}}" in string and ",-40," in string
    assert ";" not in string and "'" not in string and '"' not in string
