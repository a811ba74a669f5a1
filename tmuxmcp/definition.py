"""THE capability definition: every structured tool tmuxmcp has (ADR 0001, CM-5).

This module is the one place where a tool's authority is declared. Tool
registration, input and output schemas, descriptions, annotations, the
effective surface, ``tmuxmcp manifest``, ``server_info`` and the docs are all
derived from ``DEFINITION``; tests fail when any of them disagree with it,
when a parameter has no sink, or when any tool declares ``host-command``.
"""

from __future__ import annotations

from typing import Any

from tmuxmcp.capability.model import (
    DeclaredResource,
    DeclaredTool,
    PaneSet,
    ToolSpec,
    Waits,
    declare_resource,
    declare_tool,
)
from tmuxmcp.capability.vocabulary import Effect, OutputClass, Reach, Toolset
from tmuxmcp.tools import (
    capture,
    execute,
    inspect,
    manage,
    options,
    recover,
    resources,
    run,
    search,
    server_info,
    since,
    snapshot,
    teardown,
    waiting,
    waiting_state,
)

OBSERVE = frozenset({Effect.OBSERVE})
CHANGE = frozenset({Effect.CHANGE})
DELETE = frozenset({Effect.DELETE})
METADATA = frozenset({OutputClass.TMUX_METADATA})
ENDS_PROCESSES = ("Processes in deleted panes get SIGHUP and usually exit.",)

# Each entry is made by ``declare_tool``, which mypy checks on its own: its args,
# result and handler must agree (issue 21.3), however the table is written
# (issue 30.4). The blocks are added to an empty tuple only to group them.
DEFINITION: tuple[DeclaredTool, ...] = ()
DEFINITION += (
    declare_tool(
        name="list_sessions",
        title="List sessions",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary="Lists sessions: id, name, window count.",
        args=inspect.ListSessionsArgs,
        handler=inspect.list_sessions,
        result=inspect.ListSessionsResult,
    ),
    declare_tool(
        name="list_windows",
        title="List windows",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary="Lists windows of session_id, or all: ids, names, sizes, layout.",
        args=inspect.ListWindowsArgs,
        handler=inspect.list_windows,
        result=inspect.ListWindowsResult,
    ),
    declare_tool(
        name="list_panes",
        title="List panes",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary=(
            "Lists panes of window_id, session_id, pane_id, or all: ids, size, title, command, "
            "directory, state."
        ),
        args=inspect.ListPanesArgs,
        handler=inspect.list_panes,
        result=inspect.ListPanesResult,
    ),
    declare_tool(
        name="capture_pane",
        title="Capture pane",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=frozenset({OutputClass.TERMINAL_CONTENT}),
        summary=(
            "A pane's visible screen or lines start..end: the last max_lines that fit "
            "max_chars (truncation reported)."
        ),
        args=capture.CapturePaneArgs,
        handler=capture.capture_pane,
        result=capture.CapturePaneResult,
    ),
    declare_tool(
        name="list_buffers",
        title="List paste buffers",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary="Lists paste buffers by name and size, never their content.",
        args=inspect.ListBuffersArgs,
        handler=inspect.list_buffers,
        result=inspect.ListBuffersResult,
    ),
    declare_tool(
        name="snapshot",
        title="Snapshot",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=frozenset({OutputClass.TMUX_METADATA, OutputClass.TERMINAL_CONTENT}),
        summary=(
            "Sessions, windows, panes and visible screens in one call, as many as fit "
            "max_chars (truncation reported); a level the operator excluded is named and "
            "not read, nor those below it."
        ),
        args=snapshot.SnapshotArgs,
        handler=snapshot.snapshot,
        result=snapshot.SnapshotResult,
        nested=snapshot.LEVELS,
    ),
    declare_tool(
        name="server_info",
        title="Server info",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary=(
            "The socket, provenance, tmux version, verify status, toolsets on and off (and "
            "why), tool names; detail adds each tool's properties."
        ),
        args=server_info.ServerInfoArgs,
        handler=server_info.server_info,
        result=server_info.ServerInfoResult,
    ),
)

