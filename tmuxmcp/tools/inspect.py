"""The inspect toolset: list sessions, windows and panes, read a pane, report the server.

Each tool costs one tmux invocation (plus the identity probe that shares it).
Objects are addressed by id only; every target goes through the target sink.
Records are read with nonce-framed templates (``driver.records``), because
titles, paths and command names are set by pane programs.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from tmuxmcp.capability.manifest import compact_report
from tmuxmcp.capability.params import (
    LineNumber,
    PaneId,
    SessionId,
    WindowId,
    flag,
    local_int,
    switch,
)
from tmuxmcp.capability.results import Name, Own, Process, ReportData, Terminal, TmuxId, TmuxReport
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.errors import (
    BoundServerLost,
    ConfigurationChanged,
    InvalidArguments,
    ObjectNotFound,
    ServerGone,
    ServerReplaced,
)
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.inline import DEFAULT_INLINE_CHARS, line_cost
from tmuxmcp.tools.query import list_records, pane_listing
from tmuxmcp.tools.render import record_lines
from tmuxmcp.verify.cache import verified_status

# -- records -------------------------------------------------------------------


class SessionInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A tmux session."""

    session_id: TmuxId
    name: Name
    windows: int
    attached_clients: int
    created: int


class WindowInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A tmux window."""

    session_id: TmuxId
    window_id: TmuxId
    index: int
    name: Name
    active: bool
    panes: int
    width: int
    height: int
    layout: TmuxReport
    zoomed: bool


class PaneInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A tmux pane. ``title``, ``current_command`` and ``current_path`` are set by pane programs."""

    session_id: TmuxId
    window_id: TmuxId
    pane_id: TmuxId
    index: int
    active: bool
    width: int
    height: int
    title: Name
    current_command: Process
    current_path: Process
    pid: int | None
    dead: bool
    in_mode: bool
    alternate_screen: bool
    cursor_x: int
    cursor_y: int
    history_size: int
    history_limit: int


SESSION_FIELDS = {
    "session_id": "session_id",
    "name": "session_name",
    "windows": "session_windows",
    "attached_clients": "session_attached",
    "created": "session_created",
}
WINDOW_FIELDS = {
    "session_id": "session_id",
    "window_id": "window_id",
    "index": "window_index",
    "name": "window_name",
    "active": "window_active",
    "panes": "window_panes",
    "width": "window_width",
    "height": "window_height",
    "layout": "window_layout",
    "zoomed": "window_zoomed_flag",
}
PANE_FIELDS = {
    "session_id": "session_id",
    "window_id": "window_id",
    "pane_id": "pane_id",
    "index": "pane_index",
    "active": "pane_active",
    "width": "pane_width",
    "height": "pane_height",
    "title": "pane_title",
    "current_command": "pane_current_command",
    "current_path": "pane_current_path",
    "pid": "pane_pid",
    "dead": "pane_dead",
    "in_mode": "pane_in_mode",
    "alternate_screen": "alternate_on",
    "cursor_x": "cursor_x",
    "cursor_y": "cursor_y",
    "history_size": "history_size",
    "history_limit": "history_limit",
}


async def _list(
    ctx: ToolContext, command: Command, fields: dict[str, str], kind: type[msgspec.Struct]
) -> list[Any]:
    return await list_records(ctx, command, fields, kind)


# -- list_sessions ---------------------------------------------------------------


class ListSessionsArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """list_sessions takes no arguments."""


class ListSessionsResult(msgspec.Struct, frozen=True):
    """Every session on the selected socket."""

    sessions: list[SessionInfo]

    def text_form(self) -> str:
        """Readable form."""
        return record_lines(self.sessions, "no sessions")


async def list_sessions(ctx: ToolContext, args: ListSessionsArgs) -> ListSessionsResult:
    """Handler for list_sessions."""
    sessions = await _list(ctx, cmd("list-sessions"), SESSION_FIELDS, SessionInfo)
    return ListSessionsResult(sessions)


# -- list_windows ----------------------------------------------------------------


class ListWindowsArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Arguments of list_windows."""

    session_id: SessionId | None = None


class ListWindowsResult(msgspec.Struct, frozen=True):
    """Windows of one session, or of every session."""

    windows: list[WindowInfo]

    def text_form(self) -> str:
        """Readable form."""
        return record_lines(self.windows, "no windows")


async def list_windows(ctx: ToolContext, args: ListWindowsArgs) -> ListWindowsResult:
    """Handler for list_windows."""
    if args.session_id is None:
        command = cmd("list-windows", "-a")
    else:
        command = cmd("list-windows", t=args.session_id)
    return ListWindowsResult(await _list(ctx, command, WINDOW_FIELDS, WindowInfo))


# -- list_panes ------------------------------------------------------------------


class ListPanesArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Arguments of list_panes: at most one of session_id and window_id."""

    session_id: SessionId | None = None
    window_id: WindowId | None = None


class ListPanesResult(msgspec.Struct, frozen=True):
    """Panes of one window, one session, or every session."""

    panes: list[PaneInfo]

    def text_form(self) -> str:
        """Readable form."""
        return record_lines(self.panes, "no panes")


async def list_panes(ctx: ToolContext, args: ListPanesArgs) -> ListPanesResult:
    """Handler for list_panes."""
    command = pane_listing(args.session_id, args.window_id, neither="every session")
    return ListPanesResult(await _list(ctx, command, PANE_FIELDS, PaneInfo))


# -- get_pane_info ---------------------------------------------------------------


class GetPaneInfoArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Arguments of get_pane_info."""

    pane_id: PaneId


class GetPaneInfoResult(msgspec.Struct, frozen=True):
    """One pane."""

    pane: PaneInfo

    def text_form(self) -> str:
        """Readable form."""
        return record_lines([self.pane], "")


async def get_pane_info(ctx: ToolContext, args: GetPaneInfoArgs) -> GetPaneInfoResult:
    """Handler for get_pane_info: one list-panes on the pane's window, filtered here."""
    pane_id = args.pane_id
    panes = await _list(ctx, cmd("list-panes", t=pane_id), PANE_FIELDS, PaneInfo)
    for pane in panes:
        if pane.pane_id == pane_id:
            return GetPaneInfoResult(pane)
    raise ObjectNotFound(f"tmux did not report pane {pane_id}; list_panes returns current ids")


# -- capture_pane ----------------------------------------------------------------

MAX_CAPTURE_BYTES = 1024 * 1024
"""The largest ``max_chars``: the most a capture returns, counted as JSON (``inline``);
longer captures keep their last lines."""
MAX_CAPTURE_LINES = 100_000
DEFAULT_CAPTURE_LINES = 500
"""The default ``max_lines``: about 40 KB of 80-column text, a screenful of a model's context."""
WINDOW_MARGIN = 64
"""Rows read beyond ``max_lines`` in each window, to absorb blank rows at the bottom."""


class CapturePaneArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Arguments of capture_pane."""

    pane_id: PaneId
    start: LineNumber | None = None
    end: LineNumber | None = None
    max_lines: Annotated[
        int,
        local_int(
            "Most lines returned (the last); blank rows below the text are not returned "
            "or counted.",
            ge=1,
            le=MAX_CAPTURE_LINES,
        ),
    ] = DEFAULT_CAPTURE_LINES
    join_wrapped: Annotated[bool, flag("Join wrapped lines (tmux -J).")] = False
    include_escapes: Annotated[bool, flag("Keep colour and attribute escapes (tmux -e).")] = False
    max_chars: Annotated[
        int,
        local_int(
            "Most characters the returned text takes in the result's JSON (escapes counted);"
            " the last lines are kept.",
            ge=1_000,
            le=MAX_CAPTURE_BYTES,
        ),
    ] = DEFAULT_INLINE_CHARS


class CapturePaneResult(msgspec.Struct, frozen=True, kw_only=True):
    """Text captured from a pane, possibly truncated to the last lines."""

    pane_id: TmuxId
    lines: int
    captured_lines: int
    truncated: bool
    truncated_by: Own | None
    # Bulk last, so a head-only preview still shows the truncation (issue 18).
    text: Terminal

    def text_form(self) -> str:
        """Readable form: the captured text, with a note when truncated."""
        if not self.truncated:
            return self.text
        return (
            f"[truncated by {self.truncated_by}: last {self.lines} of "
            f"{self.captured_lines} lines]\n{self.text}"
        )


def _cap(
    lines: list[str], max_lines: int | None, budget: int | None = None
) -> tuple[list[str], str | None]:
    """The last ``max_lines`` of ``lines`` whose ``line_cost`` fits ``budget``, and what cut.

    ``budget`` defaults to ``MAX_CAPTURE_BYTES``.
    """
    budget = MAX_CAPTURE_BYTES if budget is None else budget
    by: str | None = None
    if max_lines is not None and len(lines) > max_lines:
        lines, by = lines[-max_lines:], "max_lines"
    if sum(line_cost(line) for line in lines) > budget:
        keep = 0
        for line in reversed(lines):
            budget -= line_cost(line)
            if budget < 0:
                break
            keep += 1
        lines, by = lines[len(lines) - keep :], "max_chars"
    return lines, by


def _cost_of_lines(raw: str) -> int:
    """The ``line_cost`` of every line of ``raw`` together, from one encoding of it.

    Each line costs its escaped characters plus 2; in ``raw`` encoded whole
    each newline is 2 (``\\n``) and the quotes are 2, so the sum is the
    encoding's length, less 2 when ``raw`` ends with a newline.
    """
    if raw == "":
        return 0
    return len(msgspec.json.encode(raw)) - (2 if raw.endswith("\n") else 0)


def _captured(
    raw: str, max_lines: int | None, budget: int | None = None
) -> tuple[str, int, int, str | None]:
    """tmux's output as (text, lines kept, lines captured, truncated by)."""
    budget = MAX_CAPTURE_BYTES if budget is None else budget
    # Lines are the pieces of raw.split("\n") less a final empty one.
    count = raw.count("\n") + (0 if raw == "" or raw.endswith("\n") else 1)
    if (max_lines is None or count <= max_lines) and _cost_of_lines(raw) <= budget:
        # Nothing is cut. Splitting 10,000 lines and measuring each cost more
        # than the rest of the call; the text is the output less its final
        # newline, exactly what joining the lines gives.
        return (raw[:-1] if raw.endswith("\n") else raw), count, count, None
    lines = raw.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    kept, by = _cap(lines, max_lines, budget)
    return "\n".join(kept), len(kept), len(lines), by


def _rows(raw: str) -> list[str]:
    rows = raw.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    return rows


def _blank(row: str) -> bool:
    return not row.strip()


