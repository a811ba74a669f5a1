"""The fuzz suite covers the capability definition, in both directions.

* Every parameter of every tool in DEFINITION has a property for its
  (sink, encoding) pair, so a new parameter cannot ship unfuzzed.
* Every registered property is used by some parameter, so a property cannot
  outlive the parameters it was written for.
* Every tool has a valid base call, and every name parameter says what it
  names; both are needed before a tool's parameters can be fuzzed.
* The README lists every property, so the stated invariants match the code.
"""

from __future__ import annotations

import os
from typing import Any

import msgspec

from fuzz.harness import World
from fuzz.properties import (
    ADJUST,
    BASE,
    KNOWN_BUGS,
    NAME_KINDS,
    PROPERTIES,
    arguments,
    cases,
)
from tmuxmcp.definition import DEFINITION
from tmuxmcp.sinks import Encoding, Sink

IDS = World("$1", "@1", "%1", "%2", "$2", "@2", "buffer")
README = os.path.join(os.path.dirname(__file__), "README.md")


def test_every_parameter_has_a_property() -> None:
    missing = sorted({f"{case}: {case.key}" for case in cases() if case.key not in PROPERTIES})
    assert not missing, "parameters with no fuzz property (add one to fuzz/properties.py)"


def test_every_property_is_used_by_a_parameter() -> None:
    used = {case.key for case in cases()}
    unused = sorted(str(key) for key in PROPERTIES if key not in used)
    assert not unused, f"properties no parameter uses: {unused}"


def test_every_tool_has_a_valid_base_call() -> None:
    assert set(BASE) == {spec.name for spec in DEFINITION}
    for spec in DEFINITION:
        msgspec.convert(BASE[spec.name](IDS), spec.args)


def test_every_fuzzed_call_is_otherwise_valid() -> None:
    """With its own parameter at a valid value, each case's call decodes."""
    valid: dict[tuple[Sink, Encoding], Any] = {}
    for case in cases():
        base = BASE[case.spec.name](IDS)
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