DEFINITION += (
    declare_tool(
        name="create_session",
        title="Create session",
        toolset=Toolset.MANAGE,
        reach=Reach.CONFIGURED_PROCESS,
        effects=CHANGE,
        outputs=METADATA,
        summary="Creates a detached session running the default shell; returns ids and name.",
        args=manage.CreateSessionArgs,
        handler=manage.create_session,
        result=manage.Created,
        additive=True,
        starts_panes=True,
        pane_set=PaneSet.ADDS,
    ),
    declare_tool(
        name="create_window",
        title="Create window",
        toolset=Toolset.MANAGE,
        reach=Reach.CONFIGURED_PROCESS,
        effects=CHANGE,
        outputs=METADATA,
        summary="Creates a window running the default shell, not switching to it; returns ids.",
        args=manage.CreateWindowArgs,
        handler=manage.create_window,
        result=manage.Created,
        additive=True,
        starts_panes=True,
        pane_set=PaneSet.ADDS,
    ),
    declare_tool(
        name="split_pane",
        title="Split pane",
        toolset=Toolset.MANAGE,
        reach=Reach.CONFIGURED_PROCESS,
        effects=CHANGE,
        outputs=METADATA,
        summary="Splits a pane; the new one runs the default shell; returns its id.",
        args=manage.SplitPaneArgs,
        handler=manage.split_pane,
        result=manage.Created,
        additive=True,
        starts_panes=True,
        pane_set=PaneSet.ADDS,
    ),
    declare_tool(
        name="rename",
        title="Rename session or window",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary="Renames session_id or window_id (ending its automatic renaming); returns it.",
        args=manage.RenameArgs,
        handler=manage.rename,
        result=manage.Named,
        repeat_safe=True,
    ),
    declare_tool(
        name="set_pane_title",
        title="Set pane title",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary="Sets a pane's title; its program may change it again.",
        args=manage.SetPaneTitleArgs,
        handler=manage.set_pane_title,
        result=manage.Named,
        repeat_safe=True,
    ),
    declare_tool(
        name="select",
        title="Select window or pane",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Makes window_id its session's current window, or pane_id its window's active pane."
        ),
        args=manage.SelectArgs,
        handler=manage.select,
        result=manage.Done,
        repeat_safe=True,
    ),
    declare_tool(
        name="select_layout",
        title="Select layout",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary="Arranges a window's panes in a named layout; returns the window.",
        args=manage.SelectLayoutArgs,
        handler=manage.select_layout,
        result=manage.WindowResult,
        repeat_safe=True,
    ),
    declare_tool(
        name="resize_pane",
        title="Resize pane",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary="Sets a pane's width and/or height, moves a border, or toggles zoom.",
        args=manage.ResizePaneArgs,
        handler=manage.resize_pane,
        result=manage.PaneResult,
    ),
    declare_tool(
        name="swap_pane",
        title="Swap panes",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary="Swaps two panes, possibly in different windows.",
        args=manage.SwapPaneArgs,
        handler=manage.swap_pane,
        result=manage.Done,
    ),
    declare_tool(
        name="move_window",
        title="Move window",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=frozenset({Effect.CHANGE, Effect.DELETE}),
        outputs=METADATA,
        summary=(
            "Moves a window to a session's next free index. Moving a session's last window "
            "deletes that empty session (no process ends)."
        ),
        args=manage.MoveWindowArgs,
        handler=manage.move_window,
        result=manage.WindowResult,
    ),
    declare_tool(
        name="set_option",
        title="Set option",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Sets one option from a closed list whose values tmux never reads as formats, "
            "commands or shell."
        ),
        args=options.SetOptionArgs,
        handler=options.set_option,
        result=options.OptionSet,
        repeat_safe=True,
    ),
    declare_tool(
        name="kill_session",
        title="Kill session",
        toolset=Toolset.TEARDOWN,
        reach=Reach.NONE,
        effects=DELETE,
        outputs=METADATA,
        summary=(
            "Deletes a session with its windows and panes; refuses the one holding tmuxmcp's "
            "own pane (teardown tools only, not pane commands or other clients)."
        ),
        args=teardown.KillSessionArgs,
        handler=teardown.kill_session,
        result=teardown.Deleted,
        repeat_safe=True,
        disclosures=ENDS_PROCESSES,
        pane_set=PaneSet.REMOVES,
    ),
    declare_tool(
        name="kill_window",
        title="Kill window",
        toolset=Toolset.TEARDOWN,
        reach=Reach.NONE,
        effects=DELETE,
        outputs=METADATA,
        summary=(
            "Deletes a window with its panes (a last window takes its session); refuses the "
            "one holding tmuxmcp's own pane (teardown tools only)."
        ),
        args=teardown.KillWindowArgs,
        handler=teardown.kill_window,
        result=teardown.Deleted,
        repeat_safe=True,
        disclosures=ENDS_PROCESSES,
        pane_set=PaneSet.REMOVES,
    ),
    declare_tool(
        name="kill_pane",
        title="Kill pane",
        toolset=Toolset.TEARDOWN,
        reach=Reach.NONE,
        effects=DELETE,
        outputs=METADATA,
        summary=(
            "Deletes a pane (a last pane takes its window). Refuses tmuxmcp's own pane "
            "(teardown tools only)."
        ),
        args=teardown.KillPaneArgs,
        handler=teardown.kill_pane,
        result=teardown.Deleted,
        repeat_safe=True,
        disclosures=ENDS_PROCESSES,
        pane_set=PaneSet.REMOVES,
    ),
    declare_tool(
        name="clear_history",
        title="Clear history",
        toolset=Toolset.TEARDOWN,
        reach=Reach.NONE,
        effects=DELETE,
        outputs=METADATA,
        summary="Deletes a pane's scrollback history; the visible screen stays.",
        args=teardown.ClearHistoryArgs,
        handler=teardown.clear_history,
        result=teardown.Deleted,
        repeat_safe=True,
    ),
    declare_tool(
        name="delete_buffer",
        title="Delete paste buffer",
        toolset=Toolset.TEARDOWN,
        reach=Reach.NONE,
        effects=DELETE,
        outputs=METADATA,
        summary="Deletes a paste buffer.",
        args=teardown.DeleteBufferArgs,
        handler=teardown.delete_buffer,
        result=teardown.Deleted,
        repeat_safe=True,
    ),
)

