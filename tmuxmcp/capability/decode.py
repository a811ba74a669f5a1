"""Decoding a call's arguments, and errors that teach (issue 14.3).

``decode_arguments`` converts the JSON arguments of a call into the tool's
argument Struct, the same Struct the input schema is generated from, and is the
one place where a foreign decoding failure (``msgspec.ValidationError``, a
lone surrogate) becomes our ``InvalidArguments`` (house style 5).

The wording of every decoding error is derived from the declared parameter
type, never written per tool:

* it opens with the parameter (``session_id``, ``keys[0]``), says what was
  wrong in plain words and what a valid value looks like: an id kind and an
  example (``$3``), an integer range, a closed list, a length;
* it adds a suggestion where one is obvious: ``0`` for a pane id is ``%0``, a
  window id given for a pane id is named as such, a name where an id is
  expected gets the tool that lists the ids (a key spelled ``Ctrl-C`` gets
  ``C-c`` from its encoder, ``sinks.keys.key_advice``);
* the location follows in parentheses (``(at `$.keys[1]`)``), a path built
  from the declared fields and list indexes, never caller text.

What was wrong is found by ``diagnose`` from the declared types, not read
from msgspec's English message (issue 21.3): a change of msgspec's wording
cannot change ours, and a parameter name a caller made up cannot pose as a
location. A refusal by an argument Struct's own cross-field rule
(``arguments``, Rule 4) arrives as msgspec's cause and is raised unchanged.
"""

from __future__ import annotations

import json
import re
from enum import Enum
from typing import Any

import msgspec
from msgspec import inspect as mi

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
    struct_info,
)
from tmuxmcp.errors import ArgumentConflict, InvalidArguments
from tmuxmcp.protocol.wire import has_lone_surrogate
from tmuxmcp.sinks.target import ID_PATTERNS, ID_PREFIX, IdKind

_KIND_BY_PATTERN = {pattern: kind for kind, pattern in ID_PATTERNS.items()}
_LISTER = {
    IdKind.SESSION: "list_sessions",
    IdKind.WINDOW: "list_windows",
    IdKind.PANE: "list_panes",
}
_MAX_LISTED = 12
_NAMES_REFUSED = "names are not accepted"
_LONE_SURROGATE = (
    "the arguments contain a lone UTF-16 surrogate, which is not valid Unicode text; "
    "send valid UTF-8 strings"
)


def decode_arguments(
    tool: str, args_type: type[msgspec.Struct], arguments: dict[str, Any] | None
) -> msgspec.Struct:
    """The call's arguments as ``args_type``, or ``InvalidArguments`` that says why."""
    try:
        return msgspec.convert(arguments or {}, args_type)
    except msgspec.ValidationError as exc:
        if isinstance(exc.__cause__, ArgumentConflict):
            # The Struct's own cross-field rule (``arguments``, Rule 4): already our words.
            raise exc.__cause__ from None
        raise InvalidArguments(explain(tool, args_type, arguments or {})) from None
    except UnicodeEncodeError:
        # msgspec cannot even describe a lone surrogate where a non-string is
        # expected (found by the fuzz suite).
        declared = fields_of(args_type)
        where = [k for k, v in (arguments or {}).items() if k in declared and has_surrogate(v)]
        if not where:
            raise InvalidArguments(_LONE_SURROGATE) from None
        located = ", ".join(f"`$.{key}`" for key in where)
        raise InvalidArguments(f"`{where[0]}`: {_LONE_SURROGATE} (at {located})") from None


def lone_surrogate_error() -> InvalidArguments:
    """The error for arguments the transport marked as holding a lone surrogate."""
    return InvalidArguments(_LONE_SURROGATE)


def has_surrogate(value: object) -> bool:
    """Whether ``value`` holds a lone surrogate anywhere (the transport's one scanner)."""
    return has_lone_surrogate(value)


