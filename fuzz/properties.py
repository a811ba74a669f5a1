"""One property per (sink, encoding) pair in the capability definition.

``PROPERTIES`` maps every pair a parameter can declare to the property that
fuzzes it; ``cases()`` lists every (tool, parameter) of ``DEFINITION``. The
coverage test checks both directions, so a parameter with a new pair fails CI
until a property exists, and a property no parameter uses is removed.

Every property checks, for each example, through ``Harness.check_common``:
no tmuxmcp traceback (``internal-error``) and only tmuxmcp's error slugs
(invariant 3), no sentinel file (invariant 2) and an unchanged bystander
(invariant 4). What each adds is in its ``invariant`` text (and the README).

Oracles restate the documented rules independently of ``tmuxmcp.sinks``
(``name_accepted``, ``canonical_id``...), so a change to an encoder cannot make
its own property agree with it. Where the rule *is* the declared schema
(closed vocabularies, local limits), the schema read from the Struct is the
oracle, and the property checks that the call honours it before reaching tmux.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import shlex
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec
from hypothesis import strategies as st
from msgspec import inspect as mi

from fuzz.harness import REFUSED, Harness, Outcome, World, escape_argv
from fuzz.strategies import (
    CONTROL,
    DANGEROUS,
    LONE_SURROGATES,
    SENTINEL,
    TOKENS,
    dangerous_text,
    hostile_text,
    huge_text,
    id_like,
    json_scalars,
)
from tmuxmcp.capability.model import ParamSpec, ToolSpec, params_of
from tmuxmcp.definition import DEFINITION
from tmuxmcp.sinks import Encoding, Sink


class Case(NamedTuple):
    """One parameter of one tool."""

    spec: ToolSpec
    param: ParamSpec

    def __str__(self) -> str:
        return f"{self.spec.name}.{self.param.name}"

    @property
    def key(self) -> tuple[Sink, Encoding]:
        """The (sink, encoding) pair that selects this parameter's property."""
        return (self.param.sink, self.param.encoding)

    @property
    def mutates(self) -> bool:
        """Whether the tool may change tmux state."""
        return any(effect.value != "observe" for effect in self.spec.effects)


def cases() -> list[Case]:
    """Every parameter of every tool in the definition."""
    return [Case(spec, param) for spec in DEFINITION for param in params_of(spec)]


# -- valid calls: every tool's arguments, minus the one being fuzzed --------------

BASE: dict[str, Callable[[World], dict[str, Any]]] = {
    "list_sessions": lambda w: {},
    "list_windows": lambda w: {},
    "list_panes": lambda w: {},
    "get_pane_info": lambda w: {"pane_id": w.pane},
    "capture_pane": lambda w: {"pane_id": w.pane},
    "list_buffers": lambda w: {},
    "snapshot": lambda w: {},
    "server_info": lambda w: {"detail": False},
    "create_session": lambda w: {},
    "create_window": lambda w: {"session_id": w.session},
    "split_pane": lambda w: {"pane_id": w.pane},
    "rename_session": lambda w: {"session_id": w.session, "name": "renamed"},
    "rename_window": lambda w: {"window_id": w.window, "name": "renamed"},
    "set_pane_title": lambda w: {"pane_id": w.pane, "title": "titled"},
    "select_window": lambda w: {"window_id": w.window},
    "select_pane": lambda w: {"pane_id": w.pane},
    "select_layout": lambda w: {"window_id": w.window, "layout": "tiled"},
    "resize_pane": lambda w: {"pane_id": w.pane, "width": 40},
    "swap_pane": lambda w: {"pane_id": w.pane, "other_pane_id": w.pane2},
    "move_window": lambda w: {"window_id": w.window, "session_id": w.dest_session},
    "set_option": lambda w: {"option": "history-limit", "value": 3000, "session_id": w.session},
    "kill_session": lambda w: {"session_id": w.session},
    "kill_window": lambda w: {"window_id": w.window},
    "kill_pane": lambda w: {"pane_id": w.pane2},
    "clear_history": lambda w: {"pane_id": w.pane},
    "delete_buffer": lambda w: {"buffer": w.buffer},
    "send_keys": lambda w: {"pane_id": w.pane, "keys": ["Space"]},
    "send_text": lambda w: {"pane_id": w.pane, "text": "x"},
    "run_command": lambda w: {"pane_id": w.pane, "command": "true", "timeout": 10},
    # An unknown run: answered at once with object-not-found, and nothing is touched.
    "wait_for_command": lambda w: {"pane_id": w.pane, "run_id": "0123456789ab", "timeout": 1},
    "paste_buffer": lambda w: {"pane_id": w.pane, "buffer": w.buffer},
    "respawn_pane": lambda w: {"pane_id": w.pane2},
    # sh's prompt "$ " is on screen, so these return at once unless the pattern changes.
    "wait_for_text": lambda w: {"pane_id": w.pane, "pattern": "$", "scope": "screen", "timeout": 0},
    "search_panes": lambda w: {"pattern": "x"},
    "capture_since": lambda w: {"pane_id": w.pane},
    # Returns within quiet_ms (idle) or timeout, whichever comes first.
    "wait_for_idle": lambda w: {"pane_id": w.pane, "quiet_ms": 20, "timeout": 0.2},
}
"""A valid call of every tool against the world (the coverage test checks each)."""

