"""runs.pending, pure: when nobody can have typed into a pane (Rule 2), the
text typed after a known prompt (Rule 4), and input a shell does not show (Rule 5)."""

from __future__ import annotations

import pytest

from tmuxmcp.runs.pending import (
    Input,
    InputPending,
    Prompt,
    input_may_wait_unseen,
    nobody_typed,
    prompt_at,
    refuse_typed_ahead,
    refuse_unseen_input,
    typed_ahead,
)
from tmuxmcp.runs.registry import RunRegistry

TYPED_AT = 1_800_000_000.5


def _seen(*, attached: int = 0, linked: bool = False, activity: int = 0) -> Input:
    return Input(tty="/dev/pts/9", attached=attached, linked=linked, activity=activity)


def test_no_client_attached_means_nobody_typed() -> None:
    assert nobody_typed(_seen(attached=0, activity=int(TYPED_AT) + 5), TYPED_AT)


def test_an_attached_client_idle_since_before_the_run() -> None:
    assert nobody_typed(_seen(attached=1, activity=int(TYPED_AT) - 1), TYPED_AT)


def test_a_key_in_the_second_of_typing_or_after_counts_as_typed() -> None:
    assert not nobody_typed(_seen(attached=1, activity=int(TYPED_AT)), TYPED_AT)
    assert not nobody_typed(_seen(attached=2, activity=int(TYPED_AT) + 3), TYPED_AT)


def test_a_window_in_another_session_may_have_a_typist_there() -> None:
    assert not nobody_typed(_seen(attached=0, linked=True), TYPED_AT)


def test_text_after_the_known_prompt_is_typed_ahead() -> None:
    """Rule 4: the prompt as tmux shows it, trailing spaces stripped, then the text."""
    prompt = prompt_at("user@host:~$", 13)
    assert prompt == Prompt(13, "user@host:~$ ")
    assert typed_ahead("user@host:~$ 1R", 15, prompt) == "1R"
    assert typed_ahead("user@host:~$ git commit -m 'x", 29, prompt) == "git commit -m 'x"
    # After output with no newline at its end, the prompt starts further right.
    assert typed_ahead("^[[2;1Rzquser@host:~$ 1Rzq", 26, prompt) == "1Rzq"


def test_no_text_or_another_prompt_is_nothing_typed_ahead() -> None:
    prompt = prompt_at("user@host:~$", 13)
    assert typed_ahead("user@host:~$", 13, prompt) == ""
    # The prompt grew after a cd: the old one is not its start (its space is not a /).
    assert typed_ahead("user@host:~/src$", 17, prompt) == ""
    assert typed_ahead("$ abc", 5, None) == ""


def test_the_refusal_names_the_text_and_how_to_clear_it() -> None:
    with pytest.raises(InputPending, match=r"'half typed'.*send_keys C-u") as refused:
        refuse_typed_ahead("%4", "$ half typed", 12, prompt_at("$ ", 2))
    assert refused.value.reference == "pane-not-ready"
    refuse_typed_ahead("%4", "$", 2, prompt_at("$ ", 2))  # nothing waits: no refusal


def test_only_a_shell_without_a_line_editor_may_hide_kept_input() -> None:
    """Rule 5: bash and zsh draw what waits after their prompt (Rule 4 sees it)."""
    typist = _seen(attached=1, activity=int(TYPED_AT) + 1)
    assert input_may_wait_unseen(typist, "dash", TYPED_AT)
    assert not input_may_wait_unseen(typist, "bash", TYPED_AT)
    assert not input_may_wait_unseen(typist, "zsh", TYPED_AT)
    assert not input_may_wait_unseen(_seen(attached=0), "dash", TYPED_AT)


def test_the_unseen_input_refusal_says_how_to_clear_it() -> None:
    refuse_unseen_input("%3", "dash", flagged=False)
    refuse_unseen_input("%3", "bash", flagged=True)
    with pytest.raises(InputPending, match=r"pane %3's shell \(dash\).*send_keys C-u"):
        refuse_unseen_input("%3", "dash", flagged=True)


def test_the_flag_belongs_to_one_shell_and_goes_when_tmuxmcp_sends_input() -> None:
    runs = RunRegistry()
    runs.input_may_wait("%3", 100)
    assert runs.unseen_input("%3", 100)
    assert not runs.unseen_input("%3", 101)  # respawned: another shell
    assert not runs.unseen_input("%3", None)  # no /proc: nothing to match
    assert not runs.unseen_input("%4", 100)
    runs.input_handled("%3")
    assert not runs.unseen_input("%3", 100)
