"""The audit log redacts every caller string but ids and closed values (issue 12.7).

Over real stdio: patterns, option values given as strings, ids that fail to
validate and unknown argument keys never appear in the log; valid ids,
numbers, booleans and closed-vocabulary values do.
"""

from __future__ import annotations

import json
import os

from tests.support import PrivateTmux, serve


async def test_audit_log_redacts_patterns_and_unknown_keys(private_tmux: PrivateTmux) -> None:
    log = os.path.join(private_tmux.directory, "audit.jsonl")
    secrets = {
        "pattern": "PATTERN-s3cret",
        "wait": "WAIT-s3cret",
        "value": "VALUE-s3cret",
        "bad_id": "ID-s3cret",
        "key": "KEY_s3cret",
        "unknown_value": "UNKNOWN-s3cret",
        "option": "OPTION-s3cret",
    }
    async with serve(private_tmux, "--audit-log", log) as session:
        ids = private_tmux.new_session("a")
        pane = ids["pane_id"]
        await session.call_tool(
            "search_panes", {"pattern": secrets["pattern"], "regex": False, "max_matches": 3}
        )
        await session.call_tool(
            "wait_for_text", {"pane_id": pane, "pattern": secrets["wait"], "timeout": 0.1}
        )
        await session.call_tool(
            "set_option",
            {"option": "mode-keys", "value": secrets["value"], "window_id": ids["window_id"]},
        )
        await session.call_tool("set_option", {"option": secrets["option"], "value": 1})
        await session.call_tool("capture_pane", {"pane_id": secrets["bad_id"]})
        await session.call_tool(
            "capture_pane", {"pane_id": pane, secrets["key"]: secrets["unknown_value"]}
        )
    with open(log) as f:
        raw = f.read()
    for name, secret in secrets.items():
        assert secret not in raw, f"{name} leaked into the audit log"
    lines = [json.loads(line) for line in raw.splitlines()]
    assert [entry["tool"] for entry in lines] == [
        "search_panes",
        "wait_for_text",
        "set_option",
        "set_option",
        "capture_pane",
        "capture_pane",
    ]
    search, wait, option, bad_option, bad_id, unknown = (e["arguments"] for e in lines)
    assert search["pattern"]["redacted"] is True
    assert search["pattern"]["length"] == len(secrets["pattern"])
    assert (search["regex"], search["max_matches"]) == (False, 3)
    assert wait["pattern"]["redacted"] is True
    assert wait["pane_id"] == pane
    assert wait["timeout"] == 0.1
    assert option["option"] == "mode-keys", "a closed-vocabulary value stays readable"
    assert option["window_id"] == ids["window_id"]
    assert option["value"]["redacted"] is True
    assert bad_option["option"]["redacted"] is True, "a value outside the closed list is text"
    assert bad_id["pane_id"]["redacted"] is True, "an id that failed to validate is text"
    assert unknown == {"pane_id": pane}
    assert len(lines[5]["unknown_arguments"]) == 1
    assert lines[5]["unknown_arguments"][0]["key"]["redacted"] is True
