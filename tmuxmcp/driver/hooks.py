"""tmux's notification hooks, per release, and which of them a call can raise (CM-4).

Data, not a judgement per hook: ``NOTIFY_HOOKS`` is, per release, every hook
option that tmux also fires as a notification. It was derived from tags 3.3a,
3.5a and 3.6a of the tmux repository: the names of the ``OPTIONS_TABLE_*HOOK``
entries of options-table.c, kept where a ``notify_*`` call in a ``*.c`` file
names them (``paste-buffer-changed`` and ``-deleted`` are notified from 3.5
but only to control clients: no hook option exists for them).
``after-<command>`` and ``command-error`` hooks are fired by the command queue
itself and are added per call by ``client``.

Rule: every notification hook is one a call can raise unless it is raised only
by something no tmuxmcp call does: pane output (``alert-*``,
``pane-set-clipboard``) or a client terminal's own event (attach, focus,
resize, theme). ``pane-focus-in/out`` are raised by ``select-pane`` when a
client is attached with ``focus-events`` on, so they are raised by calls.
"""

from __future__ import annotations

_COMMON = frozenset(
    {
        "alert-activity",
        "alert-bell",
        "alert-silence",
        "client-active",
        "client-attached",
        "client-detached",
        "client-focus-in",
        "client-focus-out",
        "client-resized",
        "client-session-changed",
        "pane-died",
        "pane-exited",
        "pane-focus-in",
        "pane-focus-out",
        "pane-mode-changed",
        "pane-set-clipboard",
        "pane-title-changed",
        "session-closed",
        "session-created",
        "session-renamed",
        "session-window-changed",
        "window-layout-changed",
        "window-linked",
        "window-pane-changed",
        "window-renamed",
        "window-resized",
        "window-unlinked",
    }
)
NOTIFY_HOOKS: dict[tuple[int, int], frozenset[str]] = {
    (3, 3): _COMMON,
    (3, 5): _COMMON,
    (3, 6): _COMMON | {"client-dark-theme", "client-light-theme"},
}
"""Release (major, minor) -> its notification hook options."""

AMBIENT = frozenset(
    {
        "alert-activity",
        "alert-bell",
        "alert-silence",
        "pane-set-clipboard",
        "client-active",
        "client-attached",
        "client-focus-in",
        "client-focus-out",
        "client-resized",
        "client-dark-theme",
        "client-light-theme",
    }
)
"""Raised only by pane output or a client terminal's own event, never by a call."""

CALL_RAISED = tuple(sorted(frozenset().union(*NOTIFY_HOOKS.values()) - AMBIENT))
"""Every notification hook a state-changing call can raise, in any release above.

A union: a hook a release does not have expands to nothing in a format, so
checking it there costs bytes but never refuses a call wrongly."""
