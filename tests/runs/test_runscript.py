"""``runs.runscript``'s script for the shell a pane runs, read as text (no shell, no tmux).

What a shell does with the script stays on real tmux with real shells
(``tests/tools/run/test_run_command_shells.py``, ``test_run_command_script.py``);
here, which script a shell's name gets. This test sat in the shells module,
where an autouse fixture started tmux for it (issue 30.2).
"""

from __future__ import annotations

import os
from pathlib import Path

from tmuxmcp.runs import runscript


def test_a_shell_named_by_its_path_gets_the_posix_script(tmp_path: Path) -> None:
    """The script is written for the shell found: bash and zsh call `builtin`, every other
    shell POSIX `command` (zsh's `command` runs external programs only)."""
    files = {key: os.path.join(str(tmp_path), key) for key in "cesgt"}
    zsh = runscript.script(files=files, fence="f", shell="zsh", errexit_copy=True)
    dash = runscript.script(files=files, fence="f", shell="dash", errexit_copy=True)
    assert "\\builtin read" in zsh and "\\command" not in zsh
    assert "\\command read" in dash and "\\builtin" not in dash
    assert f"\\command . {files['c']}" in dash  # a syntax error ends the run, not the script
    # Under errexit, a plain `.`: there `command .` would end the shell on a syntax error.
    assert f"\\. {files['e']}" in dash