async def _history_rows(
    ctx: ToolContext, pane_id: str, flags: list[str], args: CapturePaneArgs
) -> tuple[list[str], int]:
    """The last rows of a range reaching into history, read in bounded windows.

    Windows of at most ``max_lines + WINDOW_MARGIN`` rows are read from the
    bottom of the range upwards, only as far as needed to fill ``max_lines``
    with rows above the last non-blank one, and no further once the rows kept
    cost ``max_chars`` (the result keeps no more): a window is also at most
    the rows that would fill the characters still wanted if every row were
    full. So one call holds at most ``max_lines + WINDOW_MARGIN`` rows, and
    about ``max_chars`` plus one window, however long and wide the history.
    Returns the rows kept (trailing blank rows dropped) and how many rows the
    range holds down to its last non-blank row.
    """
    frame = (
        await ctx.client.run(
            cmd(
                "display-message",
                "-p",
                t=pane_id,
                args=["#{history_size} #{pane_height} #{pane_width}"],
            )
        )
    ).stdout.split()
    if len(frame) != 3 or not all(part.isdigit() for part in frame):
        raise InvalidArguments(f"tmux did not report the geometry of pane {pane_id}")
    history, height, width = int(frame[0]), int(frame[1]), int(frame[2])
    assert args.start is not None
    top = max(args.start, -history)
    bottom = min(height - 1 if args.end is None else args.end, height - 1)
    kept: list[str] = []
    last_text: int | None = None  # the relative number of the last non-blank row
    window_bottom = bottom
    held = 0  # the line_cost of the rows kept
    while window_bottom >= top and len(kept) < args.max_lines and held <= args.max_chars:
        # A full row costs at least its width and 2 (its quotes).
        by_chars = -(-(args.max_chars - held) // (width + 2))
        rows_wanted = min(args.max_lines - len(kept), by_chars)
        window_top = max(top, window_bottom - rows_wanted - WINDOW_MARGIN + 1)
        out = await ctx.client.run(
            cmd("capture-pane", *flags, t=pane_id, S=window_top, E=window_bottom)
        )
        rows = _rows(out.stdout)[: window_bottom - window_top + 1]
        if last_text is None:
            while rows and _blank(rows[-1]):
                rows.pop()
            if rows:
                last_text = window_top + len(rows) - 1
        kept = rows + kept
        held += sum(line_cost(row) for row in rows)
        window_bottom = window_top - 1
    if last_text is None:
        return [], 0
    return kept[-args.max_lines :], last_text - top + 1


async def capture_pane(ctx: ToolContext, args: CapturePaneArgs) -> CapturePaneResult:
    """Handler for capture_pane.

    A range within the visible screen is one read of at most ``max_lines +
    WINDOW_MARGIN`` rows, with the pane's height; a taller screen, and a
    range into history, is read in bounded windows from its bottom
    (``_history_rows``). Either way blank rows below the last text are
    dropped before ``max_lines`` counts.
    """
    pane_id = args.pane_id
    if args.start is not None and args.end is not None and args.start > args.end:
        raise InvalidArguments(
            "`start`: start must not be greater than end (0 is the top visible row)"
        )
    if args.start is None and args.end is not None and args.end < 0:
        # tmux would read from end down to the top visible row, however far up end is,
        # outside the bounded history windows; refuse it like any end above start.
        raise InvalidArguments(
            "`end`: end must not be above start, which defaults to 0 (the top visible row); "
            "give start too to read scrollback"
        )
    flags = ["-p"]
    if args.join_wrapped:
        flags.append("-J")
    if args.include_escapes:
        flags.append("-e")
    if args.start is not None and args.start < 0:
        rows, in_range = await _history_rows(ctx, pane_id, flags, args)
        text, kept, _, by = _captured("\n".join(rows), None, args.max_chars)
        if by is None and kept < in_range:
            by = "max_lines"
        captured = in_range
    else:
        # One read of at most one window from the top of the range, with the
        # pane's height: a screen can be 10,000 rows (tmux's largest window).
        first = args.start or 0
        window_end = first + args.max_lines + WINDOW_MARGIN - 1
        end = window_end if args.end is None else min(args.end, window_end)
        out = await ctx.client.run(
            cmd("display-message", "-p", t=pane_id, args=["#{pane_height}"]),
            cmd("capture-pane", *flags, t=pane_id, S=first, E=end),
        )
        height_text, _, body = out.stdout.partition("\n")
        if not height_text.isdigit():
            raise InvalidArguments(f"tmux did not report the geometry of pane {pane_id}")
        bottom = int(height_text) - 1 if args.end is None else min(args.end, int(height_text) - 1)
        if bottom > end:  # a range taller than one window: from its bottom up, bounded
            rows, captured = await _history_rows(
                ctx, pane_id, flags, msgspec.structs.replace(args, start=first)
            )
            text, kept, _, by = _captured("\n".join(rows), None, args.max_chars)
            if by is None and kept < captured:
                by = "max_lines"
        else:
            rows = _rows(body)
            while rows and _blank(rows[-1]):
                rows.pop()
            text, kept, captured, by = _captured("\n".join(rows), args.max_lines, args.max_chars)
    return CapturePaneResult(
        pane_id=pane_id,
        text=text,
        lines=kept,
        captured_lines=captured,
        truncated=by is not None,
        truncated_by=by,
    )


# -- list_buffers ----------------------------------------------------------------


class BufferInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A paste buffer: its name and size only, never its content."""

    name: Name
    size: int


class ListBuffersArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """list_buffers takes no arguments."""


class ListBuffersResult(msgspec.Struct, frozen=True):
    """Every paste buffer on the server."""

    buffers: list[BufferInfo]

    def text_form(self) -> str:
        """Readable form."""
        return record_lines(self.buffers, "no buffers")


async def list_buffers(ctx: ToolContext, args: ListBuffersArgs) -> ListBuffersResult:
    """Handler for list_buffers."""
    fields = {"name": "buffer_name", "size": "buffer_size"}
    return ListBuffersResult(await _list(ctx, cmd("list-buffers"), fields, BufferInfo))


# -- server_info -----------------------------------------------------------------


class ServerInfoArgs(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Arguments of server_info."""

    detail: Annotated[bool, switch("Add each tool's declared properties and annotations.")] = False


MAX_SERVER_INFO_BYTES = 4000
"""Budget of the default result, its text and structuredContent together (issue 14.2);
``tests/test_budgets.py`` holds it."""


class ServerInfoResult(msgspec.Struct, frozen=True, kw_only=True):
    """The selected socket, provenance, tmux version and the published surface.

    ``info`` is the compact report by default (tool names only) and the full
    published surface with ``detail`` (each tool's declared properties and
    annotations). Both forms are read by models: some clients show only the
    structured result, others only the text, so the text says the same in
    prose, never as a JSON dump.
    """

    server_state: Own
    sink_claims: ReportData
    """Whether ``tmuxmcp verify`` passed for this tmux binary and version."""
    info: ReportData

    def text_form(self) -> str:
        """Readable form: the same facts as sentences, one topic a line."""
        return "\n".join(server_info_prose(self.server_state, self.sink_claims, self.info))


async def server_info(ctx: ToolContext, args: ServerInfoArgs) -> ServerInfoResult:
    """Handler for server_info: the published surface plus a live identity check."""
    reason = ""
    try:
        await ctx.client.run()
        state = "bound"
    except BoundServerLost as lost:
        state = lost.state
    except ServerGone:
        state = "gone"
    except ServerReplaced:
        state = "replaced"
    except ConfigurationChanged as changed:
        state = "configuration-changed"
        reason = changed.message
    claims = verified_status(ctx.client.binary, ctx.facts.version)
    if state == "bound":
        info = ctx.published
    elif state == "configuration-changed":
        info = changed_configuration_report(ctx, reason)
    else:
        info = lost_server_report(ctx, state)
    if not args.detail:
        info = compact_report(info)
        claims = compact_claims(claims)
    return ServerInfoResult(server_state=state, sink_claims=claims, info=info)


def compact_claims(claims: dict[str, Any]) -> dict[str, Any]:
    """The default form of the sink-claims status (issue 14.2): what a model acts on.

    How to verify goes once the claims are verified, and the time of the
    check always; every other key stays, so the form keeps one shape.
    ``detail`` returns it whole.
    """
    dropped = {"checked_at"}
    if claims.get("verified") is True:
        dropped.add("how_to_verify")
    return {key: value for key, value in claims.items() if key not in dropped}


def _yes(value: object) -> str:
    return "yes" if value is True else "no" if value is False else str(value)


def server_info_prose(state: str, claims: dict[str, Any], info: dict[str, Any]) -> list[str]:
    """The text form of a server_info result: what the structured one says, as sentences."""
    socket = info.get("socket", {})
    server = info.get("server", {})
    surface = info.get("surface", {})
    evidence = info.get("annotation_evidence", {})
    lines = [
        f"tmuxmcp {info.get('tmuxmcp_version')}: socket {socket.get('kind')} "
        f"{socket.get('value')} ({socket.get('path')}), "
        f"dedicated default: {_yes(socket.get('dedicated_default'))}.",
    ]
    if "note" in server:
        lines.append(f"Server bound at startup, {state}: {server['note']}.")
    else:
        lines.append(
            f"Server bound at startup, {state}: pid {server.get('pid')}, tmux "
            f"{server.get('tmux_version')} "
            f"({server.get('tmux_binary')}), provenance {server.get('provenance')}, created "
            f"by tmuxmcp: {_yes(server.get('created_by_tmuxmcp'))}, config files: "
            f"{server.get('config_files')}; self-teardown guard: "
            f"{server.get('self_teardown_guard')}."
        )
    verified = "verified" if claims.get("verified") else "not verified"
    why = f" ({claims['reason']})" if claims.get("reason") else ""
    how = f"; to verify: {claims['how_to_verify']}" if claims.get("how_to_verify") else ""
    lines.append(f"Sink claims for tmux {claims.get('tmux_version')}: {verified}{why}{how}.")
    lines.append(f"Toolsets on: {', '.join(surface.get('toolsets', [])) or 'none'}.")
    for off in surface.get("toolsets_off", []):
        lines.append(f"The {off['toolset']} toolset is off: {off['reason']}. {off['enable']}.")
    if surface.get("excluded_tools"):
        lines.append(f"Excluded by the operator: {', '.join(surface['excluded_tools'])}.")
    tools = surface.get("tools", [])
    if tools and isinstance(tools[0], dict):
        lines.append(f"Tools ({len(tools)}), with declared properties and annotations:")
        lines.extend(_tool_line(tool) for tool in tools)
    else:
        lines.append(f"Tools ({len(tools)}): {', '.join(tools)}.")
    lines.append(
        f"Narrow annotations allowed: {_yes(evidence.get('narrow_hints_allowed'))}"
        + (f" (withdrawn: {evidence['withdrawn']})" if evidence.get("withdrawn") else "")
        + "."
    )
    lines.extend(info.get("notices", []))
    return lines


def _tool_line(tool: dict[str, Any]) -> str:
    hints = ", ".join(f"{k}={_yes(v)}" for k, v in tool.get("annotations", {}).items())
    nested = tool.get("nested_operations") or []
    return (
        f"- {tool['name']}: toolset {tool['toolset']}, reach {tool['process_reach']}, effect "
        f"{'+'.join(tool['tmux_effect'])}, outputs {', '.join(tool['output_classes'])}; "
        f"untrusted content: {_yes(tool['returns_untrusted_content'])}, may expose secrets: "
        f"{_yes(tool['may_expose_secrets'])}"
        + (f"; nested: {', '.join(nested)}" if nested else "")
        + (f"; annotations {hints}" if hints else "")
    )


def changed_configuration_report(ctx: ToolContext, reason: str) -> dict[str, Any]:
    """The published surface after the per-call check refused a call (CM-4).

    The annotations published at startup rested on evidence that no longer
    holds; they are withdrawn here and every call is refused until restart.
    """
    evidence = {
        **ctx.published.get("annotation_evidence", {}),
        "narrow_hints_allowed": False,
        "withdrawn": reason,
    }
    return {**ctx.published, "annotation_evidence": evidence}


def lost_server_report(ctx: ToolContext, state: str) -> dict[str, Any]:
    """The published surface after the bound server is gone or replaced (CM-1).

    Provenance was decided for the bound server only; whatever answers on the
    socket now has none that tmuxmcp knows, so none is claimed, and the
    annotation evidence that rested on it is withdrawn.
    """
    bound = ctx.facts.identity
    server = {
        "state": state,
        "provenance": None,
        "bound_pid": bound.pid,
        "bound_start_time": bound.start_time,
        "note": (
            f"the tmux server tmuxmcp bound to at startup (pid {bound.pid}) is {state}; "
            "no provenance is claimed for any server on the socket now and no call runs "
            "there; restart tmuxmcp to bind again"
        ),
        "tmux_binary": ctx.published["server"].get("tmux_binary"),
    }
    evidence = {
        **ctx.published.get("annotation_evidence", {}),
        "minimal_provenance": False,
        "narrow_hints_allowed": False,
    }
    return {**ctx.published, "server": server, "annotation_evidence": evidence}
