"""Byte budgets of what a model reads (issue 14.1, 14.2), over a real stdio client.

A client puts the tool list in a model's context in every conversation and
shows a model each tool result, some the structuredContent only (Claude
Code), others the text. So both are measured as the project's probe
(``before-stop`` section 4b) measures them, over raw JSON-RPC lines: the
``tools/list`` result for the default full surface as a client forwards it to
a model (each tool's ``name``, ``description`` and ``inputSchema``: Claude
Code forwards only those, issue 18.3), and ``server_info``'s default result as the UTF-8 text plus
the structuredContent, each as compact JSON. Every disclosure CM-7 requires
stays inside the budgets.
"""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

import pytest

from tests.raw_client import RawClient
from tests.support import PrivateTmux, serve, structured
from tmuxmcp.capability.vocabulary import EFFECT_ORDER, Reach
from tmuxmcp.definition import BY_NAME, DEFINITION
from tmuxmcp.tools.server_info import MAX_SERVER_INFO_BYTES

TOOL_LIST_BUDGET = 24_000
"""Bytes of the default full tool list as forwarded to a model (issues 14.1, 18.3)."""

FORWARDED = ("name", "description", "inputSchema")
"""The fields of a tool a client puts in a model's context; annotations,
titles and output schemas stay with the client."""


def _compact(value: Any) -> int:
    """Bytes of ``value`` as compact JSON, as the probe counts them."""
    return len(json.dumps(value, separators=(",", ":")))


def _probe(tmux: PrivateTmux) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One server, as the probe runs it: ``tools/list``, then ``server_info`` by default."""
    with RawClient(tmux.env) as client:
        tools: list[dict[str, Any]] = client.request("tools/list", {})["result"]["tools"]
        info = client.call("server_info", {})
    return tools, info


def _server_info_size(result: dict[str, Any]) -> tuple[int, str, dict[str, Any]]:
    """Probe size of a ``server_info`` result, its text and its structuredContent."""
    assert result["isError"] is False, result
    text = "".join(c.get("text", "") for c in result["content"])
    body: dict[str, Any] = result["structuredContent"]
    return len(text.encode()) + _compact(body), text, body


def test_the_tool_list_fits_the_budget_as_the_probe_measures_it(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 18.3: name, description and inputSchema of every tool, compact JSON, <= 24,000 B."""
    tools, _ = _probe(private_tmux)
    assert [t["name"] for t in tools] == [spec.name for spec in DEFINITION], "full surface"
    seen = {"tools": [{k: t[k] for k in FORWARDED} for t in tools]}
    size = _compact(seen)
    print(f"tools/list as forwarded: {size} B for {len(tools)} tools")
    assert size <= TOOL_LIST_BUDGET, f"{size} B > {TOOL_LIST_BUDGET}"
    for tool in tools:  # the shorter wording keeps every CM-7 disclosure
        spec = BY_NAME[tool["name"]]
        text = tool["description"]
        assert text.startswith(f"Reach {spec.reach.value} ("), tool["name"]
        effects = ", ".join(e.value for e in EFFECT_ORDER if e in spec.effects)
        assert f"tmux effect {effects}." in text, tool["name"]
        assert ("untrusted content" in text.lower()) is spec.returns_untrusted_content, spec.name
        assert ("secrets" in text) is spec.may_expose_secrets, tool["name"]
        assert ("tmux user's authority" in text) is (spec.reach is not Reach.NONE), spec.name


def test_the_tool_list_sets_every_hint_and_no_null_in_an_input(private_tmux: PrivateTmux) -> None:
    """Issue 14.1: what the budget cut, and (18.3, CM-4) what it must not cut.

    Every tool sets its title and all four hints (on this surface all
    cautious), since the budget no longer counts annotations; no null in an
    input schema for an optional argument (absent says it; the Inspector's
    ``type-union`` warning). Output schemas keep their nulls as ``anyOf``
    branches, since results carry them.
    """
    tools, _ = _probe(private_tmux)
    for tool in tools:
        spec = BY_NAME[tool["name"]]
        assert tool["title"] == spec.title
        assert tool["annotations"] == {
            "title": spec.title,
            "readOnlyHint": False,
            "destructiveHint": True,
            "idempotentHint": False,
            "openWorldHint": True,
        }, spec.name
        for name, schema in tool["inputSchema"].get("properties", {}).items():
            assert not isinstance(schema.get("type"), list), f"{spec.name}.{name}: {schema}"
            assert None not in schema.get("enum", []), f"{spec.name}.{name}: {schema}"
            assert "anyOf" not in schema or name in tool["inputSchema"]["required"], name
        assert '["integer","null"]' not in json.dumps(tool["outputSchema"], separators=(",", ":"))
    outputs = json.dumps([t["outputSchema"] for t in tools])
    assert '{"type": "null"}' in outputs, "nullable result fields keep an anyOf null branch"


