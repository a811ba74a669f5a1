"""Disclosures derived from the results (issue 12.6, CM-7 untrusted and sensitive output).

Every text field of every result type declares who controls its bytes; a
tool's ``returns_untrusted_content`` and ``may_expose_secrets`` follow from
that. The live test makes a pane program set its session's name and its
window's name, and checks that every tool whose result then carries that text
discloses it in what the server publishes.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
import trio

from tests.support import PrivateTmux, serve, structured
from tmuxmcp.capability.manifest import definition_manifest
from tmuxmcp.capability.results import (
    Content,
    Name,
    TmuxId,
    UnclassifiedResultField,
    contents_of,
    disclosures_of,
)
from tmuxmcp.definition import DEFINITION


class Bare(msgspec.Struct):
    pane_id: TmuxId
    title: str


@pytest.mark.parametrize("spec", DEFINITION, ids=lambda s: s.name)
def test_every_text_field_of_every_result_is_classified(spec: Any) -> None:
    contents_of(spec.result)  # raises UnclassifiedResultField for a bare str or Any


def test_an_unclassified_text_field_is_a_definition_error() -> None:
    with pytest.raises(UnclassifiedResultField, match=r"Bare\.title"):
        contents_of(Bare)


class Inner(msgspec.Struct):
    name: Name


class Outer(msgspec.Struct):
    pane_id: TmuxId
    nested: list[Inner] | None


def test_pane_controlled_text_anywhere_in_a_result_is_disclosed() -> None:
    assert contents_of(Outer) == {"Outer.pane_id": Content.TMUX_ID, "Outer.nested[].name": "name"}
    assert disclosures_of(Outer) == (True, True)


def _walk_strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _walk_strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _walk_strings(item)]
    return []


async def test_tools_that_return_pane_set_names_disclose_them(private_tmux: PrivateTmux) -> None:
    """A pane program renames its session and window; whoever returns them says so."""
    marker = "PANE-SET-NAME"
    async with serve(private_tmux) as session:
        ids = private_tmux.new_session("plain")
        pane = ids["pane_id"]
        # The pane's shell talks to its own server through $TMUX, as any pane
        # program can; tmuxmcp never sees this happen.
        private_tmux.bare(
            "send-keys",
            "-t",
            pane,
            f"tmux rename-session {marker}-s; tmux rename-window {marker}-w",
            "Enter",
        )
        with trio.fail_after(10):
            while (
                f"{marker}-s {marker}-w"
                != private_tmux.bare(
                    "display-message", "-p", "-t", pane, "#{session_name} #{window_name}"
                ).stdout.strip()
            ):
                await trio.sleep(0.02)
        with_marker: set[str] = set()
        calls: list[tuple[str, dict[str, Any]]] = [
            ("list_sessions", {}),
            ("list_windows", {}),
            ("create_window", {"session_id": ids["session_id"]}),
            ("split_pane", {"pane_id": pane}),
            ("select_layout", {"window_id": ids["window_id"], "layout": "tiled"}),
            ("select", {"window_id": ids["window_id"]}),
            ("kill_pane", {"pane_id": pane}),
        ]
        for name, arguments in calls:
            result = structured(await session.call_tool(name, arguments))
            if any(marker in text for text in _walk_strings(result)):
                with_marker.add(name)
        published = structured(await session.call_tool("server_info", {"detail": True}))
    tools = {t["name"]: t for t in published["info"]["surface"]["tools"]}
    assert {"list_sessions", "create_window", "split_pane", "select_layout"} <= with_marker
    for name in with_marker:
        assert tools[name]["returns_untrusted_content"] is True, name


def test_the_manifest_publishes_each_result_field_class_with_the_flags_it_implies() -> None:
    """Machine-readable: a reader of capabilities.json can re-derive both flags."""
    manifest = definition_manifest(DEFINITION)
    pane_chosen = {"name", "process", "terminal"}
    for tool in manifest["tools"]:
        classes = set(tool["result_content"].values())
        assert tool["returns_untrusted_content"] is bool(classes & pane_chosen), tool["name"]
        assert tool["may_expose_secrets"] is bool(classes & pane_chosen), tool["name"]
        if "terminal" in classes:
            assert "terminal-content" in tool["output_classes"], tool["name"]


class Captured(msgspec.Struct):
    pane_id: TmuxId
    name: Name


def test_disclosures_are_derived_once_per_result_type(monkeypatch: pytest.MonkeyPatch) -> None:
    """Startup builds every description, asking both disclosures per tool: one walk per type."""
    import msgspec.inspect

    walked: list[object] = []
    real = msgspec.inspect.type_info

    def counting(t: Any) -> Any:
        walked.append(t)
        return real(t)

    monkeypatch.setattr(msgspec.inspect, "type_info", counting)
    first = disclosures_of(Captured)
    assert disclosures_of(Captured) == first
    assert first[0], "a name a pane program can set is untrusted content"
    assert walked == [Captured]
