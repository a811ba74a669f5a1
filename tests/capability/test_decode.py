"""Decoding errors are built from the declared types, not from msgspec's English (issue 21.3).

``decode`` words what ``diagnose`` finds by walking the argument Struct's
declared types; the location is a path built from declared fields. These
are pure checks; ``tests/test_errors.py`` pins the wording over real stdio.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from tmuxmcp.capability.decode import decode_arguments
from tmuxmcp.capability.diagnose import (
    MissingParameter,
    NotAccepted,
    NotAnObject,
    NotMatching,
    OutOfRange,
    Problem,
    UnknownParameter,
    WrongKind,
    WrongLength,
    diagnose,
)
from tmuxmcp.definition import BY_NAME
from tmuxmcp.errors import InvalidArguments


def _message(tool: str, arguments: Any) -> str:
    with pytest.raises(InvalidArguments) as raised:
        decode_arguments(tool, BY_NAME[tool].args, arguments)
    return raised.value.message


def test_a_made_up_parameter_name_cannot_pose_as_a_location() -> None:
    """A key spelled like msgspec's location suffix names no declared parameter.

    Parsing msgspec's message, this blamed ``max_lines`` (not even given) and
    quoted part of the caller's key.
    """
    message = _message("capture_pane", {"pane_id": "%1", "a` - at `$.max_lines": 1})
    assert message.startswith("a parameter is not a parameter of capture_pane; it takes ")
    assert "`max_lines` is" not in message
    assert "` - at `" not in message


def test_a_string_of_the_right_length_that_misses_its_pattern_says_so() -> None:
    """Parsing msgspec's message, a cursor of 13 valid-length characters had 'the wrong length'."""
    message = _message("wait_for_text", {"pane_id": "%1", "pattern": "x", "since": "not a cursor!"})
    assert message.startswith("`since` does not match the pattern `^[A-Za-z0-9_-]+$`")
    assert "wrong length" not in message
    assert message.endswith("(at `$.since`)")


def test_an_empty_list_says_how_many_items_it_had() -> None:
    message = _message("send_keys", {"pane_id": "%1", "keys": []})
    assert message.startswith("`keys` has the wrong number of items (0 items)")


def test_msgspecs_wording_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever msgspec's message says, the error is the same."""
    arguments = {"pane_id": "%1", "max_lines": "many"}
    before = _message("capture_pane", arguments)

    def garbled(*_: object, **__: object) -> object:
        raise msgspec.ValidationError("Object contains unknown field `x` - at `$.start`")

    monkeypatch.setattr(msgspec, "convert", garbled)  # decode calls msgspec.convert
    assert _message("capture_pane", arguments) == before
    assert before.startswith("`max_lines` expected an integer, got a string")


@pytest.mark.parametrize(
    ("tool", "arguments", "kind", "path"),
    [
        ("capture_pane", [], NotAnObject, "$"),
        ("capture_pane", {"pane_id": "%1", "bogus": 1}, UnknownParameter, "$"),
        ("capture_pane", {"max_lines": 5}, MissingParameter, "$"),
        ("capture_pane", {"pane_id": "%1", "max_lines": True}, WrongKind, "$.max_lines"),
        ("capture_pane", {"pane_id": "%1", "max_lines": 0}, OutOfRange, "$.max_lines"),
        ("capture_pane", {"pane_id": "%1", "start": "top"}, WrongKind, "$.start"),
        ("capture_pane", {"pane_id": "pane"}, NotMatching, "$.pane_id"),
        ("send_keys", {"pane_id": "%1", "keys": ["Enter", {"txt": "a"}]}, NotAccepted, "$.keys[1]"),
        ("send_keys", {"pane_id": "%1", "keys": [{"text": 3}]}, NotAccepted, "$.keys[0]"),
        ("send_keys", {"pane_id": "%1", "keys": ["Enter", 3]}, WrongKind, "$.keys[1]"),
        ("send_keys", {"pane_id": "%1", "keys": []}, WrongLength, "$.keys"),
        ("rename", {"session_id": "$1", "name": ""}, WrongLength, "$.name"),
        ("select_layout", {"window_id": "@1", "layout": "Tiled"}, NotAccepted, "$.layout"),
        (
            "set_option",
            {"option": "mouse", "value": None, "session_id": "$1"},
            WrongKind,
            "$.value",
        ),
    ],
)
def test_diagnose_finds_what_msgspec_refused(
    tool: str, arguments: Any, kind: type[Problem], path: str
) -> None:
    """Each case is one msgspec refuses; diagnose names the same place, by kind."""
    args_type = BY_NAME[tool].args
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert(arguments, args_type)
    problem = diagnose(args_type, arguments)
    assert isinstance(problem, kind)
    assert problem.path == path


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("capture_pane", {"pane_id": "%1", "start": None, "max_lines": 1}),
        ("search_panes", {"pattern": "x", "match_budget_ms": 5}),
        ("set_option", {"option": "mouse", "value": True, "session_id": "$1"}),
        ("wait_for_text", {"pane_id": "%1", "pattern": "x", "timeout": 3}),
    ],
)
def test_diagnose_finds_nothing_in_arguments_msgspec_accepts(tool: str, arguments: Any) -> None:
    args_type = BY_NAME[tool].args
    msgspec.convert(arguments, args_type)
    assert diagnose(args_type, arguments) is None
