"""The execute toolset's refusals on the fake (issue 30.2): what is refused before tmux is asked.

``send_keys``' text refuses the control characters a terminal would act on,
pointing at the keys that send them; the case was a real-tmux test in
``test_execute.py`` that started a server and a pane only to read the
refusal. On the fake, that no tmux command ran at all says the same and
more. What tmux and the pane do with the keys and text it accepts stays
there, read back through bare tmux.
"""

from __future__ import annotations

import pytest

from tests.fake_support import call_tool, fake_runtime
from tmuxmcp.driver.fake import FakeTmux


@pytest.mark.parametrize("text", ["cr\rreturn", "esc\x1b[31m", "del\x7f", "c1\x9b", "a\nb\r\n"])
async def test_control_characters_in_text_are_refused_with_a_pointer_to_keys(
    fake: FakeTmux, text: str
) -> None:
    """CM-5: a carriage return, an escape sequence, DEL or a C1 control in ``text`` is
    ``[unsafe-value]`` naming the keys that send them (``["Escape"]``), before tmux is
    asked anything."""
    served = fake_runtime(fake)
    called = await call_tool(fake, served, "send_keys", {"pane_id": "%3", "keys": [{"text": text}]})
    assert called.error is not None and called.error.startswith("[unsafe-value]")
    assert '["Escape"]' in called.error, called.error
    assert fake.calls == []
