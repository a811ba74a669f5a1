"""What is wrong with a call's arguments, as data read from the declared types (issue 21.3).

When msgspec refuses a call's arguments, ``diagnose`` walks the argument
Struct's declared types (``msgspec.inspect``) over the caller's JSON and
returns the first ``Problem`` it finds: where it is (a ``$.keys[1]`` path
built here from the JSON, never taken from msgspec's text) and what kind of
problem it is, with the numbers that describe it. ``decode`` words it. No
part of msgspec's English error message is read, so a change of its wording
cannot change or garble ours.

Rules kept here:

* the problems are found in the order msgspec finds them: each key in the
  caller's order (an unknown key, or the first problem inside its value),
  then the first required parameter that is missing;
* each check is one msgspec applies for that declared type: the JSON kind
  (a boolean is not an integer; an integer is a number), ``ge``/``le``/
  ``gt``/``lt``, ``min_length``/``max_length`` (characters of a string, items
  of a list), ``pattern`` (searched, as msgspec does), an Enum's or Literal's
  values, a list's every item;
* a value of a union is checked against the member of its own JSON kind; if
  no member has that kind, the first member that is not ``null`` is what was
  expected;
* a declared type this module does not model is ``None`` (no problem found),
  and the decoder falls back to naming the parameter only.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from enum import Enum
from typing import Any, Literal

import msgspec
from msgspec import inspect as mi

JsonKind = Literal["null", "a boolean", "an integer", "a number", "a string", "a list", "an object"]


class Problem(msgspec.Struct, frozen=True, kw_only=True):
    """One thing wrong with the arguments, located by ``path``."""

    path: str
    """``$.name`` or ``$.name[3]``, from the caller's JSON; ``$`` for the whole object."""


class NotAnObject(Problem, frozen=True, kw_only=True):
    """The arguments are not a JSON object."""

    got: JsonKind


class UnknownParameter(Problem, frozen=True, kw_only=True):
    """A key that is no parameter of the tool."""

    name: str


class MissingParameter(Problem, frozen=True, kw_only=True):
    """A required parameter that was not given."""

    name: str


class WrongKind(Problem, frozen=True, kw_only=True):
    """A value of another JSON kind than the declared type takes."""

    expected: JsonKind
    got: JsonKind
    declared: mi.Type


class OutOfRange(Problem, frozen=True, kw_only=True):
    """A number outside the declared bounds."""

    value: int | float
    declared: mi.Type


class WrongLength(Problem, frozen=True, kw_only=True):
    """A string or list whose length is outside the declared bounds."""

    length: int
    unit: Literal["characters", "items"]
    declared: mi.Type


class NotMatching(Problem, frozen=True, kw_only=True):
    """A string the declared pattern does not match."""

    pattern: str
    declared: mi.Type


class NotAccepted(Problem, frozen=True, kw_only=True):
    """A value outside a closed list (an Enum or a Literal)."""

    declared: mi.Type


