"""One bounded history reader (issue 30.3): no second window loop can appear.

``tools/history.py`` holds the one loop that reads a pane's history window by
window (``history.read``), and every read of a span of rows that ends above
the screen's bottom. Read from the source (``ast``), so a second reader fails
here before any tmux runs:

Rule 1: outside the reader and its pure planning (``panetext/windows.py``), no
  code steps a range's windows: no call of ``.window(...)`` (the next window's
  plan) or ``.saw(...)`` (counting what rows cost). Callers describe their
  range and budget; the reader plans and counts.
Rule 2: outside the reader, a ``capture-pane`` command with ``-E`` reads one
  row (its ``E`` is its ``S``: the cursor's row); the others read down to the
  screen's bottom from a fixed ``-S`` (a frame read), never a span of history.
Rule 3: outside the reader, no loop both awaits and builds a ``capture-pane``.
Rule 4: the four history readers of issue 30.3 (capture, a run's collect, the
  waits' observation, search) read through the reader.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import tmuxmcp

PACKAGE = Path(tmuxmcp.__file__).parent
READER = PACKAGE / "tools" / "history.py"
PLANNING = PACKAGE / "panetext" / "windows.py"
LAB = PACKAGE / "verify"
"""Not read: ``tmuxmcp verify``'s probes prove a sink claim on their own throwaway
server (a capture of tmux's whole line-number range, to show it is accepted),
never a pane's history for a tool."""
USERS = ("tools/capture.py", "tools/run/collect.py", "tools/observation.py", "tools/search.py")


def _sources() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        if path in (READER, PLANNING) or LAB in path.parents:
            continue
        yield str(path.relative_to(PACKAGE)), ast.parse(path.read_text(), str(path))


def _captures(tree: ast.AST) -> Iterator[ast.Call]:
    """Every ``cmd("capture-pane", ...)`` call in ``tree``."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "cmd"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == "capture-pane"
        ):
            yield node


def test_only_the_reader_steps_through_windows() -> None:
    """Rule 1."""
    found = [
        f"{name}:{node.lineno}: .{node.func.attr}()"
        for name, tree in _sources()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in {"window", "saw"}
    ]
    assert found == [], f"a window loop outside tools/history.py: {found}"


def test_only_the_reader_captures_a_span_of_rows() -> None:
    """Rule 2."""
    found = []
    for name, tree in _sources():
        for call in _captures(tree):
            words = {k.arg: ast.dump(k.value) for k in call.keywords if k.arg}
            if "E" in words and words["E"] != words.get("S"):
                found.append(f"{name}:{call.lineno}")
    assert found == [], f"capture-pane of a span outside tools/history.py: {found}"


def test_no_loop_outside_the_reader_awaits_a_capture() -> None:
    """Rule 3."""
    found = []
    for name, tree in _sources():
        for loop in ast.walk(tree):
            if not isinstance(loop, ast.For | ast.AsyncFor | ast.While):
                continue
            body = ast.Module(body=loop.body, type_ignores=[])
            awaits = any(isinstance(node, ast.Await) for node in ast.walk(body))
            if awaits and any(True for _ in _captures(body)):
                found.append(f"{name}:{loop.lineno}")
    assert found == [], f"a loop awaiting its own capture-pane reads: {found}"


def test_the_history_readers_read_through_the_one_reader() -> None:
    """Rule 4."""
    assert READER.exists(), "tools/history.py, the one history reader, is missing"
    missing = []
    for name in USERS:
        tree = ast.parse((PACKAGE / name).read_text())
        imported = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module is not None
        } | {
            f"{node.module}.{alias.name}"
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module is not None
            for alias in node.names
        }
        if "tmuxmcp.tools.history" not in imported:
            missing.append(name)
    assert missing == [], f"history readers that do not use tools/history.py: {missing}"
