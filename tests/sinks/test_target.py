"""``sinks.target``: ``-t``/``-s`` values are exact tmux ids and nothing else.

Research §3: a target string is tried as an id, an exact name, a client tty,
a unique prefix and an fnmatch pattern, and ``''`` means "current", so only a
value that *fully* matches ``$N``/``@N``/``%N`` is accepted.
"""

from __future__ import annotations

import re
from typing import Annotated

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tmuxmcp.errors import UnsafeValue
from tmuxmcp.sinks.target import ID_PATTERNS, IdKind, encode_id

_PREFIX = {IdKind.SESSION: "$", IdKind.WINDOW: "@", IdKind.PANE: "%"}


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("%1", IdKind.PANE),
        ("%0", IdKind.PANE),
        ("%123456789", IdKind.PANE),
        ("@0", IdKind.WINDOW),
        ("@42", IdKind.WINDOW),
        ("$0", IdKind.SESSION),
        ("$7", IdKind.SESSION),
    ],
)
def test_ids_are_accepted(value: str, kind: IdKind) -> None:
    assert encode_id(value, kind, "target") == value


@pytest.mark.parametrize(
    "value",
    [
        "%1\n",  # Python's '$' matches before a trailing newline; fullmatch must not
        "%1\r",
        "\n%1",
        " %1",
        "%1 ",
        "%1;",
        "%1:",
        "%1.0",
        "%",
        "%a",
        "%-1",
        "%+1",
        "%1a",
        "%0x1",
        "%\uff11",  # FULLWIDTH DIGIT ONE
        "%\u0661",  # ARABIC-INDIC DIGIT ONE: \d would accept it
        "%1234567890",  # more than nine digits
        "1",
        "",
        "pane",
        "{last}",
        "{marked}",
        "=x",
        "=%1",
        "~",
        "!",
        "+1",
        "-1",
        "s:w.p",
        "%*",
        "%1\x00",
        "%%1",
        "@1",
        "$1",
    ],
)
def test_everything_but_a_pane_id_is_refused(value: str) -> None:
    with pytest.raises(UnsafeValue) as info:
        encode_id(value, IdKind.PANE, "pane_id")
    assert "`pane_id`" in info.value.message
    assert "'%0'" in info.value.message  # says what an id looks like


@pytest.mark.parametrize("kind", list(IdKind))
def test_an_id_of_another_kind_is_refused(kind: IdKind) -> None:
    for other in IdKind:
        value = f"{_PREFIX[other]}1"
        if other is kind:
            assert encode_id(value, kind, "t") == value
        else:
            with pytest.raises(UnsafeValue):
                encode_id(value, kind, "t")


@pytest.mark.parametrize("kind", list(IdKind))
def test_schema_pattern_admits_a_trailing_newline_that_encode_id_refuses(kind: IdKind) -> None:
    """Why ``encode_id`` re-checks: the schema's ``^...$`` is not a full match.

    msgspec applies ``pattern`` with ``re.search``, and ``$`` also matches
    before a final newline, so schema validation alone would let ``%1\\n``
    reach tmux.
    """
    value = f"{_PREFIX[kind]}1\n"
    typ = Annotated[str, msgspec.Meta(pattern=ID_PATTERNS[kind])]
    assert msgspec.convert(value, typ) == value  # the schema is not enough
    with pytest.raises(UnsafeValue):
        encode_id(value, kind, "t")


def test_schema_patterns_agree_with_encode_id_apart_from_the_newline() -> None:
    for kind, pattern in ID_PATTERNS.items():
        assert pattern.startswith("^")
        assert pattern.endswith("$")
        assert re.fullmatch(pattern[1:-1], f"{_PREFIX[kind]}12")


@given(st.sampled_from(list(IdKind)), st.text(max_size=12))
def test_encode_id_accepts_exactly_prefix_and_one_to_nine_ascii_digits(
    kind: IdKind, value: str
) -> None:
    body = value[1:]
    valid = (
        value[:1] == _PREFIX[kind] and 1 <= len(body) <= 9 and all(c in "0123456789" for c in body)
    )
    if valid:
        assert encode_id(value, kind, "t") == value
    else:
        with pytest.raises(UnsafeValue):
            encode_id(value, kind, "t")