# -- execute toolset ---------------------------------------------------------------
TERMINAL = frozenset({OutputClass.TERMINAL_CONTENT})

DEFINITION += (
    declare_tool(
        name="send_keys",
        title="Send keys and text",
        toolset=Toolset.EXECUTE,
        reach=Reach.PANE_INPUT,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Types keys and text into a pane's program in one call, in order; in a tmux mode "
            "keys act on the mode. Returns a cursor for wait_for_text since."
        ),
        args=execute.SendKeysArgs,
        handler=execute.send_keys,
        result=execute.Sent,
    ),
    declare_tool(
        name="run_command",
        title="Run command",
        toolset=Toolset.EXECUTE,
        reach=Reach.PANE_COMMAND,
        effects=CHANGE,
        outputs=TERMINAL,
        summary=(
            "Runs a shell command in a pane's shell (never on the host) waiting at its prompt; "
            "returns exit status, output, and a run_id for wait_for_command."
        ),
        args=run.RunCommandArgs,
        handler=run.run_command,
        result=run.RunCommandResult,
        continues=run.continue_as_task,
        disclosures=("Cancelling the task interrupts it (C-c).",),
    ),
    declare_tool(
        name="wait_for_command",
        title="Wait for command",
        toolset=Toolset.EXECUTE,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=TERMINAL,
        summary="Waits for a run_command run to end. Types nothing.",
        args=run.WaitForCommandArgs,
        handler=run.wait_for_command,
        result=run.RunCommandResult,
        continues=Waits(),
    ),
    declare_tool(
        name="paste_buffer",
        title="Paste buffer",
        toolset=Toolset.EXECUTE,
        reach=Reach.PANE_INPUT,
        effects=CHANGE,
        outputs=METADATA,
        summary="Pastes a paste buffer into a pane (refused in a tmux mode); the buffer is kept.",
        args=execute.PasteBufferArgs,
        handler=execute.paste_buffer,
        result=execute.Delivered,
    ),
    declare_tool(
        name="respawn_pane",
        title="Respawn pane",
        toolset=Toolset.EXECUTE,
        reach=Reach.CONFIGURED_PROCESS,
        effects=frozenset({Effect.CHANGE, Effect.DELETE}),
        outputs=METADATA,
        summary=(
            "Kills a pane's process and restarts its configured command; refuses tmuxmcp's "
            "own pane (direct tools only)."
        ),
        args=execute.RespawnPaneArgs,
        handler=execute.respawn_pane,
        result=execute.Delivered,
        disclosures=ENDS_PROCESSES,
        starts_panes=True,
    ),
    declare_tool(
        name="recover_pane",
        title="Recover pane",
        toolset=Toolset.EXECUTE,
        reach=Reach.PANE_INPUT,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Brings a pane to shell-ready with the fewest keys (from a tmux mode, pager, "
            "continuation); ends a program only if end_pid names it. Says each step's keys, "
            "state."
        ),
        args=recover.RecoverPaneArgs,
        handler=recover.recover_pane,
        result=recover.RecoverPaneResult,
    ),
)

