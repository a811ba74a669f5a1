"""Parameter types that carry their interpreter boundary with them (CM-5).

Every field of every tool's argument Struct is annotated with one of these
types (or another ``Annotated`` type whose ``Meta.extra`` names a sink and an
encoding). The sink is therefore declared where the parameter is declared and
cannot be forgotten: ``model.params_of`` reads it back, the manifest and docs
print it, and a test fails when a field has none.

Schema patterns and ranges here are the first gate; the sink encoders in
``tmuxmcp.sinks`` are the second and authoritative one.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from tmuxmcp.sinks import Encoding, Sink
from tmuxmcp.sinks.names import MAX_NAME_CHARS, NameKind
from tmuxmcp.sinks.target import ID_PATTERNS, IdKind


def sink(kind: Sink, encoding: Encoding, **options: str) -> dict[str, str]:
    """The ``Meta.extra`` entry that classifies a parameter.

    ``options`` are what the encoding's encoder needs besides the value (the id
    kind of an ``id-only`` target, the name rule of a name); the dispatcher
    passes them to it (``capability.encode``).
    """
    return {"sink": kind.value, "encoding": encoding.value, **options}


def id_sink(kind: IdKind) -> dict[str, str]:
    """The classification of a target that must be exactly a ``kind`` id."""
    return sink(Sink.TARGET, Encoding.ID_ONLY, id_kind=kind.value)


# Ids carry no description: the parameter's name and pattern say what it is,
# and every byte of a schema is in a model's context (issue 14.1); the
# initialize instructions say once that objects are addressed by id.
SessionId = Annotated[
    str,
    Meta(
        pattern=ID_PATTERNS[IdKind.SESSION],
        extra=id_sink(IdKind.SESSION),
    ),
]
WindowId = Annotated[
    str,
    Meta(
        pattern=ID_PATTERNS[IdKind.WINDOW],
        extra=id_sink(IdKind.WINDOW),
    ),
]
PaneId = Annotated[
    str,
    Meta(
        pattern=ID_PATTERNS[IdKind.PANE],
        extra=id_sink(IdKind.PANE),
    ),
]

# capture-pane accepts lines in [INT_MIN, 32767] on 3.3a; 0 is the first
# visible line and negative numbers reach into the scrollback.
MIN_LINE = -(2**31)
MAX_LINE = 32767

LineNumber = Annotated[
    int,
    Meta(
        ge=MIN_LINE,
        le=MAX_LINE,
        description=("0 is the top visible line, negative is scrollback."),
        extra=sink(Sink.NUMERIC, Encoding.VALIDATED_INTEGER),
    ),
]


# Booleans are declared one way: ``flag`` when the value decides whether tmux
# gets a fixed flag (or the pane a fixed byte), ``switch`` when tmuxmcp alone
# reads it. The classification drives redaction and fuzzing, so a boolean is
# never a ``closed`` vocabulary (tests/capability/test_definition.py).


def flag(description: str) -> Meta:
    """A boolean that only decides whether a fixed tmux flag is passed."""
    return Meta(description=description, extra=sink(Sink.FLAG, Encoding.FIXED_FLAG))


def switch(description: str) -> Meta:
    """A boolean tmuxmcp itself reads (a choice of what to return), never passed to tmux."""
    return Meta(description=description, extra=sink(Sink.LOCAL, Encoding.NONE))


def local_int(description: str, *, ge: int, le: int) -> Meta:
    """An integer tmuxmcp uses itself (a limit), never passed to tmux."""
    return Meta(ge=ge, le=le, description=description, extra=sink(Sink.LOCAL, Encoding.NONE))


def _name(kind: NameKind, description: str) -> Meta:
    return Meta(
        min_length=1,
        max_length=MAX_NAME_CHARS,
        description=description,
        extra=sink(Sink.TMUX_FORMAT, Encoding.NAME_RULE, name_kind=kind.value),
    )


SessionName = Annotated[
    str,
    _name(NameKind.SESSION, "Name, stored as given; no control characters, backslash, $, : or ."),
]
WindowName = Annotated[
    str,
    _name(NameKind.WINDOW, "Name, stored as given; no control characters, backslash or $."),
]
ObjectName = Annotated[
    str,
    _name(
        NameKind.WINDOW,
        "Name, stored as given; no control characters, backslash, $ (nor : . for a session).",
    ),
]
"""``rename``'s name: the window rule, declared; a session's ``:`` and ``.`` are refused
by the argument Struct (issue 28.9: one tool renames both)."""
PaneTitle = Annotated[
    str,
    _name(NameKind.TITLE, "Title, stored as given; no control characters or backslash."),
]
StartDirectory = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=4096,
        description="Existing absolute directory.",
        extra=sink(Sink.TMUX_FORMAT, Encoding.DIRECTORY),
    ),
]


def closed(description: str, kind: Sink = Sink.FLAG) -> Meta:
    """A value from a closed list defined by tmuxmcp."""
    return Meta(description=description, extra=sink(kind, Encoding.CLOSED_VOCABULARY))


def number(description: str, *, ge: int, le: int) -> Meta:
    """An integer tmux parses as a number."""
    return Meta(
        ge=ge, le=le, description=description, extra=sink(Sink.NUMERIC, Encoding.VALIDATED_INTEGER)
    )


BufferName = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=200,
        description="Paste buffer name from list_buffers.",
        extra=sink(Sink.LITERAL, Encoding.ARGV_ONLY),
    ),
]
