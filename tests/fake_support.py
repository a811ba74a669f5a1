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

from collections.abc import Callable
from typing import Any

import msgspec

from tmuxmcp import runtime, server
from tmuxmcp.capability.surface import SurfaceRequest
from tmuxmcp.config import Config
from tmuxmcp.driver.fake import ANY, FakeCall, FakeTmux, Reply, expand_format


def words(text: str) -> list[str]:
    """Command words as typed: ``"list-panes -t %9"`` -> ``["list-panes", "-t", "%9"]``."""
    return text.split(" ")


VALUES = {
    "session_id": "$1",
    "session_name": "build",
    "session_windows": "1",
    "session_attached": "0",
    "session_created": "1700000000",
    "window_id": "@2",
    "window_index": "0",
    "window_name": "make",
    "window_active": "1",
    "window_panes": "1",
    "window_width": "80",
    "window_height": "24",
    "window_layout": "b25d,80x24,0,0,3",
    "window_zoomed_flag": "0",
    "pane_id": "%3",
    "pane_index": "0",
    "pane_active": "1",
    "pane_width": "80",
    "pane_height": "24",
    "pane_title": "host",
    "pane_current_command": "bash",
    "pane_current_path": "/home/me",
    "pane_pid": "4242",
    "pane_dead": "0",
    "pane_dead_status": "",
    "pane_dead_signal": "",
    "pane_in_mode": "0",
    "pane_mode": "",
    "alternate_on": "0",
    "cursor_x": "2",
    "cursor_y": "0",
    "history_size": "0",
    "history_limit": "2000",
    "pane_tty": "/dev/pts/9",
    "buffer_name": "buffer0",
    "buffer_size": "12",
}
"""One session, window and pane as tmux would report each variable (a live pane
whose process is ``PANE_PID``, in no mode, its cursor after a two-column prompt)."""

PANE_PID = 4242
"""The pane's process in ``VALUES``: what the fake kernel is told about (``FakeTmux.kernel``)."""


def screen(*rows: str, height: int = 24) -> str:
    """``capture-pane -p`` of a screen showing ``rows`` and blank rows below."""
    return "".join(f"{row}\n" for row in rows) + "\n" * (height - len(rows))


def shows(text: str, **values: str) -> Callable[[FakeCall], Reply]:
    """tmux's answer to a read of a pane showing the screen ``text``: each
    ``display-message -p`` prints its format expanded (``VALUES``, with ``values`` over
    them), each ``capture-pane -p`` the screen."""

    def answer(call: FakeCall) -> Reply:
        out = []
        command: list[str] = []
        for word in [*call.words, ";"]:
            if word != ";":
                command.append(word)
                continue
            if command[:1] == ["display-message"]:
                out.append(expand_format(command[-1], VALUES | values) + "\n")
            elif command[:1] == ["capture-pane"]:
                out.append(text)
            command = []
        return Reply(stdout="".join(out))

    return answer


def looks(fake: FakeTmux, text: str, *, times: int = 1, pane: str = "%3", **values: str) -> None:
    """Script ``times`` looks of a waiting tool (``wait_for_state``, ``wait_for_text``:
    the state's or the wait's facts, the frame, the screen from any row) at ``pane``
    showing ``text``."""
    for _ in range(times):
        fake.expect(
            *words(f"display-message -p -t {pane} --"),
            ANY,
            *words(f"; display-message -p -t {pane} --"),
            ANY,
            *words(f"; capture-pane -p -t {pane} -S"),
            ANY,
            answer=shows(text, **values),
        )


def listed(fake: FakeTmux, *, times: int = 1, pane: str = "%3", **values: str) -> None:
    """Script ``times`` reads of ``pane`` with its state's tmux facts (``list-panes -t``,
    as ``recover_pane`` and ``list_panes`` read it), its values ``VALUES`` with ``values``
    over them."""
    for _ in range(times):
        fake.expect(*words(f"list-panes -t {pane} -F"), ANY, rows=[VALUES | values])


def cursor_row(fake: FakeTmux, row: str, pane: str = "%3", y: int = 0) -> None:
    """Script the read of a shell-ready pane's cursor row (``pane_reading``: a continuation
    prompt or a fresh one)."""
    fake.expect(
        *words(f"display-message -p -t {pane} --"),
        ANY,
        *words(f"; capture-pane -p -t {pane} -S {y} -E {y}"),
        answer=shows(f"{row}\n"),
    )


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


def fake_config(
    fake: FakeTmux, *, env: dict[str, str] | None = None, request: SurfaceRequest | None = None
) -> Config:
    """The ``Config`` of a default ``tmuxmcp serve`` on the fake's socket and binary,
    with ``env`` as the environment its tmux clients get (none by default) and
    ``request`` as the operator's surface (``--toolsets``, ``--exclude-tools``...)."""
    return Config(
        socket=fake.socket,
        tmux_binary=fake.binary,
        request=request or SurfaceRequest(),
        timeout=10.0,
        env=env or {},
    )


def fake_runtime(
    fake: FakeTmux, *, self_pane: str | None = None, request: SurfaceRequest | None = None
) -> runtime.Runtime:
    """The runtime ``serve`` builds for the fake's server (default toolsets unless
    ``request`` says otherwise, minimal provenance).

    With ``self_pane``, tmuxmcp runs in that pane of the bound server, as
    tmux's ``TMUX`` and ``TMUX_PANE`` would tell it. The panes' processes are read
    from the fake's scripted kernel (``FakeTmux.kernel``), never this machine's.
    """
    facts = fake.facts()
    environ = {}
    if self_pane is not None:
        environ = {"TMUX": f"{facts.socket_path},{facts.identity.pid},0", "TMUX_PANE": self_pane}
    return runtime.build(
        fake_config(fake, request=request),
        facts,
        fake.client(),
        environ=environ,
        kernel=fake.kernel,
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