ADJUST: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    # resize_pane takes exactly one mode; fuzzing another mode's parameter drops width.
    "resize_pane.direction": (("width",), {}),
    "resize_pane.amount": (("width",), {"direction": "down"}),
    "resize_pane.zoom": (("width",), {}),
    # set_option: the scope id must match the option's scope.
    "set_option.window_id": (("session_id",), {"option": "mode-keys", "value": "vi"}),
    "set_option.pane_id": (("session_id",), {"option": "remain-on-exit", "value": "on"}),
}
"""Per (tool.param): keys to drop from the base call and keys to add."""


def arguments(case: Case, world: World, value: Any) -> dict[str, Any]:
    """A valid call of ``case.spec`` with ``value`` as ``case.param``."""
    args = dict(BASE[case.spec.name](world))
    drop, add = ADJUST.get(str(case), ((), {}))
    for key in drop:
        args.pop(key, None)
    args.update(add)
    args[case.param.name] = value
    return args


# -- reading the declared schema -----------------------------------------------------


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


# -- independent oracles ---------------------------------------------------------


def _libc_wcwidth() -> Callable[[str], int]:
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.wcwidth.argtypes = [ctypes.c_wchar]
    libc.wcwidth.restype = ctypes.c_int
    return lambda ch: int(libc.wcwidth(ch))


wcwidth = _libc_wcwidth()
"""libc's wcwidth, which tmux 3.3a uses to decide what it vis-encodes in names."""


def is_control(ch: str) -> bool:
    """C0, DEL or C1."""
    return ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F


def is_text(value: str) -> bool:
    """Valid Unicode with no NUL: something argv can carry at all."""
    return "\x00" not in value and not any(0xD800 <= ord(c) <= 0xDFFF for c in value)


NAME_KINDS = {
    "create_session.name": "session",
    "rename_session.name": "session",
    "create_window.name": "window",
    "rename_window.name": "window",
    "set_pane_title.title": "title",
}
"""What each name parameter names (the coverage test requires an entry)."""


def name_accepted(kind: str, value: str) -> bool:
    """The documented name rule (capability.params descriptions), restated."""
    if not (1 <= len(value) <= 200) or not is_text(value):
        return False
    if any(is_control(ch) for ch in value) or "\\" in value:
        return False
    if any(wcwidth(ch) < 0 for ch in value):
        return False  # tmux would octal-escape it (names) or drop the title
    if kind != "title" and "$" in value:
        return False
    return not (kind == "session" and (":" in value or "." in value))


NAME_VARIABLES = {
    "session": "#{session_name}",
    "window": "#{window_name}",
    "title": "#{pane_title}",
}

PREFIX = {"session": "$", "window": "@", "pane": "%"}


def id_kind(case: Case) -> str:
    """Which kind of id a target parameter takes, from its schema pattern."""
    t = field_type(case)
    pattern = getattr(t, "pattern", "") or ""
    for kind, prefix in PREFIX.items():
        if pattern.startswith("^" + re.escape(prefix)):
            return kind
    raise TypeError(f"{case}: no id pattern in {t}")


def canonical_id(kind: str, value: str) -> bool:
    """An exact id as tmux prints it: the prefix and a decimal with no leading zero."""
    return re.fullmatch(re.escape(PREFIX[kind]) + "(0|[1-9][0-9]{0,8})", value) is not None


# -- known bugs in tmuxmcp code outside fuzz/ ------------------------------------------


