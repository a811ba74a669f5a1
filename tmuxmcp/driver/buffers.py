"""Paste-buffer command sequences whose safety depends on tmux's version.

Kept in the driver so both the teardown tool and ``tmuxmcp verify`` (which
proves the guard on the tmux at hand) compose the very same commands.
"""

from __future__ import annotations

from tmuxmcp.driver.argv import Command, cmd


def delete_buffer_commands(name: str) -> list[Command]:
    """Delete the buffer named ``name`` (already encoded), and no other.

    Upstream tmux before 3.4 deletes the most recent buffer when ``-b`` names
    none (tmux commit 0f6227f4, GitHub issue 3205; Debian patched its 3.3a).
    ``save-buffer -b`` fails on an unknown name on every version, so it goes
    first in the same invocation: tmux then drops the ``delete-buffer``. It
    writes the buffer to ``/dev/null`` only, and prints nothing.
    """
    return [cmd("save-buffer", b=name, args=["/dev/null"]), cmd("delete-buffer", b=name)]
