"""Cross-process pane serialization (issue 13, item 5): a bounded wait, then a clear error.

Two tmuxmcp processes on one socket: while one's command runs in a pane, the
other's run_command on that pane waits at most its timeout for the pane lock,
then is refused naming the other process, and types nothing into the pane
(read back with bare tmux).
"""

from __future__ import annotations

import os

from tests.support import PrivateTmux, error_text, serve, structured
from tests.tools.run.test_run_command import _at_prompt


async def test_a_pane_busy_in_another_process_is_refused_after_a_bounded_wait(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as one, serve(private_tmux) as two:
        pane = private_tmux.new_session("shared")["pane_id"]
        await _at_prompt(private_tmux, pane)
        # It holds the pane until the test makes ``go`` (a fixed sleep could end before
        # the other process asks, on a loaded machine: issue 27.4).
        go = os.path.join(private_tmux.directory, "go")
        command = f"while [ ! -e {go} ]; do sleep 0.05; done"
        first = structured(
            await one.call_tool(
                "run_command", {"pane_id": pane, "command": command, "timeout": 0.2}
            )
        )
        assert first["timed_out"] is True  # still running, holding the pane
        before = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout
        refused = await two.call_tool(
            "run_command", {"pane_id": pane, "command": "echo intruder", "timeout": 0.5}
        )
        text = error_text(refused)
        assert text.startswith("[pane-not-ready]"), text
        assert "another tmuxmcp process" in text
        assert private_tmux.bare("capture-pane", "-p", "-t", pane).stdout == before
        assert "intruder" not in private_tmux.bare("capture-pane", "-p", "-t", pane).stdout
        open(go, "w").close()
        done = structured(
            await one.call_tool(
                "wait_for_command", {"pane_id": pane, "run_id": first["run_id"], "timeout": 30}
            )
        )
        assert done["completed"] is True
        # Released: the other process may type now.
        after = structured(
            await two.call_tool("run_command", {"pane_id": pane, "command": "echo free"})
        )
        assert after["output"] == "free"
