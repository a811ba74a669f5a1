"""A stdio relay that records both directions: for clients the tests cannot reach inside.

``python tests/stdio_tap.py DIR SERVER-ARGV...`` runs the server with pipes
for its stdin and stdout, copies its own stdin to the server and the server's
stdout to its own, and appends every line, byte for byte, to ``DIR/sent``
(client to server) and ``DIR/received`` (server to client). The SDK 1.x
client of ``tests/test_sdk1_client.py`` runs in another interpreter, so its
traffic reaches the wire oracle only this way.

Rules: the server's stderr is the relay's own; the client's end of stdin
closes the server's stdin (the server's shutdown signal); the relay exits
with the server's status once the server's stdout has ended. It imports only
the standard library (it runs under the SDK 1.x interpreter too).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from typing import IO


def _copy(source: IO[bytes], target: IO[bytes], record: str) -> None:
    """Copy ``source`` to ``target`` line by line, appending each line to ``record``."""
    with open(record, "ab") as log:
        for line in iter(source.readline, b""):
            log.write(line)
            log.flush()
            try:
                target.write(line)
                target.flush()
            except BrokenPipeError:
                break
    target.close()


def main() -> int:
    directory, *server = sys.argv[1:]
    child = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    into = threading.Thread(
        target=_copy,
        args=(sys.stdin.buffer, child.stdin, os.path.join(directory, "sent")),
        daemon=True,
    )
    into.start()
    _copy(child.stdout, sys.stdout.buffer, os.path.join(directory, "received"))
    return child.wait()


if __name__ == "__main__":
    raise SystemExit(main())
