"""Panes with their state: one listing, one kernel reading per pane (issue 28.1).

``list_panes`` (and ``recover_pane``, step by step) report, for every pane, what it is
waiting for (``panes.pane_state``). The listing reads tmux's side of the
facts with the pane records, in the same invocation; the kernel's side is
read per live pane (``driver.foreground``: a few ``/proc`` files and one
``tcgetattr``, no process started), through the kernel the context holds
(``driver.kernel``); and only for a shell reading at its
prompt is the cursor's row read, all such panes in one more invocation, to
tell a continuation prompt from a fresh one (``pane_state`` Rule 1).
``read_state`` is the same reading for facts read elsewhere (``wait_for_state``
reads them with its view of the screen).
"""

from __future__ import annotations

from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.driver.client import TmuxClient
from tmuxmcp.driver.kernel import Kernel
from tmuxmcp.driver.records import SectionMarker
from tmuxmcp.panes.listing import read_records
from tmuxmcp.panes.pane_state import PaneState, TmuxFacts, classify
from tmuxmcp.panes.records import PANE_FIELDS, PaneInfo, PaneWithState


class _PaneRow(PaneInfo, frozen=True, kw_only=True):
    """A pane record with the tmux facts its state needs beyond the record."""

    dead_status: int | None
    dead_signal: int | None
    mode: str


_ROW_FIELDS = {
    **PANE_FIELDS,
    "dead_status": "pane_dead_status",
    "dead_signal": "pane_dead_signal",
    "mode": "pane_mode",
}
_RECORD_NAMES = tuple(PANE_FIELDS)


def _facts(row: _PaneRow) -> TmuxFacts:
    return TmuxFacts(
        pid=row.pid,
        tty=row.tty,
        dead=row.dead,
        dead_status=row.dead_status,
        dead_signal=row.dead_signal,
        in_mode=row.in_mode,
        mode=row.mode,
        alternate_screen=row.alternate_screen,
        cursor_x=row.cursor_x,
        cursor_y=row.cursor_y,
    )


def read_state(kernel: Kernel, tmux: TmuxFacts, cursor_row: str | None = None) -> PaneState:
    """The pane's state from tmux's facts and ``kernel``'s reading of its terminal now
    (the cursor's row tells a continuation prompt, for a shell at its prompt)."""
    reading = None
    if not tmux.dead and tmux.pid is not None:
        reading = kernel.read_terminal(tmux.pid, tmux.tty)
    return classify(tmux, reading, cursor_row=cursor_row)


async def _cursor_rows(client: TmuxClient, rows: list[_PaneRow]) -> dict[str, str]:
    """The text of each pane's cursor row, in one invocation."""
    marker = SectionMarker()
    commands: list[Command] = []
    for index, row in enumerate(rows):
        commands.append(cmd("display-message", "-p", t=row.pane_id, args=[marker.line(index)]))
        commands.append(cmd("capture-pane", "-p", t=row.pane_id, S=row.cursor_y, E=row.cursor_y))
    out = await client.run(*commands)
    found: dict[str, str] = {}
    for index, (_, body) in marker.split(out.stdout).items():
        if 0 <= index < len(rows):
            found[rows[index].pane_id] = body.partition("\n")[0]
    return found


async def panes_with_state(
    client: TmuxClient, kernel: Kernel, command: Command
) -> list[PaneWithState]:
    """The panes ``command`` (a ``list-panes``) lists, each with its state, their
    terminals read through ``kernel``."""
    rows: list[_PaneRow] = await read_records(client, command, _ROW_FIELDS, _PaneRow)
    states = {row.pane_id: read_state(kernel, _facts(row)) for row in rows}
    at_prompt = [row for row in rows if states[row.pane_id].state == "shell-ready"]
    if at_prompt:
        texts = await _cursor_rows(client, at_prompt)
        for row in at_prompt:
            # Read again with the row: the prompt is the kernel's answer of this moment.
            states[row.pane_id] = read_state(kernel, _facts(row), texts.get(row.pane_id))
    return [
        PaneWithState(
            **{name: getattr(row, name) for name in _RECORD_NAMES}, state=states[row.pane_id]
        )
        for row in rows
    ]
