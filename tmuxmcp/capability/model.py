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

from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

import msgspec
from msgspec import inspect as mi

from tmuxmcp.capability.results import disclosures_of
from tmuxmcp.capability.vocabulary import Effect, OutputClass, Reach, Toolset
from tmuxmcp.sinks import Encoding, Sink
from tmuxmcp.sinks.encoders import ENCODERS, Rule

A = TypeVar("A", bound=msgspec.Struct)
"""A tool's argument Struct."""
R = TypeVar("R", bound=msgspec.Struct)
"""A tool's result Struct."""


class PaneSet(StrEnum):
    """What a call of a tool can do to the set of panes (their ids), besides what the
    programs it reaches do by themselves (a shell told to ``exit``).

    Declared beside ``starts_panes`` because the two differ: ``respawn_pane``
    starts a pane program in a pane that keeps its id, and ``clear_history``,
    ``delete_buffer`` and ``move_window`` delete without ending a pane. The
    pane index's listeners are told from it (``pane_changes`` Rule 1, issue
    29.3's neighbour): a call that keeps the set costs no read of the ids.
    """

    KEPT = "kept"
    ADDS = "adds"
    """Makes panes (a session, window or pane): their programs are started, so the
    tool declares ``starts_panes`` too."""
    REMOVES = "removes"
    """Ends panes (kills a session, window or pane): the tool declares ``Effect.DELETE``."""


class Waits(msgspec.Struct, frozen=True, kw_only=True):
    """``continues`` of a tool that waits for a condition until a deadline (issue 29.2).

    Its handler is the wait: it returns when the condition is met, the pane
    dies, or the deadline its argument ``deadline`` names (seconds from the
    call's start) passes. For a request that opted in to MCP Tasks the
    server runs the handler in its own nursery with that deadline moved to
    the task's TTL, answers inline if it returns within the hand-over time,
    and otherwise answers with a task that follows it
    (``tools.handover``). The handler only observes, so stopping the task
    ends the wait and touches nothing in the pane. Its progress messages
    become the task's ``statusMessage``.
    """

    deadline: str = "timeout"
    """The argument holding the wait's deadline in seconds."""


class ToolSpec(msgspec.Struct, Generic[A, R], frozen=True, kw_only=True):
    """The authoritative declaration of one structured tool.

    Generic in its argument and result Structs: ``args``, ``result`` and
    ``handler`` must agree, so a spec naming another tool's handler (or
    result) does not type-check (issue 21.3;
    ``tests/capability/typecheck_toolspec.py`` keeps that true). A table of
    specs holds ``DeclaredTool``: each entry is made by ``declare_tool``, whose
    types are solved from that entry alone (issue 30.4).
    """

    name: str
    title: str
    toolset: Toolset
    reach: Reach
    effects: frozenset[Effect]
    outputs: frozenset[OutputClass]
    summary: str
    args: type[A]
    result: type[R]
    handler: Callable[[Any, A], Awaitable[R]]
    """The implementation: ``handler(context, args)`` with ``args`` already encoded.

    The context is the tools layer's ``ToolContext``, which this layer cannot name."""
    nested: tuple[str, ...] = ()
    repeat_safe: bool = False
    """Repeating the direct operation with the same arguments adds no effect."""
    additive: bool = False
    """The direct operation only adds objects; it never overwrites or removes."""
    disclosures: tuple[str, ...] = ()
    """Tool-specific statements appended to the generated description."""
    starts_panes: bool = False
    """The tool starts a pane program (a session, window or pane, or a respawn): its calls
    get the operator's pane environment and apply it (``capability.environment``)."""
    pane_set: PaneSet = PaneSet.KEPT
    """What its calls can do to the set of panes (``PaneSet``)."""
    continues: Callable[[Any, A, R], Any] | Waits | None = None
    """Set when a call may continue as an MCP Task (``protocol.tasks``), for a
    request that opted in, once it has run the operator's hand-over time
    (issue 29): either ``continues(context, args, result)``, the tools
    layer's ``Continuation`` an unfinished ``result`` goes on as (None when
    ``result`` is final; the handler returns unfinished at the hand-over,
    ``ToolContext.hand_over``), or ``Waits``: the handler is a wait the
    server follows as it is (``tools.handover``). The description says so
    (``describe``), and the server makes a task only from it."""

    def __post_init__(self) -> None:
        # A parameter without a sink, or with an encoding the dispatcher cannot
        # apply, cannot be declared (CM-5): the definition fails to import.
        params_of(self)
        if self.pane_set is PaneSet.ADDS and not self.starts_panes:
            raise TypeError(f"{self.name}: a tool that adds panes starts their programs")
        if self.pane_set is PaneSet.REMOVES and Effect.DELETE not in self.effects:
            raise TypeError(f"{self.name}: a tool that removes panes declares the delete effect")
        if isinstance(self.continues, Waits) and self.continues.deadline not in (
            f.name for f in msgspec.structs.fields(self.args)
        ):
            raise TypeError(f"{self.name}: Waits names no argument {self.continues.deadline!r}")

    @property
    def returns_untrusted_content(self) -> bool:
        """Derived from the result type: it holds text a pane program can choose."""
        return disclosures_of(self.result)[0]

    @property
    def may_expose_secrets(self) -> bool:
        """Derived from the result type: it holds text that may carry secrets."""
        return disclosures_of(self.result)[1]