class KnownBug(NamedTuple):
    """A failure found by this suite, pinned in test_fixed_bugs.py (xfail) until fixed.

    ``applies`` selects inputs the properties skip (the bug would fail them);
    ``tolerates`` instead accepts one wrong outcome while still checking the rest.
    """

    slug: str
    applies: Callable[[Case, Any], bool]
    summary: str
    tolerates: Callable[[Case, Outcome], bool] = lambda case, outcome: False


KNOWN_BUGS: tuple[KnownBug, ...] = ()
"""None open. Fixed, with regression tests in test_fixed_bugs.py: leading-zero-ids,
unprintable-names, surrogate-in-convert, set-option-not-found, empty-send-text."""


def known_bug(case: Case, value: Any) -> KnownBug | None:
    """The known bug ``value`` would trigger for ``case``, if any."""
    return next((bug for bug in KNOWN_BUGS if bug.applies(case, value)), None)


def tolerated(case: Case, outcome: Outcome) -> bool:
    """Whether ``outcome`` is the wrong outcome of a known bug."""
    return any(bug.tolerates(case, outcome) for bug in KNOWN_BUGS)


# -- the properties --------------------------------------------------------------


class Property:
    """A property of one (sink, encoding) class of parameters."""

    name = ""
    invariant = ""
    ci_examples = 10

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        """Values to try for ``case``."""
        raise NotImplementedError

    def check(self, h: Harness, case: Case, value: Any) -> None:
        """Call the tool with ``value`` and assert the property."""
        raise NotImplementedError

    def pinned(self, case: Case) -> list[Any]:
        """Explicit regression examples for ``case`` (every failure ever found)."""
        return []


def _schema_refusal_names(outcome: Outcome, param: str) -> bool:
    """Whether a refusal is the schema refusing ``param`` itself."""
    return outcome.slug == "invalid-arguments" and f"$.{param}`" in outcome.text


ALL_IDS = "#{session_id} #{window_id} #{pane_id}"


class TargetIdOnly(Property):
    name = "target-exact-id"
    invariant = (
        "any string other than an exact id of the parameter's kind is refused and never "
        "reaches tmux; an exact id that names nothing fails; the bystander is untouched"
    )
    ci_examples = 12

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        world_ids = ["<session>", "<window>", "<pane>", "<pane2>", "<dest_session>", "<0pane>"]
        return st.one_of(
            st.sampled_from(world_ids),
            id_like(PREFIX[id_kind(case)]),
            id_like(),
            hostile_text(),
        )

    def pinned(self, case: Case) -> list[Any]:
        kind = id_kind(case)
        return [
            f"<{kind}>",  # the world's own object: the call acts on it
            f"{PREFIX[kind]}999999",  # exact, but names nothing
            f"{PREFIX[kind]}1\n",  # Python's '$' matches before a final newline
            "<0pane>",  # leading zero: known bug leading-zero-ids
            "=work:",
            "{last}",
        ]

    def check(self, h: Harness, case: Case, value: Any) -> None:
        world = h.world()
        ids = {
            "<session>": world.session,
            "<window>": world.window,
            "<pane>": world.pane,
            "<pane2>": world.pane2,
            "<dest_session>": world.dest_session,
            "<0pane>": "%0" + world.pane[1:],
        }
        value = ids.get(value, value)
        if value in h.bystander_ids or known_bug(case, value):
            return
        kind = id_kind(case)
        existing = set(h.bare("list-panes", "-a", "-F", ALL_IDS).split())
        outcome = h.call(case.spec.name, arguments(case, world, value))
        h.check_common(outcome)
        if not canonical_id(kind, value):
            h.refused(outcome)
            return
        assert not (outcome.is_error and outcome.slug == "unsafe-value"), outcome.text
        assert not _schema_refusal_names(outcome, case.param.name), outcome.text
        if value not in existing and not tolerated(case, outcome):
            assert outcome.slug == "object-not-found", f"{value} names nothing: {outcome.text}"