# -- waiting and searching (inspect) -----------------------------------------------

BOUNDED = (
    "Matched by tmuxmcp, never tmux, in bounded size and time (over budget: match-timeout).",
)

DEFINITION += (
    declare_tool(
        name="wait_for_text",
        title="Wait for text",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=frozenset({OutputClass.TERMINAL_CONTENT}),
        summary=(
            "Waits for a pattern in one screen row of a pane; returns the outcome and the row."
        ),
        args=waiting.WaitForTextArgs,
        handler=waiting.wait_for_text,
        result=waiting.WaitForTextResult,
        disclosures=BOUNDED,
        continues=Waits(),
    ),
    declare_tool(
        name="wait_for_state",
        title="Wait for state",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary="Waits until a pane is in one of states, or unchanged for quiet_ms.",
        args=waiting_state.WaitForStateArgs,
        handler=waiting_state.wait_for_state,
        result=waiting_state.WaitForStateResult,
        continues=Waits(),
    ),
    declare_tool(
        name="search_panes",
        title="Search panes",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=frozenset({OutputClass.TERMINAL_CONTENT}),
        summary=(
            "Searches screens and scrollback of all panes, or of one session_id or window_id, "
            "for matching rows; truncation is reported."
        ),
        args=search.SearchPanesArgs,
        handler=search.search_panes,
        result=search.SearchPanesResult,
        disclosures=BOUNDED,
    ),
    declare_tool(
        name="capture_since",
        title="Capture since",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=frozenset({OutputClass.TERMINAL_CONTENT}),
        summary=(
            "The rows a pane printed since a cursor, and a new cursor; rows lost to history "
            "limits or clearing are reported as a gap."
        ),
        args=since.CaptureSinceArgs,
        handler=since.capture_since,
        result=since.CaptureSinceResult,
    ),
)

BY_NAME: dict[str, ToolSpec[Any, Any]] = {spec.name: spec for spec in DEFINITION}

# -- resources ---------------------------------------------------------------------

RESOURCES: tuple[DeclaredResource, ...] = ()
RESOURCES += (
    declare_resource(
        name="panes",
        title="Pane index",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary=(
            "Every pane on the socket at the moment it is read, one line each: its "
            "resource URI, session:window.pane, command and state; listed also when "
            "there is no pane yet."
        ),
        args=resources.PaneIndexArgs,
        handler=resources.read_pane_index,
        result=resources.PaneIndex,
        uri_template=resources.INDEX_URI,
        variables=resources.index_args_of_uri,
        lister=resources.list_pane_index,
        # Served exactly where the pane resources it leads to are (issue 29.3).
        requires=("capture_pane", "list_panes"),
        repeat_safe=True,
    ),
    declare_resource(
        name="pane",
        title="Pane screen",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=frozenset({OutputClass.TERMINAL_CONTENT}),
        summary=(
            "The visible text of the pane whose id is %n, read as capture_pane reads the "
            "screen; resources/list lists every pane on the socket."
        ),
        args=resources.PaneResourceArgs,
        handler=resources.read_pane_resource,
        result=resources.PaneScreen,
        uri_template=resources.PANE_TEMPLATE,
        variables=resources.args_of_uri,
        lister=resources.list_pane_resources,
        requires=("capture_pane", "list_panes"),
        repeat_safe=True,
    ),
)
"""MCP resources; each exists only while every tool it ``requires`` is served (CM-3)."""
