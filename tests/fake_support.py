"""Test support for the fast tier: a served runtime on ``driver.fake.FakeTmux``.

``fake_runtime`` assembles the ``Runtime`` that ``serve`` would run, with the
fake as its runner, through ``runtime.build`` (the same surface decision and
context); ``call_tool`` sends one call through ``server.call``, the one
dispatcher (decode, encode, handler, error path), and returns what the client
would see. No tmux process is started. An unexpected tmux command fails the
call that ran it; the ``fake_tmux`` fixture (``tests/conftest.py``) also fails
a test that leaves expected commands unrun.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tmuxmcp import runtime, server
from tmuxmcp.capability.surface import SurfaceRequest
from tmuxmcp.config import Config
from tmuxmcp.driver.fake import FakeTmux


def words(text: str) -> list[str]:
    """Command words as typed: ``"list-panes -t %9"`` -> ``["list-panes", "-t", "%9"]``."""
    return text.split(" ")


class Called(msgspec.Struct, frozen=True, kw_only=True):
    """One tool call's outcome, as a client reads it."""

    error: str | None
    """The text of an ``isError`` result, else None."""
    structured: dict[str, Any] | None
    """The structured content of a successful result, else None."""

    def ok(self) -> dict[str, Any]:
        """The structured content, or fail with the error text."""
        assert self.error is None, f"tool call failed: {self.error}"
        assert self.structured is not None
        return self.structured


def fake_config(fake: FakeTmux, *, env: dict[str, str] | None = None) -> Config:
    """The ``Config`` of a default ``tmuxmcp serve`` on the fake's socket and binary,
    with ``env`` as the environment its tmux clients get (none by default)."""
    return Config(
        socket=fake.socket,
        tmux_binary=fake.binary,
        request=SurfaceRequest(),
        timeout=10.0,
        env=env or {},
    )


def fake_runtime(fake: FakeTmux, *, self_pane: str | None = None) -> runtime.Runtime:
    """The runtime ``serve`` builds for the fake's server (default toolsets, minimal).

    With ``self_pane``, tmuxmcp runs in that pane of the bound server, as
    tmux's ``TMUX`` and ``TMUX_PANE`` would tell it. The panes' processes are read
    from the fake's scripted kernel (``FakeTmux.kernel``), never this machine's.
    """
    facts = fake.facts()
    environ = {}
    if self_pane is not None:
        environ = {"TMUX": f"{facts.socket_path},{facts.identity.pid},0", "TMUX_PANE": self_pane}
    return runtime.build(
        fake_config(fake), facts, fake.client(), environ=environ, kernel=fake.kernel
    )


async def call_tool(
    fake: FakeTmux, served: runtime.Runtime, name: str, arguments: dict[str, Any]
) -> Called:
    """Call ``name`` through the dispatcher; fail if it ran a command the script lacks."""
    result = await server.call(served, name, arguments)
    fake.check(all_used=False)
    if result.is_error:
        return Called(
            error=" ".join(getattr(c, "text", "") for c in result.content), structured=None
        )
    # The protocol layer carries structuredContent as the result's one JSON
    # encoding (msgspec.Raw); the wiring tests read it back as JSON.
    assert isinstance(result.structured_content, msgspec.Raw)
    structured = msgspec.json.decode(result.structured_content)
    assert isinstance(structured, dict)
    return Called(error=None, structured=structured)