class ListedResource(msgspec.Struct, frozen=True, kw_only=True):
    """One resource as ``resources/list`` shows it (tmux ids and sizes only)."""

    uri: str
    name: str
    title: str
    description: str


class ResourceSpec(ToolSpec[A, R], frozen=True, kw_only=True):
    """An MCP resource template or fixed resource, declared with a tool's honesty (CM-5, CM-7).

    ``args`` declares the URI template's variables with their sinks, ``result``
    the content read (its ``Content`` classes derive the disclosures), and
    reach, effect and outputs mean what they mean for a tool. A resource is
    read through tool operations; it exists only when every operation in
    ``requires`` is on the effective surface (CM-3), so an operator who
    excludes one of them removes the resource too.

    Both requests are served from the declaration (``resource_calls``):
    ``resources/read`` decodes the URI with ``variables`` (not yet encoded),
    encodes them and calls ``handler``; ``resources/list`` calls ``lister``.
    Both are audited like tool calls.
    """

    uri_template: str
    requires: tuple[str, ...]
    variables: Callable[[str], A]
    """The URI's variables decoded as ``args``, or ``InvalidArguments`` saying why."""
    lister: Callable[[Any], Awaitable[list[ListedResource]]]
    """Every resource of the template that exists now: ``lister(context)``."""
    mime_type: str = "text/plain"

    @property
    def is_template(self) -> bool:
        """Whether ``uri_template`` has variables: a template is offered in
        ``resources/templates/list``; a fixed resource (no variables, such as the
        pane index) only in ``resources/list``, where its ``lister`` lists it."""
        return "{" in self.uri_template

    def names(self, uri: str) -> bool:
        """Whether ``uri`` is one of this spec's: the fixed URI itself, or for a
        template any URI that starts as its text before the first variable (whose
        ``variables`` then says what is wrong with the rest)."""
        if not self.is_template:
            return uri == self.uri_template
        return uri.startswith(self.uri_template.partition("{")[0])


if TYPE_CHECKING:
    # Marks for mypy alone (at run time both are the spec classes themselves):
    # a ``DeclaredTool`` is a ToolSpec whose args, result and handler were checked
    # against each other, the element type of a table of tools
    # (``definition.DEFINITION``). Only ``declare_tool`` makes one, so a table
    # cannot hold an unchecked ``ToolSpec(...)`` however it is written.
    # (``typing.NewType`` would say the same, but crashes mypy's dataclass
    # plugin on a msgspec Struct.)
    class DeclaredTool(ToolSpec[Any, Any], frozen=True, kw_only=True):
        pass

    class DeclaredResource(ResourceSpec[Any, Any], frozen=True, kw_only=True):
        pass

else:
    DeclaredTool = ToolSpec
    DeclaredResource = ResourceSpec


# Why functions, not a table annotated ``tuple[ToolSpec[Any, Any], ...]`` of
# ``ToolSpec(...)`` entries (issue 30.4): mypy solves a constructor's type
# variables from the type its value is assigned to first, so under that
# annotation every entry's A and R became ``Any`` and a handler of another tool
# type-checked. These functions return a type without A and R, so mypy solves
# them from each call's own arguments, and a mismatch is an error wherever the
# call stands. Their parameters are ToolSpec's and ResourceSpec's fields
# (``tests/capability/test_definition.py`` keeps them the same).
def declare_tool(
    *,
    name: str,
    title: str,
    toolset: Toolset,
    reach: Reach,
    effects: frozenset[Effect],
    outputs: frozenset[OutputClass],
    summary: str,
    args: type[A],
    result: type[R],
    handler: Callable[[Any, A], Awaitable[R]],
    nested: tuple[str, ...] = (),
    repeat_safe: bool = False,
    additive: bool = False,
    disclosures: tuple[str, ...] = (),
    starts_panes: bool = False,
    pane_set: PaneSet = PaneSet.KEPT,
    continues: Callable[[Any, A, R], Any] | Waits | None = None,
) -> DeclaredTool:
    """One tool's ToolSpec, its args, result and handler checked against each other."""
    spec: ToolSpec[A, R] = ToolSpec(
        name=name,
        title=title,
        toolset=toolset,
        reach=reach,
        effects=effects,
        outputs=outputs,
        summary=summary,
        args=args,
        result=result,
        handler=handler,
        nested=nested,
        repeat_safe=repeat_safe,
        additive=additive,
        disclosures=disclosures,
        starts_panes=starts_panes,
        pane_set=pane_set,
        continues=continues,
    )
    return cast("DeclaredTool", spec)