def explain(tool: str, args_type: type[msgspec.Struct], arguments: Any) -> str:
    """Plain words for why msgspec refused ``arguments`` as ``args_type``."""
    fields = fields_of(args_type)
    problem = diagnose(args_type, arguments)
    match problem:
        case NotAnObject(got=got):
            return f"the arguments must be a JSON object, not {got}"
        case UnknownParameter(name=name):
            shown = f"`{name}`" if _printable_name(name) else "a parameter"
            takes = ", ".join(f"`{f}`" for f in fields) or "no arguments"
            return f"{shown} is not a parameter of {tool}; it takes {takes}"
        case MissingParameter(name=name):
            return f"`{name}` is required: {_looks_like(fields[name])}"
        case None:
            # A declared type diagnose does not model: name the tool, the schema says more.
            return f"the arguments do not match the input schema of {tool}"
    where = problem.path.removeprefix("$.")
    declared = _element(fields[where.split("[")[0]], problem.path)
    value = _value_at(arguments, problem.path)
    text = f"`{where}` {_what_was_wrong(problem, declared)}"
    hint = _suggestion(declared, value)
    if not (hint and hint.endswith(_NAMES_REFUSED)):
        text += f"; it takes {_looks_like(declared)}"
    if hint:
        text += f"; {hint}"
    return f"{text} (at `{problem.path}`)"


def _printable_name(name: str) -> bool:
    return len(name) <= 64 and re.fullmatch(r"[A-Za-z0-9_.-]+", name) is not None


def fields_of(args_type: type[msgspec.Struct]) -> dict[str, mi.Type]:
    """Each parameter's declared type, by its wire name."""
    return {f.encode_name: f.type for f in struct_info(args_type).fields}


def _strip(t: mi.Type) -> tuple[mi.Type, dict[str, Any]]:
    """The type under its metadata and ``| None``, with the merged constraints."""
    constraints: dict[str, Any] = {}
    while True:
        if isinstance(t, mi.Metadata):
            t = t.type
            continue
        if isinstance(t, mi.UnionType):
            rest = [u for u in t.types if not isinstance(u, mi.NoneType)]
            if len(rest) == 1:
                t = rest[0]
                continue
        break
    for attr in ("ge", "le", "gt", "lt", "pattern", "min_length", "max_length"):
        if getattr(t, attr, None) is not None:
            constraints[attr] = getattr(t, attr)
    return t, constraints


def _element(t: mi.Type, path: str) -> mi.Type:
    """The declared type at ``path`` (one list index level is followed)."""
    if "[" in path:
        inner, _ = _strip(t)
        if isinstance(inner, mi.ListType):
            return inner.item_type
    return t


def _value_at(arguments: dict[str, Any], path: str) -> Any:
    value: Any = arguments
    for part in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path):
        key, index = part
        try:
            value = value[key] if key else value[int(index)]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def id_kind(t: mi.Type) -> IdKind | None:
    """The id kind a declared type accepts (from its pattern), if it is an id."""
    _, constraints = _strip(t)
    pattern = constraints.get("pattern")
    return _KIND_BY_PATTERN.get(pattern) if isinstance(pattern, str) else None


def closed_values(t: mi.Type) -> list[str] | None:
    """The values of a declared closed list (Enum or Literal), if it is one."""
    inner, _ = _strip(t)
    if isinstance(inner, mi.EnumType):
        cls: type[Enum] = inner.cls
        return [str(m.value) for m in cls]
    if isinstance(inner, mi.LiteralType):
        return [str(v) for v in inner.values]
    return None


