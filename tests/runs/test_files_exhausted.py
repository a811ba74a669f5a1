"""A run's files and its pane lock at the open-file limit (issue 27, N8): the error
says the descriptors ran out, not an internal error.

No tmux: ``RunFiles.write`` and ``panelock.acquire`` run in a subprocess whose
descriptors are used up under a limit of 64, so this test process keeps its own.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_OUT_OF_FILES = """
import os, resource, sys
from tmuxmcp.errors import TmuxMcpError
from tmuxmcp.runs import panelock
from tmuxmcp.runs.files import RunFiles
resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
held = []
try:
    while True:
        held.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass
os.close(held.pop())  # one left: the first file opens, its FIFO's descriptor does not
try:
    RunFiles(sys.argv[1], 1, -1).write("true", shell="sh", fence="f")
except TmuxMcpError as exc:
    print(exc.reference)
    print(exc)
try:
    # The lock file is opened before the coroutine's first await: no event loop (and
    # none of the descriptors it would need) is involved.
    panelock.acquire(sys.argv[1], "lock", seconds=1, busy="busy").send(None)
except TmuxMcpError as exc:
    print(exc.reference)
    print(exc)
"""


def test_no_descriptor_left_for_a_run_s_files_is_said_so(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _OUT_OF_FILES, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    lines = done.stdout.splitlines()
    assert lines[0::2] == ["descriptors-exhausted", "descriptors-exhausted"], done.stdout
    assert "could not create the run's files" in lines[1] and "(64, ulimit -n)" in lines[1]
    assert "could not open the pane lock" in lines[3], lines[3]
