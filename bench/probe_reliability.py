"""Probe: the memory one hostile line takes, and how fast SIGINT stops tmuxmcp.

A probe, not a test: it prints the rows of docs/reliability.md and asserts
nothing. Each case starts ``python -m tmuxmcp`` on a private ``TMUX_TMPDIR``.

    python bench/probe_reliability.py memory
    python bench/probe_reliability.py sigint 20
"""

from __future__ import annotations

import json
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

LIMIT = 8 * 1024 * 1024
CALL = b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_sessions",'
INIT = (
    json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "probe", "version": "0"}}})
    + "\n" + json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"
    + json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}) + "\n"
).encode()  # fmt: skip

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
    "64 MiB line": b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"'
    + b"a" * (8 * LIMIT)
    + b'"}}',
}


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    env["TMUX_TMPDIR"] = tempfile.mkdtemp(prefix="tmxp", dir="/tmp")
    return env


def _reply(proc: subprocess.Popen[bytes], wanted: int, seconds: float = 60) -> Any:
    assert proc.stdout is not None
    buffer = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not select.select([proc.stdout], [], [], 0.1)[0]:
            continue
        chunk = os.read(proc.stdout.fileno(), 1 << 20)
        if not chunk:
            return None
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            reply = json.loads(line)
            if reply.get("id") == wanted:
                return reply
    return None


def _memory_mb(pid: int) -> dict[str, int]:
    with open(f"/proc/{pid}/status") as f:
        fields = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
    return {k: int(fields[k].split()[0]) // 1024 for k in ("VmHWM", "VmRSS")}


def _start(env: dict[str, str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tmuxmcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert proc.stdin is not None
    proc.stdin.write(INIT)
    proc.stdin.flush()
    _reply(proc, 2)
    return proc


def memory(env: dict[str, str]) -> None:
    """One row per case: line bytes, peak RSS before and after, the answer."""
    print("| line | bytes | peak RSS before (MB) | peak RSS after (MB) | answer |")
    for name, line in CASES.items():
        with _start(env) as proc:
            assert proc.stdin is not None
            before = _memory_mb(proc.pid)
            proc.stdin.write(line + b"\n")
            proc.stdin.flush()
            reply = _reply(proc, 3)
            after = _memory_mb(proc.pid)
            proc.stdin.close()
            proc.wait(10)
        answer = "no reply"
        if reply is not None:
            answer = "result" if "result" in reply else f"error {reply['error']['code']}"
        print(f"| {name} | {len(line)} | {before['VmHWM']} | {after['VmHWM']} | {answer} |")


def sigint(env: dict[str, str], runs: int) -> None:
    """SIGINT to exit with no call in flight."""
    spent = []
    for _ in range(runs):
        proc = _start(env)
        began = time.monotonic()
        proc.send_signal(signal.SIGINT)
        status = proc.wait(10)
        spent.append((time.monotonic() - began) * 1000)
        print(f"exit status {status}", file=sys.stderr)
    print(
        f"SIGINT to exit, {runs} runs: median {statistics.median(spent):.1f} ms, "
        f"max {max(spent):.1f} ms"
    )


def main() -> int:
    """Run the mode named on the command line."""
    env = _env()
    try:
        if sys.argv[1:2] == ["memory"]:
            memory(env)
        else:
            sigint(env, int(sys.argv[2]) if len(sys.argv) > 2 else 20)
    finally:
        subprocess.run(
            ["tmux", "-L", "tmuxmcp", "kill-server"], env=env, capture_output=True, check=False
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