class NameRoundTrip(Property):
    name = "name-round-trip"
    invariant = (
        "a name the documented rule accepts is stored exactly (read back through bare tmux) "
        "and reported exactly; any other is refused as unsafe or invalid and changes nothing; "
        "no #() job, #{} or strftime ever runs"
    )
    ci_examples = 25

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        return st.one_of(
            hostile_text(),
            dangerous_text(min_size=1, max_size=12, control=False),
            dangerous_text(min_size=1, max_size=12, control=False).map(
                lambda s: s + f"#(touch {SENTINEL})"
            ),
            st.integers(190, 210).map(lambda n: ("#é" * n)[:n]),
        )

    def pinned(self, case: Case) -> list[Any]:
        return [
            "$a#(touch SENTINEL)",  # tmux 3.3a stores '$a' as '\$a' (found by tests/tools)
            "#[fg=red]#(touch SENTINEL)",
            "trail#",
            "a;",
            "-n",
            "%H:%M",
            "a\u2028b",  # wcwidth < 0: was accepted, then rewritten by tmux (fixed)
            "#" * 200,  # the longest accepted name, every character escaped
            "x" * 201,  # one over: refused by the schema
        ]

    def check(self, h: Harness, case: Case, value: Any) -> None:
        value = h.substitute(value)
        kind = NAME_KINDS[str(case)]
        if known_bug(case, value):
            return
        world = h.world()
        tool = case.spec.name
        target = {"rename_session": world.session, "rename_window": world.window,
                  "set_pane_title": world.pane}.get(tool)  # fmt: skip
        variable = NAME_VARIABLES[kind]
        count = len(h.bare("list-panes", "-a", "-F", "#{pane_id}").split())
        before = h.bare("display-message", "-p", "-t", target, variable) if target else None
        outcome = h.call(tool, arguments(case, world, value))
        h.check_common(outcome)
        if not name_accepted(kind, value):
            h.refused(outcome)
            if target:
                assert h.bare("display-message", "-p", "-t", target, variable) == before
            else:
                assert len(h.bare("list-panes", "-a", "-F", "#{pane_id}").split()) == count
            return
        assert not outcome.is_error, outcome.text
        assert outcome.structured is not None
        if target is None:
            field = "session_name" if kind == "session" else "window_name"
            target = outcome.structured["session_id" if kind == "session" else "window_id"]
            assert outcome.structured[field] == value
        else:
            assert outcome.structured["name"] == value
        assert h.bare("display-message", "-p", "-t", target, variable) == value


ODD_PATHS = ["/", "//", "/tmp", "/tmp/", "/nonexistent", ".", "..", "rel", "/tmp/../tmp", "~"]


def _leaf_names() -> st.SearchStrategy[str]:
    return dangerous_text(min_size=1, max_size=16).filter(
        lambda s: "/" not in s and is_text(s) and s not in (".", "..") and len(s.encode()) <= 200
    )


class DirectoryRoundTrip(Property):
    name = "directory-round-trip"
    invariant = (
        "an existing absolute normalized directory without control characters becomes the "
        "new session's or pane's directory exactly; anything else is refused and creates "
        "nothing; format syntax in the path never expands"
    )
    ci_examples = 12

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.tuples(st.just("mkdir"), _leaf_names()),
            st.tuples(st.just("mkdir"), _leaf_names()),
            hostile_text(),
            st.sampled_from(ODD_PATHS),
        )

    def pinned(self, case: Case) -> list[Any]:
        return [("mkdir", "#{session_name}##(x)%H;"), ("mkdir", "d\x85"), "//"]

    def check(self, h: Harness, case: Case, value: Any) -> None:
        if isinstance(value, tuple | list):
            path = os.path.join(h.scratch, "dirs", value[1])
            os.makedirs(path, exist_ok=True)
        else:
            path = value
        accepted = (
            is_text(path)
            and path.startswith("/")
            and (os.path.normpath(path) == path or path == "//")
            and not any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in path)
            and len(path.encode()) <= 4096
            and os.path.isdir(path)
        )
        world = h.world()
        count = len(h.bare("list-panes", "-a", "-F", "#{pane_id}").split())
        outcome = h.call(case.spec.name, arguments(case, world, path))
        h.check_common(outcome)
        if not accepted:
            h.refused(outcome)
            assert len(h.bare("list-panes", "-a", "-F", "#{pane_id}").split()) == count
            return
        assert not outcome.is_error, outcome.text
        assert outcome.structured is not None
        if case.spec.name == "create_session":
            stored = h.bare("display-message", "-p", "-t", outcome.structured["session_id"],
                            "#{session_path}")  # fmt: skip
            assert stored == path
            return
        # A pane's directory is its process's: wait (deadline) for the shell to start there.
        pane = outcome.structured["pane_id"]
        deadline = time.monotonic() + 10
        expected = os.path.realpath(path)
        while time.monotonic() < deadline:
            current = h.bare("display-message", "-p", "-t", pane, "#{pane_current_path}")
            if current == expected:
                return
            time.sleep(0.02)
        raise AssertionError(f"pane directory {current!r}, expected {expected!r}")


