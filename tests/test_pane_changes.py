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
from tests.test_resource_index import ACKNOWLEDGED, MODERN, Client, opened, told
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
    """A ``--tmux`` wrapper logging each invocation's start (seconds since the epoch) and
    argv, one line, as it starts."""
    log = os.path.join(tmux.directory, "invocations")
    body = f'printf "%s %s\\n" "$(date +%s.%N)" "$*" >> {shlex.quote(log)}'
    return tmux_wrapper(os.path.join(tmux.directory, "logging-tmux"), body), log


def _logged(log: str) -> list[str]:
    try:
        with open(log) as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


def _began(line: str) -> float:
    """When a logged invocation started (seconds since the epoch)."""
    return float(line.split(" ", 1)[0])


def _is_pane_id_read(line: str) -> bool:
    """The watcher's read: ``list-panes -a`` of ``pane_id`` and ``pane_dead`` alone (no
    call's listing reads only those)."""
    words = line.split(" ")
    if "list-panes" not in words or "-a" not in words or "-F" not in words[:-1]:
        return False
    template = words[words.index("-F") + 1]
    return template.count("#{") == 2 and ":pane_id}" in template and ":pane_dead}" in template


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


DEAD_TOLD_S = 10.0
"""How long a test waits to be told of a dead pane's end: ``pane_changes.DEAD_S`` (2 s)
with room for a loaded machine, and well short of ``SAFETY_S`` (30 s, c37ff53's only
read that saw it)."""


def test_a_dead_pane_killed_by_another_client_is_told_within_seconds(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 29.3's neighbour: a pane kept by ``remain-on-exit`` has no process left, so
    its kill changes nothing the kernel shows; ``pane_changes`` Rule 2a reads the ids
    every 2 s while a pane is dead, and the kill is told on the listen stream."""
    created = private_tmux.new_session("keeper")
    private_tmux.bare("set-option", "-g", "remain-on-exit", "on")
    wrapper, log = _logging_tmux(private_tmux)
    with opened(private_tmux, MODERN, "--tmux", wrapper) as (client, _):
        client.send(
            "dead-1", "subscriptions/listen", {"notifications": {"resourcesListChanged": True}}
        )
        client.until(lambda m: m.get("method") == ACKNOWLEDGED)
        doomed = private_tmux.bare(
            "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", created["pane_id"], "cat"
        ).stdout.strip()
        told(client, "dead-1", lambda index: doomed in index)
        private_tmux.bare("send-keys", "-t", doomed, "C-d")
        deadline = time.monotonic() + 20
        while (
            private_tmux.bare("display-message", "-p", "-t", doomed, "#{pane_dead}").stdout.strip()
            != "1"
        ):
            assert time.monotonic() < deadline, "the pane never died"
            time.sleep(0.02)
        # Rule 2a: while it is dead the watcher reads again, after this instant too.
        died = time.time()
        deadline = time.monotonic() + DEAD_TOLD_S
        while not [ln for ln in _logged(log) if _is_pane_id_read(ln) and _began(ln) > died]:
            assert time.monotonic() < deadline, "no read of the ids while a pane is dead"
            time.sleep(0.02)
        private_tmux.bare("kill-pane", "-t", doomed)
        told(client, "dead-1", lambda index: doomed not in index, timeout=DEAD_TOLD_S)


def test_a_listed_pane_killed_before_the_watcher_looks_is_told(private_tmux: PrivateTmux) -> None:
    """Issue 29.3's neighbour (``pane_changes`` Rule 2b): another client makes a pane and
    kills it between two of the watcher's looks, and the client listed the resources
    while it lived; the listing hands the watcher what the client holds, so the pane's
    end is told. (On c37ff53 the two looks saw the same ids and children, and the
    client kept a listed pane that was gone.) The pane lives for a few tmux calls right
    after a read of the watcher's, so its next look comes after the pane is gone."""
    created = private_tmux.new_session("lister")
    wrapper, log = _logging_tmux(private_tmux)
    with opened(private_tmux, MODERN, "--tmux", wrapper) as (client, _):
        _until_read(log)  # the first set, read at start
        mark = len(_logged(log))
        client.send(
            "listed-1", "subscriptions/listen", {"notifications": {"resourcesListChanged": True}}
        )
        client.until(lambda m: m.get("method") == ACKNOWLEDGED)
        # The stream's own poke reads the ids; the watcher's next look at the server's
        # children is half a second after it: the pane below lives in between.
        _until_read(log, mark)
        brief = private_tmux.bare(
            "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", created["pane_id"], "sh"
        ).stdout.strip()
        listed = {r["uri"] for r in client.result("resources/list")["resources"]}
        private_tmux.bare("kill-pane", "-t", brief)
        uri = f"tmux://pane/{brief.removeprefix('%')}"
        assert uri in listed, listed
        told(client, "listed-1", lambda index: brief not in index, timeout=DEAD_TOLD_S)
