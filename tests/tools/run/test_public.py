"""The run wing's public face: the names ``tmuxmcp.tools.run`` exports, pinned.

Every other module of tmuxmcp imports the wing from its package (an
import-linter contract in pyproject.toml); a name added to or dropped from
the face is a change of the wing's interface, so this list changes with it.
"""

from __future__ import annotations

import types

from tmuxmcp.runs import pending, registry
from tmuxmcp.tools import run
from tmuxmcp.tools.run import commands, continuation, handlers

PUBLIC = {
    "RunCommandArgs": commands.RunCommandArgs,
    "RunCommandResult": commands.RunCommandResult,
    "WaitForCommandArgs": commands.WaitForCommandArgs,
    "run_command": handlers.run_command,
    "wait_for_command": handlers.wait_for_command,
    "RunRegistry": registry.RunRegistry,
    "registry_of": registry.of,
    "RunTask": continuation.RunTask,
    "continue_as_task": continuation.continue_as_task,
    "typed_ahead": pending.typed_ahead,
}


def test_the_package_exports_exactly_its_public_names() -> None:
    exported = {
        name
        for name, value in vars(run).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert exported == set(PUBLIC)


def test_each_public_name_is_the_object_of_its_module() -> None:
    for name, value in PUBLIC.items():
        assert getattr(run, name) is value, name
