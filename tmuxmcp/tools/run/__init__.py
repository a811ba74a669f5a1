"""The ``run_command`` wing: shell commands typed into a pane's shell, watched, collected.

This package's names below are its public face; every other module of
``tmuxmcp`` imports the wing from here, never from its modules (an
import-linter contract keeps it so, and ``tests/tools/run/test_public.py``
pins the names).
"""

from tmuxmcp.tools.run.commands import RunCommandArgs as RunCommandArgs
from tmuxmcp.tools.run.commands import RunCommandResult as RunCommandResult
from tmuxmcp.tools.run.commands import WaitForCommandArgs as WaitForCommandArgs
from tmuxmcp.tools.run.commands import line_cost as line_cost
from tmuxmcp.tools.run.commands import run_command as run_command
from tmuxmcp.tools.run.commands import wait_for_command as wait_for_command
from tmuxmcp.tools.run.state import RunRegistry as RunRegistry
