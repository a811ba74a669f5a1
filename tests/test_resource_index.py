"""The pane index and list changes over real stdio, in both eras (issue 29.3; CM-3, CM-7).

Claude Code 2.1.332 lists resources once, at connect, on a server with no
pane yet, and keeps that list; so ``resources/list`` always holds
``tmux://panes``, whose every read is the panes of that moment. A client of
2026-07-28 opens ``subscriptions/listen`` and is told on it when panes come
and go; a handshake-era client is told unasked, as its versions define.
Everything a server writes here is checked by the SDK's own models
(``tests.wire_oracle``); effects are read back with bare tmux.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tests.raw_client import RawClient, initialize_params
from tests.support import PrivateTmux
from tests.wire_oracle import Conversation

(MODERN,) = MODERN_PROTOCOL_VERSIONS
ERAS = ["handshake", MODERN]
INDEX = "tmux://panes"
LIST_CHANGED = "notifications/resources/list_changed"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.332"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


class Client:
    """A raw client of one era: the envelope on every 2026-07-28 request, and every
    message the server wrote kept in order, notifications included."""

    def __init__(self, raw: RawClient, conversation: Conversation, era: str) -> None:
        self.raw = raw
        self.conversation = conversation
        self.era = era
        self.seen: list[dict[str, Any]] = []
        self.pending: list[dict[str, Any]] = []
        self._next = 100

    def send(self, request_id: Any, method: str, params: dict[str, Any] | None = None) -> None:
        body = dict(params or {})
        if self.era == MODERN:
            body["_meta"] = {**ENVELOPE, **body.get("_meta", {})}
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body}
        self.conversation.client_sent(message)
        self.raw.send(message)

    def until(self, done: Any, timeout: float = 30.0) -> list[dict[str, Any]]:
        """Messages up to the first for which ``done(message)`` holds, read now or
        earlier: one that an earlier wait read past (a notification that came before
        the reply it waited for) is still found here, once."""
        for n, message in enumerate(self.pending):
            if done(message):
                del self.pending[n]
                return [message]
        deadline = time.monotonic() + timeout
        found: list[dict[str, Any]] = []
        while True:
            message = self.raw.message(max(0.1, deadline - time.monotonic()))
            found.append(message)
            self.seen.append(message)
            if done(message):
                return found
            self.pending.append(message)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._next += 1
        request_id = self._next
        self.send(request_id, method, params)
        return self.until(lambda m: m.get("id") == request_id)[-1]

    def result(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        reply = self.request(method, params)
        assert "result" in reply, reply
        result: dict[str, Any] = reply["result"]
        return result

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.result("tools/call", {"name": name, "arguments": arguments})
        assert result["isError"] is False, result
        structured: dict[str, Any] = result["structuredContent"]
        return structured

    def read_index(self) -> str:
        (contents,) = self.result("resources/read", {"uri": INDEX})["contents"]
        assert contents["uri"] == INDEX and contents["mimeType"] == "text/plain"
        text: str = contents["text"]
        return text


@contextmanager
def opened(tmux: PrivateTmux, era: str, *args: str) -> Iterator[tuple[Client, dict[str, Any]]]:
    """A server opened in ``era``; yields the client and what the server said of itself."""
    conversation = Conversation()
    with RawClient(tmux.env, *args, initialize=False, on_line=conversation.server_wrote) as raw:
        client = Client(raw, conversation, era)
        if era == MODERN:
            described = client.result("server/discover")
        else:
            described = client.result("initialize", initialize_params())
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            conversation.client_sent(note)
            raw.send(note)
        try:
            yield client, described
        except AssertionError:
            print("seen:", client.seen[-8:], "stderr:", raw.stderr()[-2000:])
            raise
    conversation.assert_valid()


def _is_change(message: dict[str, Any], subscription: Any = None) -> bool:
    if message.get("method") != LIST_CHANGED:
        return False
    meta = (message.get("params") or {}).get("_meta", {})
    return subscription is None or meta.get(SUBSCRIPTION_ID) == subscription


def told(client: Client, subscription: Any, shows: Any, timeout: float = 30.0) -> None:
    """Wait for list changes on ``subscription`` until the index, read after one, ``shows``.

    A change told earlier (a read that straddled the listen's start) may
    arrive before the one awaited; each is followed by a read of the index,
    so the wait ends on what the index says, never on a count of notices.
    """
    deadline = time.monotonic() + timeout
    while True:
        client.until(lambda m: _is_change(m, subscription), max(0.1, deadline - time.monotonic()))
        if shows(client.read_index()):
            return


def _bare_panes(tmux: PrivateTmux) -> set[str]:
    return set(tmux.bare("list-panes", "-a", "-F", "#{pane_id}").stdout.split())


@pytest.mark.parametrize("era", ERAS)
def test_a_fresh_server_lists_the_index_and_a_read_shows_todays_panes(
    private_tmux: PrivateTmux, era: str
) -> None:
    """Issue 29.3: the index is listed on a server with no pane, as Claude Code lists
    once at connect; each read is fresh: a session created after the listing is in it."""
    with opened(private_tmux, era) as (client, _):
        listed = client.result("resources/list")["resources"]
        assert [r["uri"] for r in listed] == [INDEX]
        assert listed[0]["mimeType"] == "text/plain"
        assert "No panes yet" in client.read_index()

        created = client.call("create_session", {"name": "indexed"})
        pane = created["pane_id"]
        assert _bare_panes(private_tmux) == {pane}
        text = client.read_index()
        uri = f"tmux://pane/{pane.removeprefix('%')}"
        (line,) = [row for row in text.splitlines() if row.startswith(uri)]
        assert re.search(r"  indexed:\d+\.\d+  ", line), line
        assert pane in line
        assert "untrusted" in text.splitlines()[0]
        # The listing now has the index first, then the pane itself.
        uris = [r["uri"] for r in client.result("resources/list")["resources"]]
        assert uris == [INDEX, uri]


def test_a_listen_stream_is_acknowledged_and_told_of_created_and_killed_panes(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 29.3: ``subscriptions/listen`` is acknowledged with what is honoured
    (resource list changes only), then carries list_changed, tagged with its id, after
    ``create_session`` and after ``kill_pane``; cancelled, it ends without an answer."""
    with opened(private_tmux, MODERN) as (client, described):
        assert described["capabilities"]["resources"]["listChanged"] is True
        client.send(
            "listen-1",
            "subscriptions/listen",
            {"notifications": {"resourcesListChanged": True, "toolsListChanged": True}},
        )
        (ack,) = client.until(lambda m: m.get("method") == ACKNOWLEDGED)
        assert ack["params"]["notifications"] == {"resourcesListChanged": True}
        assert ack["params"]["_meta"] == {SUBSCRIPTION_ID: "listen-1"}

        created = client.call("create_session", {"name": "told"})
        told(client, "listen-1", lambda index: created["pane_id"] in index)
        split = client.call("split_pane", {"pane_id": created["pane_id"]})
        told(client, "listen-1", lambda index: split["pane_id"] in index)
        client.call("kill_pane", {"pane_id": split["pane_id"]})
        told(client, "listen-1", lambda index: split["pane_id"] not in index)
        assert _bare_panes(private_tmux) == {created["pane_id"]}

        client.raw.notify("notifications/cancelled", {"requestId": "listen-1"})
        # The next request is answered and the stream's request never is.
        client.result("tools/list")
        assert not [m for m in client.seen if m.get("id") == "listen-1"]


def test_panes_that_come_and_go_outside_tmuxmcp_are_told_too(private_tmux: PrivateTmux) -> None:
    """Issue 29.3: a pane another tmux client makes, and one it kills, are noticed while
    a stream listens (``pane_changes`` Rule 2: the server's children, then the ids)."""
    created = private_tmux.new_session("outside")
    with opened(private_tmux, MODERN) as (client, _):
        client.send(
            "listen-2", "subscriptions/listen", {"notifications": {"resourcesListChanged": True}}
        )
        client.until(lambda m: m.get("method") == ACKNOWLEDGED)
        made = private_tmux.bare(
            "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", created["pane_id"]
        ).stdout.strip()
        told(client, "listen-2", lambda index: made in index)
        private_tmux.bare("kill-pane", "-t", made)
        told(client, "listen-2", lambda index: made not in index)


def test_listen_streams_are_bounded_and_a_cancelled_one_frees_its_place(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 29.3: at most eight streams at once; the ninth is refused before any
    acknowledgement, saying what to do; a cancelled stream leaves nothing behind."""
    with opened(private_tmux, MODERN) as (client, _):
        for n in range(8):
            client.send(f"l{n}", "subscriptions/listen", {"notifications": {}})
            (ack,) = client.until(lambda m: m.get("method") == ACKNOWLEDGED)
            assert ack["params"] == {"notifications": {}, "_meta": {SUBSCRIPTION_ID: f"l{n}"}}
        client.send("l8", "subscriptions/listen", {"notifications": {}})
        refused = client.until(lambda m: m.get("id") == "l8")[-1]
        assert refused["error"]["code"] == -32603
        assert "cancel one" in refused["error"]["message"]
        client.raw.notify("notifications/cancelled", {"requestId": "l0"})
        client.send("l9", "subscriptions/listen", {"notifications": {}})
        (ack,) = client.until(lambda m: m.get("method") == ACKNOWLEDGED)
        assert ack["params"]["_meta"] == {SUBSCRIPTION_ID: "l9"}


def test_a_handshake_client_is_told_unasked_as_its_versions_define(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 29.3: ``listChanged: true`` in ``initialize``; then a plain
    ``notifications/resources/list_changed`` after create_session and after kill_pane;
    ``subscriptions/listen`` does not exist in this era."""
    with opened(private_tmux, "handshake") as (client, described):
        assert described["capabilities"]["resources"]["listChanged"] is True
        created = client.call("create_session", {"name": "plain"})
        told(client, None, lambda index: created["pane_id"] in index)
        split = client.call("split_pane", {"pane_id": created["pane_id"]})
        told(client, None, lambda index: split["pane_id"] in index)
        client.call("kill_pane", {"pane_id": split["pane_id"]})
        told(client, None, lambda index: split["pane_id"] not in index)
        refused = client.request("subscriptions/listen", {"notifications": {}})
        assert refused["error"]["code"] == -32601
        changes = [m for m in client.seen if _is_change(m)]
        assert changes and all("params" not in m for m in changes), changes


@pytest.mark.parametrize("era", ERAS)
def test_a_surface_without_resources_advertises_none_of_it(
    private_tmux: PrivateTmux, era: str
) -> None:
    """CM-3: without capture_pane on the surface there is no index, no resources
    capability (so no listChanged) and no ``subscriptions/listen``, as if they never
    existed; a created pane is told to nobody."""
    with opened(private_tmux, era, "--exclude-tools", "capture_pane") as (client, described):
        assert "resources" not in described["capabilities"]
        refused = client.request("subscriptions/listen", {"notifications": {}})
        assert refused["error"]["code"] == -32601
        assert client.request("resources/list")["error"]["code"] == -32601
        client.call("create_session", {"name": "untold"})
        client.result("tools/list")
        assert not [m for m in client.seen if _is_change(m)]


PAGE = Path(__file__).resolve().parent.parent / "docs" / "patterns.md"
_EXCHANGE = re.compile(r"<!-- exchange: pane-index -->\n(.*?)<!-- end exchange -->", re.S)
_JSON = re.compile(r"```json\n(.*?)```", re.S)
ANY = "…"


def documented_exchange() -> list[dict[str, Any]]:
    """The blocks of docs/patterns.md's pane-index exchange, in order."""
    (body,) = _EXCHANGE.findall(PAGE.read_text(encoding="utf-8"))
    blocks: list[dict[str, Any]] = [json.loads(b) for b in _JSON.findall(body)]
    for block in blocks:
        assert set(block) - {"era"} in ({"send"}, {"receive"}), block
        assert block.get("era", MODERN) in ERAS, block
    return blocks


def matches(expected: Any, actual: Any) -> bool:
    """Whether ``actual`` has every key ``expected`` shows (lists element by element)."""
    if expected == ANY:
        return actual is not None
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and matches(value, actual[key]) for key, value in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(matches(e, a) for e, a in zip(expected, actual, strict=True))
        )
    return bool(expected == actual)


def test_the_exchange_comparison_rejects_what_differs() -> None:
    assert matches({"a": [{"b": ANY}]}, {"a": [{"b": 1, "c": 2}], "d": 3})
    assert not matches({"a": [{"b": ANY}]}, {"a": [{"b": 1}, {"b": 2}]})
    assert not matches({"a": 1}, {"a": 2}) and not matches({"a": ANY}, {"a": None})
    assert not matches({"a": 1}, {})


@pytest.mark.parametrize("era", ERAS)
def test_the_pane_index_exchange_runs_as_documented(private_tmux: PrivateTmux, era: str) -> None:
    """Issue 29.4: docs/patterns.md's resource index exchange, executed in both eras."""
    blocks = [b for b in documented_exchange() if b.get("era", era) == era]
    assert any("receive" in b and "list_changed" in json.dumps(b) for b in blocks)
    with opened(private_tmux, era) as (client, _):
        for block in blocks:
            if "send" in block:
                sent = block["send"]
                client.send(sent["id"], sent["method"], sent.get("params"))
            else:
                wanted = block["receive"]
                got = client.until(lambda m, wanted=wanted: matches(wanted, m))[-1]
                assert matches(wanted, got)
        (line,) = [m for m in client.seen if m.get("id") == 3]
        text = line["result"]["contents"][0]["text"]
        assert "tmux://pane/0  work:0.0  %0  " in text, text
