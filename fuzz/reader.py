"""A pane program that records exactly the bytes it receives.

    python reader.py OUT CHANNEL (count N | until MARKER) TMUX-ARGV...

It puts its terminal in raw mode (no echo, no line editing, no signals, no
CR/LF translation), signals the tmux channel ``CHANNEL-ready``, reads until it
has N bytes or the bytes end with MARKER (which is then dropped), writes them
to OUT and signals ``CHANNEL-done``. The harness waits on those channels with
``tmux wait-for``, so nothing polls.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tty


def _signal(tmux: list[str], channel: str) -> None:
    subprocess.run([*tmux, "wait-for", "-S", channel], check=True, timeout=20)


def main(argv: list[str]) -> None:
    out, channel, mode, value, *tmux = argv
    tty.setraw(0)
    _signal(tmux, f"{channel}-ready")
    data = b""
    if mode == "count":
        while len(data) < int(value):
            chunk = os.read(0, int(value) - len(data))
            if not chunk:
                break
            data += chunk
    else:
        marker = value.encode()
        while not data.endswith(marker):
            chunk = os.read(0, 65536)
            if not chunk:
                break
            data += chunk
        data = data.removesuffix(marker)
    with open(out, "wb") as f:
        f.write(data)
    _signal(tmux, f"{channel}-done")


if __name__ == "__main__":
    main(sys.argv[1:])
