"""The official SDK 1.x client drives tmuxmcp over stdio (issue 19.2).

mcp 1.30 is what clients such as mcp-tmux are built on, and it cannot share a
virtual environment with the 2.x SDK the other tests use. ``.ci/run`` makes
``.ci/sdk1`` with it and sets ``TMUXMCP_SDK1_PYTHON``; this test runs
``tests/sdk1_session.py`` with that interpreter against the real server on
a private socket and judges what the 1.x client saw; the server runs behind
``tests/stdio_tap.py``, so every message it wrote is also checked by the
wire oracle (``tests/wire_oracle.py``). Locally, without the
environment, the test skips and says how to make it; when
``TMUXMCP_SDK1_PYTHON`` names an interpreter, a missing one is a failure, so
CI cannot skip it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import tmuxmcp
from tests.support import PrivateTmux
from tests.wire_oracle import Conversation

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "tests" / "sdk1_session.py"
TAP = REPO / "tests" / "stdio_tap.py"
DEFAULT = REPO / ".ci" / "sdk1" / "bin" / "python"
MAKE_IT = "python3 -m venv .ci/sdk1 && .ci/sdk1/bin/pip install mcp==1.30.0"


def _sdk1_python() -> Path:
    named = os.environ.get("TMUXMCP_SDK1_PYTHON")
    if named:
        assert os.access(named, os.X_OK), f"TMUXMCP_SDK1_PYTHON={named} is not executable"
        return Path(named)
    if not os.access(DEFAULT, os.X_OK):
        pytest.skip(f"no SDK 1.x environment at .ci/sdk1 (.ci/run makes it: {MAKE_IT})")
    return DEFAULT


def _report(python: Path, tmux: PrivateTmux, pane: str, tap: str) -> dict[str, Any]:
    config = {
        "command": sys.executable,
        "args": [str(TAP), tap, sys.executable, "-m", "tmuxmcp"],
        "env": tmux.env,
        "pane": pane,
    }
    done = subprocess.run(
        [str(python), str(SCRIPT), json.dumps(config)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmux.directory,
    )
    assert done.returncode == 0, f"the SDK 1.x session failed:\n{done.stderr[-4000:]}"
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _tapped(tap: str) -> Conversation:
    """What the tap recorded, as the oracle's conversation."""
    conversation = Conversation()
    with open(os.path.join(tap, "sent"), "rb") as f:
        for line in f:
            conversation.client_sent(json.loads(line))
    with open(os.path.join(tap, "received"), "rb") as f:
        for line in f:
            conversation.server_wrote(line.rstrip(b"\n"))
    return conversation


def _text(result: dict[str, Any]) -> str:
    return " ".join(block.get("text", "") for block in result["content"])


def test_the_sdk1_client_initializes_lists_calls_reads_and_pings(
    private_tmux: PrivateTmux,
) -> None:
    """initialize, tools/list, a read tool and run_command, an isError result, a protocol
    error, resources/list and resources/read, ping: all as the 1.x client parses them
    (CM-3: an unknown tool is an invalid-params error, as for a hidden one)."""
    python = _sdk1_python()
    ids = private_tmux.new_session("one")
    pane = ids["pane_id"]
    tap = os.path.join(private_tmux.directory, "tap")
    os.mkdir(tap)
    report = _report(python, private_tmux, pane, tap)

    assert report["sdk"].startswith("1."), report["sdk"]
    init = report["initialize"]
    assert init["protocolVersion"] == "2025-11-25"
    assert init["serverInfo"]["name"] == "tmuxmcp"
    assert init["serverInfo"]["version"] == tmuxmcp.__version__
    assert {"tools", "resources"} <= set(init["capabilities"])
    assert {"list_panes", "capture_pane", "run_command"} <= set(report["tools"])

    listed = report["list_panes"]
    assert listed["isError"] is False
    assert [p["pane_id"] for p in listed["structuredContent"]["panes"]] == [pane]

    ran = report["run_command"]
    assert ran["isError"] is False, _text(ran)
    assert ran["structuredContent"]["completed"] is True
    assert ran["structuredContent"]["exit_status"] == 0
    assert "hi" in ran["structuredContent"]["output"]
    # The effect, read back through bare tmux.
    assert "hi" in private_tmux.bare("capture-pane", "-p", "-t", pane).stdout

    refused = report["error_result"]
    assert refused["isError"] is True
    assert _text(refused).startswith("[invalid-arguments]"), _text(refused)

    unknown = report["unknown_tool"]
    assert unknown["raised"] == "McpError", unknown
    assert unknown["error"]["code"] == -32602
    assert "no_such_tool" in unknown["error"]["message"]

    uri = f"tmux://pane/{pane.removeprefix('%')}"
    assert uri in report["resources"]
    (content,) = report["read"]["contents"]
    assert content["uri"] == uri
    assert "hi" in content["text"]
    assert report["ping"] == {}

    # Every message the server wrote to the 1.x client, checked by the SDK 2.x models
    # at the version negotiated; the 1.x client numbers its requests from 0.
    conversation = _tapped(tap)
    assert conversation.sent[0]["method"] == "initialize"
    assert conversation.sent[0]["id"] == 0
    assert len(conversation.received) >= 9
    conversation.assert_valid()
