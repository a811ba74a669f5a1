"""Startup: ``tmuxmcp surface`` predicts exactly what ``serve`` publishes (CM-3, CM-4).

``runtime.predict`` (the ``surface`` command, which never starts a server)
and ``runtime.build`` (``serve``, after binding) reach the surface, its
annotation evidence and the published report through one function,
``runtime.decide``. These tests hold the two entry points to the same answer
over a real tmux on a private socket: a server tmuxmcp would start (and then
does), and a server that was already running.
"""

from __future__ import annotations

import pytest

from tests.support import PrivateTmux
from tmuxmcp import runtime
from tmuxmcp.config import Options, load
from tmuxmcp.driver import binding

SELECTIONS = {
    "default": {},
    "inspect-and-teardown": {"toolsets": "inspect,teardown"},
    "named-in-and-out": {"include_tools": "kill_pane", "exclude_tools": "capture_pane"},
}


@pytest.mark.tmux
@pytest.mark.parametrize("running", [False, True], ids=["no-server", "existing-server"])
@pytest.mark.parametrize("selection", list(SELECTIONS))
async def test_surface_predicts_what_serve_publishes(
    private_tmux: PrivateTmux, running: bool, selection: str
) -> None:
    if running:
        private_tmux.start_foreign_server()
    config = load(Options(**SELECTIONS[selection]), private_tmux.env)
    predicted = await runtime.predict(config)
    served = await runtime.start(config)
    try:
        published = served.context.published
        assert predicted["surface"] == published["surface"]
        # With no server running there is no socket file yet to report.
        expected_socket = published["socket"] if running else {**published["socket"], "path": None}
        assert predicted["socket"] == expected_socket
        assert predicted["server"]["provenance"] == published["server"]["provenance"]
        assert published["server"]["provenance"] == ("unknown" if running else "minimal")
    finally:
        await binding.release(served.context.client, served.context.facts)
