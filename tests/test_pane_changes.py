"""What the pane-id watcher reads, and when (``pane_changes``; issue 29.3's neighbours).

Rule 1 of ``pane_changes``: a call pokes the watcher, and costs a read of the
pane ids (``list-panes -a``, which also raises the user's
``after-list-panes`` hooks), only when its declaration says it adds or
removes panes (``ToolSpec.pane_set``). The tools that delete something else
or start a program in a pane that keeps its id are found from the definition,
never from a list of names here; each is called and the next pane-id read
must come only after a ``kill-pane`` that follows it. Every tool declared to
change the set is called too and must be followed by a read.

The reads are counted from a ``--tmux`` wrapper that logs each invocation's
argv when it starts. The client speaks 2026-07-28 and opens no listen
stream, so nothing is polled (``pane_changes`` Rule 2): every read of the
ids after startup is a poke's.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Callable

import pytest

from tests.support import PrivateTmux, tmux_wrapper
from tests.test_resource_index import MODERN, Client, opened
from tmuxmcp.capability.model import PaneSet
from tmuxmcp.capability.vocabulary import Effect
from tmuxmcp.definition import DEFINITION

Ids = dict[str, str]

KEEPS = sorted(
    spec.name
    for spec in DEFINITION
    if spec.pane_set is PaneSet.KEPT and (Effect.DELETE in spec.effects or spec.starts_panes)
)
"""Tools that delete, or start pane programs, and keep the set of panes: from the
definition (on c37ff53 each of them poked the watcher)."""
CHANGES = sorted(spec.name for spec in DEFINITION if spec.pane_set is not PaneSet.KEPT)

CALLS: dict[str, Callable[[Ids], dict[str, object]]] = {
    "clear_history": lambda ids: {"pane_id": ids["p0"]},
    "delete_buffer": lambda ids: {"buffer": "notes"},
    "move_window": lambda ids: {"window_id": ids["w1"], "session_id": ids["t"]},
    "respawn_pane": lambda ids: {"pane_id": ids["p1"]},
    "create_session": lambda ids: {"name": "made"},
    "create_window": lambda ids: {"session_id": ids["s"], "name": "made"},
    "split_pane": lambda ids: {"pane_id": ids["p0"], "direction": "horizontal"},
    "kill_session": lambda ids: {"session_id": ids["t"]},
    "kill_window": lambda ids: {"window_id": ids["w1"]},
    "kill_pane": lambda ids: {"pane_id": ids["spare"]},
}


def _objects(tmux: PrivateTmux) -> Ids:
    """Session ``s`` (pane p0, a spare pane, window w1 with pane p1), session ``t``,
    and a paste buffer ``notes``."""
    first = tmux.new_session("s")
    ids = {"s": first["session_id"], "w0": first["window_id"], "p0": first["pane_id"]}
    ids["spare"] = tmux.bare(
        "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", ids["p0"], "sh"
    ).stdout.strip()
    w1, p1 = tmux.bare(
        "new-window", "-d", "-P", "-F", "#{window_id} #{pane_id}", "-t", ids["s"], "sh"
    ).stdout.split()
    ids |= {"w1": w1, "p1": p1, "t": tmux.new_session("t")["session_id"]}
    tmux.bare("set-buffer", "-b", "notes", "text")
    return ids


def _logging_tmux(tmux: PrivateTmux) -> tuple[str, str]:
    """A ``--tmux`` wrapper logging each invocation's argv, one line, as it starts."""
    log = os.path.join(tmux.directory, "invocations")
    body = f'printf "%s\\n" "$*" >> {shlex.quote(log)}'
    return tmux_wrapper(os.path.join(tmux.directory, "logging-tmux"), body), log


def _logged(log: str) -> list[str]:
    try:
        with open(log) as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


def _is_pane_id_read(line: str) -> bool:
    """The watcher's read: ``list-panes -a`` of one field, ``pane_id`` (no call's
    listing reads only that)."""
    words = line.split(" ")
    if "list-panes" not in words or "-a" not in words or "-F" not in words[:-1]:
        return False
    template = words[words.index("-F") + 1]
    return template.count("#{") == 1 and ":pane_id}" in template


def _until_read(log: str, after: int = 0) -> list[str]:
    """The invocations logged from ``after`` on, once one of them is a pane-id read."""
    deadline = time.monotonic() + 20
    while not any(_is_pane_id_read(line) for line in _logged(log)[after:]):
        assert time.monotonic() < deadline, f"no pane-id read: {_logged(log)[after:]}"
        time.sleep(0.01)
    return _logged(log)[after:]


def _started(tmux: PrivateTmux, log: str) -> Ids:
    """The objects, made once the server read its first set (before any call)."""
    _until_read(log)
    return _objects(tmux)


def test_the_cases_cover_the_definition() -> None:
    assert KEEPS == ["clear_history", "delete_buffer", "move_window", "respawn_pane"]
    assert set(KEEPS) | set(CHANGES) <= set(CALLS)


@pytest.mark.parametrize("tool", KEEPS)
def test_a_call_that_keeps_the_panes_reads_no_pane_ids(
    private_tmux: PrivateTmux, tool: str
) -> None:
    """Issue 29.3's neighbour: clear_history, delete_buffer, move_window (which empties
    a session of windows, not of panes) and respawn_pane (the pane keeps its id) cost
    no ``list-panes -a``: the first read of the ids after the call is kill_pane's."""
    wrapper, log = _logging_tmux(private_tmux)
    with opened(private_tmux, MODERN, "--toolsets", "all", "--tmux", wrapper) as (client, _):
        ids = _started(private_tmux, log)
        mark = len(_logged(log))
        _call(client, tool, ids)
        _call(client, "kill_pane", ids)
        ran = _until_read(log, mark)
    killed = next(n for n, line in enumerate(ran) if " kill-pane " in line)
    read = next(n for n, line in enumerate(ran) if _is_pane_id_read(line))
    assert read > killed, f"{tool} cost a read of the pane ids: {ran[: read + 1]}"


@pytest.mark.parametrize("tool", CHANGES)
def test_a_call_that_adds_or_removes_panes_reads_the_ids_at_once(
    private_tmux: PrivateTmux, tool: str
) -> None:
    """Rule 1: a call declared to change the set pokes the watcher, which reads the ids
    (nobody listens, so nothing else would read them)."""
    wrapper, log = _logging_tmux(private_tmux)
    with opened(private_tmux, MODERN, "--toolsets", "all", "--tmux", wrapper) as (client, _):
        ids = _started(private_tmux, log)
        mark = len(_logged(log))
        _call(client, tool, ids)
        assert _until_read(log, mark)


def _call(client: Client, tool: str, ids: Ids) -> None:
    client.call(tool, CALLS[tool](ids))
