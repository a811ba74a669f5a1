"""tools.run.pending Rule 2, pure: when nobody can have typed into a pane."""

from __future__ import annotations

from tmuxmcp.tools.run.pending import Input, nobody_typed

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
