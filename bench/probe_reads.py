"""Probe: the peak memory one reading call takes over wide, long panes (issue 13.2).

A probe, not a test: it prints the rows of docs/reliability.md ("Bounded
reads") and asserts nothing. A private tmux server holds panes of 2,000
columns with 20,000 full rows of history each; for every case a new
``python -m tmuxmcp`` is started over stdio, and its ``VmHWM`` (peak RSS) is
read from /proc before and after the one call.

    python bench/probe_reads.py
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from typing import Any

WIDTH, HEIGHT, ROWS = 2000, 40, 20_000
FILL = (
    "awk 'BEGIN{s=sprintf(\"%" + str(WIDTH) + 's","");gsub(/ /,"x",s);'
    f"for(i=0;i<{ROWS};i++)print s}}'; echo DO''NE"
)
INIT = (
    json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "probe", "version": "0"}}})
    + "\n" + json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"
).encode()  # fmt: skip


def _tmux(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        ["tmux", "-L", "tmuxmcp", *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def _wide_pane(env: dict[str, str], name: str, fill: bool = True) -> str:
    pane = _tmux(
        env, "new-session", "-d", "-s", name, "-x", str(WIDTH), "-y", str(HEIGHT),
        "-P", "-F", "#{pane_id}", "sh",
    ).strip()  # fmt: skip
    _tmux(env, "resize-window", "-t", pane, "-x", str(WIDTH), "-y", str(HEIGHT))
    if fill:
        _fill(env, pane)
    return pane


def _fill(env: dict[str, str], pane: str) -> None:
    _tmux(env, "send-keys", "-t", pane, FILL, "Enter")
    deadline = time.monotonic() + 300
    while "\nDONE\n" not in _tmux(env, "capture-pane", "-p", "-t", pane):
        assert time.monotonic() < deadline, "the pane never filled"
        time.sleep(0.2)


class Server:
    """One tmuxmcp over stdio."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tmuxmcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.next_id = 2
        assert self.proc.stdin is not None
        self.proc.stdin.write(INIT)
        self.proc.stdin.flush()
        self.call("list_sessions", {})

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        """A tools/call; its structured result (or error text)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        wanted = self.next_id
        self.next_id += 1
        params = {"name": name, "arguments": arguments}
        line = {"jsonrpc": "2.0", "id": wanted, "method": "tools/call", "params": params}
        self.proc.stdin.write(json.dumps(line).encode() + b"\n")
        self.proc.stdin.flush()
        buffer = b""
        while True:
            select.select([self.proc.stdout], [], [], 120)
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            assert chunk, "tmuxmcp closed its stdout"
            buffer += chunk
            while b"\n" in buffer:
                reply_line, buffer = buffer.split(b"\n", 1)
                reply = json.loads(reply_line)
                if reply.get("id") == wanted:
                    result = reply["result"]
                    return result.get("structuredContent") or result["content"][0]["text"]

    def peak_mb(self) -> float:
        """VmHWM of the server process, in MB."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        raise AssertionError("no VmHWM")

    def close(self) -> None:
        """End the server (end of stdin)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)


def _row(name: str, server: Server, before: float, result: Any) -> None:
    after = server.peak_mb()
    summary = result if isinstance(result, str) else {
        k: result[k] for k in ("truncated_by", "outcome", "more", "lines_not_scanned")
        if k in result
    }  # fmt: skip
    print(f"| {name} | {before:.0f} | {after:.0f} | +{after - before:.0f} | {summary} |")
    server.close()


def main() -> int:
    """Print one table row per case."""
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    env["TMUX_TMPDIR"] = tempfile.mkdtemp(prefix="tmxp", dir="/tmp")
    try:
        _tmux(env, "-f", "/dev/null", "new-session", "-d", "-s", "seed", "sh")
        _tmux(env, "set-option", "-g", "history-limit", "30000")
        panes = [_wide_pane(env, f"wide{n}") for n in range(2)]
        print("| call | peak RSS before (MB) | after (MB) | growth | result |")
        print("|---|---|---|---|---|")
        search = {"pattern": "never-printed", "scrollback": 100_000}
        cases: list[tuple[str, str, dict[str, Any]]] = [
            ("search_panes, 2 panes, max_scan_bytes 1024", "search_panes",
             {**search, "max_scan_bytes": 1024}),
            ("search_panes, 2 panes, max_scan_bytes default (1 MiB)", "search_panes", search),
            ("search_panes, 2 panes, max_scan_bytes 16 MiB (the most)", "search_panes",
             {**search, "max_scan_bytes": 16 * 1024 * 1024}),
            ("capture_pane start -30000, max_lines 100000", "capture_pane",
             {"pane_id": panes[0], "start": -30000, "max_lines": 100_000}),
            ("capture_pane start -30000, max_lines 1", "capture_pane",
             {"pane_id": panes[0], "start": -30000, "max_lines": 1}),
        ]  # fmt: skip
        for name, tool, arguments in cases:
            server = Server(env)
            before = server.peak_mb()
            _row(name, server, before, server.call(tool, arguments))
        for name, tool, extra in (
            ("capture_since, cursor before the 20,000 rows, max_lines 10000",
             "capture_since", {"max_lines": 10_000}),
            ("wait_for_text since a cursor before them, max_scan_bytes 16 MiB",
             "wait_for_text", {"pattern": "^DONE$", "regex": True, "timeout": 60,
                               "max_scan_bytes": 16 * 1024 * 1024}),
        ):  # fmt: skip
            pane = _wide_pane(env, f"since{tool}", fill=False)
            server = Server(env)
            cursor = server.call("capture_since", {"pane_id": pane})["cursor"]
            _fill(env, pane)
            before = server.peak_mb()
            key = "cursor" if tool == "capture_since" else "since"
            _row(name, server, before, server.call(tool, {"pane_id": pane, key: cursor, **extra}))
    finally:
        subprocess.run(
            ["tmux", "-L", "tmuxmcp", "kill-server"], env=env, capture_output=True, check=False
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