@pytest.mark.parametrize("foreign", [False, True], ids=["fresh-socket", "foreign-server"])
def test_server_info_by_default_fits_the_budget_in_both_forms(
    private_tmux: PrivateTmux, foreign: bool
) -> None:
    """Issue 14.2: socket, provenance, version, verification, toolsets on and off with
    the reason, tool names; text plus structuredContent <= 4,000 B, as the probe counts.

    On a foreign server (unknown provenance) teardown is off and both forms say why.
    """
    # The same on every machine: no verification record (the longer "not
    # verified" form), and tmux at a path of one length, since the binary's
    # path is printed four times and a checkout's .ci/tmux/X/bin can be long.
    private_tmux.env["XDG_CACHE_HOME"] = private_tmux.directory
    tmux = shutil.which("tmux", path=private_tmux.env.get("PATH"))
    assert tmux is not None
    shutil.copy2(os.path.realpath(tmux), os.path.join(private_tmux.directory, "tmux"))
    private_tmux.env["PATH"] = os.pathsep.join([private_tmux.directory, private_tmux.env["PATH"]])
    if foreign:
        private_tmux.start_foreign_server()
    tools, result = _probe(private_tmux)
    listed = [t["name"] for t in tools]
    size, text, body = _server_info_size(result)
    print(f"server_info default ({'foreign' if foreign else 'fresh'}): {size} B")
    assert size <= MAX_SERVER_INFO_BYTES, f"{size} B > {MAX_SERVER_INFO_BYTES}"
    info = body["info"]
    assert info["surface"]["tools"] == listed
    assert info["server"]["provenance"] == ("unknown" if foreign else "minimal")
    assert info["server"]["tmux_version"] in private_tmux.bare("-V").stdout
    assert info["socket"]["path"].startswith(private_tmux.directory)
    assert "verified" in body["sink_claims"]
    # The text says the same facts in prose, not as a JSON document.
    assert not text.lstrip().startswith("{")
    assert all(name in text for name in listed)
    assert info["socket"]["path"] in text
    assert f"provenance {info['server']['provenance']}" in text
    assert f"tmux {info['server']['tmux_version']}" in text
    assert body["sink_claims"]["verified"] is False
    assert ": proven in CI; " in text or ": not proven in CI; " in text
    assert "; not verified on this machine yet (" in text
    assert body["sink_claims"]["how_to_verify"] in text
    assert "not a sandbox" in text
    assert any("not a sandbox" in notice for notice in info["notices"])
    if foreign:
        (off,) = info["surface"]["toolsets_off"]
        assert off["toolset"] == "teardown"
        assert "provenance is unknown" in off["reason"]
        assert "--toolsets" in off["enable"]
        assert "teardown" not in info["surface"]["toolsets"]
        assert off["reason"] in text and off["enable"] in text
    else:
        assert info["surface"]["toolsets_off"] == []
        assert "teardown" in info["surface"]["toolsets"]


async def test_server_info_detail_adds_each_tools_declared_properties(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 14.2: the per-tool surface (CM-2 properties, CM-4 annotations) is behind detail."""
    async with serve(private_tmux) as session:
        compact = await session.call_tool("server_info", {"detail": False})
        detailed = await session.call_tool("server_info", {"detail": True})
    tools = structured(detailed)["info"]["surface"]["tools"]
    assert [t["name"] for t in tools] == structured(compact)["info"]["surface"]["tools"]
    for tool in tools:
        spec = BY_NAME[tool["name"]]
        assert tool["process_reach"] == spec.reach.value
        assert tool["returns_untrusted_content"] is spec.returns_untrusted_content
        assert set(tool["annotations"]) == {
            "title",
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        }
    body = structured(detailed)["info"]
    assert "teardown_rule" in body["surface"]
    assert set(body["annotation_evidence"]) >= {"minimal_provenance", "per_call_check"}
    (text,) = [c.text for c in detailed.content if c.type == "text"]
    run = next(line for line in text.splitlines() if line.startswith("- run_command:"))
    assert "reach pane-command" in run
    assert "readOnlyHint=no" in run
