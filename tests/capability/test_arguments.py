"""The argument Struct base: its shared configuration and its cross-field refusals (CM-5).

Issue 21.3: one base class (``capability.arguments.Arguments``) carries what
every argument Struct shares, and the subclass really gets it, however
msgspec inherits each option.
"""

from __future__ import annotations

import inspect
from typing import Any

import msgspec
import pytest

from tmuxmcp.capability.arguments import Arguments, conflict, given
from tmuxmcp.capability.decode import decode_arguments
from tmuxmcp.definition import BY_NAME, DEFINITION, RESOURCES
from tmuxmcp.errors import ArgumentConflict, InvalidArguments


# Moved by the run wing (issue 21.1); converted to the base when it lands.
class _Sample(Arguments):
    first: int = 1
    # A required field after one with a default is legal only when keyword-only.
    second: str

    def __post_init__(self) -> None:
        if self.first == 0 and self.second == "":
            conflict("`second`: give a second when first is 0", "second", "first")


def test_a_subclass_refuses_unknown_fields() -> None:
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"second": "x", "third": 3}, _Sample)


def test_a_subclass_is_frozen() -> None:
    sample = msgspec.convert({"second": "x"}, _Sample)
    with pytest.raises(AttributeError):
        sample.first = 2  # type: ignore[misc]
    assert sample.first == 1


def test_a_subclass_is_keyword_only() -> None:
    with pytest.raises(TypeError):
        _Sample(2, "x")  # type: ignore[call-arg]
    assert _Sample(second="x", first=2) == _Sample(first=2, second="x")


def test_a_cross_field_refusal_reaches_the_caller_unchanged() -> None:
    """The decoder raises the Struct's own ArgumentConflict, an ``[invalid-arguments]``."""
    with pytest.raises(ArgumentConflict) as raised:
        decode_arguments("sample", _Sample, {"first": 0, "second": ""})
    assert raised.value.params == ("second", "first")
    assert raised.value.for_client() == (
        "[invalid-arguments] `second`: give a second when first is 0"
    )
    assert isinstance(raised.value, InvalidArguments)


def test_a_cross_field_refusal_also_holds_for_direct_construction() -> None:
    with pytest.raises(ArgumentConflict):
        _Sample(first=0, second="")


def test_given_counts_what_is_not_none() -> None:
    assert given(None, 0, "", None, False) == 3


def _declared_args() -> list[type[msgspec.Struct]]:
    return [spec.args for spec in (*DEFINITION, *RESOURCES)]


@pytest.mark.parametrize("args", _declared_args(), ids=lambda a: a.__name__)
def test_every_declared_argument_struct_derives_from_the_base(args: type[Any]) -> None:
    assert issubclass(args, Arguments)


@pytest.mark.parametrize("args", _declared_args(), ids=lambda a: a.__name__)
def test_every_declared_argument_struct_has_the_shared_configuration(args: type[Any]) -> None:
    config = args.__struct_config__
    assert config.forbid_unknown_fields
    assert config.frozen
    kinds = {p.kind for p in inspect.signature(args).parameters.values()}
    assert kinds <= {inspect.Parameter.KEYWORD_ONLY}, f"{args.__name__} takes positional fields"


