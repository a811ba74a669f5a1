"""The fuzz suite covers the capability definition, in both directions.

* Every parameter of every tool in DEFINITION has a property for its
  (sink, encoding) pair, so a new parameter cannot ship unfuzzed.
* Every registered property is used by some parameter, so a property cannot
  outlive the parameters it was written for.
* Every tool has a valid base call, derived from its declared parameters
  (``fuzz.calls``), and every name parameter says what it names; both are
  needed before a tool's parameters can be fuzzed. A tool whose required
  parameter no rule can fill fails here, naming the parameter.
* The README lists every property, so the stated invariants match the code.
"""

from __future__ import annotations

import os
from typing import Any

import msgspec
import pytest

from fuzz.calls import ADJUST, OVERRIDES, NoBaseValue, arguments, base_call
from fuzz.cases import cases
from fuzz.harness import World
from fuzz.known_bugs import KNOWN_BUGS
from fuzz.oracles import NAME_KINDS
from fuzz.properties import PROPERTIES
from tmuxmcp.capability.model import params_of
from tmuxmcp.definition import BY_NAME, DEFINITION
from tmuxmcp.sinks import Encoding, Sink

IDS = World("$1", "@1", "%1", "%2", "$2", "@2", "buffer")
README = os.path.join(os.path.dirname(__file__), "README.md")


def test_every_parameter_has_a_property() -> None:
    missing = sorted({f"{case}: {case.key}" for case in cases() if case.key not in PROPERTIES})
    assert not missing, "parameters with no fuzz property (add one to fuzz/properties/)"


def test_every_property_is_used_by_a_parameter() -> None:
    used = {case.key for case in cases()}
    unused = sorted(str(key) for key in PROPERTIES if key not in used)
    assert not unused, f"properties no parameter uses: {unused}"


def test_every_tool_has_a_valid_base_call() -> None:
    for spec in DEFINITION:
        msgspec.convert(base_call(spec, IDS), spec.args)


def test_overrides_name_only_declared_tools_and_parameters() -> None:
    for tool, values in OVERRIDES.items():
        assert tool in BY_NAME, f"OVERRIDES names a missing tool {tool}"
        declared = {p.name for p in params_of(BY_NAME[tool])}
        assert set(values(IDS)) <= declared, f"OVERRIDES[{tool}] sets undeclared parameters"


def test_a_new_tool_gets_a_base_call_without_an_entry() -> None:
    """Ids, names and vocabularies are derived from the declaration (CM-5)."""
    spec = msgspec.structs.replace(BY_NAME["set_pane_title"], name="new_tool")
    call = base_call(spec, IDS)
    assert call == {"pane_id": IDS.pane, "title": "fuzzed"}
    msgspec.convert(call, spec.args)
    two_panes = msgspec.structs.replace(BY_NAME["swap_pane"], name="new_tool")
    assert base_call(two_panes, IDS) == {"pane_id": IDS.pane, "other_pane_id": IDS.pane2}


def test_a_required_value_no_rule_can_choose_names_the_parameter() -> None:
    spec = msgspec.structs.replace(BY_NAME["search_panes"], name="new_tool")
    with pytest.raises(NoBaseValue, match=r"new_tool\.pattern: .*OVERRIDES"):
        base_call(spec, IDS)


def test_every_fuzzed_call_is_otherwise_valid() -> None:
    """With its own parameter at a valid value, each case's call decodes."""
    valid: dict[tuple[Sink, Encoding], Any] = {}
    for case in cases():
        base = base_call(case.spec, IDS)
        value = base.get(case.param.name, valid.get(case.key))
        if value is None:
            continue  # an optional parameter the base call leaves out
        msgspec.convert(arguments(case, IDS, value), case.spec.args)
    assert set(ADJUST) <= {str(case) for case in cases()}, "ADJUST names a missing parameter"


def test_every_name_parameter_says_what_it_names() -> None:
    names = {str(c) for c in cases() if c.key == (Sink.TMUX_FORMAT, Encoding.NAME_RULE)}
    assert names == set(NAME_KINDS)


def test_the_readme_states_every_property_and_known_bug() -> None:
    with open(README, encoding="utf-8") as f:
        text = f.read()
    for prop in {id(p): p for p in PROPERTIES.values()}.values():
        assert f"`{prop.name}`" in text, f"README does not state property {prop.name}"
    for bug in KNOWN_BUGS:
        assert f"`{bug.slug}`" in text, f"README does not list known bug {bug.slug}"
    for key in PROPERTIES:
        assert f"{key[0].value} / {key[1].value}" in text, f"README misses the pair {key}"
