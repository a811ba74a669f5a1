"""Valid calls of every tool, derived from the capability definition.

A property fuzzes one parameter inside an otherwise valid call: the tool's
base call (``base_call``) with that one argument replaced (``arguments``).
The base call is derived from the definition, so adding a tool needs no entry
here (CM-5: the definition is the one place a tool is declared):

* every required parameter gets a valid value chosen by its declared sink and
  encoding (``_DERIVED``): an id names the world's object of the kind the
  schema pattern says (a second id of one kind names the second object), a
  vocabulary gives its first member, a buffer name the world's buffer;
* ``OVERRIDES`` adds or replaces the values a rule cannot choose: a required
  local string (a pattern, a run id), a mode that the schema leaves optional
  but the tool needs one of, a timeout that keeps a waiting tool short, or an
  object a call should act on instead of the first.

A required parameter that neither covers raises ``NoBaseValue`` naming it;
``test_coverage.py`` turns that into a failure for the new tool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fuzz.cases import Case
from fuzz.harness import World
from fuzz.schema import id_kind, members
from tmuxmcp.capability.model import ToolSpec, params_of
from tmuxmcp.sinks import Encoding, Sink


class NoBaseValue(Exception):
    """A required parameter no rule of ``_DERIVED`` and no ``OVERRIDES`` entry covers."""


def _objects(world: World) -> dict[str, tuple[str, ...]]:
    """The world's objects of each id kind, first the one a call acts on."""
    return {
        "session": (world.session, world.dest_session),
        "window": (world.window, world.dest_window),
        "pane": (world.pane, world.pane2),
    }


def _first_member(case: Case, world: World) -> Any:
    first = members(case)[0]
    return [first] if case.param.elements else first


_DERIVED: dict[tuple[Sink, Encoding], Callable[[Case, World], Any]] = {
    (Sink.TMUX_FORMAT, Encoding.NAME_RULE): lambda case, world: "fuzzed",
    (Sink.TMUX_FORMAT, Encoding.CLOSED_VOCABULARY): _first_member,
    (Sink.LITERAL, Encoding.CLOSED_VOCABULARY): _first_member,
    (Sink.FLAG, Encoding.CLOSED_VOCABULARY): _first_member,
    (Sink.LOCAL, Encoding.CLOSED_VOCABULARY): _first_member,
    (Sink.KEYS, Encoding.KEYS_OR_TEXT): lambda case, world: ["BSpace"],
    (Sink.SHELL, Encoding.PANE_SHELL_TEXT): lambda case, world: "true",
    (Sink.LITERAL, Encoding.ARGV_ONLY): lambda case, world: world.buffer,
}
"""A valid value of a required parameter by its (sink, encoding); ids are chosen apart."""

OVERRIDES: dict[str, Callable[[World], dict[str, Any]]] = {
    # Acts on the split pane, so the world's first pane stays for the next example.
    "kill_pane": lambda w: {"pane_id": w.pane2},
    "respawn_pane": lambda w: {"pane_id": w.pane2},
    # Exactly one of two ids, and the schema cannot say which (issue 28.9).
    "rename": lambda w: {"window_id": w.window},
    "select": lambda w: {"window_id": w.window},
    # Into the other session: a window cannot move into the session it is in.
    "move_window": lambda w: {"session_id": w.dest_session},
    # resize_pane takes exactly one mode, and the schema cannot say which.
    "resize_pane": lambda w: {"width": 40},
    # The option decides its value's type and its scope's id.
    "set_option": lambda w: {"option": "history-limit", "value": 3000, "session_id": w.session},
    "run_command": lambda w: {"timeout": 10},
    # An unknown run: answered at once with object-not-found, and nothing is touched.
    "wait_for_command": lambda w: {"run_id": "0123456789ab", "timeout": 1},
    # sh's prompt "$ " is on screen, so these return at once unless the pattern changes.
    "wait_for_text": lambda w: {"pattern": "$", "scope": "screen", "timeout": 0},
    "search_panes": lambda w: {"pattern": "x"},
    # A live pane: returns within quiet_ms (quiet) or timeout, whichever comes first.
    "wait_for_state": lambda w: {"states": ["dead"], "quiet_ms": 20, "timeout": 0.2},
}
"""Per tool: values set on top of the derived ones (a declarative table, see above)."""


def base_call(spec: ToolSpec, world: World) -> dict[str, Any]:
    """A valid call of ``spec`` against ``world``, derived from its declared parameters."""
    chosen = OVERRIDES.get(spec.name, lambda w: {})(world)
    taken: dict[str, int] = {}
    call: dict[str, Any] = {}
    for param in params_of(spec):
        if not param.required:
            continue
        case = Case(spec, param)
        if case.key == (Sink.TARGET, Encoding.ID_ONLY):
            kind = id_kind(case)
            nth = taken.get(kind, 0)
            taken[kind] = nth + 1
            call[param.name] = _objects(world)[kind][nth]
        elif param.name in chosen:
            continue
        elif case.key in _DERIVED:
            call[param.name] = _DERIVED[case.key](case, world)
        else:
            raise NoBaseValue(
                f"{case}: no valid value can be derived for a required "
                f"{param.sink.value} / {param.encoding.value} parameter; "
                f"give {spec.name} an entry in OVERRIDES (fuzz/calls.py)"
            )
    return call | chosen


ADJUST: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    # resize_pane takes exactly one mode; fuzzing another mode's parameter drops width.
    "resize_pane.direction": (("width",), {}),
    "resize_pane.amount": (("width",), {"direction": "down"}),
    "resize_pane.zoom": (("width",), {}),
    # set_option: the scope id must match the option's scope.
    "set_option.window_id": (("session_id",), {"option": "mode-keys", "value": "vi"}),
    "set_option.pane_id": (("session_id",), {"option": "remain-on-exit", "value": "on"}),
    # rename and select take exactly one id (issue 28.9): fuzzing the other drops the window.
    "rename.session_id": (("window_id",), {}),
    "select.pane_id": (("window_id",), {}),
}
"""Per (tool.param): keys to drop from the base call and keys to add."""


def arguments(case: Case, world: World, value: Any) -> dict[str, Any]:
    """A valid call of ``case.spec`` with ``value`` as ``case.param``."""
    args = base_call(case.spec, world)
    drop, add = ADJUST.get(str(case), ((), {}))
    for key in drop:
        args.pop(key, None)
    args.update(add)
    args[case.param.name] = value
    return args
