"""The operator's settings and the commands that take them, declared once.

This module is data. Every startup setting is one ``Setting`` row in
``SETTINGS``, and every command of ``tmuxmcp`` one ``Command`` row in
``COMMANDS``. Three readers derive everything else from these rows, and
none of them names a setting itself:

* ``cli.parser`` builds the argparse parser (flags, metavars, help text, and
  so ``tmuxmcp --help``) from them;
* ``config.load`` reads each setting from the sources declared here, in
  their order of precedence, and validates it;
* ``docgen`` renders the command and option tables of
  ``docs/configuration.md`` from them.

Rules kept here:

1. Every setting has both a flag and an environment variable; a flag given
   on the command line wins over its variable. There is no configuration
   file: the flag and the environment are the only sources (``SOURCES``).
2. A setting's flag is ``--`` + its name with dashes, its variable
   ``TMUXMCP_`` + its name in capitals (``tests/test_settings.py`` checks the
   convention; both are spelled out so that a grep for either finds this row).
3. ``default`` is what applies when neither source gives a value, as the
   docs and ``--help`` state it; ``None`` means "not set" (the loader decides
   what an unset value means, for example the default surface), and then
   ``unset`` says in words what that is, so every setting shows a default.
4. ``voids`` names the settings whose environment value a flag for this one
   overrides too: ``--socket-name`` replaces a ``TMUXMCP_SOCKET_PATH`` from
   the environment rather than conflicting with it (CM-1, one socket).
5. Importing this module is cheap: ``tmuxmcp --help`` imports it, and it
   imports nothing but the toolset vocabulary.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from tmuxmcp.capability.vocabulary import Toolset

# driver.socket.DEFAULT_SOCKET_NAME, which decides the dedicated socket. Not
# imported: that module pulls in msgspec, which `tmuxmcp --help` does not
# need (rule 5); tests/test_settings.py checks the two agree.
DEFAULT_SOCKET_NAME = "tmuxmcp"
# capability.surface.ALL, for the same reason and with the same check.
ALL_TOOLSETS = "all"


class Source(StrEnum):
    """Where a setting's value can come from, first one wins."""

    FLAG = "flag"
    ENVIRONMENT = "environment"


SOURCES = (Source.FLAG, Source.ENVIRONMENT)
"""The order of precedence every setting is read in (rule 1)."""


class Setting(NamedTuple):
    """One operator setting."""

    name: str
    """The key ``config.Options`` and the loader know it by."""
    flag: str
    env: str
    metavar: str
    help: str
    """What it does, for ``--help`` and the docs (sources and default are added)."""
    default: str | None = None
    voids: tuple[str, ...] = ()
    """Settings whose environment value a flag for this one also overrides (rule 4)."""
    unset: str = ""
    """What applies without a value when ``default`` is None, in words (rule 3)."""

    def shown_default(self) -> str:
        """The default as ``--help`` and the docs state it: the value, or what unset means."""
        return self.default if self.default is not None else self.unset

    def help_line(self) -> str:
        """The argparse help: what it does, its variable and its default."""
        return f"{self.help} (env {self.env}; default: {self.shown_default()})"


SOCKET_NAME = Setting(
    "socket_name",
    "--socket-name",
    "TMUXMCP_SOCKET_NAME",
    "NAME",
    "tmux -L label",
    default=DEFAULT_SOCKET_NAME,
    voids=("socket_path",),
)
SOCKET_PATH = Setting(
    "socket_path",
    "--socket-path",
    "TMUXMCP_SOCKET_PATH",
    "PATH",
    "tmux -S socket path",
    voids=("socket_name",),
    unset="none, the socket name applies",
)
TMUX = Setting(
    "tmux", "--tmux", "TMUXMCP_TMUX", "PATH", "tmux executable", unset="tmux found on PATH"
)
TOOLSETS = Setting(
    "toolsets",
    "--toolsets",
    "TMUXMCP_TOOLSETS",
    "LIST",
    ",".join(t.value for t in Toolset) + f" or {ALL_TOOLSETS}",
    unset="every toolset, but teardown only on a server this process starts",
)
INCLUDE_TOOLS = Setting(
    "include_tools",
    "--include-tools",
    "TMUXMCP_INCLUDE_TOOLS",
    "LIST",
    "tools to add after toolsets",
    unset="none",
)
EXCLUDE_TOOLS = Setting(
    "exclude_tools",
    "--exclude-tools",
    "TMUXMCP_EXCLUDE_TOOLS",
    "LIST",
    "tools to remove; wins over everything",
    unset="none",
)
TIMEOUT = Setting(
    "timeout",
    "--timeout",
    "TMUXMCP_TIMEOUT",
    "SECONDS",
    "deadline for each tmux call",
    default="10",
)
TASK_TTL = Setting(
    "task_ttl",
    "--task-ttl",
    "TMUXMCP_TASK_TTL",
    "SECONDS",
    "how long an MCP Task of run_command lives, finished or not: at least 5, five poll intervals",
    default="3600",
)
TASK_HANDOVER = Setting(
    "task_handover",
    "--task-handover",
    "TMUXMCP_TASK_HANDOVER",
    "SECONDS",
    "for a client that opts in to MCP Tasks, how long run_command and the waits answer inline "
    "before a call still unfinished continues as a task: 0.5 to 600",
    default="3",
)
AUDIT_LOG = Setting(
    "audit_log",
    "--audit-log",
    "TMUXMCP_AUDIT_LOG",
    "PATH",
    "append one redacted JSON line per tool call",
    unset="no log",
)

PANE_ENVIRONMENT = Setting(
    "pane_environment",
    "--pane-environment",
    "TMUXMCP_PANE_ENVIRONMENT",
    "MODE",
    "environment of panes the tools start: pager-safe sets PAGER, GIT_PAGER, MANPAGER and "
    "SYSTEMD_PAGER to cat, so output is printed, not paged, and inherit keeps tmux's own",
    default="pager-safe",
)

SETTINGS = (
    SOCKET_NAME,
    SOCKET_PATH,
    TMUX,
    TOOLSETS,
    INCLUDE_TOOLS,
    EXCLUDE_TOOLS,
    TIMEOUT,
    TASK_TTL,
    TASK_HANDOVER,
    AUDIT_LOG,
    PANE_ENVIRONMENT,
)
"""Every setting, in the order ``--help`` and the docs list them."""

BY_NAME = {setting.name: setting for setting in SETTINGS}


class Command(NamedTuple):
    """One command of ``tmuxmcp``."""

    name: str
    help: str
    settings: tuple[Setting, ...] = ()
    heading: str | None = None
    """The help section its settings are listed under (None: among the options)."""


SERVING_HEADING = "socket and surface (flags override environment)"

COMMANDS = (
    Command("serve", "run the MCP server on stdio (the default)", SETTINGS, SERVING_HEADING),
    Command(
        "surface",
        "print the effective surface and selected socket as JSON, then exit",
        SETTINGS,
        SERVING_HEADING,
    ),
    Command("manifest", "print the whole capability definition as JSON, then exit"),
    Command(
        "verify",
        "check the sink claims against this tmux on a throwaway socket; exit 1 if one fails",
        (TMUX,),
    ),
)
"""Every command, in the order ``--help`` and the docs list them; the first is the default."""

DEFAULT_COMMAND = COMMANDS[0]
