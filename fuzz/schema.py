"""The declared schema of a fuzz case, read from its argument Struct.

Where the rule *is* the declared schema (closed vocabularies, bounds, id
patterns, what ``null`` means), the schema is the oracle: these read it from
the tool's msgspec Struct, the same Struct the server decodes with, and never
from ``tmuxmcp.sinks``.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from msgspec import inspect as mi

from fuzz.cases import Case
from fuzz.oracles import PREFIX


def field_type(case: Case) -> mi.Type:
    """The msgspec type of ``case.param``: ``None`` unions and metadata removed."""
    info = mi.type_info(case.spec.args)
    assert isinstance(info, mi.StructType)
    (field,) = [f for f in info.fields if f.encode_name == case.param.name]
    t = field.type
    while True:
        if isinstance(t, mi.Metadata):
            t = t.type
        elif isinstance(t, mi.UnionType) and any(isinstance(u, mi.NoneType) for u in t.types):
            others = [u for u in t.types if not isinstance(u, mi.NoneType)]
            if len(others) != 1:
                return t
            t = others[0]
        else:
            return t


def nullable(case: Case) -> bool:
    """Whether ``null`` is a declared value of ``case.param`` (an optional parameter)."""
    info = mi.type_info(case.spec.args)
    assert isinstance(info, mi.StructType)
    (field,) = [f for f in info.fields if f.encode_name == case.param.name]
    t = field.type
    return isinstance(t, mi.UnionType) and any(isinstance(u, mi.NoneType) for u in t.types)


def schema_accepts(case: Case, value: Any) -> bool:
    """Whether the declared type of ``case.param`` accepts ``value`` (the schema oracle)."""
    hints = msgspec.structs.fields(case.spec.args)
    (found,) = [f for f in hints if f.encode_name == case.param.name]
    try:
        msgspec.convert(value, found.type)
    except (msgspec.ValidationError, UnicodeEncodeError):
        # msgspec raises UnicodeEncodeError describing a lone surrogate where a
        # non-string is expected: the schema refuses it all the same.
        return False
    return value is not None or not case.param.required


def members(case: Case) -> list[Any]:
    """The values of a closed vocabulary (Literal, Enum or bool), from the schema."""
    t = field_type(case)
    if isinstance(t, mi.ListType):
        t = t.item_type
    if isinstance(t, mi.LiteralType):
        return list(t.values)
    if isinstance(t, mi.EnumType):
        return [m.value for m in t.cls]
    if isinstance(t, mi.BoolType):
        return [True, False]
    raise TypeError(f"{case}: not a closed vocabulary: {t}")


def bounds(case: Case) -> tuple[int | float | None, int | float | None]:
    """(lower, upper) inclusive-ish bounds of a numeric parameter, from the schema."""
    t = field_type(case)
    lo = getattr(t, "ge", None)
    hi = getattr(t, "le", None)
    lo = lo if lo is not None else getattr(t, "gt", None)
    hi = hi if hi is not None else getattr(t, "lt", None)
    return lo, hi


def id_kind(case: Case) -> str:
    """Which kind of id a target parameter takes, from its schema pattern."""
    t = field_type(case)
    pattern = getattr(t, "pattern", "") or ""
    for kind, prefix in PREFIX.items():
        if pattern.startswith("^" + re.escape(prefix)):
            return kind
    raise TypeError(f"{case}: no id pattern in {t}")
