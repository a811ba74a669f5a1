"""Invariants 3 and 4 over the real wire: any JSON to any tool, the server keeps serving.

A real ``python -m tmuxmcp`` subprocess (``--toolsets all``, bound to the
harness's private server) receives ``tools/call`` requests whose arguments
are any JSON value: arbitrary objects, valid calls with one argument replaced
by anything, unknown keys, and non-objects; strings carry NUL, lone
surrogates (as JSON escapes), control characters and megabytes. After every
call:

* the reply is a tool result, whose error text starts with one of tmuxmcp's
  slugs and is never ``internal-error``; a JSON-RPC error is allowed only
  where the protocol itself rejects the request: arguments that are not an
  object (code -32602), or a line longer than the wire reads (code -32600);
* ``ping`` still answers, and stderr holds no traceback;
* the bystander session and buffer are unchanged and no sentinel exists.

Waiting tools (``run_command``, ``wait_for_text``) get their ``timeout`` capped
at one second so an example cannot wait for minutes; the timeouts' own
ranges are fuzzed by the sink properties.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fuzz.calls import base_call
from fuzz.harness import PLACEHOLDERS, REFERENCES, Harness, slug_of
from fuzz.profiles import fuzz_settings
from fuzz.strategies import hostile_text, huge_text, json_values
from tests.raw_client import RawClient
from tmuxmcp.capability.model import params_of
from tmuxmcp.definition import BY_NAME, DEFINITION
from tmuxmcp.protocol.wire import MAX_LINE_BYTES

WAITING = ("run_command", "wait_for_command", "wait_for_text", "wait_for_state")
SHAPES = (
    "valid",
    "hostile-string",
    "hostile-string",
    "replace",
    "arbitrary",
    "extra",
    "not-an-object",
)
"""valid: a valid call; hostile-string: one argument replaced by hostile text;
replace: by any JSON value or megabytes; arbitrary: any object; extra: an
unknown key added; not-an-object: arguments that are not a JSON object."""


@pytest.fixture(scope="module")
def wire(fuzz_harness: Harness) -> Iterator[RawClient]:
    """tmuxmcp over stdio, bound to the harness's server, every toolset enabled."""
    client = RawClient(
        fuzz_harness.tmux.env, "--toolsets", "all", cwd=fuzz_harness.scratch, name="fuzz"
    )
    try:
        yield client
    finally:
        status = client.close()
        assert "Traceback" not in client.stderr()
        assert status == 0, client.stderr()


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, Any]:
    """A tool name and any JSON value as its arguments."""
    tool = draw(st.sampled_from(sorted(spec.name for spec in DEFINITION)))
    params = [p.name for p in params_of(BY_NAME[tool])]
    shape = draw(st.sampled_from(SHAPES))
    anything = st.one_of(json_values(), huge_text())
    if shape == "hostile-string":
        anything = hostile_text()
    if shape == "not-an-object":
        return tool, draw(json_values().filter(lambda v: not isinstance(v, dict)))
    if shape == "arbitrary":
        keys = st.one_of(st.sampled_from(params or ["x"]), hostile_text(max_size=6))
        return tool, draw(st.dictionaries(keys, anything, max_size=5))
    arguments = base_call(BY_NAME[tool], PLACEHOLDERS)
    if shape == "valid":
        return tool, arguments
    if shape == "extra" or not params:
        arguments[draw(hostile_text(max_size=8))] = draw(anything)
    else:
        arguments[draw(st.sampled_from(params))] = draw(anything)
    return tool, arguments


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)


def _cap_waiting(tool: str, arguments: Any) -> Any:
    if tool in WAITING and isinstance(arguments, dict):
        timeout = arguments.get("timeout")
        if timeout is None or (
            isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 1
        ):
            arguments["timeout"] = 1
    return arguments


def _over_the_line_limit(tool: str, arguments: Any) -> bool:
    """Whether the request's line is longer than the wire reads (``MAX_LINE_BYTES``).

    Megabytes of non-ASCII text are six or twelve bytes a character once
    JSON-escaped; the envelope around the params adds well under 1 KiB.
    """
    params = json.dumps({"name": tool, "arguments": arguments})
    return len(params) > MAX_LINE_BYTES - 1024


def _check_reply(reply: dict[str, Any], tool: str, arguments: Any) -> None:
    if "error" in reply and _over_the_line_limit(tool, arguments):
        # The wire refuses the whole line before it is a request (tmuxmcp.protocol.wire, Rule 1).
        assert reply["error"]["code"] == -32600, reply
        assert "tmuxmcp reads lines of at most" in reply["error"]["message"], reply
        return
    if "error" in reply:
        assert not isinstance(arguments, dict), f"protocol error for an object: {reply}"
        assert reply["error"]["code"] == -32602, reply
        return
    result = reply["result"]
    texts = [block.get("text", "") for block in result.get("content", [])]
    assert texts, result
    if result.get("isError"):
        text = texts[0]
        slug = slug_of(text)
        assert slug in REFERENCES, f"not one of tmuxmcp's errors: {text!r}"
        assert slug != "internal-error", f"an unexpected exception: {text!r}"


@fuzz_settings(100)
@given(call=calls())
@example(call=("capture_pane", {"pane_id": "<pane>", "join_wrapped": "\ud800"}))
@example(call=("send_keys", {"pane_id": "<pane>", "keys": [{"text": "\x00"}]}))
@example(call=("rename", {"window_id": "<window>", "name": "a" * (3 * 1024 * 1024)}))
@example(call=("list_panes", ["\ud800"]))
# 3 MiB of UTF-8 that JSON escapes to 9 MiB: the wire refuses the line (found on a new seed).
@example(call=("capture_pane", {"pane_id": "\u00e9" * (3 * 1024 * 1024 // 2)}))
@example(call=("send_keys", {"pane_id": "<pane>", "keys": [{"\udfff": None}]}))
def test_any_json_gets_a_result_or_a_tmuxmcp_error(
    fuzz_harness: Harness, wire: RawClient, call: tuple[str, Any]
) -> None:
    h = fuzz_harness
    tool, raw = call
    arguments = _cap_waiting(tool, h.substitute(raw, h.world()))
    if any(s in h.bystander_ids for s in _strings(arguments)):
        return  # naming the bystander is allowed to change it
    errors_before = wire.stderr()
    h.begin()
    reply = wire.request("tools/call", {"name": tool, "arguments": arguments})
    _check_reply(reply, tool, arguments)
    assert "result" in wire.request("ping", {}), "the server stopped serving"
    assert "Traceback" not in wire.stderr()[len(errors_before) :], wire.stderr()
    h.dirty()
    assert not h.fired(), f"a job or injected command ran: {h.fired()}"
    assert h.snapshot() == h.before, "the bystander changed"
