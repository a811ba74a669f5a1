"""A client that writes and does not read costs the server a bounded amount of memory.

Issue 27 N3, measured from outside: 12,000 ``tools/list`` lines written and
nothing read took the server from 34 MB to 1.2 GB of RSS, and 150,000 pings
to 790 MB, because every request's task held its answer while waiting for
the writer and the reader never stopped admitting lines. Now the server
stops reading once it holds ``protocol.outbox``'s bounds for the client,
and a client that reads again gets every answer. The bound asserted here
is generous (the memory of the Python objects, the allocator's slack and
a loaded machine) and still far below what main took; the figures are in
docs/reliability.md (``python bench/probe_backpressure.py``).
"""

from __future__ import annotations

from tests.flood import flood, requests
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