class ClosedVocabulary(Property):
    """Also used for fixed flags: the vocabulary of a boolean is {true, false}."""

    name = "closed-vocabulary"
    invariant = (
        "a member of the declared vocabulary is accepted (tmux then reports that word where "
        "it reports one); any other JSON value is refused by the schema and never reaches tmux"
    )
    ci_examples = 10

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        if str(case) == "set_option.value":
            return st.sampled_from(sorted(_options())).flatmap(
                lambda option: st.tuples(st.just(option), _option_values(option))
            )
        words = [m for m in members(case) if isinstance(m, str)]
        near = [w + end for w in words for end in (";", "\n", " ")] + [w.upper() for w in words]
        return st.one_of(
            st.sampled_from(members(case)),
            st.sampled_from(members(case)),
            st.sampled_from(near or [0, 1, "true", "on"]),
            json_scalars(),
        )

    def pinned(self, case: Case) -> list[Any]:
        if str(case) == "set_option.value":
            return [("history-limit", True), ("mouse", 1), ("mode-keys", "vi;")]
        return []

    def check(self, h: Harness, case: Case, value: Any) -> None:
        if str(case) == "set_option.value":
            self._check_option_value(h, case, value)
            return
        value = h.substitute(value)
        outcome = h.call(case.spec.name, arguments(case, h.world(), value))
        h.check_common(outcome)
        member = any(type(value) is type(m) and value == m for m in members(case))
        member = member or (value is None and nullable(case))
        if not member:
            h.refused(outcome, param=case.param.name)
            assert _schema_refusal_names(outcome, case.param.name), outcome.text
            return
        assert not _schema_refusal_names(outcome, case.param.name), outcome.text
        if str(case) == "set_option.option" and not outcome.is_error:
            assert outcome.structured is not None
            assert outcome.structured["option"] == value

    def _check_option_value(self, h: Harness, case: Case, pair: Any) -> None:
        option, value = pair
        scope, kind, choices, maximum = _options()[option]
        world = h.world()
        target = {"session": world.session, "window": world.window, "pane": world.pane}[scope]
        args = {"option": option, "value": value, f"{scope}_id": target}
        outcome = h.call(case.spec.name, args)
        h.check_common(outcome)
        if kind == "bool":
            accepted, word = type(value) is bool, "on" if value else "off"
        elif kind == "int":
            accepted, word = type(value) is int and 0 <= value <= maximum, str(value)
        else:
            accepted, word = isinstance(value, str) and value in choices, str(value)
        if not accepted:
            h.refused(outcome)
            return
        assert not outcome.is_error, outcome.text
        assert outcome.structured is not None and outcome.structured["value"] == word
        flag = {"session": [], "window": ["-w"], "pane": ["-p"]}[scope]
        assert h.bare("show-options", *flag, "-v", "-t", target, option) == word


def _options() -> dict[str, tuple[str, str, tuple[str, ...], int]]:
    from tmuxmcp.tools.options import SETTABLE_OPTIONS

    return {
        name: (rule.scope, rule.kind, tuple(rule.choices), rule.maximum)
        for name, rule in SETTABLE_OPTIONS.items()
    }


def _option_values(option: str) -> st.SearchStrategy[Any]:
    """Values for ``option``: mostly well typed, and the near misses of every type."""
    _, kind, choices, maximum = _options()[option]
    typed = {
        "bool": st.booleans(),
        "int": st.one_of(st.integers(-2, 2), st.integers(maximum - 2, maximum + 2)),
        "choice": st.sampled_from(list(choices)),
    }[kind]
    return st.one_of(
        typed,
        typed,
        st.sampled_from([0, 1, "on", "off", "vi;", "on\n", "#{pid}", 1.0, None, True]),
        json_scalars(),
    )


