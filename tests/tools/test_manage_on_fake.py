"""The manage toolset's refusals on the fake (issue 30.2): what is refused before tmux is asked.

Each case was a real-tmux test in ``test_manage.py`` that started a server only
to read back that nothing had been created; on the fake, that no tmux command
ran at all says more. What tmux does with the names and paths it accepts stays
there, read back through bare tmux.
"""

from __future__ import annotations

import pytest

from tests.fake_support import call_tool, fake_runtime
from tmuxmcp.driver.fake import FakeTmux


@pytest.mark.parametrize(
    ("tool", "arguments", "fragment"),
    [
        ("create_session", {"name": "a:b"}, "':' or '.'"),
        ("create_session", {"name": "a.b"}, "':' or '.'"),
        ("create_session", {"name": "tab\there"}, "control character"),
        ("create_session", {"name": "back\\slash"}, "backslash"),
        ("create_session", {"name": "$a"}, "'$'"),
        ("rename", {"window_id": "@0", "name": "cost $5"}, "'$'"),
        ("create_session", {"name": ""}, "invalid-arguments"),
        ("create_session", {"start_directory": "relative"}, "absolute"),
        ("create_session", {"start_directory": "/nonexistent-dir-x"}, "existing directory"),
        ("create_session", {"start_directory": "/tmp/../tmp"}, "normalized"),
        ("create_session", {"width": 0}, "invalid-arguments"),
        ("create_window", {"session_id": "main"}, "invalid-arguments"),
        ("rename", {"window_id": "@0", "name": "new\nline"}, "control character"),
        # issue 28.9: the merged tools refuse what neither old tool could be asked.
        ("rename", {"session_id": "$0", "name": "a.b"}, "':' or '.'"),
        ("rename", {"name": "x"}, "give session_id or window_id"),
        ("select", {}, "give window_id or pane_id"),
        ("select", {"window_id": "@0", "pane_id": "%0"}, "not both"),
        ("list_panes", {"window_id": "@0", "pane_id": "%0"}, "not both"),
    ],
)
async def test_names_and_paths_tmux_would_rewrite_are_refused(
    fake: FakeTmux, tool: str, arguments: dict[str, object], fragment: str
) -> None:
    """CM-5: a name or a path tmux would rewrite, or arguments that contradict each
    other, are refused with what to fix before tmux is asked anything, so a refused
    call creates nothing (the fake records no command at all)."""
    served = fake_runtime(fake)
    called = await call_tool(fake, served, tool, dict(arguments))
    assert called.error is not None and fragment in called.error, called.error
    assert fake.calls == []
