"""THE capability definition: every structured tool tmuxmcp has (ADR 0001, CM-5).

This module is the one place where a tool's authority is declared. Tool
registration, input and output schemas, descriptions, annotations, the
effective surface, ``tmuxmcp manifest``, ``server_info`` and the docs are all
derived from ``DEFINITION``; tests fail when any of them disagree with it,
when a parameter has no sink, or when any tool declares ``host-command``.
"""

from __future__ import annotations

from tmuxmcp.capability.model import ToolSpec
from tmuxmcp.capability.vocabulary import Effect, OutputClass, Reach, Toolset
from tmuxmcp.tools import commands, execute, inspect, manage, options, snapshot, teardown

OBSERVE = frozenset({Effect.OBSERVE})
CHANGE = frozenset({Effect.CHANGE})
DELETE = frozenset({Effect.DELETE})
METADATA = frozenset({OutputClass.TMUX_METADATA})
ENDS_PROCESSES = ("Every process running in the deleted panes receives SIGHUP and usually exits.",)

DEFINITION: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="list_sessions",
        title="List sessions",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary="Lists every session on the selected socket with its id, name and window count.",
        args=inspect.ListSessionsArgs,
        result=inspect.ListSessionsResult,
    ),
    ToolSpec(
        name="list_windows",
        title="List windows",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary=(
            "Lists the windows of one session (session_id), or of every session, "
            "with ids, names, sizes and layout."
        ),
        args=inspect.ListWindowsArgs,
        result=inspect.ListWindowsResult,
    ),
    ToolSpec(
        name="list_panes",
        title="List panes",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary=(
            "Lists the panes of one window (window_id), one session (session_id), or every "
            "session, with ids, sizes, titles, running command and working directory."
        ),
        args=inspect.ListPanesArgs,
        result=inspect.ListPanesResult,
    ),
    ToolSpec(
        name="get_pane_info",
        title="Get pane info",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary=(
            "Reports one pane by id: size, title, running command, working directory, "
            "cursor, mode and history size."
        ),
        args=inspect.GetPaneInfoArgs,
        result=inspect.GetPaneInfoResult,
    ),
    ToolSpec(
        name="capture_pane",
        title="Capture pane",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=frozenset({OutputClass.TERMINAL_CONTENT}),
        summary=(
            "Returns the text of a pane: the visible screen by default, or the lines from "
            "start to end (negative numbers reach into scrollback). At most max_lines and "
            f"{inspect.MAX_CAPTURE_BYTES // 1024} KiB are returned, keeping the last lines; "
            "truncation is reported."
        ),
        args=inspect.CapturePaneArgs,
        result=inspect.CapturePaneResult,
    ),
    ToolSpec(
        name="list_buffers",
        title="List paste buffers",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary="Lists tmux paste buffers by name and size (never their content).",
        args=inspect.ListBuffersArgs,
        result=inspect.ListBuffersResult,
    ),
    ToolSpec(
        name="snapshot",
        title="Snapshot",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=frozenset({OutputClass.TMUX_METADATA, OutputClass.TERMINAL_CONTENT}),
        summary=(
            "Returns sessions, their windows, their panes and each pane's visible screen in "
            "one call (optionally for one session_id). An operation the operator excluded is "
            "not performed: its level and every level below it are omitted, and the result "
            "names the omitted operations. Screen content is capped at "
            f"{snapshot.MAX_SNAPSHOT_CONTENT_BYTES // 1024} KiB in total."
        ),
        args=snapshot.SnapshotArgs,
        result=snapshot.SnapshotResult,
        nested=snapshot.LEVELS,
    ),
    ToolSpec(
        name="server_info",
        title="Server info",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary=(
            "Reports the selected socket, the server's provenance and tmux version, whether "
            "the server tmuxmcp bound to at startup still answers, whether `tmuxmcp verify` "
            "confirmed the sink claims for this tmux, and the effective tool surface with "
            "every tool's declared properties and annotations."
        ),
        args=inspect.ServerInfoArgs,
        result=inspect.ServerInfoResult,
    ),
)