class Numeric(Property):
    name = "validated-integer"
    invariant = (
        "an integer within the declared bounds is accepted (a tmux error may follow, never a "
        "refusal); anything else, including floats, numeric strings and booleans, is refused "
        "by the schema and never reaches tmux; created sizes read back exactly"
    )
    ci_examples = 8

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        lo, hi = bounds(case)
        assert lo is not None and hi is not None, f"{case}: numeric without bounds"
        lo_i, hi_i = int(lo), int(hi)
        return st.one_of(
            st.integers(lo_i - 3, lo_i + 3),
            st.integers(hi_i - 3, hi_i + 3),
            st.integers(lo_i, hi_i),
            st.sampled_from([2**63, -(2**63) - 1, 10**30, 1.0, 5.5, "5", "-1", True, None]),
            json_scalars(),
        )

    def check(self, h: Harness, case: Case, value: Any) -> None:
        lo, hi = bounds(case)
        accepted = type(value) is int and lo is not None and hi is not None and lo <= value <= hi
        accepted = accepted or (value is None and nullable(case))
        outcome = h.call(case.spec.name, arguments(case, h.world(), value))
        h.check_common(outcome)
        if not accepted:
            h.refused(outcome, param=case.param.name)
            return
        assert not _schema_refusal_names(outcome, case.param.name), outcome.text
        assert outcome.slug != "unsafe-value", outcome.text
        if case.spec.name == "create_session" and value is not None and not outcome.is_error:
            assert outcome.structured is not None
            variable = {"width": "#{window_width}", "height": "#{window_height}"}[case.param.name]
            window = outcome.structured["window_id"]
            assert h.bare("display-message", "-p", "-t", window, variable) == str(value)


LOCAL_MARK = "Q9localZ"
"""Appended to string values of local parameters: it must never reach tmux."""


class Local(Property):
    name = "local-only"
    invariant = (
        "the declared type and bounds decide acceptance before tmux is reached; an accepted "
        "string never appears in any tmux argv or stdin (tmuxmcp consumes it)"
    )
    ci_examples = 6

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        base = field_type(case)
        strings = st.one_of(
            hostile_text().map(lambda s: s + LOCAL_MARK),
            st.sampled_from(["", LOCAL_MARK, "abc_DEF-1" + LOCAL_MARK, f"#(touch {SENTINEL})"]),
        )
        if isinstance(base, mi.IntType | mi.FloatType):
            lo, hi = bounds(case)
            lo = 0 if lo is None else lo
            hi = 10**6 if hi is None else hi
            return st.one_of(
                st.integers(int(lo) - 2, int(lo) + 2),
                st.integers(int(hi) - 2, int(hi) + 2),
                st.floats(float(lo), float(hi)),
                json_scalars(),
            )
        return st.one_of(strings, strings, json_scalars())

    def check(self, h: Harness, case: Case, value: Any) -> None:
        value = h.substitute(value)
        if str(case) in SLOW and isinstance(value, int | float) and value > 2:
            return  # a waiting tool waits this long when nothing matches: keep examples short
        outcome = h.call(case.spec.name, arguments(case, h.world(), value))
        h.check_common(outcome)
        if not schema_accepts(case, value):
            h.refused(outcome, param=case.param.name)
            return
        assert not _schema_refusal_names(outcome, case.param.name), outcome.text
        if isinstance(value, str) and LOCAL_MARK in value:
            assert not outcome.touched(LOCAL_MARK), "a local value reached tmux"
        if isinstance(value, str) and h.sentinel in value:
            assert not outcome.touched(h.sentinel), "a local value reached tmux"


SLOW = ("wait_for_text.timeout", "wait_for_idle.timeout")
"""Local parameters that are durations the call really waits when nothing matches."""


MARK = "FUZZ-END-MARK"
NOT_KEYS = ["enter", "C-", "0x41", "Enter;", "C-c ", "Home\n", "^C", "M-A", "F13", "C-M-x"]


class KeyVocabulary(Property):
    name = "key-vocabulary"
    invariant = (
        "a list of 1..200 names from the key vocabulary delivers the same bytes to a raw "
        "pane program as bare tmux send-keys of those names; free text and anything else is "
        "refused and never reaches tmux"
    )
    ci_examples = 10

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        names = members(case)
        junk = st.one_of(
            hostile_text(max_size=6),
            st.sampled_from(NOT_KEYS),
        )
        return st.one_of(
            st.lists(st.sampled_from(names), min_size=1, max_size=8),
            st.lists(st.sampled_from(names), min_size=1, max_size=8),
            st.lists(st.one_of(st.sampled_from(names), junk), min_size=1, max_size=4),
            st.sampled_from([[], ["Enter"] * 201]),
            json_scalars(),
        )

    def check(self, h: Harness, case: Case, value: Any) -> None:
        names = set(members(case))
        accepted = (
            isinstance(value, list)
            and 1 <= len(value) <= 200
            and all(isinstance(k, str) and k in names for k in value)
        )
        if not accepted:
            outcome = h.call(case.spec.name, arguments(case, h.world(), value))
            h.check_common(outcome)
            h.refused(outcome, param=case.param.name)
            return
        reference = h.reader(until=MARK)
        h.bare("send-keys", "-t", reference.pane, "--", *value, ";",
               "send-keys", "-l", "-t", reference.pane, "--", MARK)  # fmt: skip
        expected = h.received(reference)
        reader = h.reader(until=MARK)
        args = arguments(case, h.world(), value) | {"pane_id": reader.pane}
        outcome = h.call(case.spec.name, args)
        h.check_common(outcome)
        assert not outcome.is_error, outcome.text
        h.bare("send-keys", "-l", "-t", reader.pane, "--", MARK)
        assert h.received(reader) == expected


