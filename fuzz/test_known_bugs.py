"""Failures the fuzz suite found in tmuxmcp code outside fuzz/, pinned until fixed.

Each test asserts the correct behaviour and is marked ``xfail(strict=True)``:
it fails today, and the day the bug is fixed it passes, which strict xfail
turns into a failure that says "remove this mark and the KNOWN_BUGS entry in
fuzz/properties.py". Until then the properties skip inputs that trigger a
known bug (so one bug does not hide others), while their pinned examples
keep the triggering inputs ready for the fixed code.
"""

from __future__ import annotations

import pytest

from fuzz.harness import REFUSED, Harness
from fuzz.properties import KNOWN_BUGS

BUGS = {bug.slug: bug.summary for bug in KNOWN_BUGS}


def known(slug: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=f"known bug {slug}: {BUGS[slug]}")


def test_every_known_bug_is_pinned_here() -> None:
    pinned = {name.removeprefix("test_").replace("_", "-") for name in globals()}
    assert set(BUGS) <= pinned


@known("leading-zero-ids")
def test_leading_zero_ids(fuzz_harness: Harness) -> None:
    world = fuzz_harness.world()
    alias = "%0" + world.pane2[1:]  # tmux reads '%02' as '%2'
    outcome = fuzz_harness.call("select_pane", {"pane_id": alias})
    assert outcome.is_error and outcome.slug in REFUSED, (
        f"{alias} was accepted and selected {world.pane2}: {outcome.text}"
    )


@known("unprintable-names")
def test_unprintable_names(fuzz_harness: Harness) -> None:
    world = fuzz_harness.world()
    name = "a\u2028b"  # LINE SEPARATOR: wcwidth -1, so tmux 3.3a vis-encodes it
    outcome = fuzz_harness.call("rename_window", {"window_id": world.window, "name": name})
    if outcome.is_error:
        assert outcome.slug == "unsafe-value", outcome.text
        return
    stored = fuzz_harness.bare("display-message", "-p", "-t", world.window, "#{window_name}")
    assert stored == name, f"accepted, but tmux stored {stored!r}"


@known("surrogate-in-convert")
def test_surrogate_in_convert(fuzz_harness: Harness) -> None:
    world = fuzz_harness.world()
    outcome = fuzz_harness.call("capture_pane", {"pane_id": world.pane, "join_wrapped": "\ud800"})
    assert outcome.is_error and outcome.slug == "invalid-arguments", outcome.text


@known("set-option-not-found")
def test_set_option_not_found(fuzz_harness: Harness) -> None:
    outcome = fuzz_harness.call(
        "set_option", {"option": "history-limit", "value": 10, "session_id": "$999999"}
    )
    assert outcome.slug == "object-not-found", outcome.text


@known("empty-send-text")
def test_empty_send_text(fuzz_harness: Harness) -> None:
    reader = fuzz_harness.reader(count=1)
    outcome = fuzz_harness.call("send_text", {"pane_id": reader.pane, "text": "", "enter": True})
    if outcome.is_error:
        assert outcome.slug in REFUSED, outcome.text  # refusing '' is a fix too
        return
    assert fuzz_harness.received(reader) == b"\r"
