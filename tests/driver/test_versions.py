"""``driver.versions``: the oldest tmux tmuxmcp drives, told from ``tmux -V`` (Rules 1, 2).

Every call passes ``-N`` (CM-1: no call starts a server), which tmux 3.2
added; tmux 3.1c answers every call with ``unknown option -- N`` (measured on
a 3.1c build). Pure: the answers of ``tmux -V`` are strings here; the command
line's refusal is tested with a fake tmux in ``tests/test_cli.py``.
"""

from __future__ import annotations

import pytest

from tmuxmcp.driver.versions import OLDEST_SUPPORTED, refusal, version_tuple


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("tmux 3.1c\n", (3, 1)),
        ("tmux 3.2a", (3, 2)),
        ("tmux 3.6", (3, 6)),
        ("tmux next-3.8", (3, 8)),
        ("tmux 3.10", (3, 10)),
        ("3.5a", (3, 5)),  # #{version}, as binding reads it
        ("tmux master", None),
        ("tmux openbsd-7.6", None),
        ("", None),
    ],
)
def test_version_tuple_reads_tmux_v_and_the_version_format(
    text: str, parsed: tuple[int, int] | None
) -> None:
    assert version_tuple(text) == parsed


@pytest.mark.parametrize("text", ["tmux 3.1c", "tmux 3.0a", "tmux 2.9", "tmux next-3.1"])
def test_a_tmux_older_than_the_floor_is_refused_in_one_line_naming_both_versions(
    text: str,
) -> None:
    refused = refusal(text + "\n")
    assert refused is not None
    found = text.split()[1].removeprefix("next-")
    assert refused.version == found
    assert refused.for_client().startswith(
        f"[tmux-unsupported] tmux {found} is older than 3.2, the oldest tmux tmuxmcp supports"
    )
    assert "\n" not in refused.for_client()


@pytest.mark.parametrize(
    "text", ["tmux 3.2", "tmux 3.2a", "tmux 3.4", "tmux 3.7c", "tmux 4.0", "tmux master", "x"]
)
def test_supported_and_unrecognised_versions_are_not_refused(text: str) -> None:
    """Rule 2: an unrecognised text is left to ``tmuxmcp verify``."""
    assert refusal(text) is None


def test_the_floor_is_the_release_that_added_the_no_start_flag() -> None:
    assert OLDEST_SUPPORTED == (3, 2)
