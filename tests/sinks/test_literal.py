"""``sinks.literal``: values tmux stores byte for byte (research §0 "L" rows)."""

from __future__ import annotations

import pytest

from tmuxmcp.errors import UnsafeValue
from tmuxmcp.sinks.literal import encode_literal


@pytest.mark.parametrize(
    "value", ["", "FOO=#(touch x)", "x;", "-dash", "$HOME ~ ${X}", "é☺", "new\nline"]
)
def test_literal_values_pass_through_unchanged(value: str) -> None:
    """The argv-layer rules (trailing ``;``, ``--``) are the renderer's job, not this one."""
    assert encode_literal(value, "name") == value


@pytest.mark.parametrize("value", ["a\x00b", "\ud83d"])
def test_literal_rejects_what_argv_cannot_carry(value: str) -> None:
    with pytest.raises(UnsafeValue, match="`buffer_name`"):
        encode_literal(value, "buffer_name")
