"""``ToolSpec``: one tool's declared authority, and the parameter view of it.

A ToolSpec states the direct operation's properties (CM-2): toolset, process
reach, tmux effect, output classes, the secrets and untrusted-content flags
(derived from the result type's declared content, ``results``),
and for aggregates the nested operations it may invoke (ADR, aggregate
authority). Its argument Struct declares each parameter with a sink
(``params``); ``params_of`` reads those declarations back.

``repeat_safe`` and ``additive`` describe the direct operation only; whether
they may be claimed for the whole call is decided in ``annotations``.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import inspect as mi

from tmuxmcp.capability.results import disclosures_of
from tmuxmcp.capability.vocabulary import Effect, OutputClass, Reach, Toolset
from tmuxmcp.sinks import Encoding, Sink


class ToolSpec(msgspec.Struct, frozen=True, kw_only=True):
    """The authoritative declaration of one structured tool."""

    name: str
    title: str
    toolset: Toolset
    reach: Reach
    effects: frozenset[Effect]
    outputs: frozenset[OutputClass]
    summary: str
    args: type[msgspec.Struct]
    result: type[msgspec.Struct]
    nested: tuple[str, ...] = ()
    repeat_safe: bool = False
    """Repeating the direct operation with the same arguments adds no effect."""
    additive: bool = False
    """The direct operation only adds objects; it never overwrites or removes."""
    disclosures: tuple[str, ...] = ()
    """Tool-specific statements appended to the generated description."""

    @property
    def returns_untrusted_content(self) -> bool:
        """Derived from the result type: it holds text a pane program can choose."""
        return disclosures_of(self.result)[0]

    @property
    def may_expose_secrets(self) -> bool:
        """Derived from the result type: it holds text that may carry secrets."""
        return disclosures_of(self.result)[1]


class ResourceSpec(ToolSpec, frozen=True, kw_only=True):
    """An MCP resource template, declared with a tool's honesty (CM-5, CM-7).

    ``args`` declares the URI template's variables with their sinks, ``result``
    the content read (its ``Content`` classes derive the disclosures), and
    reach, effect and outputs mean what they mean for a tool. A resource is
    read through tool operations; it exists only when every operation in
    ``requires`` is on the effective surface (CM-3), so an operator who
    excludes one of them removes the resource too.
    """

    uri_template: str
    requires: tuple[str, ...]
    mime_type: str = "text/plain"


class ParamSpec(msgspec.Struct, frozen=True):
    """One caller-controlled parameter and the boundary it reaches."""

    name: str
    required: bool
    sink: Sink
    encoding: Encoding
    description: str


class UnclassifiedParameter(Exception):
    """A parameter's type carries no sink classification (a definition bug)."""


def _classification(t: mi.Type) -> tuple[dict[str, Any], str] | None:
    if isinstance(t, mi.Metadata):
        extra = t.extra or {}
        description = (t.extra_json_schema or {}).get("description", "")
        if "sink" in extra:
            return extra, description
        return _classification(t.type)
    if isinstance(t, mi.UnionType):
        found = [c for c in (_classification(u) for u in t.types) if c is not None]
        return found[0] if len(found) == 1 else None
    return None


def params_of(spec: ToolSpec) -> tuple[ParamSpec, ...]:
    """Every parameter of ``spec`` with its declared sink and encoding."""
    info = mi.type_info(spec.args)
    if not isinstance(info, mi.StructType):
        raise TypeError(f"{spec.name}: args must be a msgspec Struct")
    out = []
    for field in info.fields:
        found = _classification(field.type)
        if found is None:
            raise UnclassifiedParameter(f"{spec.name}.{field.name} declares no sink")
        extra, description = found
        out.append(
            ParamSpec(
                name=field.encode_name,
                required=field.required,
                sink=Sink(extra["sink"]),
                encoding=Encoding(extra["encoding"]),
                description=description,
            )
        )
    return tuple(out)
