"""Failures the fuzz suite found in tmuxmcp code outside fuzz/, now fixed.

Each test asserts the correct behaviour for the input that exposed the bug.
A newly found bug gets a ``KnownBug`` entry in fuzz/known_bugs.py and a test
here marked ``xfail(strict=True)`` until it is fixed.
"""

from __future__ import annotations

from fuzz.harness import REFUSED, Harness


def test_leading_zero_ids(fuzz_harness: Harness) -> None:
    world = fuzz_harness.world()
    alias = "%0" + world.pane2[1:]  # tmux reads '%02' as '%2'
    outcome = fuzz_harness.call("select", {"pane_id": alias})
    assert outcome.is_error and outcome.slug in REFUSED, (
        f"{alias} was accepted and selected {world.pane2}: {outcome.text}"
    )


def test_unprintable_names(fuzz_harness: Harness) -> None:
    world = fuzz_harness.world()
    name = "a\u2028b"  # LINE SEPARATOR: wcwidth -1, so tmux 3.3a vis-encodes it
    before = fuzz_harness.bare("display-message", "-p", "-t", world.window, "#{window_name}")
    outcome = fuzz_harness.call("rename", {"window_id": world.window, "name": name})
    assert outcome.is_error and outcome.slug == "unsafe-value", outcome.text
    after = fuzz_harness.bare("display-message", "-p", "-t", world.window, "#{window_name}")
    assert after == before


def test_surrogate_in_convert(fuzz_harness: Harness) -> None:
    world = fuzz_harness.world()
    outcome = fuzz_harness.call("capture_pane", {"pane_id": world.pane, "join_wrapped": "\ud800"})
    assert outcome.is_error and outcome.slug == "invalid-arguments", outcome.text


def test_set_option_not_found(fuzz_harness: Harness) -> None:
    outcome = fuzz_harness.call(
        "set_option", {"option": "history-limit", "value": 10, "session_id": "$999999"}
    )
    assert outcome.slug == "object-not-found", outcome.text


def test_empty_send_text(fuzz_harness: Harness) -> None:
    """Found as send_text with ``text: ""`` and ``enter``; now an empty text part."""
    reader = fuzz_harness.reader(count=1)
    outcome = fuzz_harness.call(
        "send_keys", {"pane_id": reader.pane, "keys": [{"text": ""}, "Enter"]}
    )
    if outcome.is_error:
        assert outcome.slug in REFUSED, outcome.text  # refusing '' is a fix too
        return
    assert fuzz_harness.received(reader) == b"\r"
