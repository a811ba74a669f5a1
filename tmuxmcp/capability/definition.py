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
from tmuxmcp.tools import inspect

OBSERVE = frozenset({Effect.OBSERVE})
METADATA = frozenset({OutputClass.TMUX_METADATA})

DEFINITION: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="list_sessions",
        title="List sessions",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        may_expose_secrets=True,
        returns_untrusted_content=True,
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
        may_expose_secrets=True,
        returns_untrusted_content=True,
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
        may_expose_secrets=True,
        returns_untrusted_content=True,
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
        may_expose_secrets=True,
        returns_untrusted_content=True,
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
        may_expose_secrets=True,
        returns_untrusted_content=True,
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
        name="server_info",
        title="Server info",
        toolset=Toolset.INSPECT,
        reach=Reach.NONE,
        effects=OBSERVE,
        outputs=METADATA,
        may_expose_secrets=False,
        returns_untrusted_content=False,
        summary=(
            "Reports the selected socket, the server's provenance and tmux version, whether "
            "the server tmuxmcp bound to at startup still answers, and the effective tool "
            "surface with every tool's declared properties and annotations."
        ),
        args=inspect.ServerInfoArgs,
        result=inspect.ServerInfoResult,
    ),
)

BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in DEFINITION}
