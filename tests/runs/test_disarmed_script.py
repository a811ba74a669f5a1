"""A disarmed run's script, read by a real shell: it runs nothing and gives ``$?`` back.

No tmux. A run is disarmed when the shell did not read its typed line in time
(``state.Run.disarm``); the line can still be read later. Since issue 31.3 the
typed line no longer names ``t`` (the script points ``tmuxmcp_t`` at it as its
last step), so removing the script would leave ``$?`` at 0 and ``tmuxmcp_status``
set; the script is replaced by ``runscript.inert`` instead. Each shell here runs
the typed line as the pane's shell would, after a command that failed with 7.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tmuxmcp.runs import runscript
from tmuxmcp.runs.files import RunFiles

SHELLS = {"sh": "dash", "dash": "dash", "bash": "bash", "zsh": "zsh"}


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_a_late_line_of_a_disarmed_run_runs_nothing_and_keeps_the_status(
    tmp_path: Path, shell: str
) -> None:
    program = shutil.which(SHELLS[shell])
    if program is None:
        pytest.skip(f"{shell} is not installed")
    ran = tmp_path / "ran"
    files = RunFiles(str(tmp_path), 1, -1)
    files.write(f"touch {ran}", shell=shell, fence="f")
    files.disarm_script()
    script = Path(files.paths["r"])
    assert script.read_text() == runscript.inert(files.paths, shell)
    assert stat.S_IMODE(os.lstat(script).st_mode) == 0o600
    line = runscript.typed_line("x", files.paths, shell=shell, suppress_history=False)
    probe = 'echo "status $? ${tmuxmcp_status-unset} ${tmuxmcp_t-unset}"'
    done = subprocess.run(
        [program, "-c", f"(exit 7); {line.strip()}\n{probe}"],
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )
    assert done.stdout == "status 7 unset unset\n", (done.stdout, done.stderr)
    assert not ran.exists()
    files.close(going=False, status=None, restore_path=None)
