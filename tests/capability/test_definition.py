"""The capability definition is complete and internally consistent (CM-2, CM-5, CM-6)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from tmuxmcp.capability.describe import describe, reach_and_effect
from tmuxmcp.capability.model import (
    ResourceSpec,
    ToolSpec,
    Waits,
    declare_resource,
    declare_tool,
    params_of,
)
from tmuxmcp.capability.schema import input_schema
from tmuxmcp.capability.vocabulary import Effect, OutputClass, Reach, Toolset
from tmuxmcp.definition import BY_NAME, DEFINITION, RESOURCES
from tmuxmcp.sinks import Sink


def test_tool_names_are_unique_and_each_tool_declares_its_own_handler() -> None:
    assert len(BY_NAME) == len(DEFINITION), "tool names must be unique"
    handlers = [spec.handler for spec in DEFINITION]
    assert len(set(handlers)) == len(handlers), "two tools share one handler"
    for spec in DEFINITION:
        assert spec.handler.__name__ == spec.name, f"{spec.name} declares {spec.handler}"


@pytest.mark.parametrize("spec", DEFINITION, ids=lambda s: s.name)
def test_no_tool_declares_host_command_reach(spec: ToolSpec[Any, Any]) -> None:
    """CM-6: host-command exists only to name the prohibited capability."""
    assert spec.reach is not Reach.HOST_COMMAND


@pytest.mark.parametrize("spec", DEFINITION, ids=lambda s: s.name)
def test_declared_properties_use_the_closed_vocabularies(spec: ToolSpec[Any, Any]) -> None:
    """CM-2 and CM-3: one toolset, one reach, a non-empty effect set, known output classes."""
    assert isinstance(spec.toolset, Toolset)
    assert isinstance(spec.reach, Reach)
    assert spec.effects and all(isinstance(e, Effect) for e in spec.effects)
    assert all(isinstance(o, OutputClass) for o in spec.outputs)
    assert re.fullmatch(r"[a-z][a-z0-9_]{0,63}", spec.name)
    for op in spec.nested:
        assert op in BY_NAME, f"{spec.name} nests unknown operation {op}"


@pytest.mark.parametrize("spec", DEFINITION, ids=lambda s: s.name)
def test_every_parameter_is_classified_by_sink(spec: ToolSpec[Any, Any]) -> None:
    """CM-5: every caller-controlled input names the interpreter boundary it reaches."""
    params = params_of(spec)
    fields = [f.encode_name for f in msgspec.structs.fields(spec.args)]
    assert [p.name for p in params] == fields
    for param in params:
        assert isinstance(param.sink, Sink)


@pytest.mark.parametrize("spec", DEFINITION, ids=lambda s: s.name)
def test_input_schema_is_generated_from_the_argument_struct(spec: ToolSpec[Any, Any]) -> None:
    schema = input_schema(spec.args)
    assert schema["type"] == "object"
    assert schema.get("additionalProperties") is False
    assert list(schema.get("properties", {})) == [p.name for p in params_of(spec)]
    required = {p.name for p in params_of(spec) if p.required}
    assert set(schema.get("required", [])) == required


@pytest.mark.parametrize("spec", DEFINITION, ids=lambda s: s.name)
def test_description_opens_with_reach_and_effect(spec: ToolSpec[Any, Any]) -> None:
    """CM-7: the description begins with the plain-language reach and effect."""
    text = describe(spec)
    assert text.startswith(f"Reach {spec.reach.value} (")
    assert text.startswith(reach_and_effect(spec))
    assert text.index("; tmux effect ") < 100
    for effect in spec.effects:
        assert effect.value in reach_and_effect(spec)
    if spec.returns_untrusted_content:
        assert "untrusted content" in text.lower()
    if spec.may_expose_secrets:
        assert "secrets" in text
    if spec.reach is not Reach.NONE:
        assert "tmux user's authority" in text


def test_a_wait_that_continues_as_a_task_names_its_deadline_argument() -> None:
    """Issue 29.2: ``continues=Waits()`` cuts the wait's deadline argument to the task's TTL;
    a declaration naming an argument the tool does not have cannot be made, and every
    declared wait has one."""
    spec = BY_NAME["wait_for_text"]
    with pytest.raises(TypeError, match="names no argument 'until'"):
        msgspec.structs.replace(spec, continues=Waits(deadline="until"))
    waits = [s for s in DEFINITION if isinstance(s.continues, Waits)]
    assert [s.name for s in waits] == ["wait_for_command", "wait_for_text", "wait_for_state"]
    for wait in waits:
        assert isinstance(wait.continues, Waits)
        names = [field.name for field in msgspec.structs.fields(wait.args)]
        assert wait.continues.deadline in names, wait.name


@pytest.mark.parametrize(
    ("declare", "spec_class"),
    [(declare_tool, ToolSpec), (declare_resource, ResourceSpec)],
    ids=["declare_tool", "declare_resource"],
)
def test_the_declaring_functions_take_exactly_the_spec_fields(
    declare: Callable[..., ToolSpec[Any, Any]], spec_class: type[ToolSpec[Any, Any]]
) -> None:
    """``declare_tool`` and ``declare_resource`` (issue 30.4) restate the spec's fields so
    mypy can check each entry alone: a field added to the spec, or a changed default,
    must be added to them too, keyword-only."""
    fields = {
        f.name: inspect.Parameter.empty if f.default is msgspec.NODEFAULT else f.default
        for f in msgspec.structs.fields(spec_class)
    }
    parameters = inspect.signature(declare).parameters
    assert {name: p.default for name, p in parameters.items()} == fields
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters.values())


def test_every_entry_is_the_spec_it_declares() -> None:
    """The declaring functions change nothing at run time: each entry is the spec class
    itself, equal to the spec built from its own fields."""
    for spec in (*DEFINITION, *RESOURCES):
        assert type(spec) in (ToolSpec, ResourceSpec)
        rebuilt = type(spec)(**msgspec.structs.asdict(spec))
        assert rebuilt == spec
