"""Probes of pane input: pasted text and key names.

Claims ``paste-exact``, ``paste-lines`` and ``key-names``: text encoded by
``sinks.text`` reaches the pane program byte for byte through a paste buffer
(newlines as Enter without ``-r``), and every ``send_keys`` name is a tmux key
name. The reading pane signals a tmux channel, so nothing polls.
"""

from __future__ import annotations

import os
import shlex

import trio

from tmuxmcp.sinks.keys import KEY_VOCABULARY
from tmuxmcp.verify.lab import ClaimFailed, Lab, fill_argv

PASTE_UNIT = "#{pane_id}#(touch S);\\;$(id)`id`%H'\"q é☺日😀 -t -- {last} ~ "


async def probe_paste_exact(lab: Lab) -> None:
    """load-buffer - and paste-buffer -d -r deliver text byte for byte.

    Over 16 KiB (tmux's argv limit), and while the pane is in copy mode (whose
    key bindings must not see the text). The reader signals tmux channels, so
    nothing polls: ``wait-for`` blocks until the signal, within the deadline.
    """
    text = (PASTE_UNIT * (40_000 // len(PASTE_UNIT) + 1))[:40_000]
    data = lab.encoders.text(text, "text")
    received = os.path.join(lab.directory, "received")
    script = (
        f"stty raw -echo; {lab.signal_from_shell('ready')}; "
        f"head -c {len(data)} > {shlex.quote(received)}; {lab.signal_from_shell('received')}; "
        "exec sleep 600"
    )
    _, _, pane = await lab.new_session("reader", "sh", "-c", script)
    await lab.ok(["wait-for", "ready", ";", "copy-mode", "-t", pane])
    await lab.ok(
        fill_argv("load-buffer -b paste - ; paste-buffer -d -r -b paste -t {}", pane), stdin=data
    )
    await lab.ok(["wait-for", "received"])
    got = await trio.Path(received).read_bytes()
    if got != text.encode("utf-8"):
        at = next((i for i, (a, b) in enumerate(zip(got, data, strict=False)) if a != b), None)
        raise ClaimFailed(f"{len(got)} bytes arrived for {len(data)}; first difference at {at}")


async def probe_paste_lines(lab: Lab) -> None:
    """paste-buffer without -r delivers each LF as CR (Enter) and changes nothing else.

    send_text relies on it for multi-line text: tmux's default separator is CR.
    """
    lines = ["first;#{pane_id}", "", "  indented é☺", "last"]
    data = b"\n".join(lab.encoders.text(line, "text") for line in lines)
    expected = data.replace(b"\n", b"\r")
    received = os.path.join(lab.directory, "lines-received")
    script = (
        f"stty raw -echo; {lab.signal_from_shell('lines-ready')}; "
        f"head -c {len(expected)} > {shlex.quote(received)}; "
        f"{lab.signal_from_shell('lines-received')}; exec sleep 600"
    )
    _, _, pane = await lab.new_session("lines", "sh", "-c", script)
    await lab.ok(["wait-for", "lines-ready"])
    await lab.ok(
        fill_argv("load-buffer -b lines - ; paste-buffer -d -b lines -t {}", pane), stdin=data
    )
    await lab.ok(["wait-for", "lines-received"])
    got = await trio.Path(received).read_bytes()
    if got != expected:
        raise ClaimFailed(f"{got[:80]!r} arrived for {expected[:80]!r}")


async def probe_key_names(lab: Lab) -> None:
    """Every name in the send_keys vocabulary is a key name to tmux, not text.

    bind-key parses key names as send-keys does; no count is compared because
    tmux folds aliases into one binding (C-i is Tab, C-m is Enter).
    """
    keys = sorted(KEY_VOCABULARY)
    argv: list[str] = []
    for key in keys:
        argv += [";"] if argv else []
        argv += ["bind-key", "-T", "tmuxmcp-verify", key, "send-keys", "x"]
    done = await lab.tmux(argv)  # an unknown name fails with "unknown key: NAME"
    if done.returncode != 0:
        raise ClaimFailed(done.stderr.decode("utf-8", "replace").strip()[:200])
