"""Encoding is a step of the dispatcher, driven by the declarations (CM-5, issue 10.2).

* every declared encoding has an encoder, and every parameter of every tool
  and resource goes through the encoder its declaration names, list elements
  one by one (a spy table, so nothing here depends on an encoder's rule);
* the real encoders do what their sink needs, on the values a handler gets;
* a parameter without a sink, or with an unknown encoding, cannot be declared;
* the dispatcher refuses a call whose encoder refuses, so no handler runs on a
  raw value and tmux is asked nothing.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

import msgspec
import pytest
from msgspec import Meta

from tests.fake_support import fake_runtime
from tmuxmcp import server
from tmuxmcp.capability import encode
from tmuxmcp.capability.encode import encode_arguments
from tmuxmcp.capability.model import ToolSpec, UnclassifiedParameter, params_of
from tmuxmcp.definition import BY_NAME, DEFINITION, RESOURCES
from tmuxmcp.driver.fake import FakeTmux
from tmuxmcp.errors import UnsafeValue
from tmuxmcp.sinks import Encoding
from tmuxmcp.sinks.encoders import ENCODERS, Rule
from tmuxmcp.tools import capture, execute, inspect, manage, resources
from tmuxmcp.tools.keystrokes import TextPart

SPECS = (*DEFINITION, *RESOURCES)


def test_every_encoding_has_exactly_one_encoder() -> None:
    assert set(ENCODERS) == set(Encoding)


class _Raw:
    """A caller value no encoder would accept: only a spy can pass it on."""

    def __init__(self, where: str) -> None:
        self.where = where


class _Encoded:
    def __init__(self, encoding: Encoding, rule: Rule, raw: _Raw) -> None:
        self.encoding, self.rule, self.raw = encoding, rule, raw


def _no_rules(self: object) -> None:
    """A ``__post_init__`` that checks nothing."""


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_the_dispatcher_applies_each_declared_encoding_to_each_parameter(
    spec: ToolSpec[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[Encoding, str]] = []

    def spy(encoding: Encoding) -> Any:
        def encoder(value: _Raw, rule: Rule) -> _Encoded:
            calls.append((encoding, value.where))
            return _Encoded(encoding, rule, value)

        return encoder

    monkeypatch.setattr(encode, "ENCODERS", {e: spy(e) for e in Encoding})
    host_calls: list[tuple[str, str]] = []

    def host_check(value: _Raw, param: str) -> None:
        assert isinstance(value, _Raw), "the host is asked about the caller's value"
        host_calls.append((param, value.where))

    monkeypatch.setattr(encode, "HOST_CHECKS", dict.fromkeys(encode.HOST_CHECKS, host_check))
    params = params_of(spec)
    raw = {
        p.attr: [_Raw(f"{p.attr}[0]"), _Raw(f"{p.attr}[1]")] if p.elements else _Raw(p.attr)
        for p in params
    }
    # The Struct constructor validates nothing, so raw values reach the step; every
    # parameter is given at once, so the cross-field rules (``__post_init__``) are
    # left out: a subclass without them has the same declared fields.
    unchecked = type(spec.args.__name__, (spec.args,), {"__post_init__": _no_rules})
    encoded = encode_arguments(unchecked(**raw))
    expected = []
    for p in params:
        wheres = [f"{p.attr}[0]", f"{p.attr}[1]"] if p.elements else [p.attr]
        expected += [(p.encoding, w) for w in wheres]
        got = getattr(encoded, p.attr)
        for value in got if p.elements else [got]:
            assert isinstance(value, _Encoded), f"{spec.name}.{p.name} reached the handler raw"
            assert value.encoding is p.encoding
            assert value.rule.param == p.name
    assert sorted(calls) == sorted(expected)
    asked = [
        (p.name, w)
        for p in params
        if p.encoding in encode.HOST_CHECKS
        for w in ([f"{p.attr}[0]", f"{p.attr}[1]"] if p.elements else [p.attr])
    ]
    assert sorted(host_calls) == sorted(asked)


def test_an_absent_optional_parameter_is_not_encoded(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []

    def record(value: object, rule: Rule) -> object:
        seen.append(value)
        return value

    monkeypatch.setattr(encode, "ENCODERS", {e: record for e in Encoding})
    encode_arguments(manage.CreateSessionArgs())
    assert seen == []


def test_the_real_encoders_hand_the_handler_what_the_sink_needs() -> None:
    renamed = encode_arguments(manage.RenameArgs(session_id="$1", name="a#{b}"))
    assert renamed.name == "a##{b}"  # format-escaped: tmux expands it back to the name
    text = TextPart(text="a\tb")
    keys = encode_arguments(execute.SendKeysArgs(pane_id="%1", keys=["C-c", text, "q", "Enter"]))
    sent: list[object] = list(keys.keys)
    assert sent == ["C-c", text, "q", "Enter"]  # keys and text parts, in order
    pane = encode_arguments(resources.PaneResourceArgs(n="7"))
    assert pane.n == "%7"


@pytest.mark.parametrize(
    ("args", "param"),
    [
        (inspect.ListPanesArgs(pane_id="%01"), "pane_id"),
        (inspect.ListPanesArgs(pane_id="%1\n"), "pane_id"),
        (manage.RenameArgs(session_id="$1", name="a\\b"), "name"),
        (manage.CreateSessionArgs(start_directory="relative/dir"), "start_directory"),
        (execute.SendKeysArgs(pane_id="%1", keys=[TextPart(text="\x1b[2J")]), "keys"),
        (execute.SendKeysArgs(pane_id="%1", keys=["Ctrl-C"]), "keys"),
        (execute.SendKeysArgs(pane_id="%1", keys=["x"], bracketed_paste=1), "bracketed_paste"),  # type: ignore[arg-type]
        (execute.PasteBufferArgs(pane_id="%1", buffer="a\tb"), "buffer"),
        (manage.CreateSessionArgs(width=0), "width"),
        (capture.CapturePaneArgs(pane_id="%1", max_lines=10**9), "max_lines"),
    ],
    ids=lambda v: v if isinstance(v, str) else type(v).__name__,
)
def test_a_value_the_schema_would_stop_is_refused_again_by_its_encoder(
    args: msgspec.Struct, param: str
) -> None:
    """The schema is the first gate; the declared encoder is the authoritative second."""
    with pytest.raises(UnsafeValue, match=f"`{param}`"):
        encode_arguments(args)


def test_a_parameter_without_a_sink_cannot_be_declared() -> None:
    class Args(msgspec.Struct):
        name: str

    with pytest.raises(UnclassifiedParameter, match=r"probe\.name"):
        msgspec.structs.replace(DEFINITION[0], name="probe", args=Args)


def test_a_parameter_with_an_unknown_encoding_cannot_be_declared() -> None:
    class Args(msgspec.Struct):
        name: Annotated[str, Meta(extra={"sink": "literal", "encoding": "trust-me"})]

    with pytest.raises(UnclassifiedParameter, match=r"probe\.name"):
        msgspec.structs.replace(DEFINITION[0], name="probe", args=Args)


def test_closed_choices_stay_what_the_decoder_made_them() -> None:
    layout = encode_arguments(manage.SelectLayoutArgs(window_id="@1", layout="tiled"))
    assert layout.layout == "tiled" and not isinstance(layout.layout, Enum)


async def test_a_refusing_encoder_stops_the_call_before_its_handler(
    fake: FakeTmux, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the dispatcher of a served runtime: the encoding step, not the handler,
    decides, and tmux is asked nothing (on the fake world, which fails any command it
    was not told to expect: issue 30.2)."""
    state = fake_runtime(fake)

    def refuse(value: object, rule: Rule) -> object:
        raise UnsafeValue(f"`{rule.param}` refused by the test encoder")

    table = dict(ENCODERS)
    table[Encoding.ID_ONLY] = refuse
    monkeypatch.setattr(encode, "ENCODERS", table)
    ran: list[str] = []
    spec = BY_NAME["list_panes"]

    async def handler(ctx: object, args: object) -> msgspec.Struct:
        ran.append("handler")
        raise AssertionError("the handler ran")

    monkeypatch.setitem(BY_NAME, "list_panes", msgspec.structs.replace(spec, handler=handler))
    result = await server.call(state, "list_panes", {"pane_id": "%0"})
    assert result.is_error
    assert "`pane_id` refused by the test encoder" in result.content[0].text
    assert ran == []
    assert fake.calls == []


# The generator of run_command's script quotes its own file paths, and the
# already encoded command's first line for the typed ` : '...'` label, as shell
# words: that is the sink's delivery, not a caller value's encoding.
_DELIVERY = {("runscript", "quote_word")}


def test_no_handler_module_imports_a_sink_encoder() -> None:
    """A handler cannot encode by hand, so it cannot encode differently (or forget)."""
    import ast
    from pathlib import Path

    import tmuxmcp.tools

    encoders = {"quote_word"}
    for module in Path(tmuxmcp.sinks.__file__).parent.glob("*.py"):
        tree = ast.parse(module.read_text())
        encoders |= {
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("encode")
        }
    assert {"encode_id", "encode_name", "encode_text", "encode_command"} <= encoders
    found = []
    for module in Path(tmuxmcp.tools.__file__).parent.rglob("*.py"):
        tree = ast.parse(module.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tmuxmcp.sinks"):
                found += [
                    (module.stem, alias.name)
                    for alias in node.names
                    if alias.name in encoders and (module.stem, alias.name) not in _DELIVERY
                ]
    assert found == []
