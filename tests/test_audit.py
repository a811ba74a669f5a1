"""The audit log redacts every caller string but ids and closed values (issue 12.7).

Over real stdio: patterns, option values given as strings, ids that fail to
validate and unknown argument keys never appear in the log; valid ids,
numbers, booleans and closed-vocabulary values do.
"""

from __future__ import annotations

import json
import os
from typing import Any

import trio

from tests.support import PrivateTmux, serve, structured


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


async def _state(session: Any, pane: str) -> str:
    info = structured(await session.call_tool("list_panes", {"pane_id": pane}))
    state: str = info["panes"][0]["state"]["state"]
    return state


async def _wait_for_echo_off(tmux: PrivateTmux, pane: str) -> None:
    """Wait (deadline 15 s) until the pane's terminal has echo off (getpass took it)."""
    import termios

    import trio

    pid = tmux.bare("display-message", "-p", "-t", pane, "#{pane_tty}").stdout.strip()
    with trio.fail_after(15):
        while True:
            fd = os.open(pid, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
            try:
                if not termios.tcgetattr(fd)[3] & termios.ECHO:
                    return
            finally:
                os.close(fd)
            await trio.sleep(0.02)


async def test_text_typed_into_a_password_prompt_is_recorded_as_a_secret(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 28.6: send_keys' parts to a program reading with echo off are logged with
    nothing of them, not even their length; to any other program they keep length and
    hash. Issue 28.4: one call mixing text and printable keys is a secret as a whole."""
    import sys

    log = os.path.join(private_tmux.directory, "audit.jsonl")
    password = "hunter2-correct-horse"
    reader = f"{sys.executable} -c 'import getpass; getpass.getpass(\"Password: \")'"
    async with serve(private_tmux, "--audit-log", log) as session:
        pane = private_tmux.new_session("pw", "tmuxmcp", "sh", "-c", reader)["pane_id"]
        await _wait_for_echo_off(private_tmux, pane)
        # Echo goes off before getpass reads: wait until tmuxmcp sees it read (28.1).
        with trio.fail_after(15):
            while (await _state(session, pane)) != "awaiting-secret":
                await trio.sleep(0.05)
        # Text, then the rest of the password as printable keys, then Enter: one call.
        keys = [{"text": password[:7]}, *password[7:], "Enter"]
        sent = await session.call_tool("send_keys", {"pane_id": pane, "keys": keys})
        assert not sent.is_error, sent.content
        plain = private_tmux.new_session("plain")["pane_id"]
        await session.call_tool("send_keys", {"pane_id": plain, "keys": [{"text": "plain text"}]})
    with open(log) as f:
        raw = f.read()
    assert password not in raw
    records = [json.loads(line) for line in raw.splitlines()]
    secret, normal = (r["arguments"] for r in records if r["tool"] == "send_keys")
    assert password[7:] not in raw
    assert secret["keys"] == {"secret": True}
    assert secret["pane_id"] == pane
    assert normal["keys"]["redacted"] is True and "length" in normal["keys"]
