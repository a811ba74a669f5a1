"""Noticing that panes came or went, so the client can be told (issue 29.3).

The resource list is the pane index and one resource per pane
(``tools.resources``), so it changes exactly when the set of pane ids
changes. ``watch_panes`` reads that set (one ``list-panes -a`` invocation,
ids only) and calls ``ListChanges.changed`` (``protocol.listen``) when it
differs from the set it read before.

Why this way and not an event from tmux: the events tmux offers were weighed
for the waits already (``tools.waiting``, ``panes.activity``): a control-mode
client attaches to a session, which changes tmux state and runs
``client-attached`` hooks, and a hook (``after-new-window``,
``pane-exited``) runs a command on the tmux server (ADR CM-6, and an effect
the definition does not declare). So:

Rule 1: a call that can change the set is the event. After every tool call
  whose declaration says it adds or removes panes (``ToolSpec.pane_set``:
  create_session, create_window, split_pane, kill_session, kill_window,
  kill_pane), the server pokes (``ListChanges.poke``), and the set is read at
  once: a change made through this server is told as soon as the call ended,
  whoever is listening. A call that deletes something else (clear_history,
  delete_buffer, move_window's emptied session) or starts a program in a pane
  that keeps its id (respawn_pane) keeps the set, so it costs no read, and
  raises no ``after-list-panes`` hook of the user's (issue 29.3's neighbour).
  A read of the pane index pokes too: the client then knows the panes of
  that moment, and the set a later change is told against should be as new.
Rule 2: what no call here did is polled, bounded, on the kernel first.
  Panes also go by themselves (a shell that exits) and come from other
  clients of the socket. A pane's process is a child of the tmux server: a
  pane that comes forks one, a pane that goes has its process reaped. So
  while anyone would be told (a listen stream that asked, or a ready
  handshake-era connection: ``protocol.listen`` Rule 6) the server's
  children are read from ``/proc`` every ``POLL_S`` seconds (one small
  file, no process started), and the pane ids are read from tmux only when
  they changed, and at least every ``SAFETY_S`` seconds (a dead pane kept by
  ``remain-on-exit`` goes with no child reaped). The children a read of the
  ids is compared with later are those read just before and just after it,
  and only when the two agree: a pane made and killed while the ids were
  read, between two looks, would otherwise leave the same children behind
  and never be told. Where ``/proc`` cannot
  tell (another OS, a server in another pid namespace, not the bound
  server's start time) the ids are read from tmux every ``NO_HINT_S``
  seconds instead: one tmux client each, about 1-2 ms of CPU. While nobody
  would be told, nothing is polled.
Rule 2a: a dead pane's end is read from tmux, every ``DEAD_S`` seconds. A
  pane kept by ``remain-on-exit`` has had its process reaped and its pty
  closed when its program exited, so the kernel shows nothing when it is
  killed later: no child, no descriptor, no counter of the server moves. The
  read of the ids carries each pane's ``#{pane_dead}`` in the same
  invocation, and while one is dead (and someone would be told) the ids are
  read every ``DEAD_S`` seconds instead of ``SAFETY_S`` (issue 29.3's
  neighbour: told within 2 s, not 30). So is a change of children that no
  change of ids explains: the pane may not be marked dead yet when its
  process is reaped, so the next read says whether it is.
Rule 2b: what cannot be told. A pane another client makes and kills between
  two looks leaves the same ids, and the same children, as before it: the
  list the client holds is still the list, so there is nothing to tell, and
  nothing to tell it by. tmux keeps no trace a read can see (a pane id is
  never reused, but the next one is no format; ``#{session_windows}`` and
  ``#{window_panes}`` are back where they were), and the kernel shows only
  that the server reaped a child, which a ``run-shell`` or ``#()`` job of
  the user's leaves too, so telling on it would tell the client of every
  status-line job. Only a client that listed while it lived holds a stale
  entry: a listing (``resources/list``) hands the watcher the URIs it gave
  (``ListChanges.listed``) and pokes it, and the read that follows tells a
  change when a pane listed is gone, even if it went before that read.
Rule 3: a change is told only while someone would be told, and when in
  doubt it is told. The first set is read before anyone can listen; every
  read replaces it (a read while nobody would be told tells nothing); a read
  that fails (the server is gone) tells nothing and keeps the set it had. A
  new listener pokes, so the set is read at once; a difference that came
  while nobody listened may then be told to it: a spurious "the list
  changed" costs a client one listing, a missed one leaves it a stale list.
Rule 4: these reads are the server's own, not a client's request: they are
  not audited, and they run in the server's nursery, ended with it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final

import trio

from tmuxmcp.capability.model import PaneSet, ToolSpec
from tmuxmcp.driver import proc
from tmuxmcp.errors import TmuxMcpError
from tmuxmcp.protocol.listen import ListChanges
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.resources import PANE_PREFIX, pane_ids_and_dead, pane_uri

log = logging.getLogger("tmuxmcp")

POLL_S: Final = 0.5
"""Seconds between two reads of the tmux server's children while someone would be told."""
SAFETY_S: Final = 30.0
"""The longest time between two reads of the pane ids from tmux while someone would be told."""
NO_HINT_S: Final = 2.0
"""Seconds between two reads of the pane ids from tmux when ``/proc`` cannot tell."""
DEAD_S: Final = 2.0
"""Seconds between two reads of the pane ids while a pane is dead (Rule 2a)."""
_START_TOLERANCE_S: Final = 2


