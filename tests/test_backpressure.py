"""A client that writes and does not read costs the server a bounded amount of memory.

Issue 27 N3, measured from outside: 12,000 ``tools/list`` lines written and
nothing read took the server from 34 MB to 1.2 GB of RSS, and 150,000 pings
to 790 MB, because every request's task held its answer while waiting for
the writer and the reader never stopped admitting lines. Now the server
stops reading once it holds ``protocol.outbox``'s bounds for the client,
and a client that reads again gets every answer; progress never waits for
the client (``outbox`` Rule 3). The bound asserted here
is generous (the memory of the Python objects, the allocator's slack and
a loaded machine) and still far below what main took; the figures are in
docs/reliability.md (``python bench/probe_backpressure.py``).
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.flood import flood, pipe_full, requests
from tests.raw_client import RawClient
from tests.support import PrivateTmux

GROWTH_MB = 100


def test_unread_tools_list_answers_do_not_grow_the_server(private_tmux: PrivateTmux) -> None:
    """The finding's own repro: 12,000 ``tools/list`` lines, nothing read, then all read."""
    lines = requests("tools/list", 12_000)
    with RawClient(private_tmux.env, name="flood") as client:
        seen = flood(client, lines, wanted=len(lines))
    assert seen.growth_mb < GROWTH_MB, f"{seen.growth_mb:.0f} MB for unread answers"
    assert seen.stalled, "the server stopped reading its input while its output was unread"
    assert sorted(seen.ids()) == list(range(100, 100 + len(lines))), "every answer, none twice"
    assert all(b'"result":{"tools":[{' in answer for answer in seen.answers)
    assert "Traceback" not in client.stderr()


def test_unread_pings_do_not_grow_the_server(private_tmux: PrivateTmux) -> None:
    """Small answers: the count bound holds where the byte bound is far away."""
    lines = requests("ping", 60_000)
    with RawClient(private_tmux.env, name="flood") as client:
        seen = flood(client, lines, wanted=len(lines))
    assert seen.growth_mb < GROWTH_MB, f"{seen.growth_mb:.0f} MB for unread answers"
    assert sorted(seen.ids()) == list(range(100, 100 + len(lines))), "every answer, none twice"


def test_progress_to_a_client_that_does_not_read_never_holds_its_call_back(
    private_tmux: PrivateTmux, tmp_path: Path
) -> None:
    """With the output full and unread, a call reporting progress still ends at its own
    timeout (its audit record shows it), and the client, reading at last, finds only the
    call's latest progress note, before its answer (``outbox`` Rule 3). Before, the
    handler waited in its first progress report until the client read."""
    pane = private_tmux.new_session("s")["pane_id"]
    log = tmp_path / "audit.jsonl"
    log.touch()
    with RawClient(private_tmux.env, "--audit-log", str(log), name="slow") as client:
        assert client.proc.stdout is not None
        for n in range(40):  # answers enough to fill the output pipe
            client.send({"jsonrpc": "2.0", "id": 100 + n, "method": "tools/list"})
        deadline = time.monotonic() + 60
        while not pipe_full(client.proc.stdout.fileno()):
            assert time.monotonic() < deadline, "the output pipe never filled"
            time.sleep(0.01)  # polling a condition, with a deadline
        wait = {"pane_id": pane, "pattern": "NEVER_SHOWN", "timeout": 3}
        client.send(
            {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
             "params": {"_meta": {"progressToken": "tok"}, "name": "wait_for_text",
                        "arguments": wait}}
        )  # fmt: skip
        while '"tool":"wait_for_text"' not in log.read_text():
            assert time.monotonic() < deadline, "the call did not end while its client was away"
            time.sleep(0.05)
        got = client.messages({7, *range(100, 140)}, timeout=60)
    notes = [i for i, m in enumerate(got) if m.get("method") == "notifications/progress"]
    answer = next(i for i, m in enumerate(got) if m.get("id") == 7)
    assert 1 <= len(notes) <= 2, [got[i]["params"] for i in notes]
    assert max(notes) < answer, "no progress after its answer"
    assert got[answer]["result"]["isError"] is False
