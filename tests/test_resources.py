"""Pane resources over a real stdio client (issue 14.5; CM-3, CM-5, CM-7).

``tmux://pane/{n}`` is the visible text of the pane ``%n``. The resource is
declared in the capability definition like a tool (observe, terminal
content, untrusted, may expose secrets); it exists only while the tools it is
read through are on the surface, and its ``n`` is validated as a pane id.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.shared.exceptions import MCPError

from tests.raw_client import handshake, raw_exchange
from tests.support import PrivateTmux, serve
from tmuxmcp.capability.describe import describe
from tmuxmcp.capability.encode import encode_arguments
from tmuxmcp.capability.model import params_of
from tmuxmcp.capability.vocabulary import Effect, OutputClass, Reach
from tmuxmcp.definition import RESOURCES
from tmuxmcp.errors import InvalidArguments
from tmuxmcp.sinks import Sink
from tmuxmcp.tools.resources import args_of_uri


def pane_of_uri(uri: str) -> str:
    """The pane id a URI reaches tmux as: decoded, then encoded as the server does."""
    return encode_arguments(args_of_uri(uri)).n


(INDEX, PANE) = RESOURCES


def test_the_pane_resource_is_declared_with_a_tools_honesty() -> None:
    """CM-2/CM-7: reach, effect, outputs, disclosures and the sink of n, from the definition."""
    assert PANE.uri_template == "tmux://pane/{n}"
    assert PANE.reach is Reach.NONE
    assert PANE.effects == {Effect.OBSERVE}
    assert PANE.outputs == {OutputClass.TERMINAL_CONTENT}
    assert PANE.returns_untrusted_content and PANE.may_expose_secrets
    (n,) = params_of(PANE)
    assert (n.name, n.sink) == ("n", Sink.TARGET)
    text = describe(PANE)
    assert text.startswith("Reach none (")
    assert "untrusted content" in text.lower() and "secrets" in text


def test_the_pane_index_is_declared_like_the_panes_it_leads_to() -> None:
    """CM-3, CM-7 (issue 29.3): the index is served exactly where the pane resources are,
    observes only, and declares its names and commands untrusted."""
    assert INDEX.uri_template == "tmux://panes" and not INDEX.is_template
    assert INDEX.requires == PANE.requires
    assert INDEX.reach is Reach.NONE and INDEX.effects == {Effect.OBSERVE}
    assert INDEX.returns_untrusted_content and INDEX.may_expose_secrets
    assert params_of(INDEX) == ()
    assert INDEX.names("tmux://panes") and not INDEX.names("tmux://panes/1")
    with pytest.raises(InvalidArguments, match="tmux://panes exactly"):
        INDEX.variables("tmux://panes/")


@pytest.mark.parametrize(
    ("uri", "pane"),
    [("tmux://pane/0", "%0"), ("tmux://pane/3", "%3"), ("tmux://pane/123456789", "%123456789")],
)
def test_a_pane_uri_names_its_pane(uri: str, pane: str) -> None:
    assert pane_of_uri(uri) == pane


@pytest.mark.parametrize(
    "uri",
    [
        "tmux://pane/%3",
        "tmux://pane/03",
        "tmux://pane/-1",
        "tmux://pane/3 ",
        "tmux://pane/3\n",
        "tmux://pane/",
        "tmux://pane/3/x",
        "tmux://pane/1234567890",
        "tmux://pane/٣",  # an Arabic-Indic digit: not a tmux pane number
        "tmux://window/3",
        "file:///etc/passwd",
        "tmux://pane/{n}",
        "tmux://pane/3;kill-server",
    ],
)
def test_other_uris_are_refused_with_what_a_valid_one_looks_like(uri: str) -> None:
    with pytest.raises(InvalidArguments) as raised:
        pane_of_uri(uri)
    assert "tmux://pane/3" in raised.value.message or "3 for %3" in raised.value.message


@given(st.text(max_size=40))
def test_any_uri_is_a_canonical_pane_id_or_refused(tail: str) -> None:
    """The n of a URI is caller input: only a canonical %n ever leaves the parser."""
    try:
        pane = pane_of_uri("tmux://pane/" + tail)
    except InvalidArguments:
        return
    assert pane == "%" + tail
    assert tail.isascii() and tail.isdigit() and (tail == "0" or not tail.startswith("0"))


async def test_panes_are_listed_offered_as_a_template_and_read(private_tmux: PrivateTmux) -> None:
    ids = private_tmux.new_session("res")
    private_tmux.bare("send-keys", "-t", ids["pane_id"], "echo resource-marker-$((6*7))", "Enter")
    await private_tmux.wait_for_screen(ids["pane_id"], "resource-marker-42")
    async with serve(private_tmux) as session:
        templates = (await session.list_resource_templates()).resource_templates
        listed = (await session.list_resources()).resources
        uri = f"tmux://pane/{ids['pane_id'][1:]}"
        read = await session.read_resource(uri)
        with pytest.raises(MCPError) as missing:
            await session.read_resource("tmux://pane/999999")
        with pytest.raises(MCPError) as malformed:
            await session.read_resource("tmux://pane/%0")
        alive = await session.call_tool("list_sessions", {})
    (template,) = templates
    assert template.uri_template == "tmux://pane/{n}"
    assert template.description == describe(PANE)
    assert [str(r.uri) for r in listed] == ["tmux://panes", uri]  # the index first (29.3)
    assert listed[1].name == ids["pane_id"]
    (content,) = read.contents
    assert str(content.uri) == uri
    assert "resource-marker-42" in getattr(content, "text", "")
    assert content.mime_type == "text/plain"
    assert "object-not-found" in missing.value.error.message
    assert "3 for %3" in malformed.value.error.message
    assert not alive.is_error, "bad resource reads lose nothing"


def _raw_resources(tmux: PrivateTmux, *args: str) -> dict[int, dict[str, Any]]:
    def request(id_: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}

    replies, _ = raw_exchange(
        tmux.env,
        args,
        [
            *handshake(),
            request(2, "resources/list", {}),
            request(3, "resources/templates/list", {}),
            request(4, "resources/read", {"uri": "tmux://pane/0"}),
            request(5, "prompts/list", {}),  # never served: the error of a missing method
            request(6, "tools/call", {"name": "server_info", "arguments": {}}),
        ],
    )
    return replies


def test_resources_follow_the_surface(private_tmux: PrivateTmux) -> None:
    """CM-3: without capture_pane on the surface no pane resource exists, as if never had."""
    private_tmux.new_session("hidden")
    served = _raw_resources(private_tmux)
    assert "resources" in served[1]["result"]["capabilities"]
    assert "result" in served[2] and "result" in served[4]
    surface = served[6]["result"]["structuredContent"]["info"]["surface"]
    assert surface["resources"] == ["tmux://panes", "tmux://pane/{n}"]

    hidden = _raw_resources(private_tmux, "--exclude-tools", "capture_pane")
    assert "resources" not in hidden[1]["result"]["capabilities"]
    missing = hidden[5]["error"]["code"]
    assert [hidden[i]["error"]["code"] for i in (2, 3, 4)] == [missing] * 3
    surface = hidden[6]["result"]["structuredContent"]["info"]["surface"]
    assert surface["resources"] == []


async def test_resource_reads_are_audited_without_leaking_the_uri(
    private_tmux: PrivateTmux,
) -> None:
    ids = private_tmux.new_session("audited")
    log = os.path.join(private_tmux.directory, "audit.jsonl")
    secret = "hunter2-not-a-pane"
    async with serve(private_tmux, "--audit-log", log) as session:
        await session.read_resource(f"tmux://pane/{ids['pane_id'][1:]}")
        with pytest.raises(MCPError):
            await session.read_resource(f"tmux://pane/{secret}")
    with open(log, encoding="utf-8") as f:
        raw = f.read()
    records = [json.loads(line) for line in raw.splitlines()]
    reads = [r for r in records if r["tool"] == "resource:pane"]
    assert [r["outcome"] for r in reads] == ["ok", "invalid-arguments"]
    assert set(reads[0]["arguments"]) == {"n"}  # the declared variable, never unknown
    assert secret not in raw


async def test_resource_listings_are_audited_like_tool_calls(private_tmux: PrivateTmux) -> None:
    """Issue 21.4: resources/list is served through the definition and written to the audit log."""
    ids = private_tmux.new_session("listed")
    log = os.path.join(private_tmux.directory, "audit.jsonl")
    async with serve(private_tmux, "--audit-log", log) as session:
        listed = (await session.list_resources()).resources
    assert [str(r.uri) for r in listed] == ["tmux://panes", f"tmux://pane/{ids['pane_id'][1:]}"]
    with open(log, encoding="utf-8") as f:
        records = [json.loads(line) for line in f.read().splitlines()]
    for name in ("resource:panes/list", "resource:pane/list"):
        listings = [r for r in records if r["tool"] == name]
        assert [(r["outcome"], r["arguments"]) for r in listings] == [("ok", {})], name
