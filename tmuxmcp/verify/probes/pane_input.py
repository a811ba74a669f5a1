"""Probes of pane input: pasted text and key names.

Claims ``paste-exact``, ``paste-lines``, ``key-names`` and ``key-printable``:
text encoded by ``sinks.text`` reaches the pane program byte for byte through
a paste buffer (newlines as Enter without ``-r``), every named ``send_keys``
key is a tmux key name, and every one-character key arrives as its byte, a
text part's tabs too, with the mode guard seeing a mode the key ``q`` left
earlier in the same invocation (issue 28.4). The reading pane signals a tmux
channel, so nothing polls.
"""

from __future__ import annotations

import os
import shlex

import trio

from tmuxmcp.driver.argv import cmd, render
from tmuxmcp.driver.guards import mode_guard_name
from tmuxmcp.sinks.keys import KEY_NAMES, PRINTABLE_KEYS
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

    send_keys relies on it for a text part with newlines: tmux's default separator is CR.
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
    """Every named key of the send_keys vocabulary is a key name to tmux, not text
    (its one-character keys are claim ``key-printable``).

    bind-key parses key names as send-keys does; no count is compared because
    tmux folds aliases into one binding (C-i is Tab, C-m is Enter).
    """
    keys = sorted(KEY_NAMES)
    argv: list[str] = []
    for key in keys:
        argv += [";"] if argv else []
        argv += ["bind-key", "-T", "tmuxmcp-verify", key, "send-keys", "x"]
    done = await lab.tmux(argv)  # an unknown name fails with "unknown key: NAME"
    if done.returncode != 0:
        raise ClaimFailed(done.stderr.decode("utf-8", "replace").strip()[:200])


TAB_TEXT = "col1\tcol2\t#{pane_id};\t$(id) é;"
"""Text with tabs, format syntax and a final ``;``, as a ``send_keys`` text part."""
MODE_MARKER = "@tmuxmcp_verify_mode"
MODE_AFTER = "@tmuxmcp_verify_mode_after"


async def _mode_guard_passes(lab: Lab, pane: str, before: list[str]) -> bool:
    """Whether the mode guard after ``before`` (commands of the same invocation) passes;
    ClaimFailed if a refused guard let the command after it run."""
    await lab.ok(["set-option", "-s", "-u", MODE_AFTER])
    name = mode_guard_name(MODE_MARKER, pane)
    done = await lab.tmux(
        [*before, *([";"] if before else []), "show-options", "-s", "-v", "-t", pane, name,
         ";", "set-option", "-s", MODE_AFTER, "1"]
    )  # fmt: skip
    after = (await lab.ok(["show-options", "-s", "-v", "-q", MODE_AFTER])).strip()
    if (done.returncode == 0) != bool(after):
        raise ClaimFailed(f"the mode guard's outcome and the command after it disagree on {pane}")
    return done.returncode == 0


async def probe_key_printable(lab: Lab) -> None:
    """Each printable key reaches the program as its byte; text parts keep their tabs.

    Every printable ASCII character is sent as a key through ``driver.argv``
    (which escapes a lone ``;``), then a text part with tabs stored by
    ``set-buffer`` in argv and pasted with ``-r``; a raw reader must get exactly
    those bytes. Then the mode guard: it refuses a pane in copy mode (and the
    command after it does not run), and passes once ``q``, sent as a key in the
    same invocation before it, has left the mode; it passes an unknown pane, which
    the command after it refuses by its id.
    """
    text = lab.encoders.text(TAB_TEXT, "keys", newlines=True, tabs=True)
    expected = "".join(PRINTABLE_KEYS).encode() + text
    received = os.path.join(lab.directory, "keys-received")
    script = (
        f"stty raw -echo; {lab.signal_from_shell('keys-ready')}; "
        f"head -c {len(expected)} > {shlex.quote(received)}; "
        f"{lab.signal_from_shell('keys-received')}; exec sleep 600"
    )
    _, _, pane = await lab.new_session("keys", "sh", "-c", script)
    await lab.ok(["wait-for", "keys-ready"])
    await lab.ok(
        render(
            [
                cmd("send-keys", t=pane, args=list(PRINTABLE_KEYS)),
                cmd("set-buffer", b="keys-text", args=[text.decode()]),
                cmd("paste-buffer", "-d", "-r", b="keys-text", t=pane),
            ]
        )
    )
    await lab.ok(["wait-for", "keys-received"])
    got = await trio.Path(received).read_bytes()
    if got != expected:
        at = next((i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b), None)
        raise ClaimFailed(f"{got[:120]!r} arrived for {expected[:120]!r}; first difference at {at}")
    await lab.ok(["set-option", "-s", MODE_MARKER, "1"])
    _, _, moded = await lab.new_session("keys-mode", "sh", "-c", "seq 1 50; exec sleep 600")
    await lab.ok(["copy-mode", "-t", moded])
    if await _mode_guard_passes(lab, moded, []):
        raise ClaimFailed("the mode guard passed for a pane in copy mode")
    if not await _mode_guard_passes(lab, moded, render([cmd("send-keys", t=moded, args=["q"])])):
        raise ClaimFailed("after the key q in the same invocation the pane was still in a mode")
    if not await _mode_guard_passes(lab, moded, []):
        raise ClaimFailed("the mode guard refused a pane in no mode")
    if not await _mode_guard_passes(lab, "%999999", []):
        # An unknown pane is for the command after the guard to refuse, by its id.
        raise ClaimFailed("the mode guard refused an unknown pane")