def _gone(held: frozenset[str], ids: frozenset[str]) -> bool:
    """Whether a pane the client was given (``held``, resource URIs) is not among ``ids``
    (Rule 2b). Only what went counts: a pane made since is told as any other change."""
    now = {pane_uri(pane) for pane in ids}
    return any(uri not in now for uri in held if uri.startswith(PANE_PREFIX))


def changes_panes(spec: ToolSpec[Any, Any]) -> bool:
    """Whether a call of ``spec`` can add or remove panes, from its declaration (Rule 1)."""
    return spec.pane_set is not PaneSet.KEPT


def server_children(pid: int, start_time: int) -> Callable[[], frozenset[int]] | None:
    """A reader of the bound server's children (its pane processes), or None when
    ``/proc`` cannot tell: not this server's start time, or nothing to read (Rule 2)."""
    started = proc.start_epoch(pid)
    if started is None or abs(started - start_time) > _START_TOLERANCE_S:
        return None
    return lambda: frozenset(proc.thread_children(pid, pid))


async def _read(context: ToolContext) -> tuple[frozenset[str], bool] | None:
    """The pane ids, and whether any pane is dead (Rule 2a)."""
    try:
        return await pane_ids_and_dead(context)
    except TmuxMcpError as exc:
        log.debug("pane ids not read for list changes: %s", exc.reference)
        return None


async def watch_panes(
    context: ToolContext, changes: ListChanges, *, started: Callable[[], None] = lambda: None
) -> None:
    """Tell ``changes`` whenever the set of pane ids changes, until cancelled (Rules 1-3);
    ``started`` is called once the first set is read."""
    identity = context.facts.identity
    children = server_children(identity.pid, identity.start_time)
    period = POLL_S if children is not None else NO_HINT_S
    first, forked = await _read_with(context, children)
    known, dead = first if first is not None else (None, False)
    read_at = trio.current_time()
    started()
    while True:
        poked = await changes.wait_poked(period)
        if not poked and not changes.wanted:
            continue
        moved = False
        if not poked and children is not None:
            due = trio.current_time() - read_at >= (DEAD_S if dead else SAFETY_S)
            moved = children() != forked
            if not moved and not due:
                continue
        now, forked = await _read_with(context, children)
        read_at = trio.current_time()
        if now is None:
            continue
        ids, dead = now
        held = changes.take_listed()
        if held is not None and changes.wanted and _gone(held, ids):
            changes.changed()  # the list the client was given is already out of date
            known = ids
            continue
        # A child went and no pane with it: a pane may be dying with remain-on-exit
        # (tmux marks it dead once it has read the end of its pty): look again soon.
        dead = dead or (moved and ids == known)
        if known is not None and ids != known and changes.wanted:
            changes.changed()
        known = ids


async def _read_with(
    context: ToolContext, children: Callable[[], frozenset[int]] | None
) -> tuple[tuple[frozenset[str], bool] | None, frozenset[int] | None]:
    """The pane ids, and the server's children they go with: read before and after the
    ids, or None when they moved meanwhile (or the ids were not read), so the next
    look reads the ids again (Rule 2: a pane made or killed during a read is never
    taken as seen)."""
    before = children() if children is not None else None
    now = await _read(context)
    after = children() if children is not None else None
    return now, (after if now is not None and before == after else None)
