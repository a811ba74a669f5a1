"""``tools.keystrokes``: a send_keys call's parts as the fewest tmux invocations (issue 28.4).

Pure planning, no tmux: what each invocation holds, in order, where the mode
guard stands, and that every invocation fits tmux's command limit. What tmux
does with the plan is tested on real tmux in ``tests/tools/test_execute.py``
and proven by ``tmuxmcp verify`` (claim ``key-printable``).
"""

from __future__ import annotations

from tmuxmcp.driver.argv import cmd, render
from tmuxmcp.driver.client import MAX_COMMAND_BYTES, packed_size
from tmuxmcp.tools.keystrokes import BUDGET, Part, Step, TextPart, plan

MARKER = "@tmuxmcp_0123456789abcdef"
LEAD = [cmd("display-message", "-p", t="%1", args=["frame"])]


def _names(step: Step) -> list[str]:
    return [command.name for command in step.commands]


def test_an_editor_session_is_one_invocation_with_one_guard() -> None:
    parts: list[Part] = ["i", TextPart(text="name\tvalue"), "Escape", TextPart(text=":wq"), "Enter"]
    (step,) = plan("%1", parts, marker=MARKER, bracketed=False, lead=LEAD)
    assert _names(step) == [
        "display-message",  # the lead (a cursor read) comes first
        "send-keys",
        "show-options",  # the mode guard, before the first text only
        "set-buffer",
        "paste-buffer",
        "send-keys",
        "set-buffer",
        "paste-buffer",
        "send-keys",
    ]
    assert step.stdin is None and step.guarded_part == 1 and step.first_part == 0
    words = render(step.commands)
    assert "name\tvalue" in words and ":wq" in words


def test_keys_in_a_row_share_one_send_keys() -> None:
    (step,) = plan("%1", ["C-c", "q", ";", "Enter"], marker=MARKER, bracketed=False, lead=[])
    assert step.commands == [cmd("send-keys", t="%1", args=["C-c", "q", ";", "Enter"])]
    assert step.guarded_part is None  # keys alone need no guard: they act on a mode


def test_a_long_text_goes_on_stdin_and_a_second_one_starts_the_next_invocation() -> None:
    big = "x" * (BUDGET + 1)
    parts: list[Part] = ["a", TextPart(text=big), TextPart(text="small"), TextPart(text=big), "b"]
    first, second = plan("%1", parts, marker=MARKER, bracketed=True, lead=LEAD)
    assert first.stdin == big.encode() and second.stdin == big.encode()
    assert (first.first_part, first.guarded_part) == (0, 1)
    assert (second.first_part, second.guarded_part) == (3, 3)
    assert "load-buffer" in _names(first) and "set-buffer" in _names(first)  # the small one
    assert _names(second) == ["show-options", "load-buffer", "paste-buffer", "send-keys"]
    paste = next(c for c in first.commands if c.name == "paste-buffer")
    assert paste.flags == ("-d", "-r", "-p")
    for step in (first, second):
        assert packed_size(render(step.commands)) <= MAX_COMMAND_BYTES


def test_line_breaks_paste_without_r_and_empty_text_pastes_nothing() -> None:
    (step,) = plan(
        "%1", [TextPart(text="a\nb"), TextPart(text="")], marker=MARKER, bracketed=False, lead=[]
    )
    pastes = [c for c in step.commands if c.name == "paste-buffer"]
    assert len(pastes) == 1 and pastes[0].flags == ("-d",)  # LF becomes CR (Enter)


def test_nothing_to_send_is_still_one_invocation_for_the_lead() -> None:
    (step,) = plan("%1", [TextPart(text="")], marker=MARKER, bracketed=False, lead=LEAD)
    assert step.commands == LEAD and step.guarded_part is None
