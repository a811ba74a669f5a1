"""What a tmux server holds when only tmux defined it, and the check at binding (CM-1, CM-4).

A server tmuxmcp starts with ``-f /dev/null`` holds, until a client changes
it, only what tmux itself defines plus tmuxmcp's own start settings
(``binding.start_minimal_server``). Between that start and binding, any
process of the same user that finds the new socket can change it: an alias
such as ``list-sessions=new-session -d`` set in that window would otherwise be
read at binding as the baseline the per-call check compares against, and
stay for the server's life (issue 27 N1). So:

* **Rule 1: the baseline is never read from the server.** What tmux defines is
  a table read from tmux's source (``BUILTIN_ALIASES``: options-table.c, the
  ``command-alias`` entry's ``default_str``, the same six entries at every
  tag from 3.2 to 3.6b; ``tests/driver/test_pristine.py`` checks it against
  the running tmux on every version of the CI matrix). The per-call check of
  a minimal server compares with it (``binding``).
* **Rule 2: anything else at binding means provenance is not minimal.** At
  binding the started server is read once, in one invocation (tmux runs a
  command list without yielding to another client): its listed aliases; its
  global hooks (``show-hooks -g`` and ``-gw``; a set hook prints with an
  index, ``name[0] command``); its sessions (a server just started has none;
  a session would carry its own hooks and options); ``default-command``
  (empty in tmux's own table at every tag; it is what the structured tools
  that start a pane would run); and a shell job (``#()``) written in the
  value of a server, global session or global window option (tmux's own
  defaults hold none; a job a format builds from pieces at expansion is not
  seen). Every departure is named (``departures``); any one makes the
  provenance ``unknown`` (``binding``), so no narrow annotation and no
  default teardown rest on it (CM-3, CM-4).
* **Rule 3: the other option values, the key tables and the global
  environment are not compared.** Some take the starting client's values
  (``default-shell`` from ``SHELL``, the global environment from tmuxmcp's
  own, ``editor`` from ``EDITOR``), so no table can hold them. None is an
  alias or a hook, the configuration the per-call check reads (a key binding
  runs on a client's key, or on keys sent into a mode): a change to one is
  ambient behaviour any client of the socket can make before binding or
  after, as the trust page states, and the tools that start a process with
  them publish cautious annotations in any case.

A change after this check is one to a bound server: the per-call check sees
an alias or a hook the call could run (``client``), and the trust page
states what no in-band check can see.
"""

from __future__ import annotations

import re
import secrets

from tmuxmcp.driver.argv import cmd
from tmuxmcp.driver.client import TmuxClient

_SINCE_3_2 = (
    "split-pane=split-window",
    "splitp=split-window",
    "server-info=show-messages -JT",
    "info=show-messages -JT",
    "choose-window=choose-tree -w",
    "choose-session=choose-tree -s",
)
BUILTIN_ALIASES: dict[tuple[int, int], tuple[str, ...]] = {
    (3, 2): _SINCE_3_2,
    (3, 3): _SINCE_3_2,
    (3, 4): _SINCE_3_2,
    (3, 5): _SINCE_3_2,
    (3, 6): _SINCE_3_2,
}
"""Release (major, minor) -> tmux's built-in ``command-alias`` entries, in order."""


def builtin_aliases(version: tuple[int, int] | None) -> tuple[str, ...] | None:
    """tmux's own alias list for ``version``: the newest release of the table at or
    before it. None for a version older than the table or not recognised: then no
    server can be shown to hold only what tmux defines (fail closed, Rule 2)."""
    if version is None:
        return None
    known = [release for release in BUILTIN_ALIASES if release <= version]
    return BUILTIN_ALIASES[max(known)] if known else None


_SET_HOOK = re.compile(r"^([a-z-]+)\[[0-9]+\]", re.MULTILINE)


async def departures(client: TmuxClient, version: tuple[int, int] | None) -> tuple[str, ...]:
    """What the answering server holds that tmux itself does not define (Rule 2),
    one phrase each; empty when it holds only that. Read in one invocation."""
    token = secrets.token_hex(8)
    sections = ("aliases", "hooks", "sessions", "default-command", "options")
    commands = []
    for section, command in zip(
        sections,
        (
            [cmd("show-options", "-s", "-v", args=["command-alias"])],
            [cmd("show-hooks", "-g"), cmd("show-hooks", "-g", "-w")],
            [cmd("list-sessions", F="#{session_id}")],
            [cmd("show-options", "-g", "-v", args=["default-command"])],
            [cmd("show-options", "-s"), cmd("show-options", "-g"), cmd("show-options", "-g", "-w")],
        ),
        strict=True,
    ):
        commands += [cmd("display-message", "-p", args=[f"{token}{section}"]), *command]
    out = await client.run_unbound(commands)
    read: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in out.stdout.splitlines():
        if line.startswith(token) and line[len(token) :] in sections:
            current = read.setdefault(line[len(token) :], [])
        elif current is not None and line:
            current.append(line)
    found: list[str] = []
    if set(read) != set(sections):
        return ("the server's configuration could not be read back",)
    expected = builtin_aliases(version)
    if expected is None:
        found.append("no built-in alias list is known for this tmux version")
    elif tuple(read["aliases"]) != expected:
        found.append("its command-alias list is not tmux's built-in one")
    hooks = sorted({m[1] for m in _SET_HOOK.finditer("\n".join(read["hooks"]))})
    if hooks:
        found.append(f"hooks are set ({', '.join(hooks)})")
    if read["sessions"]:
        found.append(f"it has {len(read['sessions'])} session(s)")
    if read["default-command"]:
        found.append("default-command is set")
    jobs = sorted({_option_name(line) for line in read["options"] if _JOB in line})
    if jobs:
        found.append(f"options hold a #() shell job ({', '.join(jobs)})")
    return tuple(found)


_JOB = "#("
"""A format's shell job: tmux's own option defaults hold none (3.3a to 3.6a)."""

_OPTION_NAME = re.compile(r"[@A-Za-z0-9_-]+")


def _option_name(line: str) -> str:
    """The option a ``show-options`` line is about, if it is a plain name (it is
    published: a user option's name is another client's text)."""
    name = line.split(" ", 1)[0].partition("[")[0]
    return name if _OPTION_NAME.fullmatch(name) else "an option"