def kind_of(value: Any) -> JsonKind:
    """The JSON kind of a decoded JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list | tuple) else "an object"


@functools.cache
def struct_info(args_type: type[msgspec.Struct]) -> mi.StructType:
    """The declared fields of an argument Struct (read once per type: it never changes)."""
    info = mi.type_info(args_type)
    assert isinstance(info, mi.StructType)
    return info


def diagnose(args_type: type[msgspec.Struct], arguments: Any) -> Problem | None:
    """The first problem of ``arguments`` against ``args_type``, or ``None`` if none is found."""
    if not isinstance(arguments, dict):
        return NotAnObject(path="$", got=kind_of(arguments))
    info = struct_info(args_type)
    declared = {f.encode_name: f for f in info.fields}
    for key, value in arguments.items():
        field = declared.get(key)
        if field is None:
            return UnknownParameter(path="$", name=str(key))
        problem = check(field.type, value, f"$.{key}")
        if problem is not None:
            return problem
    for field in info.fields:
        if field.required and field.encode_name not in arguments:
            return MissingParameter(path="$", name=field.encode_name)
    return None


_KIND_OF_TYPE: dict[type[mi.Type], JsonKind] = {
    mi.NoneType: "null",
    mi.BoolType: "a boolean",
    mi.IntType: "an integer",
    mi.FloatType: "a number",
    mi.StrType: "a string",
    mi.ListType: "a list",
    mi.StructType: "an object",
}


def _closed(t: mi.EnumType | mi.LiteralType) -> list[Any]:
    """The values of a closed list."""
    if isinstance(t, mi.EnumType):
        cls: type[Enum] = t.cls
        return [m.value for m in cls]
    return list(t.values)


def _expected(t: mi.Type) -> JsonKind | None:
    """The JSON kind a declared type takes, or ``None`` for one not modelled here."""
    while isinstance(t, mi.Metadata):
        t = t.type
    if isinstance(t, mi.EnumType | mi.LiteralType):
        kinds = {kind_of(v) for v in _closed(t)}
        return kinds.pop() if len(kinds) == 1 else None
    return _KIND_OF_TYPE.get(type(t))


def _takes(expected: JsonKind | None, value: Any) -> bool:
    got = kind_of(value)
    return expected == got or (expected == "a number" and got == "an integer")


def check(t: mi.Type, value: Any, path: str) -> Problem | None:
    """The first problem of ``value`` against the declared type ``t`` (at ``path``)."""
    if isinstance(t, mi.Metadata):
        return check(t.type, value, path)
    if isinstance(t, mi.UnionType):
        return _check_union(t, value, path)
    expected = _expected(t)
    if expected is None:
        return None  # AnyType, or a type not modelled here
    if not _takes(expected, value):
        return WrongKind(path=path, expected=expected, got=kind_of(value), declared=t)
    within = _WITHIN_KIND.get(type(t))
    return None if within is None else within(t, value, path)


def _check_union(t: mi.UnionType, value: Any, path: str) -> Problem | None:
    own_kind = [u for u in t.types if _takes(_expected(u), value)]
    if not own_kind:
        if any(_expected(u) is None for u in t.types):
            return None  # a member this module does not model might take it
        first = next((u for u in t.types if not isinstance(u, mi.NoneType)), t.types[0])
        expected = _expected(first)
        assert expected is not None
        return WrongKind(path=path, expected=expected, got=kind_of(value), declared=first)
    problems = [check(u, value, path) for u in own_kind]
    if any(p is None for p in problems):
        return None
    return problems[0]


def _check_closed(t: Any, value: Any, path: str) -> Problem | None:
    return None if value in _closed(t) else NotAccepted(path=path, declared=t)


def _check_bounds(t: Any, value: int | float, path: str) -> Problem | None:
    inside = (
        (t.ge is None or value >= t.ge)
        and (t.gt is None or value > t.gt)
        and (t.le is None or value <= t.le)
        and (t.lt is None or value < t.lt)
    )
    return None if inside else OutOfRange(path=path, value=value, declared=t)


def _length_problem(
    t: mi.StrType | mi.ListType, length: int, unit: Literal["characters", "items"], path: str
) -> Problem | None:
    short = t.min_length is not None and length < t.min_length
    long = t.max_length is not None and length > t.max_length
    return WrongLength(path=path, length=length, unit=unit, declared=t) if short or long else None


def _check_string(t: Any, value: str, path: str) -> Problem | None:
    problem = _length_problem(t, len(value), "characters", path)
    if problem is None and t.pattern is not None and re.search(t.pattern, value) is None:
        problem = NotMatching(path=path, pattern=t.pattern, declared=t)
    return problem


def _check_list(t: Any, value: list[Any], path: str) -> Problem | None:
    problem = _length_problem(t, len(value), "items", path)
    if problem is not None:
        return problem
    for index, item in enumerate(value):
        problem = check(t.item_type, item, f"{path}[{index}]")
        if problem is not None:
            return problem
    return None


def _check_object(t: Any, value: dict[str, Any], path: str) -> Problem | None:
    """An object inside a parameter (a ``send_keys`` text part): its keys are exactly
    the declared fields' and each value checks; any problem is the object's own."""
    fields = {f.encode_name: f for f in t.fields}
    required = {name for name, f in fields.items() if f.required}
    if not set(value) <= set(fields) or not required <= set(value):
        return NotAccepted(path=path, declared=t)
    for name, item in value.items():
        if check(fields[name].type, item, path) is not None:
            return NotAccepted(path=path, declared=t)
    return None


_WITHIN_KIND: dict[type[mi.Type], Callable[[Any, Any, str], Problem | None]] = {
    mi.IntType: _check_bounds,
    mi.FloatType: _check_bounds,
    mi.StrType: _check_string,
    mi.ListType: _check_list,
    mi.EnumType: _check_closed,
    mi.LiteralType: _check_closed,
    mi.StructType: _check_object,
}
"""The checks inside a value of the right JSON kind, by declared type."""
