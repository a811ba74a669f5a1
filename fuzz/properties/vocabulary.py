"""Schema-decided values: ``closed-vocabulary``, ``validated-integer``, ``local-only``.

The schema read from the Struct (``fuzz.schema``) is the oracle: a member, an
in-bounds integer or an accepted local value passes the schema, anything else
is refused before tmux, and a local value never reaches any tmux argv or
stdin (CM-5).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from msgspec import inspect as mi

from fuzz.calls import arguments
from fuzz.cases import Case
from fuzz.harness import Harness
from fuzz.properties.base import Property, schema_refusal_names
from fuzz.schema import bounds, field_type, members, nullable, schema_accepts
from fuzz.strategies import SENTINEL, hostile_text, json_scalars


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
        # A list of words (wait_for_state's states): each element is the word fuzzed.
        sent = [value] if case.param.elements else value
        outcome = h.call(case.spec.name, arguments(case, h.world(), sent))
        h.check_common(outcome)
        member = any(type(value) is type(m) and value == m for m in members(case))
        member = member or (value is None and nullable(case))
        if not member:
            h.refused(outcome, param=case.param.name)
            assert schema_refusal_names(outcome, case.param.name), outcome.text
            return
        assert not schema_refusal_names(outcome, case.param.name), outcome.text
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
        assert not schema_refusal_names(outcome, case.param.name), outcome.text
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
        assert not schema_refusal_names(outcome, case.param.name), outcome.text
        if isinstance(value, str) and LOCAL_MARK in value:
            assert not outcome.touched(LOCAL_MARK), "a local value reached tmux"
        if isinstance(value, str) and h.sentinel in value:
            assert not outcome.touched(h.sentinel), "a local value reached tmux"


SLOW = ("wait_for_text.timeout", "wait_for_state.timeout")
"""Local parameters that are durations the call really waits when nothing matches."""
