"""Probe: the memory one hostile line takes, and how fast SIGINT stops tmuxmcp.

A probe, not a test: it prints the rows of docs/reliability.md and asserts
nothing. Each case starts ``python -m tmuxmcp`` on a private ``TMUX_TMPDIR``.

    python bench/probe_reliability.py memory
    python bench/probe_reliability.py sigint 20
"""

from __future__ import annotations

import signal
import statistics
import sys
import time
from typing import Any

from benchlib import PrivateTmux, RawClient, bench_tmux

LIMIT = 8 * 1024 * 1024
PROBE_ID = 3  # after the client's own initialize (1) and ping (2)
CALL = (
    b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_sessions",' % PROBE_ID
)

CASES = {
    "one 8 MiB string argument": CALL + b'"arguments":{"x":"' + b"a" * (LIMIT - 200) + b'"}}}',
    "8 MiB of \\u00e9 escapes": CALL
    + b'"arguments":{"x":"'
    + b"\\u00e9" * ((LIMIT - 200) // 6)
    + b'"}}}',
    "120,000 empty arrays and a string": CALL
    + b'"arguments":{"x":['
    + b",".join([b"[]"] * 120_000)
    + b'],"y":"'
    + b"a" * (LIMIT - 800_000)
    + b'"}}}',
    "8 MiB of empty arrays": CALL
    + b'"arguments":{"x":['
    + b",".join([b"[]"] * ((LIMIT - 200) // 3))
    + b"]}}}",
    "64 MiB line": b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"x":"' % PROBE_ID
    + b"a" * (8 * LIMIT)
    + b'"}}',
}


def _memory_mb(pid: int) -> dict[str, int]:
    with open(f"/proc/{pid}/status") as f:
        fields = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
    return {k: int(fields[k].split()[0]) // 1024 for k in ("VmHWM", "VmRSS")}


def _start(tmux: PrivateTmux) -> RawClient:
    """A served, initialized tmuxmcp that has answered a ping."""
    client = RawClient(tmux.env, name="probe")
    client.request("ping", {})
    return client


def memory(tmux: PrivateTmux) -> None:
    """One row per case: line bytes, peak RSS before and after, the answer."""
    print("| line | bytes | peak RSS before (MB) | peak RSS after (MB) | answer |")
    for name, line in CASES.items():
        with _start(tmux) as client:
            before = _memory_mb(client.proc.pid)
            client.send_line(line)
            try:
                reply: dict[str, Any] | None = client.reply(PROBE_ID)
            except AssertionError:
                reply = None  # no answer before the deadline, or the server stopped
            after = _memory_mb(client.proc.pid)
        answer = "no reply"
        if reply is not None:
            answer = "result" if "result" in reply else f"error {reply['error']['code']}"
        print(f"| {name} | {len(line)} | {before['VmHWM']} | {after['VmHWM']} | {answer} |")


def sigint(tmux: PrivateTmux, runs: int) -> None:
    """SIGINT to exit with no call in flight."""
    spent = []
    for _ in range(runs):
        with _start(tmux) as client:
            began = time.monotonic()
            client.proc.send_signal(signal.SIGINT)
            status = client.proc.wait(10)
            spent.append((time.monotonic() - began) * 1000)
        print(f"exit status {status}", file=sys.stderr)
    print(
        f"SIGINT to exit, {runs} runs: median {statistics.median(spent):.1f} ms, "
        f"max {max(spent):.1f} ms"
    )


def main() -> int:
    """Run the mode named on the command line."""
    with bench_tmux("tmxp") as tmux:
        if sys.argv[1:2] == ["memory"]:
            memory(tmux)
        else:
            sigint(tmux, int(sys.argv[2]) if len(sys.argv) > 2 else 20)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