# -- the cross-field rules of the tools, each refused by its Struct ---------------
# (tool, arguments, the parameters named, a phrase the message must carry)
CONFLICTS: list[tuple[str, dict[str, Any], tuple[str, ...], str]] = [
    (
        "list_panes",
        {"session_id": "$1", "window_id": "@1"},
        ("window_id", "session_id"),
        "not both",
    ),
    (
        "search_panes",
        {"pattern": "x", "session_id": "$1", "window_id": "@1"},
        ("window_id", "session_id"),
        "not both",
    ),
    ("capture_pane", {"pane_id": "%1", "start": 5, "end": 2}, ("start", "end"), "greater than end"),
    ("capture_pane", {"pane_id": "%1", "end": -3}, ("end", "start"), "give start too"),
    (
        "send_keys",
        {"pane_id": "%1", "keys": ["Enter"] * 100, "repeat": 3},
        ("repeat", "keys"),
        "at most 200 (got 100 keys times 3)",
    ),
    (
        "split_pane",
        {"pane_id": "%1", "size_cells": 5, "size_percent": 50},
        ("size_percent", "size_cells"),
        "not both",
    ),
    (
        "resize_pane",
        {"pane_id": "%1"},
        ("direction", "width", "height", "amount", "zoom"),
        "exactly one",
    ),
    (
        "resize_pane",
        {"pane_id": "%1", "width": 10, "zoom": True},
        ("direction", "width", "height", "amount", "zoom"),
        "exactly one",
    ),
    ("resize_pane", {"pane_id": "%1", "amount": 3}, ("amount", "direction"), "needs a direction"),
    ("swap_pane", {"pane_id": "%1", "other_pane_id": "%1"}, ("other_pane_id", "pane_id"), "differ"),
    (
        "wait_for_text",
        {"pane_id": "%1", "pattern": "x", "scope": "screen", "since": "c"},
        ("since", "scope"),
        "applies to scope new",
    ),
    (
        "set_option",
        {"option": "mouse", "value": True, "window_id": "@1"},
        ("session_id", "option"),
        "mouse is a session option: give only session_id",
    ),
    (
        "set_option",
        {"option": "mouse", "value": True, "session_id": "$1", "pane_id": "%1"},
        ("session_id", "option"),
        "give only session_id",
    ),
    (
        "set_option",
        {"option": "mouse", "value": 1, "session_id": "$1"},
        ("value", "option"),
        "expected a boolean, got an integer; mouse takes true or false",
    ),
    (
        "set_option",
        {"option": "history-limit", "value": 10**7, "session_id": "$1"},
        ("value", "option"),
        "out of range (got 10000000); history-limit takes an integer from 0 to 500000",
    ),
    (
        "set_option",
        {"option": "mode-keys", "value": "vim", "window_id": "@1"},
        ("value", "option"),
        "not one of the accepted values; mode-keys takes one of: `vi`, `emacs`",
    ),
]


@pytest.mark.parametrize(("tool", "arguments", "params", "phrase"), CONFLICTS)
def test_a_tool_struct_refuses_parameters_that_do_not_go_together(
    tool: str, arguments: dict[str, Any], params: tuple[str, ...], phrase: str
) -> None:
    """Issue 21.3: decoding refuses the combination, naming the parameters (CM-5)."""
    with pytest.raises(ArgumentConflict) as raised:
        decode_arguments(tool, BY_NAME[tool].args, arguments)
    assert raised.value.params == params
    text = raised.value.for_client()
    assert text.startswith(f"[invalid-arguments] `{params[0]}`")
    assert phrase in text


ACCEPTED: list[tuple[str, dict[str, Any]]] = [
    ("list_panes", {"window_id": "@1"}),
    ("capture_pane", {"pane_id": "%1", "start": -5, "end": -5}),
    ("capture_pane", {"pane_id": "%1", "start": -10}),
    ("send_keys", {"pane_id": "%1", "keys": ["Enter"] * 100, "repeat": 2}),
    ("resize_pane", {"pane_id": "%1", "width": 10, "height": 5}),
    ("resize_pane", {"pane_id": "%1", "direction": "up"}),
    ("resize_pane", {"pane_id": "%1", "zoom": True}),
    ("wait_for_text", {"pane_id": "%1", "pattern": "x", "since": "c"}),
    ("set_option", {"option": "history-limit", "value": 500_000, "session_id": "$1"}),
    ("set_option", {"option": "remain-on-exit", "value": "failed", "pane_id": "%1"}),
]


@pytest.mark.parametrize(("tool", "arguments"), ACCEPTED)
def test_a_tool_struct_accepts_the_combinations_it_allows(
    tool: str, arguments: dict[str, Any]
) -> None:
    decoded = decode_arguments(tool, BY_NAME[tool].args, arguments)
    assert msgspec.to_builtins(decoded) == {**msgspec.to_builtins(decoded), **arguments}
