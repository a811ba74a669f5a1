"""docs/examples.md: one real call and result for every tool, checked fresh.

Issue 14.6. The page is generated from real runs: ``SCRIPT`` below calls every
tool once, in order, over a real stdio client (``tests.support.serve``)
against a fresh tmux server that tmuxmcp starts itself (so the first objects
are ``$0``, ``@0``, ``%0`` and all four toolsets are on). Values that differ
from run to run (run ids, cursors, timings, pids, paths) are replaced by
``"…"`` before rendering, so the page is the same on every run with the same
tmux version.

Invariants:

1. ``SCRIPT`` calls every tool of the definition, and every call succeeds.
2. The committed page equals the page a run renders now, when the run uses the
   tmux version the page was generated with (it says which). Regenerate with
   ``TMUXMCP_WRITE_EXAMPLES=1 python -m pytest tests/test_tool_examples.py``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import PrivateTmux, error_text, serve, temporary_tmux
from tmuxmcp.definition import DEFINITION
from tmuxmcp.runs import directory as run_directory

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "examples.md"
ANY = "…"

# Keys whose values change between runs of the same calls.
VOLATILE = frozenset(
    {
        "run_id",
        "cursor",
        "duration_seconds",
        "elapsed_ms",
        "match_ms",
        "quiet_for_ms",
        "polls",
        "pid",
        "start_time",
        "started",
        "created",
        "activity",
        "server_pid",
        "pane_pid",
        "path",
        "socket_path",
        "current_path",
        "start_directory",
        "last_activity",
        "version",
        "tmuxmcp_version",
        "cursor_x",
        "cursor_y",
        "foreground_pid",
        "tty",
    }
)
# run_command's private directory of sourced command files, one per server
# (on a memory file system where there is one: run_directory.directory_base).
_RUN_BASE = run_directory.directory_base() or tempfile.gettempdir()
_RUN_FILES = re.compile(re.escape(_RUN_BASE) + r"/tmuxmcp-[A-Za-z0-9_]+")
MAX_LIST_ITEMS = 4
MAX_STRING = 400

# Every tool once. "<field>" is that field of the latest result that had it.
# Wide enough that the typed line of run_command (two paths of its private directory)
# fits one row of the split pane on any machine: the page shows no wrap of a path.
SCRIPT: tuple[tuple[str, dict[str, Any]], ...] = (
    ("create_session", {"name": "work", "width": 360, "height": 20}),
    ("rename", {"window_id": "@0", "name": "main"}),
    ("create_window", {"session_id": "$0", "name": "logs"}),
    ("split_pane", {"pane_id": "%0", "direction": "horizontal"}),
    # Every pane's shell is at its prompt before anything lists the panes
    # (right after a split, tmux may still report the command as "tmux").
    ("run_command", {"pane_id": "%0", "command": "echo hello"}),
    ("run_command", {"pane_id": "%2", "command": "sleep 1; echo later", "timeout": 0.2}),
    ("wait_for_command", {"pane_id": "%2", "run_id": "<run_id>", "timeout": 30}),
    ("send_keys", {"pane_id": "%1", "keys": [{"text": "echo typed"}, "Enter"]}),
    ("wait_for_text", {"pane_id": "%1", "pattern": "^typed$", "regex": True, "since": "<cursor>"}),
    ("wait_for_state", {"pane_id": "%1", "states": ["shell-ready"], "timeout": 10}),
    ("list_sessions", {}),
    ("list_windows", {"session_id": "$0"}),
    ("list_panes", {"window_id": "@0"}),
    ("list_panes", {"pane_id": "%0"}),
    ("send_keys", {"pane_id": "%1", "keys": ["C-l"]}),
    ("recover_pane", {"pane_id": "%1"}),
    ("capture_pane", {"pane_id": "%0", "max_lines": 6}),
    ("capture_since", {"pane_id": "%0"}),
    ("search_panes", {"pattern": "hello", "session_id": "$0"}),
    ("snapshot", {"session_id": "$0"}),
    ("rename", {"session_id": "$0", "name": "project"}),
    ("rename", {"window_id": "@1", "name": "tail"}),
    ("set_pane_title", {"pane_id": "%1", "title": "build"}),
    ("select", {"window_id": "@0"}),
    ("select", {"pane_id": "%0"}),
    ("select_layout", {"window_id": "@0", "layout": "even-horizontal"}),
    ("resize_pane", {"pane_id": "%0", "direction": "right", "amount": 2}),
    ("swap_pane", {"pane_id": "%0", "other_pane_id": "%1"}),
    ("create_session", {"name": "spare"}),
    ("move_window", {"window_id": "@1", "session_id": "$1"}),
    ("set_option", {"option": "history-limit", "value": 5000, "session_id": "$0"}),
    ("list_buffers", {}),
    ("paste_buffer", {"pane_id": "%1", "buffer": "notes"}),
    ("delete_buffer", {"buffer": "notes"}),
    ("clear_history", {"pane_id": "%0"}),
    ("respawn_pane", {"pane_id": "%1"}),
    ("kill_pane", {"pane_id": "%1"}),
    ("kill_window", {"window_id": "@1"}),
    ("kill_session", {"session_id": "$1"}),
    ("server_info", {}),
)
BEFORE = {
    # The one setup step outside tmuxmcp: an operator's buffer for the buffer tools.
    "list_buffers": ("set-buffer", "-b", "notes", "echo from a buffer"),
    # A pane a person left in copy mode, for recover_pane to bring back.
    "recover_pane": ("copy-mode", "-t", "%1"),
}


# Per tool, result keys that race with the shell's start: a new window's
# automatic name is its running command, "tmux" until the shell has exec'd.
RACY = {"create_session": frozenset({"window_name"})}


def normalize(value: Any, tmpdir: str, key: str = "") -> Any:
    """``value`` with run-dependent parts replaced, long lists and strings cut."""
    if key in VOLATILE and value is not None:
        return ANY
    if isinstance(value, dict):
        return {k: normalize(v, tmpdir, k) for k, v in value.items()}
    if isinstance(value, list):
        shown = [normalize(v, tmpdir, key) for v in value[:MAX_LIST_ITEMS]]
        if len(value) > MAX_LIST_ITEMS:
            shown.append(f"… {len(value) - MAX_LIST_ITEMS} more")
        return shown
    if isinstance(value, str):
        if value == socket.gethostname():  # tmux's default pane title
            return "<hostname>"
        value = _RUN_FILES.sub("$RUNDIR", value.replace(tmpdir, "$TMUX_TMPDIR"))
        # server_info's verify advice names this interpreter (issue 18.5).
        value = value.replace(sys.executable, "/home/you/src/tmuxmcp/.venv/bin/python")
        if len(value) > MAX_STRING:
            value = value[:MAX_STRING] + f"… ({len(value) - MAX_STRING} more characters)"
    return value


def _tmux_version() -> str:
    return subprocess.run(["tmux", "-V"], capture_output=True, text=True, check=True).stdout.strip()


def render(runs: list[tuple[str, dict[str, Any], dict[str, Any]]], version: str) -> str:
    out = [
        "# Examples",
        "",
        "One real call and its result for every tool, in the order a session might use",
        "them. This page is generated by `tests/test_tool_examples.py` from a run against",
        f"a fresh tmux server ({version}) that tmuxmcp started itself, and the test",
        "fails when a run no longer produces it. Values that differ between runs",
        '(run ids, cursors, timings, pids, paths) are shown as `"…"`; long lists and',
        "strings are cut. Results are the `structuredContent`; the text form says the",
        "same in prose, and is all a client on a protocol version before 2025-06-18",
        "gets. See the [tool reference](tools.md) for every parameter and the",
        "[agent patterns](patterns.md) for how the calls fit together.",
        "",
    ]
    headed: set[str] = set()
    for tool, arguments, result in runs:
        out += [f"## `{tool}`" + (", timed out" if tool in headed else ""), ""]
        headed.add(tool)
        if tool in BEFORE:
            out += [
                "Set up outside tmuxmcp first: `tmux -L tmuxmcp "
                + " ".join(shlex.quote(word) for word in BEFORE[tool])
                + "`.",
                "",
            ]
        out += ["```json", json.dumps({"arguments": arguments}, ensure_ascii=False), "```", ""]
        out += ["```json", json.dumps(result, indent=2, ensure_ascii=False), "```", ""]
    return "\n".join(out).rstrip("\n") + "\n"


@pytest.fixture
def fresh_tmux() -> Iterator[PrivateTmux]:
    with temporary_tmux("tmxex") as tmux:
        # dash reads no rc files and its prompt names no host or directory.
        tmux.private_home(shutil.which("dash") or "/bin/sh")
        tmux.env.pop("ENV", None)
        yield tmux


def test_the_script_calls_every_tool() -> None:
    assert {tool for tool, _ in SCRIPT} == {spec.name for spec in DEFINITION}


@pytest.mark.tmux
async def test_the_examples_page_is_what_a_run_produces(fresh_tmux: PrivateTmux) -> None:
    runs: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    seen: dict[str, Any] = {}
    shown: set[str] = set()
    async with serve(fresh_tmux) as session:
        for tool, template in SCRIPT:
            if tool in BEFORE:
                fresh_tmux.bare(*BEFORE[tool])
            arguments = {
                k: seen[v[1:-1]] if isinstance(v, str) and v.startswith("<") else v
                for k, v in template.items()
            }
            result = await session.call_tool(tool, arguments)
            assert not result.is_error, f"{tool}: {error_text(result)}"
            body = result.structured_content
            assert isinstance(body, dict)
            seen.update(body)
            if tool not in shown:  # the page shows each tool once (its first call)
                shown.add(tool)
                racy = RACY.get(tool, frozenset())
                body = {k: ANY if k in racy else v for k, v in body.items()}
                runs.append((tool, template, normalize(body, fresh_tmux.directory)))
            elif tool == "run_command":  # the timed-out run that wait_for_command collects
                runs.append((tool, template, normalize(body, fresh_tmux.directory)))
    fresh = render(runs, _tmux_version())
    if os.environ.get("TMUXMCP_WRITE_EXAMPLES"):
        PAGE.write_text(fresh, encoding="utf-8")
    committed = PAGE.read_text(encoding="utf-8")
    if f"({_tmux_version()})" not in committed:
        pytest.skip("docs/examples.md was generated with another tmux version")
    assert fresh == committed, "stale: TMUXMCP_WRITE_EXAMPLES=1 pytest tests/test_tool_examples.py"