DEFINITION += (
    ToolSpec(
        name="create_session",
        title="Create session",
        toolset=Toolset.MANAGE,
        reach=Reach.CONFIGURED_PROCESS,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Creates a detached session running tmux's default shell, optionally with a "
            "name, start directory and size. Returns the new session, window and pane ids "
            "and the name tmux stored."
        ),
        args=manage.CreateSessionArgs,
        result=manage.Created,
        additive=True,
    ),
    ToolSpec(
        name="create_window",
        title="Create window",
        toolset=Toolset.MANAGE,
        reach=Reach.CONFIGURED_PROCESS,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Creates a window running the default shell at the next free index of a session, "
            "without switching to it. Returns the new ids."
        ),
        args=manage.CreateWindowArgs,
        result=manage.Created,
        additive=True,
    ),
    ToolSpec(
        name="split_pane",
        title="Split pane",
        toolset=Toolset.MANAGE,
        reach=Reach.CONFIGURED_PROCESS,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Splits a pane, starting the default shell in the new pane: horizontal puts it "
            "to the right, vertical below; optional size in cells or percent. Returns the "
            "new pane id."
        ),
        args=manage.SplitPaneArgs,
        result=manage.Created,
        additive=True,
    ),
    ToolSpec(
        name="rename_session",
        title="Rename session",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary="Renames a session; the name is stored exactly as given and returned.",
        args=manage.RenameSessionArgs,
        result=manage.Named,
        repeat_safe=True,
    ),
    ToolSpec(
        name="rename_window",
        title="Rename window",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Renames a window (which also turns off its automatic renaming); the name is "
            "stored exactly as given and returned."
        ),
        args=manage.RenameWindowArgs,
        result=manage.Named,
        repeat_safe=True,
    ),
    ToolSpec(
        name="set_pane_title",
        title="Set pane title",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Sets a pane's title exactly as given and returns it; the program in the pane "
            "may change it again."
        ),
        args=manage.SetPaneTitleArgs,
        result=manage.Named,
        repeat_safe=True,
    ),
    ToolSpec(
        name="select_window",
        title="Select window",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary="Makes a window the current window of its session.",
        args=manage.SelectWindowArgs,
        result=manage.Done,
        repeat_safe=True,
    ),
    ToolSpec(
        name="select_pane",
        title="Select pane",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary="Makes a pane the active pane of its window.",
        args=manage.SelectPaneArgs,
        result=manage.Done,
        repeat_safe=True,
    ),
    ToolSpec(
        name="select_layout",
        title="Select layout",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Arranges a window's panes in one of tmux's named layouts and returns the window."
        ),
        args=manage.SelectLayoutArgs,
        result=manage.WindowResult,
        repeat_safe=True,
    ),
    ToolSpec(
        name="resize_pane",
        title="Resize pane",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Resizes a pane: to an absolute width and/or height, by moving a border in a "
            "direction, or by toggling zoom. Returns the pane afterwards."
        ),
        args=manage.ResizePaneArgs,
        result=manage.PaneResult,
    ),
    ToolSpec(
        name="swap_pane",
        title="Swap panes",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary="Exchanges the places of two panes, which may be in different windows.",
        args=manage.SwapPaneArgs,
        result=manage.Done,
    ),
    ToolSpec(
        name="move_window",
        title="Move window",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=frozenset({Effect.CHANGE, Effect.DELETE}),
        outputs=METADATA,
        summary=(
            "Moves a window to the next free index of a session. Moving the last window out "
            "of a session deletes that session, which is then empty (no process ends)."
        ),
        args=manage.MoveWindowArgs,
        result=manage.WindowResult,
    ),
    ToolSpec(
        name="set_option",
        title="Set option",
        toolset=Toolset.MANAGE,
        reach=Reach.NONE,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Sets one option from a closed list whose values tmux never reads as formats, "
            "commands or shell: history-limit, mouse, status (session); mode-keys, "
            "monitor-activity, aggressive-resize (window); remain-on-exit, allow-rename "
            "(pane). Options holding formats, commands, key bindings or shell commands are "
            "not settable by any tool. Returns the value tmux reports afterwards."
        ),
        args=options.SetOptionArgs,
        result=options.OptionSet,
        repeat_safe=True,
    ),
    ToolSpec(
        name="kill_session",
        title="Kill session",
        toolset=Toolset.TEARDOWN,
        reach=Reach.NONE,
        effects=DELETE,
        outputs=METADATA,
        summary=(
            "Deletes a session with all its windows and panes. Refuses the session that holds "
            "tmuxmcp's own pane (a guard for teardown tools only, not for pane commands or "
            "other clients). No tool kills the tmux server."
        ),
        args=teardown.KillSessionArgs,
        result=teardown.Deleted,
        repeat_safe=True,
        disclosures=ENDS_PROCESSES,
    ),
    ToolSpec(
        name="kill_window",
        title="Kill window",
        toolset=Toolset.TEARDOWN,
        reach=Reach.NONE,
        effects=DELETE,
        outputs=METADATA,
        summary=(
            "Deletes a window with its panes; a session's last window takes the session with "
            "it. Refuses the window that holds tmuxmcp's own pane (teardown tools only)."
        ),
        args=teardown.KillWindowArgs,
        result=teardown.Deleted,
        repeat_safe=True,
        disclosures=ENDS_PROCESSES,
    ),
    ToolSpec(
        name="kill_pane",
        title="Kill pane",
        toolset=Toolset.TEARDOWN,
        reach=Reach.NONE,
        effects=DELETE,
        outputs=METADATA,
        summary=(
            "Deletes a pane; a window's last pane takes the window with it. Refuses "
            "tmuxmcp's own pane (teardown tools only)."
        ),
        args=teardown.KillPaneArgs,
        result=teardown.Deleted,
        repeat_safe=True,
        disclosures=ENDS_PROCESSES,
    ),
    ToolSpec(
        name="clear_history",
        title="Clear history",
        toolset=Toolset.TEARDOWN,
        reach=Reach.NONE,
        effects=DELETE,
        outputs=METADATA,
        summary="Deletes a pane's scrollback history; the visible screen stays.",
        args=teardown.ClearHistoryArgs,
        result=teardown.Deleted,
        repeat_safe=True,
    ),
    ToolSpec(
        name="delete_buffer",
        title="Delete paste buffer",
        toolset=Toolset.TEARDOWN,
        reach=Reach.NONE,
        effects=DELETE,
        outputs=METADATA,
        summary="Deletes a tmux paste buffer by name (see list_buffers).",
        args=teardown.DeleteBufferArgs,
        result=teardown.Deleted,
        repeat_safe=True,
    ),
)

