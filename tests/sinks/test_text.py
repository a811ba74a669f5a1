"""``sinks._text``: what can never travel through argv (NUL, lone surrogates)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tmuxmcp.errors import CallerError, UnsafeValue
from tmuxmcp.sinks._text import require_argv_text


@pytest.mark.parametrize("value", ["", "plain", "#{pane_id}", "x;", "-t", "é☺中😀", "a\tb\nc\x7f"])
def test_text_that_argv_can_carry_is_returned_unchanged(value: str) -> None:
    assert require_argv_text(value, "p") is value


@pytest.mark.parametrize("value", ["\x00", "a\x00b", "trailing\x00"])
def test_nul_is_rejected_naming_the_parameter_not_the_value(value: str) -> None:
    with pytest.raises(UnsafeValue) as info:
        require_argv_text(value, "window_name")
    assert "`window_name`" in info.value.message
    assert "NUL" in info.value.message
    assert info.value.reference == "unsafe-value"
    assert isinstance(info.value, CallerError)


@pytest.mark.parametrize("value", ["\ud800", "a\udfffb", "\udcff"])
def test_lone_surrogates_are_rejected_not_replaced(value: str) -> None:
    """JSON can carry a lone surrogate; UTF-8 cannot, so it is refused (never altered)."""
    with pytest.raises(UnsafeValue) as info:
        require_argv_text(value, "text")
    assert "surrogate" in info.value.message
    # The foreign UnicodeEncodeError is translated here, once, and not chained.
    assert info.value.__cause__ is None
    assert info.value.__suppress_context__


@given(st.text())
def test_accepts_exactly_the_nul_free_utf8_encodable_strings(value: str) -> None:
    encodable = True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        encodable = False
    if encodable and "\x00" not in value:
        assert require_argv_text(value, "p") == value
    else:
        with pytest.raises(UnsafeValue):
            require_argv_text(value, "p")