class PasteText(Property):
    name = "paste-exact"
    invariant = (
        "text without control characters other than newline, up to 1 MiB, reaches a raw pane "
        "program byte for byte, each newline as CR (Enter), then CR if enter, also while the "
        "pane is in copy mode; text with other control characters, NUL or lone surrogates, "
        "or over 1 MiB, is refused and never reaches tmux"
    )
    ci_examples = 10

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        text = st.one_of(
            dangerous_text(control=False, max_size=60),
            dangerous_text(control=False, max_size=60),
            st.lists(dangerous_text(control=False, max_size=20), min_size=2, max_size=4).map(
                "\n".join
            ),
            hostile_text(),
            huge_text(),
            st.just(""),
        )
        return st.tuples(text, st.booleans(), st.booleans(), st.booleans())

    def pinned(self, case: Case) -> list[Any]:
        return [
            ("q hello q #(touch SENTINEL);", True, False, True),  # copy mode: 'q' is no binding
            ("safe\x1b[201~rm", False, True, False),  # ESC could end a bracketed paste
            ("é;" * 30_000, True, True, False),  # 90 KB: far past tmux's 16 KiB argv limit
            ("a" * (1024 * 1024 + 1), False, False, False),  # one byte over the cap: refused
            ("def f():\n    return 5\n", True, True, False),  # newlines arrive as Enter (CR)
            ("line\r\nbreak", False, False, False),  # CR is a key: refused
        ]

    def check(self, h: Harness, case: Case, value: Any) -> None:
        text, enter, bracketed, copy_mode = value
        text = h.substitute(text)
        accepted = (
            is_text(text)
            and not any(is_control(ch) and ch != "\n" for ch in text)
            and len(text.encode()) <= 1024 * 1024
        )
        world = h.world()
        if not accepted:
            outcome = h.call(case.spec.name, arguments(case, world, text))
            h.check_common(outcome)
            h.refused(outcome)
            return
        expected = text.replace("\n", "\r").encode() + (b"\r" if enter else b"")
        reader = h.reader(count=len(expected)) if expected else None
        pane = reader.pane if reader else world.pane
        if copy_mode:
            h.bare("copy-mode", "-t", pane)
        args = arguments(case, world, text) | {
            "pane_id": pane, "enter": enter, "bracketed_paste": bracketed,
        }  # fmt: skip
        outcome = h.call(case.spec.name, args)
        h.check_common(outcome)
        assert not outcome.is_error, outcome.text
        if reader:
            assert h.received(reader) == expected


_SHELL_SAFE = [c for c in DANGEROUS if c != "\n"] + list("abcXYZ019 é☺日")
_SHELL_TOKENS = [t for t in TOKENS if not any(is_control(c) for c in t)]


def _shell_lines() -> st.SearchStrategy[list[str]]:
    piece = st.one_of(st.sampled_from(_SHELL_SAFE), st.sampled_from(_SHELL_TOKENS))
    line = st.lists(piece, max_size=12).map("".join).map(str.rstrip)
    return st.lists(line, min_size=1, max_size=3)