def declare_resource(
    *,
    name: str,
    title: str,
    toolset: Toolset,
    reach: Reach,
    effects: frozenset[Effect],
    outputs: frozenset[OutputClass],
    summary: str,
    args: type[A],
    result: type[R],
    handler: Callable[[Any, A], Awaitable[R]],
    uri_template: str,
    requires: tuple[str, ...],
    variables: Callable[[str], A],
    lister: Callable[[Any], Awaitable[list[ListedResource]]],
    mime_type: str = "text/plain",
    nested: tuple[str, ...] = (),
    repeat_safe: bool = False,
    additive: bool = False,
    disclosures: tuple[str, ...] = (),
    starts_panes: bool = False,
    pane_set: PaneSet = PaneSet.KEPT,
    continues: Callable[[Any, A, R], Any] | Waits | None = None,
) -> DeclaredResource:
    """One resource's ResourceSpec, checked as ``declare_tool`` checks a tool's."""
    spec: ResourceSpec[A, R] = ResourceSpec(
        name=name,
        title=title,
        toolset=toolset,
        reach=reach,
        effects=effects,
        outputs=outputs,
        summary=summary,
        args=args,
        result=result,
        handler=handler,
        uri_template=uri_template,
        requires=requires,
        variables=variables,
        lister=lister,
        mime_type=mime_type,
        nested=nested,
        repeat_safe=repeat_safe,
        additive=additive,
        disclosures=disclosures,
        starts_panes=starts_panes,
        pane_set=pane_set,
        continues=continues,
    )
    return cast("DeclaredResource", spec)


class ParamSpec(msgspec.Struct, frozen=True, kw_only=True):
    """One caller-controlled parameter and the boundary it reaches."""

    name: str
    """As the caller spells it (the JSON key)."""
    required: bool
    sink: Sink
    encoding: Encoding
    description: str
    attr: str
    """The argument Struct's attribute holding it."""
    rule: Rule
    """What its encoder needs (``sinks.encoders``)."""
    elements: bool = False
    """A list whose every element is encoded."""


class UnclassifiedParameter(Exception):
    """A parameter's type carries no sink classification (a definition bug)."""


_CLASSIFICATION_KEYS = frozenset({"sink", "encoding"})


def _classification(t: mi.Type) -> tuple[mi.Metadata, bool] | None:
    """The metadata that classifies ``t``, and whether it classifies a list's elements."""
    if isinstance(t, mi.Metadata):
        if "sink" in (t.extra or {}):
            return t, False
        return _classification(t.type)
    if isinstance(t, mi.UnionType):
        found = [c for c in (_classification(u) for u in t.types) if c is not None]
        return found[0] if len(found) == 1 else None
    if isinstance(t, mi.ListType):
        inner = _classification(t.item_type)
        return None if inner is None else (inner[0], True)
    return None


def _bounds(t: mi.Type) -> tuple[int | float | None, int | float | None]:
    """The inclusive ``ge``/``le`` bounds msgspec enforces on ``t``, if any."""
    while isinstance(t, mi.Metadata | mi.UnionType):
        if isinstance(t, mi.UnionType):
            numbers = [u for u in t.types if not isinstance(u, mi.NoneType)]
            if len(numbers) != 1:
                return None, None
            t = numbers[0]
        else:
            t = t.type
    if isinstance(t, mi.IntType | mi.FloatType):
        return t.ge, t.le
    return None, None


def params_of_args(args: type[msgspec.Struct], owner: str) -> tuple[ParamSpec, ...]:
    """Every parameter of the argument Struct ``args`` with its declared sink and encoding.

    Raises ``UnclassifiedParameter`` for a field whose type names no sink, or
    whose encoding has no encoder (``sinks.encoders.ENCODERS``).
    """
    info = mi.type_info(args)
    if not isinstance(info, mi.StructType):
        raise TypeError(f"{owner}: args must be a msgspec Struct")
    out = []
    for field in info.fields:
        found = _classification(field.type)
        if found is None:
            raise UnclassifiedParameter(f"{owner}.{field.name} declares no sink")
        meta, elements = found
        extra = meta.extra or {}
        try:
            sink, encoding = Sink(extra["sink"]), Encoding(extra["encoding"])
        except (KeyError, ValueError):
            raise UnclassifiedParameter(
                f"{owner}.{field.name} declares no known sink and encoding"
            ) from None
        if encoding not in ENCODERS:
            raise UnclassifiedParameter(f"{owner}.{field.name}: no encoder for {encoding}")
        # A sink declared on a list applies to each of its elements.
        elements = elements or isinstance(meta.type, mi.ListType)
        ge, le = _bounds(meta.type)
        out.append(
            ParamSpec(
                name=field.encode_name,
                required=field.required,
                sink=sink,
                encoding=encoding,
                description=(meta.extra_json_schema or {}).get("description", ""),
                attr=field.name,
                rule=Rule(
                    param=field.encode_name,
                    options={k: v for k, v in extra.items() if k not in _CLASSIFICATION_KEYS},
                    ge=ge,
                    le=le,
                ),
                elements=elements,
            )
        )
    return tuple(out)


def params_of(spec: ToolSpec[Any, Any]) -> tuple[ParamSpec, ...]:
    """Every parameter of ``spec`` with its declared sink and encoding."""
    return params_of_args(spec.args, spec.name)
