"""The encoder of every declared encoding, in one table keyed by ``Encoding``.

This is what makes a parameter's declaration its enforcement (CM-5, issue
10.2): the dispatcher (``capability.encode``) looks up each parameter's
declared encoding here and hands the handler what the encoder returned. A
handler never encodes a caller value itself, and an encoding without an entry
here cannot be declared (``capability.model`` checks every ToolSpec against
this table when it is built).

Rules kept here:
* every ``Encoding`` member has exactly one encoder (checked at import);
* an encoder returns a value of the type it was given (a ``str`` for a
  ``str``), so the encoded arguments are still the tool's argument Struct;
* an encoder either returns the value to pass to its sink or raises
  ``UnsafeValue`` naming the parameter, never echoing the value;
* encodings whose values the schema already confines (flags, integers, closed
  lists, local limits) still check their type and range here: the schema is
  the first gate, this table the authoritative second one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

import msgspec

from tmuxmcp.errors import UnsafeValue
from tmuxmcp.sinks import Encoding
from tmuxmcp.sinks.format import encode_format, encode_time_format
from tmuxmcp.sinks.keys import encode_key_name
from tmuxmcp.sinks.literal import encode_literal
from tmuxmcp.sinks.names import NameKind, encode_name
from tmuxmcp.sinks.path import encode_directory
from tmuxmcp.sinks.shell import quote_word
from tmuxmcp.sinks.target import IdKind, encode_id
from tmuxmcp.sinks.text import encode_command, encode_text


class Rule(msgspec.Struct, frozen=True, kw_only=True):
    """What an encoder needs to know about the parameter it encodes."""

    param: str
    """The parameter's name as the caller spells it (for error messages)."""
    options: Mapping[str, str] = {}
    """The declaration's extra keys besides sink and encoding (``id_kind``, ``name_kind``)."""
    ge: int | float | None = None
    le: int | float | None = None


Encoder = Callable[[Any, Rule], Any]


def _unchanged(value: Any, rule: Rule) -> Any:
    return value


def _flag(value: Any, rule: Rule) -> bool:
    if type(value) is not bool:
        raise UnsafeValue(f"`{rule.param}` must be true or false")
    return value


def _in_range(value: Any, rule: Rule) -> Any:
    if (rule.ge is not None and value < rule.ge) or (rule.le is not None and value > rule.le):
        raise UnsafeValue(f"`{rule.param}` must be from {rule.ge} to {rule.le}")
    return value


def _local(value: Any, rule: Rule) -> Any:
    # Consumed by tmuxmcp itself; numbers still honour their declared range.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _in_range(value, rule)
    return value


def _integer(value: Any, rule: Rule) -> int:
    if type(value) is not int:
        raise UnsafeValue(f"`{rule.param}` must be an integer")
    # Rendered in decimal by the argv layer: no '#' can reach a format.
    result: int = _in_range(value, rule)
    return result


def _id(value: str, rule: Rule) -> str:
    kind = IdKind(rule.options["id_kind"])
    prefix = rule.options.get("prefix", "")
    return encode_id(prefix + value, kind, rule.param)


def _name(value: str, rule: Rule) -> str:
    return encode_name(value, NameKind(rule.options["name_kind"]), rule.param)


def _argv_text(value: str, rule: Rule) -> str:
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
        # Not stored differently by tmux, but unlistable and unreadable back.
        raise UnsafeValue(f"`{rule.param}` contains a control character")
    return encode_literal(value, rule.param)


def _key_or_text(value: Any, rule: Rule) -> Any:
    """A key name (``sinks.keys``), or a text part (an object with ``text``) for a paste."""
    if isinstance(value, str | Enum):
        return encode_key_name(value.value if isinstance(value, Enum) else value, rule.param)
    text = getattr(value, "text", None)
    if not isinstance(text, str):
        raise UnsafeValue(f'`{rule.param}` items are key names or {{"text": ...}} objects')
    # Refuses what cannot be pasted as text; the part itself goes on unchanged.
    encode_text(text, rule.param, newlines=True, tabs=True)
    return value


ENCODERS: Mapping[Encoding, Encoder] = {
    Encoding.NONE: _local,
    Encoding.FIXED_FLAG: _flag,
    Encoding.ID_ONLY: _id,
    Encoding.VALIDATED_INTEGER: _integer,
    Encoding.FORMAT_ESCAPE: lambda value, rule: encode_format(value, rule.param),
    Encoding.FORMAT_TIME_ESCAPE: lambda value, rule: encode_time_format(value, rule.param),
    Encoding.ARGV_ONLY: _argv_text,
    Encoding.SHELL_QUOTE: lambda value, rule: quote_word(value, rule.param),
    Encoding.NAME_RULE: _name,
    Encoding.DIRECTORY: lambda value, rule: encode_directory(value, rule.param),
    Encoding.CLOSED_VOCABULARY: _unchanged,  # the decoder confined it to a Literal
    Encoding.KEYS_OR_TEXT: _key_or_text,
    Encoding.PANE_SHELL_TEXT: lambda value, rule: encode_command(value, rule.param),
}

if set(ENCODERS) != set(Encoding):  # pragma: no cover - a definition bug, found at import
    raise RuntimeError(f"encodings without an encoder: {sorted(set(Encoding) - set(ENCODERS))}")