class PaneShellText(Property):
    name = "pane-shell-output"
    invariant = (
        "a command reaches the pane's own shell exactly (shown by printf of shell-quoted "
        "hostile text coming back as the output, exit status 0); no #() or ';' reaches tmux; "
        "control characters other than newline, NUL, lone surrogates and blank commands are "
        "refused and never reach tmux"
    )
    ci_examples = 8

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        refused = st.one_of(
            st.tuples(
                dangerous_text(control=False, max_size=6),
                st.sampled_from([c for c in CONTROL if c != "\n"] + ["\x00", *LONE_SURROGATES]),
                dangerous_text(control=False, max_size=6),
            ).map(lambda t: ("raw", "".join(t))),
            st.sampled_from([("raw", ""), ("raw", " "), ("raw", "\n"), ("raw", " \n ")]),
        )
        return st.one_of(_shell_lines().map(lambda lines: ("printf", lines)),
                         _shell_lines().map(lambda lines: ("printf", lines)), refused)  # fmt: skip

    def pinned(self, case: Case) -> list[Any]:
        return [("printf", ["#(touch SENTINEL) ;", "\\;", "'quoted' \"dq\" $(x) `y`"])]

    def check(self, h: Harness, case: Case, value: Any) -> None:
        form, payload = value
        payload = h.substitute(payload)
        world = h.world()
        if form == "raw":
            outcome = h.call(case.spec.name, arguments(case, world, payload))
            h.check_common(outcome)
            h.refused(outcome)
            return
        command = "\n".join(f"printf '%s\\n' {shlex.quote(line)}" for line in payload)
        outcome = h.call(case.spec.name, arguments(case, world, command))
        h.check_common(outcome)
        assert not outcome.is_error, outcome.text
        result = outcome.structured
        assert result is not None
        assert (result["completed"], result["exit_status"]) == (True, 0), result
        assert result["output"] == "\n".join(payload), result


class BufferName(Property):
    name = "literal-buffer-name"
    invariant = (
        "a buffer name of 1..200 characters without control characters names exactly that "
        "buffer (deleted, or pasted byte for byte); a missing buffer is an error; other "
        "names are refused and never reach tmux; the bystander's buffer is untouched"
    )
    ci_examples = 8

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        names = st.one_of(hostile_text(max_size=12), st.integers(195, 205).map(lambda n: "b;" * n))
        return st.tuples(names, st.booleans())

    def pinned(self, case: Case) -> list[Any]:
        return [("bystander-buffe", False), ("-b", True), ("x;", True)]

    def check(self, h: Harness, case: Case, value: Any) -> None:
        name, create = value
        name = h.substitute(name)
        accepted = (
            1 <= len(name) <= 200
            and is_text(name)
            and not any(ord(c) < 0x20 or ord(c) == 0x7F for c in name)
        )
        if name == "bystander-buffer":
            return
        world = h.world()
        payload = "pasted " + name.replace("\n", " ") if accepted else "x"
        if create and accepted:
            h.bare("set-buffer", "-b", escape_argv(name), "--", escape_argv(payload))
        exists = name in h.bare("list-buffers", "-F", "#{buffer_name}").split("\n")
        reader = None
        args = arguments(case, world, name)
        if case.spec.name == "paste_buffer" and accepted and exists:
            reader = h.reader(count=len(payload.encode()))
            args["pane_id"] = reader.pane
        outcome = h.call(case.spec.name, args)
        h.check_common(outcome)
        if not accepted:
            h.refused(outcome)
            return
        if not exists:
            assert outcome.is_error and outcome.slug not in REFUSED, outcome.text
            return
        assert not outcome.is_error, outcome.text
        listed = h.bare("list-buffers", "-F", "#{buffer_name}").split("\n")
        if reader:
            assert h.received(reader) == payload.encode()
            assert name in listed, "paste_buffer keeps the buffer"
        else:
            assert name not in listed


PROPERTIES: dict[tuple[Sink, Encoding], Property] = {
    (Sink.TARGET, Encoding.ID_ONLY): TargetIdOnly(),
    (Sink.TMUX_FORMAT, Encoding.NAME_RULE): NameRoundTrip(),
    (Sink.TMUX_FORMAT, Encoding.DIRECTORY): DirectoryRoundTrip(),
    (Sink.TMUX_FORMAT, Encoding.CLOSED_VOCABULARY): ClosedVocabulary(),
    (Sink.LITERAL, Encoding.CLOSED_VOCABULARY): ClosedVocabulary(),
    (Sink.FLAG, Encoding.CLOSED_VOCABULARY): ClosedVocabulary(),
    (Sink.LOCAL, Encoding.CLOSED_VOCABULARY): ClosedVocabulary(),
    (Sink.FLAG, Encoding.FIXED_FLAG): ClosedVocabulary(),
    (Sink.NUMERIC, Encoding.VALIDATED_INTEGER): Numeric(),
    (Sink.LOCAL, Encoding.NONE): Local(),
    (Sink.KEYS, Encoding.KEY_VOCABULARY): KeyVocabulary(),
    (Sink.KEYS, Encoding.PASTE_BUFFER): PasteText(),
    (Sink.SHELL, Encoding.PANE_SHELL_TEXT): PaneShellText(),
    (Sink.LITERAL, Encoding.ARGV_ONLY): BufferName(),
}
"""The property for every (sink, encoding) pair the definition uses."""