# -- execute toolset ---------------------------------------------------------------
TERMINAL = frozenset({OutputClass.TERMINAL_CONTENT})
DELIVERY = (
    "Anything it delivers can make the pane program act with the tmux user's authority; "
    "disabling other tools does not contain it.",
)

DEFINITION += (
    ToolSpec(
        name="send_keys",
        title="Send keys",
        toolset=Toolset.EXECUTE,
        reach=Reach.PANE_INPUT,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Sends named keys (Enter, Escape, Tab, arrows, Home/End, PageUp/PageDown, F1-F12, "
            "C-a..C-z, M- combinations) to a pane, optionally repeated. Free text is never "
            "parsed as key names: use send_text. If the pane is in copy or view mode the "
            "keys act on that mode, which is how to leave it. Returns a cursor read just "
            "before the keys were delivered, for wait_for_text since."
        ),
        args=execute.SendKeysArgs,
        result=execute.Sent,
        disclosures=DELIVERY,
    ),
    ToolSpec(
        name="send_text",
        title="Send text",
        toolset=Toolset.EXECUTE,
        reach=Reach.PANE_INPUT,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Types text into the program in a pane byte for byte (up to 1 MiB, in one paste "
            "through a tmux paste buffer), optionally as a bracketed paste and followed by "
            "Enter. Each newline in the text arrives as Enter, so a REPL receives a multi-line "
            "snippet; other control characters are refused: send them with send_keys. The "
            "text goes to the program even when the pane shows copy or view mode; it is never "
            "read as key bindings. Returns a cursor read just before the text was delivered: "
            "wait_for_text with since set to it matches only what appeared after it, so a "
            "reply printed before the wait begins is not missed."
        ),
        args=execute.SendTextArgs,
        result=execute.Sent,
        disclosures=DELIVERY,
    ),
    ToolSpec(
        name="run_command",
        title="Run command",
        toolset=Toolset.EXECUTE,
        reach=Reach.PANE_COMMAND,
        effects=CHANGE,
        outputs=TERMINAL,
        summary=(
            "Runs a shell command in the shell of a pane (never on the host outside tmux) and "
            "returns its exit status, its own output as the screen shows it (start and end kept "
            "within max_output_bytes, with an explicit marker where lines are left out, and "
            "what scrolled out of the history reported) and a run_id. The command runs exactly "
            "as written, from a file the shell sources; the screen shows one short line. The "
            "status comes over a private channel, not the screen. On timeout the command keeps "
            "running: wait_for_command with the run_id collects it. Refuses panes whose own "
            "shell is not waiting at its prompt; runs on one pane never overlap. A leading space "
            "keeps the line out of shell history where the shell is configured for that "
            "(best effort)."
        ),
        args=commands.RunCommandArgs,
        result=commands.RunCommandResult,
        disclosures=DELIVERY,
    ),
    ToolSpec(
        name="wait_for_command",
        title="Wait for command",
        toolset=Toolset.EXECUTE,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=TERMINAL,
        summary=(
            "Waits again for a command that run_command started and that outlived its timeout, "
            "and returns the same result as run_command once it ends (or times out again). "
            "It types nothing: it only reads the run's status and the pane's screen."
        ),
        args=commands.WaitForCommandArgs,
        result=commands.RunCommandResult,
    ),
    ToolSpec(
        name="paste_buffer",
        title="Paste buffer",
        toolset=Toolset.EXECUTE,
        reach=Reach.PANE_INPUT,
        effects=CHANGE,
        outputs=METADATA,
        summary=(
            "Pastes a tmux paste buffer into a pane (line feeds become carriage returns), "
            "optionally as a bracketed paste. The buffer is kept."
        ),
        args=execute.PasteBufferArgs,
        result=execute.Delivered,
        disclosures=DELIVERY,
    ),
    ToolSpec(
        name="respawn_pane",
        title="Respawn pane",
        toolset=Toolset.EXECUTE,
        reach=Reach.CONFIGURED_PROCESS,
        effects=frozenset({Effect.CHANGE, Effect.DELETE}),
        outputs=METADATA,
        summary=(
            "Kills the process running in a pane and starts the pane's configured command "
            "again (its default shell unless it was created with another command). Refuses "
            "tmuxmcp's own pane (a guard for direct tools only)."
        ),
        args=execute.RespawnPaneArgs,
        result=execute.Delivered,
        disclosures=ENDS_PROCESSES,
    ),
)

