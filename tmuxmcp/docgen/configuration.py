"""The configuration reference's tables (docs/configuration.md): commands, flags, toolsets.

Commands and flags come from the settings table (``tmuxmcp.settings``) that
the parser is built from, never from the parser's own text; toolsets from
the definition given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tmuxmcp.capability.model import ToolSpec
from tmuxmcp.docgen.markdown import by_toolset, cell
from tmuxmcp.settings import COMMANDS, DEFAULT_COMMAND


def command_table() -> str:
    """The commands of ``tmuxmcp``, in the table's order."""
    rows = ["| command | what it does |", "|---|---|"]
    rows += [f"| `tmuxmcp {command.name}` | {cell(command.help)} |" for command in COMMANDS]
    return "\n".join(rows)


def option_table() -> str:
    """The serving settings: flag, environment variable, default and meaning."""
    rows = ["| flag | environment | default | meaning |", "|---|---|---|---|"]
    for setting in DEFAULT_COMMAND.settings:
        rows.append(
            f"| `{setting.flag} {setting.metavar}` | `{setting.env}` | "
            f"{cell(setting.shown_default())} | {cell(setting.help)} |"
        )
    return "\n".join(rows)


def toolset_table(tools: Sequence[ToolSpec[Any, Any]]) -> str:
    """Which tools each toolset expands to."""
    rows = ["| toolset | tools |", "|---|---|"]
    for toolset, specs in by_toolset(tools):
        names = ", ".join(f"[`{s.name}`](tools.md#{s.name})" for s in specs) or "none"
        rows.append(f"| `{toolset.value}` | {names} |")
    return "\n".join(rows)
