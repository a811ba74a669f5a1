"""tmux's notification hooks, per release, and which of them a call can raise (CM-4).

Data, not a judgement per hook: ``NOTIFY_HOOKS`` is, per release, every hook
option that tmux also fires as a notification. It was derived from tags 3.3a,
3.5a and 3.6a of the tmux repository: the names of the ``OPTIONS_TABLE_*HOOK``
entries of options-table.c, kept where a ``notify_*`` call in a ``*.c`` file
names them (``paste-buffer-changed`` and ``-deleted`` are notified from 3.5
but only to control clients: no hook option exists for them).
``after-<command>`` and ``command-error`` hooks are fired by the command queue
itself and are added per call by ``client``.

``RAISED_FROM`` is, per hook, where tmux raises it: every ``notify_client``,
``notify_session``, ``notify_winlink``, ``notify_session_window``,
``notify_window`` and ``notify_pane`` call site of the three tags, each filed
under what reaches it (``Source``). Rule: a hook is one a state-changing
call can raise if any of its call sites is reachable from a tmux command,
directly or through an attached client the command moves or makes leave
(``CALL_RAISED``); a hook a command reaches only by attaching its own client
is raised by a call that runs such a command (``ATTACHING_COMMANDS``); only
a hook otherwise reached solely by pane output or by a client terminal's own
report is ambient (``AMBIENT``). ``client.hooks_for`` takes the union for the
commands a call runs (``raised_by``), so which hooks a tool's call can raise
follows from its commands and is never written per tool.

Judging a hook by its usual cause is what went wrong twice: ``pane-focus-in``
(issue 18 R2: ``select-pane`` raises it with a client attached and
``focus-events`` on) and ``client-active`` (issue 27 N2: a call that makes
the latest client of a window leave raises it for another client viewing
that window).
"""

from __future__ import annotations

from enum import Enum

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


class Source(Enum):
    """What reaches a notification's call site in tmux's source."""

    STATE = "a command that changes tmux state, directly or through an attached client"
    ATTACH = "a command that attaches its own client (ATTACHING_COMMANDS)"
    PANE_OUTPUT = "a pane program's output, or a timer it started"
    TERMINAL = "a client terminal's own report (keys, focus, size, colours)"


_S, _A, _O, _T = Source.STATE, Source.ATTACH, Source.PANE_OUTPUT, Source.TERMINAL

RAISED_FROM: dict[str, frozenset[Source]] = {
    # alerts.c alerts_check_*: queued by pane output (input.c bell, window.c
    # activity, the silence timer), and checked again for every window of a
    # session a client is moved to (server_client_set_session ->
    # alerts_check_session), which a kill-session with detach-on-destroy off does.
    "alert-activity": frozenset({_O, _S}),
    "alert-bell": frozenset({_O, _S}),
    "alert-silence": frozenset({_O, _S}),
    # server-client.c server_client_update_latest: a client's own key or
    # resize, and server_client_attached_lost: a client that leaves (a killed
    # session detaches its clients, server_destroy_session -> CLIENT_EXIT ->
    # server_client_lost) hands every window it was the latest client of to
    # another client viewing it, which raises client-active for that client.
    # An attaching command also sends its client MSG_READY, which the client
    # answers with MSG_RESIZE (client.c), raising client-active and -resized.
    "client-active": frozenset({_T, _S, _A}),
    "client-attached": frozenset({_A}),  # cmd-attach-session.c only
    # server-client.c server_client_lost: a client leaving, which a killed
    # session (or window, or pane, when it was its session's last) causes.
    "client-detached": frozenset({_S}),
    # tty-keys.c: the terminal's focus report; a terminal that reports focus as
    # soon as tmux turns reporting on (tty_start_tty, at attach) does so at once.
    "client-focus-in": frozenset({_T, _A}),
    "client-focus-out": frozenset({_T, _A}),
    "client-resized": frozenset({_T, _A}),  # server-client.c: MSG_RESIZE from the client
    # server-client.c server_client_set_session: a client moved to another
    # session (server_destroy_session with detach-on-destroy off, previous, next).
    "client-session-changed": frozenset({_S}),
    # server-client.c: the terminal's theme report, asked for at attach too.
    "client-dark-theme": frozenset({_T, _A}),
    "client-light-theme": frozenset({_T, _A}),
    "pane-died": frozenset({_O, _S}),  # server-fn.c server_destroy_pane: kill, respawn
    "pane-exited": frozenset({_O, _S}),
    "pane-focus-in": frozenset({_S}),  # window.c window_update_focus: select-pane
    "pane-focus-out": frozenset({_S}),
    "pane-mode-changed": frozenset({_S}),  # window.c: a mode set or reset
    # input.c OSC 52 from a pane program; window-copy.c copy commands, which
    # send-keys reaches for a pane in copy mode (cmd-send-keys.c dispatches the
    # mode's key table).
    "pane-set-clipboard": frozenset({_O, _S}),
    "pane-title-changed": frozenset({_O, _S}),  # input.c; cmd-select-pane.c -T
    "session-closed": frozenset({_S}),
    "session-created": frozenset({_S}),
    "session-renamed": frozenset({_S}),
    "session-window-changed": frozenset({_S}),
    "window-layout-changed": frozenset({_S}),
    "window-linked": frozenset({_S}),
    "window-pane-changed": frozenset({_S}),
    "window-renamed": frozenset({_O, _S}),  # automatic-rename follows the pane's program
    "window-resized": frozenset({_S}),
    "window-unlinked": frozenset({_S}),
}
"""Notification hook -> what reaches its call sites (tmux 3.3a, 3.5a, 3.6a)."""

ATTACHING_COMMANDS = frozenset({"attach-session", "new-session"})
"""Commands that can attach their own client (``new-session`` without ``-d``),
raising the ``Source.ATTACH`` hooks. No tool attaches a client (``create_session``
runs ``new-session -d``), but which flags a call passes is not seen here, so the
name alone counts."""

AMBIENT = frozenset(hook for hook, sources in RAISED_FROM.items() if _S not in sources)
"""Raised, apart from by a command that attaches a client, only by pane output or a
client terminal's own report: never by a call that attaches none."""

CALL_RAISED = tuple(
    sorted(hook for hook, sources in RAISED_FROM.items() if Source.STATE in sources)
)
"""Every notification hook a state-changing call can raise, in any release above.

A union: a hook a release does not have expands to nothing in a format, so
checking it there costs bytes but never refuses a call wrongly."""


def raised_by(names: frozenset[str] | set[str], *, changes_state: bool) -> frozenset[str]:
    """The notification hooks a list of commands ``names`` can raise: every
    ``Source.STATE`` hook if one of them changes state, and every
    ``Source.ATTACH`` hook if one of them can attach a client."""
    wanted = ({_S} if changes_state else set()) | ({_A} if names & ATTACHING_COMMANDS else set())
    return frozenset(hook for hook, sources in RAISED_FROM.items() if sources & wanted)