def _looks_like(t: mi.Type) -> str:
    """What a valid value of declared type ``t`` looks like."""
    inner, c = _strip(t)
    kind = id_kind(t)
    values = closed_values(t)
    if kind is not None:
        return f"a {kind.value} id such as `{ID_PREFIX[kind]}3` ({_LISTER[kind]} returns them)"
    if values is not None:
        return _closed_looks(values)
    scalar = _scalar_looks(inner, c)
    if scalar is not None:
        return scalar
    if isinstance(inner, mi.ListType):
        return f"a list of {_looks_like(inner.item_type).removeprefix('a ').removeprefix('an ')}"
    if isinstance(inner, mi.UnionType):
        return " or ".join(_looks_like(u) for u in inner.types)
    return _object_looks(inner)


def _object_looks(inner: mi.Type) -> str:
    if isinstance(inner, mi.StructType):
        shown = {field.encode_name: "…" for field in inner.fields}
        return "an object " + json.dumps(shown, ensure_ascii=False)
    return "a value as the input schema describes"


def _scalar_looks(inner: mi.Type, c: dict[str, Any]) -> str | None:
    if isinstance(inner, mi.BoolType):
        return "true or false"
    if isinstance(inner, (mi.IntType, mi.FloatType)):
        noun = "an integer" if isinstance(inner, mi.IntType) else "a number"
        return _bounded(noun, c.get("ge", c.get("gt")), c.get("le", c.get("lt")), "")
    if isinstance(inner, mi.StrType):
        return _bounded("a string", c.get("min_length"), c.get("max_length"), " characters")
    return None


def _closed_looks(values: list[str]) -> str:
    shown = ", ".join(f"`{v}`" for v in values[:_MAX_LISTED])
    more = f" and {len(values) - _MAX_LISTED} more" if len(values) > _MAX_LISTED else ""
    return f"one of {shown}{more}"


def _bounded(noun: str, low: object, high: object, unit: str) -> str:
    if low is not None and high is not None:
        return (
            f"{noun} from {low} to {high}{unit}" if not unit else f"{noun} of {low} to {high}{unit}"
        )
    if low is not None:
        return f"{noun} of at least {low}{unit}"
    if high is not None:
        return f"{noun} of at most {high}{unit}"
    return noun


def _what_was_wrong(problem: Problem, declared: mi.Type) -> str:
    text = "is not valid"
    match problem:
        case WrongKind(expected=expected, got=got):
            text = f"expected {expected}, got {got}"
        case OutOfRange(value=value):
            text = f"is out of range (got {value})"
        case WrongLength(length=length, unit=unit):
            noun = "length" if unit == "characters" else "number of items"
            text = f"has the wrong {noun} ({length} {unit})"
        case NotMatching(pattern=pattern):
            kind = id_kind(declared)
            text = (
                f"is not a {kind.value} id"
                if kind is not None
                else f"does not match the pattern `{pattern}`"
            )
        case NotAccepted():
            text = "is not one of the accepted values"
    return text


def _suggestion(t: mi.Type, value: Any) -> str | None:
    kind = id_kind(t)
    if kind is not None and isinstance(value, str):
        return _id_suggestion(kind, value)
    values = closed_values(t)
    if values is not None and isinstance(value, str):
        folded = {v.lower().replace("_", "-"): v for v in values}
        match = folded.get(value.strip().lower().replace("_", "-"))
        return f"did you mean `{match}`?" if match else None
    return None


def _id_suggestion(kind: IdKind, value: str) -> str:
    prefix = ID_PREFIX[kind]
    digits = value.strip()
    if digits.isascii() and digits.isdigit() and len(digits) <= 9:
        return f"did you mean `{prefix}{int(digits)}`?"
    for other, pattern in ID_PATTERNS.items():
        if other is not kind and re.fullmatch(pattern, value):
            return (
                f"that is a {other.value} id, not a {kind.value} id; "
                f"{_LISTER[kind]} returns {kind.value} ids"
            )
    if value.startswith(prefix) and value[1:].isdigit():
        return f"did you mean `{prefix}{int(value[1:])}`? (ids have no leading zeros)"
    return f"{kind.value} ids look like `{prefix}3`; {_LISTER[kind]} returns them; {_NAMES_REFUSED}"
