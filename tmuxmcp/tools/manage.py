"""The manage toolset: create, name and arrange sessions, windows and panes.

Rules kept here:
* every target is an id through the target sink;
* every name, title and directory goes through ``sinks.names`` or
  ``sinks.path`` (format-escaped, checked by the version-independent rule);
* numbers are validated integers; layouts, directions and options come from
  closed lists;
* new objects are created detached (``-d``), so a person attached to the
  socket keeps their view;
* each call is one tmux invocation; where a result reports what tmux stored,
  the read-back query runs in that same invocation. One exception:
  ``create_session`` with a size on a tmux server before 3.3: 3.2a sizes a
  detached session's window by the command client instead (fixed by tmux
  commit df3fe2aa7, GitHub issue 2772; measured: ``-x 5 -y 3`` gave 80x23 on
  3.2a, 5x3 on 3.2), and ``#{version}`` cannot tell 3.2a from 3.2 by number,
  so a second invocation resizes the new window by its id on both.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

import msgspec

from tmuxmcp.capability.arguments import Arguments, conflict, given, not_together
from tmuxmcp.capability.environment import with_environment
from tmuxmcp.capability.params import (
    ObjectName,
    PaneId,
    PaneTitle,
    SessionId,
    SessionName,
    StartDirectory,
    WindowId,
    WindowName,
    closed,
    flag,
    number,
)
from tmuxmcp.capability.results import Name, TmuxId
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.driver.versions import version_tuple
from tmuxmcp.errors import TmuxCommandFailed
from tmuxmcp.panes.listing import with_format
from tmuxmcp.panes.records import PANE_FIELDS, WINDOW_FIELDS, PaneInfo, WindowInfo
from tmuxmcp.panetext.render import record_line
from tmuxmcp.panetext.typed_records import typed_record
from tmuxmcp.sinks import Sink
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.query import list_records

R = TypeVar("R", bound=msgspec.Struct)

MAX_SIZE = 10_000
"""Upper bound for widths, heights and cell counts (tmux's own limit is 10000)."""

# -- creating objects ------------------------------------------------------------


class Created(msgspec.Struct, frozen=True, kw_only=True):
    """Ids of a new object, and the names tmux stored."""

    session_id: TmuxId
    window_id: TmuxId
    pane_id: TmuxId
    session_name: Name
    window_name: Name

    def text_form(self) -> str:
        """Readable form."""
        return record_line(self)


_CREATED_FIELDS = {
    "session_id": "session_id",
    "window_id": "window_id",
    "pane_id": "pane_id",
    "session_name": "session_name",
    "window_name": "window_name",
}


async def _create(ctx: ToolContext, command: Command) -> Created:
    frame = RecordFormat(list(_CREATED_FIELDS.values()))
    out = await ctx.client.run(with_format(command, frame))
    records = frame.parse(out.stdout)
    if len(records) != 1:
        raise TmuxCommandFailed("tmux did not report the new object's ids")
    created: Created = typed_record(records[0], _CREATED_FIELDS, Created)
    return created


class CreateSessionArgs(Arguments):
    """Arguments of create_session."""

    name: SessionName | None = None
    start_directory: StartDirectory | None = None
    width: Annotated[int, number("Window width in cells.", ge=1, le=MAX_SIZE)] | None = None
    height: Annotated[int, number("Window height in cells.", ge=1, le=MAX_SIZE)] | None = None


DETACHED_SIZE_KEPT = (3, 3)
"""The first tmux whose ``new-session -d -x -y`` keeps that size (module rules)."""


async def create_session(ctx: ToolContext, args: CreateSessionArgs) -> Created:
    """Handler for create_session."""
    name = args.name
    created = await _create(
        ctx,
        with_environment(
            cmd(
                "new-session",
                "-d",
                "-P",
                s=name,
                c=args.start_directory,
                x=args.width,
                y=args.height,
            ),
            ctx.pane_environment,
        ),
    )
    sized = args.width is not None or args.height is not None
    release = version_tuple(ctx.facts.version)
    if sized and release is not None and release < DETACHED_SIZE_KEPT:
        # The window's size becomes manual (resize-window's effect); on 3.3 and
        # later it follows an attaching client, here it keeps the size asked for.
        await ctx.client.run(cmd("resize-window", t=created.window_id, x=args.width, y=args.height))
    return created


class CreateWindowArgs(Arguments):
    """Arguments of create_window."""

    session_id: SessionId
    name: WindowName | None = None
    start_directory: StartDirectory | None = None


async def create_window(ctx: ToolContext, args: CreateWindowArgs) -> Created:
    """Handler for create_window: a new window at the session's next free index."""
    session = args.session_id
    name = args.name
    return await _create(
        ctx,
        with_environment(
            cmd("new-window", "-d", "-P", t=session + ":", n=name, c=args.start_directory),
            ctx.pane_environment,
        ),
    )


Direction = Literal["horizontal", "vertical"]


class SplitPaneArgs(Arguments):
    """Arguments of split_pane: at most one of size_cells and size_percent."""

    pane_id: PaneId
    direction: Annotated[
        Direction,
        closed("horizontal: new pane right; vertical: below."),
    ] = "vertical"
    size_cells: Annotated[int, number("New pane size in cells.", ge=1, le=MAX_SIZE)] | None = None
    size_percent: Annotated[int, number("New pane size in percent.", ge=1, le=99)] | None = None
    start_directory: StartDirectory | None = None

    def __post_init__(self) -> None:
        not_together(self, "size_cells", "size_percent")


async def split_pane(ctx: ToolContext, args: SplitPaneArgs) -> Created:
    """Handler for split_pane."""
    pane = args.pane_id
    size: str | int | None = args.size_cells
    if args.size_percent is not None:
        size = f"{args.size_percent}%"
    return await _create(
        ctx,
        with_environment(
            cmd(
                "split-window",
                "-d",
                "-P",
                "-h" if args.direction == "horizontal" else "-v",
                t=pane,
                l=size,
                c=args.start_directory,
            ),
            ctx.pane_environment,
        ),
    )


# -- naming ----------------------------------------------------------------------


class Named(msgspec.Struct, frozen=True, kw_only=True):
    """An object's id and the name or title tmux now stores."""

    id: TmuxId
    name: Name

    def text_form(self) -> str:
        """Readable form."""
        return record_line(self)


async def _read_back(
    ctx: ToolContext,
    change: Command,
    listing: Command,
    fields: dict[str, str],
    kind: type[R],
    *,
    id_field: str,
    wanted: str,
) -> R:
    """Run ``change`` and, in the same invocation, ``listing``; the record of ``wanted``.

    Every manage tool that reports what tmux stored reads it back this way,
    so a result is never what tmuxmcp asked for, only what tmux kept.
    """
    for record in await list_records(ctx, listing, fields, kind, before=(change,)):
        if getattr(record, id_field) == wanted:
            found: R = record
            return found
    raise TmuxCommandFailed(f"tmux did not report {wanted} after the change")


async def _rename(
    ctx: ToolContext, change: Command, listing: Command, *, what: str, wanted: str
) -> Named:
    fields = {"id": f"{what}_id", "name": f"{what}_title" if what == "pane" else f"{what}_name"}
    return await _read_back(ctx, change, listing, fields, Named, id_field="id", wanted=wanted)


class RenameArgs(Arguments):
    """Arguments of rename: exactly one of session_id and window_id (issue 28.9: it merged
    ``rename_session`` and ``rename_window``). ``name`` is encoded by the window name
    rule; a session's name also may not hold ``:`` or ``.`` (``sinks.names``), refused
    here, since tmux versions disagree on session names with them."""

    session_id: SessionId | None = None
    window_id: WindowId | None = None
    name: ObjectName

    def __post_init__(self) -> None:
        not_together(self, "session_id", "window_id")
        if given(self.session_id, self.window_id) == 0:
            conflict("`window_id`: give session_id or window_id", "window_id", "session_id")
        if self.session_id is not None and (":" in self.name or "." in self.name):
            conflict(
                "`name` contains ':' or '.'; tmux versions disagree on session names with "
                "them, so a session name may not contain them",
                "name",
                "session_id",
            )


async def rename(ctx: ToolContext, args: RenameArgs) -> Named:
    """Handler for rename: a session, or a window (tmux also turns automatic-rename off
    for the window)."""
    if args.session_id is not None:
        return await _rename(
            ctx,
            cmd("rename-session", t=args.session_id, args=[args.name]),
            cmd("list-sessions"),
            what="session",
            wanted=args.session_id,
        )
    assert args.window_id is not None  # __post_init__: exactly one is given
    return await _rename(
        ctx,
        cmd("rename-window", t=args.window_id, args=[args.name]),
        cmd("list-windows", t=args.window_id),
        what="window",
        wanted=args.window_id,
    )


class SetPaneTitleArgs(Arguments):
    """Arguments of set_pane_title."""

    pane_id: PaneId
    title: PaneTitle


async def set_pane_title(ctx: ToolContext, args: SetPaneTitleArgs) -> Named:
    """Handler for set_pane_title (a program in the pane may change the title again)."""
    return await _rename(
        ctx,
        cmd("select-pane", t=args.pane_id, T=args.title),
        cmd("list-panes", t=args.pane_id),
        what="pane",
        wanted=args.pane_id,
    )


# -- selecting and arranging -----------------------------------------------------


class Done(msgspec.Struct, frozen=True, kw_only=True):
    """The object a change applied to."""

    id: TmuxId

    def text_form(self) -> str:
        """Readable form."""
        return f"done: {self.id}"


class SelectArgs(Arguments):
    """Arguments of select: exactly one of window_id and pane_id (issue 28.9: it merged
    ``select_window`` and ``select_pane``)."""

    window_id: WindowId | None = None
    pane_id: PaneId | None = None

    def __post_init__(self) -> None:
        not_together(self, "window_id", "pane_id")
        if given(self.window_id, self.pane_id) == 0:
            conflict("`pane_id`: give window_id or pane_id", "pane_id", "window_id")


async def select(ctx: ToolContext, args: SelectArgs) -> Done:
    """Handler for select: makes the window current in its session (``select-window``),
    or the pane active in its window (``select-pane``)."""
    if args.pane_id is not None:
        await ctx.client.run(cmd("select-pane", t=args.pane_id))
        return Done(id=args.pane_id)
    assert args.window_id is not None  # __post_init__: exactly one is given
    await ctx.client.run(cmd("select-window", t=args.window_id))
    return Done(id=args.window_id)


Layout = Literal["even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled"]


class SelectLayoutArgs(Arguments):
    """Arguments of select_layout."""

    window_id: WindowId
    layout: Annotated[Layout, closed("One of tmux's named layouts.", Sink.LITERAL)]


class WindowResult(msgspec.Struct, frozen=True):
    """A window after the change."""

    window: WindowInfo

    def text_form(self) -> str:
        """Readable form."""
        return record_line(self.window)


async def _window_after(ctx: ToolContext, change: Command, window: str) -> WindowResult:
    listing = cmd("list-windows", t=window)
    info = await _read_back(
        ctx, change, listing, WINDOW_FIELDS, WindowInfo, id_field="window_id", wanted=window
    )
    return WindowResult(info)


async def select_layout(ctx: ToolContext, args: SelectLayoutArgs) -> WindowResult:
    """Handler for select_layout."""
    window = args.window_id
    return await _window_after(ctx, cmd("select-layout", t=window, args=[args.layout]), window)


Side = Literal["up", "down", "left", "right"]
_SIDE_FLAG = {"up": "-U", "down": "-D", "left": "-L", "right": "-R"}


class ResizePaneArgs(Arguments):
    """Arguments of resize_pane: one of (width/height), (direction, amount) or zoom."""

    pane_id: PaneId
    width: Annotated[int, number("New width in cells.", ge=1, le=MAX_SIZE)] | None = None
    height: Annotated[int, number("New height in cells.", ge=1, le=MAX_SIZE)] | None = None
    direction: Annotated[Side, closed("Border to move.")] | None = None
    amount: Annotated[int, number("Cells to move the border by.", ge=1, le=MAX_SIZE)] | None = None
    zoom: Annotated[bool, flag("Toggle zoom (tmux -Z).")] = False

    def __post_init__(self) -> None:
        absolute = given(self.width, self.height) > 0
        relative = given(self.direction, self.amount) > 0
        if sum((absolute, relative, self.zoom)) != 1:
            conflict(
                "`direction`: give exactly one of: width and/or height; direction (with "
                "optional amount); zoom",
                "direction",
                "width",
                "height",
                "amount",
                "zoom",
            )
        if relative and self.direction is None:
            conflict(
                "`amount`: amount needs a direction (up, down, left or right)",
                "amount",
                "direction",
            )


class PaneResult(msgspec.Struct, frozen=True):
    """A pane after the change."""

    pane: PaneInfo

    def text_form(self) -> str:
        """Readable form."""
        return record_line(self.pane)


async def _pane_after(ctx: ToolContext, change: Command, pane: str) -> PaneResult:
    listing = cmd("list-panes", t=pane)
    return PaneResult(
        await _read_back(
            ctx, change, listing, PANE_FIELDS, PaneInfo, id_field="pane_id", wanted=pane
        )
    )


async def resize_pane(ctx: ToolContext, args: ResizePaneArgs) -> PaneResult:
    """Handler for resize_pane."""
    pane = args.pane_id
    # The Struct admits exactly one of zoom, width/height and a direction.
    if args.zoom:
        change = cmd("resize-pane", "-Z", t=pane)
    elif args.direction is None:
        change = cmd("resize-pane", t=pane, x=args.width, y=args.height)
    else:
        change = cmd("resize-pane", _SIDE_FLAG[args.direction], t=pane, args=[args.amount or 1])
    return await _pane_after(ctx, change, pane)


class SwapPaneArgs(Arguments):
    """Arguments of swap_pane."""

    pane_id: PaneId
    other_pane_id: PaneId

    def __post_init__(self) -> None:
        if self.pane_id == self.other_pane_id:
            conflict(
                "`other_pane_id`: pane_id and other_pane_id must differ",
                "other_pane_id",
                "pane_id",
            )


async def swap_pane(ctx: ToolContext, args: SwapPaneArgs) -> Done:
    """Handler for swap_pane: the two panes exchange places (and windows)."""
    pane = args.pane_id
    other = args.other_pane_id
    await ctx.client.run(cmd("swap-pane", "-d", s=pane, t=other))
    return Done(id=pane)


class MoveWindowArgs(Arguments):
    """Arguments of move_window."""

    window_id: WindowId
    session_id: SessionId


async def move_window(ctx: ToolContext, args: MoveWindowArgs) -> WindowResult:
    """Handler for move_window: to the next free index of the target session."""
    window = args.window_id
    session = args.session_id
    return await _window_after(ctx, cmd("move-window", "-d", s=window, t=session + ":"), window)
