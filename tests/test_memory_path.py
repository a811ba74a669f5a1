"""The whole server in memory, in the fast tier (issue 30.2): a client's JSON-RPC
lines through the wire's triage, the protocol dispatcher, the server's method table
and the one tool dispatcher, to a runtime on the fake tmux and back.

What only a real connection shows (descriptors, stdio framing under load, a
child process's view) stays with ``tests/test_smoke_stdio.py`` and its
neighbours; these tests fail when the layers between the line and the handler
stop agreeing (a row of the method table, the surface the list and the
dispatcher share, the error path). Every line the server wrote is checked
against the SDK's models (``tests/wire_oracle.py``).
"""

from __future__ import annotations

import pytest

from tests.fake_answers import missing_pane
from tests.fake_support import fake_runtime, words
from tests.memory_session import memory_session
from tmuxmcp.driver.fake import ANY, FakeTmux
from tmuxmcp.errors import InternalError
from tmuxmcp.runs import registry

SESSION_ROW = {
    "session_id": "$0",
    "session_name": "build",
    "session_windows": "2",
    "session_attached": "0",
    "session_created": "1700000000",
}


async def test_the_listed_tools_are_the_served_surface(fake: FakeTmux) -> None:
    """CM-3: ``tools/list`` names the tools the surface serves, each once, and no other."""
    served = fake_runtime(fake)
    async with memory_session(served) as client:
        answer = await client.request("tools/list")
    names = [tool["name"] for tool in answer["result"]["tools"]]
    assert len(names) == len(set(names))
    assert set(names) == set(served.surface.tools)
    assert "list_sessions" in names
    assert fake.calls == [], "listing the tools asks tmux nothing"


async def test_a_tool_call_reaches_tmux_through_the_gate_and_comes_back_structured(
    fake: FakeTmux,
) -> None:
    """CM-1: the line becomes one gated tmux invocation; its rows come back as the
    result's structured content and its text."""
    served = fake_runtime(fake)
    fake.expect(*words("list-sessions -F"), ANY, rows=[SESSION_ROW])
    async with memory_session(served) as client:
        result = await client.call("list_sessions", {})
    assert result.get("isError") is not True
    assert [s["name"] for s in result["structuredContent"]["sessions"]] == ["build"]
    assert "build" in result["content"][0]["text"]
    (call,) = fake.calls
    assert call.gated


async def test_tmux_refusing_a_call_is_a_tool_error_and_the_connection_goes_on(
    fake: FakeTmux,
) -> None:
    """A pane tmux cannot find is the caller's mistake (``isError``, its reference
    first); the next request on the same connection is served."""
    served = fake_runtime(fake)
    fake.expect(*words("list-panes -t %9 -F"), ANY, answer=missing_pane("%9"))
    async with memory_session(served) as client:
        result = await client.call("list_panes", {"pane_id": "%9"})
        assert result["isError"] is True
        assert result["content"][0]["text"].startswith("[object-not-found]")
        assert "result" in await client.request("ping")


async def test_an_unknown_tool_and_bad_arguments_never_reach_tmux(fake: FakeTmux) -> None:
    """CM-3: a tool outside the surface is an invalid-params error; CM-5: arguments the
    Struct refuses are an ``[invalid-arguments]`` result. Neither runs tmux."""
    served = fake_runtime(fake)
    async with memory_session(served) as client:
        unknown = await client.request("tools/call", {"name": "no_such_tool", "arguments": {}})
        refused = await client.call("list_panes", {"pane_id": "not a pane"})
    assert unknown["error"]["code"] == -32602
    assert refused["isError"] is True
    assert refused["content"][0]["text"].startswith("[invalid-arguments]")
    assert fake.calls == []


async def test_a_call_before_the_handshake_is_refused(fake: FakeTmux) -> None:
    """The protocol's era table is the one the stdio server uses: a tool call before
    ``initialize`` (and without the 2026-07-28 envelope) gets an error, not a result."""
    served = fake_runtime(fake)
    async with memory_session(served, handshake=False) as client:
        answer = await client.request("tools/call", {"name": "list_sessions", "arguments": {}})
    assert "error" in answer
    assert fake.calls == []


async def test_the_run_wing_and_the_server_share_the_one_registry(fake: FakeTmux) -> None:
    """Issue 30.1: runtime builds one ``RunRegistry``; the tools' context carries it
    (typed there by what the other tools tell it) and the wing reads it back whole,
    the same object the server sweeps and shuts down. Anything else in its place is
    a bug the wing names, not an attribute error halfway through a run."""
    served = fake_runtime(fake)
    assert registry.of(served.context.runs) is served.runs
    with pytest.raises(InternalError, match="not a RunRegistry"):
        registry.of(object())