# -- waiting and searching (inspect) -----------------------------------------------
# Imported here so this block stays self-contained (one block per toolset).
from tmuxmcp.tools import search, since, waiting, waiting_idle  # noqa: E402

BOUNDED = (
    "Patterns are matched by tmuxmcp (literal text, or RE2 regular expressions, which run "
    "in time linear in the input), never by tmux. Pattern length, the bytes scanned and "
    "the matching time per scan are bounded; exceeding the matching budget is reported as "
    "match-timeout, never as a wait timeout, and a tmux client that does not answer is the "
    "error tmux-timeout.",
)

DEFINITION += (
    ToolSpec(
        name="wait_for_text",
        title="Wait for text",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=frozenset({OutputClass.TERMINAL_CONTENT}),
        summary=(
            "Waits until a pattern appears in a pane, up to timeout seconds, and returns the "
            "outcome (matched, timeout, match-timeout, pane-gone, pane-dead) with the "
            "matching row, its position and the time taken. With scope new (the default) "
            "only output that appears after the call starts counts: the cursor's row at the "
            "start is the anchor, text already on it and rows above it (such as a command "
            "line the shell has already echoed) never match. With since (a cursor from "
            "send_text, send_keys or capture_since) what appeared after that cursor counts, "
            "also before the call began. With scope screen the whole visible screen counts. "
            "A match lies within one screen row; the cursor's row includes the blanks before "
            "the cursor, so a prompt such as '>>> ' or '$ ' matches as it appears on screen. "
            "Sends progress notifications about once a second when the client asks for them."
        ),
        args=waiting.WaitForTextArgs,
        result=waiting.WaitForTextResult,
        disclosures=BOUNDED,
    ),
    ToolSpec(
        name="wait_for_idle",
        title="Wait for idle",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        summary=(
            "Waits until a pane's screen (its rows, cursor, size and history size) has not "
            "changed for quiet_ms milliseconds, up to timeout seconds, and returns the outcome "
            "(idle, timeout, pane-gone), how long the screen had been quiet, how many changes "
            "were seen and whether the pane's program has exited. For a TUI or a REPL whose "
            "prompt is unknown; a screen that never settles (a clock) ends with timeout. Sends "
            "progress notifications about once a second when the client asks for them."
        ),
        args=waiting_idle.WaitForIdleArgs,
        result=waiting_idle.WaitForIdleResult,
    ),
    ToolSpec(
        name="search_panes",
        title="Search panes",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=frozenset({OutputClass.TERMINAL_CONTENT}),
        summary=(
            "Searches the screens and scrollback (scrollback rows per pane) of every pane, "
            "or of one session_id or window_id, and returns the matching rows with pane id, "
            "row number (negative: scrollback) and text, at most max_matches; truncation is "
            "reported."
        ),
        args=search.SearchPanesArgs,
        result=search.SearchPanesResult,
        disclosures=BOUNDED,
    ),
    ToolSpec(
        name="capture_since",
        title="Capture since",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=frozenset({OutputClass.TERMINAL_CONTENT}),
        summary=(
            "Returns the complete rows a pane printed since an opaque cursor (without one: "
            "the visible rows above the cursor), the unfinished cursor row separately, and "
            "a new cursor; at most max_lines rows per call, the rest on the next call. Rows "
            "lost to the history limit, a cleared history or a screen switch are reported as "
            "a gap with a count, never skipped silently. A cursor only works for its own "
            "pane on the same tmux server."
        ),
        args=since.CaptureSinceArgs,
        result=since.CaptureSinceResult,
    ),
)

BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in DEFINITION}
