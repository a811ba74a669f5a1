"""``tmuxmcp verify``: check the sink claims against the tmux binary a user has (CM-5.4).

Every rule in ``tmuxmcp.sinks`` and ``tmuxmcp.driver`` rests on a claim about
what tmux does with bytes (research/tmux-sinks.md). Those claims were measured
on particular tmux versions; this module re-measures them on the local binary
and prints one line per claim::

    PASS format-escape: ... (tmux 3.3a)

Rules of the probe suite:

* Rule 1, private: everything happens in a fresh directory from
  ``tempfile.mkdtemp``: the server's socket (``-S``), ``TMUX_TMPDIR`` and the
  sentinel files. No probe names a ``-L`` label, so the user's sockets are
  never contacted; the server is killed and the directory removed at the end.
* Rule 2, deterministic: fixed inputs, no randomness, every wait has a
  deadline. A probe passes only when tmux behaves as the claim says; an
  exception inside a probe is a FAIL with its reason, never a traceback.
* Rule 3, the code under test is passed in: ``Encoders`` holds the functions
  tmuxmcp uses, looked up when ``run`` is called, so a test can substitute a
  broken encoder (or monkeypatch ``tmuxmcp.sinks.format.escape_format``) and
  watch the claim FAIL.
* Rule 4, a sentinel file exists only if tmux ran a shell job or a command it
  should not have: ``#(touch S)`` payloads and injected ``run-shell`` both
  name a file in the sentinel directory.

Claims come in two kinds: *sufficiency* (a rule makes values arrive exactly)
and *premise* (tmux still does what makes a rule necessary, e.g. it rewrites
``$x`` in names). Each claim also has a severity (``Severity``):

* ``safety``: its failure would let caller text reach an interpreter, a wrong
  object or a foreign server, or make tmuxmcp misread what tmux printed. It is
  a ``FAIL``: ``tmuxmcp verify`` exits 1 and ``server_info`` reports the
  claims unverified.
* ``strictness``: its failure only shows that a rule is stricter than this
  tmux needs (a premise that stopped holding, e.g. tmux 3.5a stores ``$x``
  names exactly). It is a ``NOTE``: the exit status stays 0, and the note is
  printed and reported in ``server_info``.

The tmux versions CI proves the claims on are listed once, in ``CI_MATRIX``;
on any other version ``verify`` adds a note saying so.

A run's outcome is cached per binary (``verified-<version>-<digest>.json``
under ``$XDG_CACHE_HOME/tmuxmcp``); ``verified_status`` reads it back.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import hashlib
import os
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from enum import StrEnum
from typing import Any

import msgspec
import trio

import tmuxmcp
from tmuxmcp.driver import _spawn
from tmuxmcp.driver.argv import cmd, render
from tmuxmcp.driver.client import (
    GATE_COMMAND,
    ConfigWatch,
    ServerIdentity,
    TmuxClient,
    parse_identity,
)
from tmuxmcp.driver.records import RecordFormat, SectionMarker
from tmuxmcp.driver.socket import SocketKind, SocketSelection
from tmuxmcp.errors import ConfigurationChanged, ServerReplaced, TmuxMcpError
from tmuxmcp.sinks.names import NameKind

PROBE_SECONDS = 10.0
"""Deadline for each tmux invocation and each wait inside a probe."""

JOB_GRACE = "sleep 0.3"
"""Keeps the probing client alive so a ``#()`` job it started can finish.

tmux ties format jobs to the command client and sends them SIGTERM when it
exits (format.c ``format_lost_client``), so without this a job that did start
might die before it touched its sentinel.
"""

CI_MATRIX: dict[str, str] = {"3.3a": "3.3a", "3.5a": "3.5a", "3.6a": "3.6"}
"""The tmux versions ``.ci/run`` proves every claim on: source release -> ``#{version}``.

The one list of CI-proven versions (docs/verify.md and ``.ci/run`` read it
from here). tmux 3.6a's tarball is a snapshot that reports itself as 3.6.
"""

PROVEN_VERSIONS = frozenset(CI_MATRIX.values())


def proven_in_ci(version: str) -> bool:
    """True if CI proves the claims on tmux ``version`` (as ``#{version}`` reports it)."""
    return version in PROVEN_VERSIONS


def unproven_note(version: str) -> str:
    """What ``verify`` and ``server_info`` say about a version CI does not run."""
    return (
        f"tmux {version} is not one of the versions CI proves these claims on "
        f"({', '.join(sorted(PROVEN_VERSIONS))}); the claims were measured on this binary only"
    )


class ClaimFailed(Exception):
    """A probe observed tmux contradicting its claim."""


class Encoders(msgspec.Struct, frozen=True, kw_only=True):
    """The encoding functions under test (Rule 3)."""

    format: Callable[[str], str]
    """``sinks.format.escape_format``: text whose expansion is the value."""
    argv: Callable[[str], str]
    """``driver.argv.escape_element``: one argv element tmux never splits."""
    name: Callable[[str, NameKind, str], str]
    """``sinks.names.encode_name``: the name rule, then the format escape."""
    directory: Callable[[str, str], str]
    """``sinks.path.encode_directory``: an existing directory, format-escaped."""
    text: Callable[[str, str], bytes]
    """``sinks.text.encode_text``: the bytes pasted for a pane program."""
    target: Callable[[str, Any, str], str]
    """``sinks.target.encode_id``: an exact id or an error."""


def current_encoders() -> Encoders:
    """The functions tmuxmcp uses right now (looked up, so monkeypatching shows)."""
    from tmuxmcp.driver import argv
    from tmuxmcp.sinks import format as fmt
    from tmuxmcp.sinks import names, path, target, text

    return Encoders(
        format=fmt.escape_format,
        argv=argv.escape_element,
        name=names.encode_name,
        directory=path.encode_directory,
        text=text.encode_text,
        target=target.encode_id,
    )


class Lab:
    """One throwaway tmux server in a private directory (Rule 1)."""

    def __init__(self, binary: str, directory: str, encoders: Encoders) -> None:
        from tmuxmcp.config import child_environment

        self.binary = binary
        self.directory = directory
        self.encoders = encoders
        self.socket = os.path.join(directory, "s")
        self.sentinels = os.path.join(directory, "sentinels")
        os.mkdir(self.sentinels)
        self.env = {
            **child_environment(os.environ),
            "TMUX_TMPDIR": directory,
            "SHELL": "/bin/sh",
        }
        self.session = self.window = self.pane = ""

    async def tmux(
        self, argv: Sequence[str], *, stdin: bytes | None = None, socket: str | None = None
    ) -> _spawn.Completed:
        """``tmux -u -f /dev/null -S <private socket> argv`` (never a -L label)."""
        full = [self.binary, "-u", "-f", "/dev/null", "-S", socket or self.socket, *argv]
        return await _spawn.run_argv(full, env=self.env, seconds=PROBE_SECONDS, stdin=stdin)

    async def ok(self, argv: Sequence[str], *, stdin: bytes | None = None) -> str:
        """Run ``argv``; its stdout, or ClaimFailed with tmux's error."""
        done = await self.tmux(argv, stdin=stdin)
        if done.returncode != 0:
            error = done.stderr.decode("utf-8", "replace").strip()
            raise ClaimFailed(f"tmux {argv[0]} failed: {error[:200]}")
        return done.stdout.decode("utf-8", "replace")

    def sentinel(self, name: str) -> str:
        """A path that only an executed job or injected command would create."""
        return os.path.join(self.sentinels, name)

    def fired(self) -> list[str]:
        """Sentinels that exist (there must be none)."""
        return sorted(os.listdir(self.sentinels))

    async def new_session(self, name: str, *command: str) -> tuple[str, str, str]:
        """A detached 80x24 session; its session, window and pane ids."""
        out = await self.ok(
            [
                "new-session", "-d", "-s", name, "-x", "80", "-y", "24",
                "-P", "-F", "#{session_id} #{window_id} #{pane_id}",
                "--", *(command or ("sleep", "600")),
            ]
        )  # fmt: skip
        session, window, pane = out.split()
        return session, window, pane


# -- the probes ---------------------------------------------------------------------


def _argv(template: str, *values: str) -> list[str]:
    """Constant words split on spaces; each ``{}`` word is replaced by the next value whole.

    ``_argv("show-buffer -b {}", name)`` -> ``["show-buffer", "-b", name]``.
    """
    pending = iter(values)
    out = [next(pending) if word == "{}" else word for word in template.split()]
    if next(pending, None) is not None:
        raise ValueError("more values than {} slots")
    return out


_NAME_SETTERS = {
    NameKind.SESSION: ("rename-session", "session_name"),
    NameKind.WINDOW: ("rename-window", "window_name"),
    NameKind.TITLE: ("select-pane", "pane_title"),
}
"""The command that stores each kind of name, and the format variable that reads it."""


def _set_name(lab: Lab, kind: NameKind, encoded: str) -> list[str]:
    """argv (one command) that stores the already-encoded ``encoded`` for ``kind``."""
    element = lab.encoders.argv(encoded)
    if kind is NameKind.SESSION:
        return ["rename-session", "-t", lab.session, "--", element]
    if kind is NameKind.WINDOW:
        return ["rename-window", "-t", lab.window, "--", element]
    return ["select-pane", "-t", lab.pane, "-T", element]


async def _store_and_read(
    lab: Lab, values: Sequence[tuple[NameKind, str, str]], *, grace: bool = False
) -> list[tuple[NameKind, str, str | None]]:
    """Store each (kind, value, encoded) and read it back; stored is None if refused.

    With ``grace`` every value goes through one tmux client that then waits
    (``JOB_GRACE``), so any ``#()`` job it started has time to run. Otherwise
    each value gets its own client, so a refused value cannot skip the others.
    """

    # Read back through driver.records, as the server reads names: how tmux
    # prints a value (raw, or octal-escaped on 3.4 to 3.5a) must not count as
    # a change to it.
    frame = RecordFormat(("session_name", "window_name", "pane_title"))

    def commands(kind: NameKind, encoded: str) -> list[str]:
        return [*_set_name(lab, kind, encoded), ";",
                "display-message", "-p", "-t", lab.pane, frame.template]  # fmt: skip

    if grace:
        argv: list[str] = []
        for kind, _, encoded in values:
            argv += [*commands(kind, encoded), ";"]
        done = await lab.tmux([*argv, "run-shell", JOB_GRACE])
        records = frame.parse(done.stdout.decode("utf-8", "replace"))
        if done.returncode == 0 and len(records) == len(values):
            return [
                (kind, value, record[_NAME_SETTERS[kind][1]])
                for (kind, value, _), record in zip(values, records, strict=True)
            ]
        # Something was refused: fall through to one client per value to say which.
    out: list[tuple[NameKind, str, str | None]] = []
    for kind, value, encoded in values:
        done = await lab.tmux(commands(kind, encoded))
        records = frame.parse(done.stdout.decode("utf-8", "replace"))
        stored = records[0][_NAME_SETTERS[kind][1]] if len(records) == 1 else None
        out.append((kind, value, stored if done.returncode == 0 else None))
    return out


def _session_safe(value: str) -> bool:
    return ":" not in value and "." not in value


async def probe_format_escape(lab: Lab) -> None:
    """Format-escaped names and titles read back exactly; no job ever runs."""
    job = f"#(touch {lab.sentinel('format-job')})"
    samples = [
        job, "#" + job, "#[fg=red]" + job, "x#{session_id}y", "#{?1,yes,no}", "#{l:lit}",
        "#S#W#P#H#D#T", "%H%M%%", "trail#", "##", "###[x]", "#,#}", "#{pane_id};",
        "é☺日😀", "-n", "{last}", "a;",
    ]  # fmt: skip
    values = [
        (kind, value, lab.encoders.format(value))
        for kind in NameKind
        for value in samples
        if kind is not NameKind.SESSION or _session_safe(value)
    ]
    stored = await _store_and_read(lab, values, grace=True)
    wrong = ["a #() job ran"] if lab.fired() else []
    wrong += [
        f"{kind.value} {value!r} came back as {got!r}"
        for kind, value, got in stored
        if got != value
    ]
    if wrong:
        raise ClaimFailed("; ".join(wrong[:3]))


_PRINTABLE = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) not in "\\$")

NAME_RULE_ACCEPTS = (
    _PRINTABLE,
    _PRINTABLE.replace(":", "").replace(".", ""),
    "title $x:y.z",
    "#{session_id}##S#S#[x]#",
    "é☺日😀 a\u0301 \u200b\ufeff \u00a0\u3000",
    "é" * 200,
    "😀" * 50,
    "-",
    " leading and trailing ",
    "=eq",
    "~",
    "{last}",
    "%0",
    "@0",
)
"""Values the name rule is meant to accept; each must be stored exactly."""


async def probe_name_rule_sufficient(lab: Lab) -> None:
    """Every sample value the name rule accepts is stored exactly."""
    values = []
    for kind in NameKind:
        for value in NAME_RULE_ACCEPTS:
            try:
                encoded = lab.encoders.name(value, kind, "name")
            except TmuxMcpError:
                continue  # refused: nothing to prove about it here
            values.append((kind, value, encoded))
    if not values:
        raise ClaimFailed("the name rule refused every sample")
    wrong = [
        f"{kind.value} {value[:40]!r} came back as {(stored or '')[:40]!r}"
        for kind, value, stored in await _store_and_read(lab, values)
        if stored != value
    ]
    if wrong:
        raise ClaimFailed("; ".join(wrong[:3]))


NAME_RULE_PREMISES = (
    (NameKind.SESSION, "$x"),
    (NameKind.SESSION, "a\\b"),
    (NameKind.SESSION, "a\x01b"),
    (NameKind.SESSION, "a\tb"),
    (NameKind.WINDOW, "$x"),
    (NameKind.WINDOW, "a\\b"),
    (NameKind.WINDOW, "a\x01b"),
    (NameKind.WINDOW, "a\tb"),
    (NameKind.TITLE, "a\x01b"),
    (NameKind.TITLE, "a\tb"),
)
"""(kind, value) pairs the name rule refuses because tmux alters them."""


async def probe_name_rule_needed(lab: Lab) -> None:
    """tmux still rewrites or refuses what the name rule refuses."""
    values = [(kind, value, lab.encoders.format(value)) for kind, value in NAME_RULE_PREMISES]
    exact = [
        f"{kind.value} {value!r}"
        for kind, value, stored in await _store_and_read(lab, values)
        if stored == value
    ]
    if exact:
        raise ClaimFailed(
            "tmux now stores " + ", ".join(exact) + " exactly; the name rule can be relaxed"
        )


SEMICOLON_VALUES = ("x;", ";", "a;;", "a\\;", "\\;", "#{pane_id};", "; ;")


async def probe_argv_semicolon(lab: Lab) -> None:
    """An escaped trailing ';' stays in its argument and never starts a command."""
    wrong = []
    for value in SEMICOLON_VALUES:
        done = await lab.tmux(
            _argv("set-buffer -b semi -- {} ; show-buffer -b semi", lab.encoders.argv(value))
        )
        shown = done.stdout.decode("utf-8", "replace").removesuffix("\n")
        if done.returncode != 0 or shown != value:
            wrong.append(f"{value!r} came back as {shown!r}")
    # The caller's element is followed by tmuxmcp's own elements: were the
    # caller's ';' not escaped, they would run as a second command.
    await lab.tmux(
        _argv(
            "set-buffer -b inject -- {} run-shell {}",
            lab.encoders.argv("x;"),
            f"touch {lab.sentinel('semicolon-data')}",
        )
    )
    await lab.tmux(
        _argv(
            "list-panes -t {} run-shell {}",
            lab.encoders.argv(lab.pane + ";"),
            f"touch {lab.sentinel('semicolon-target')}",
        )
    )
    if lab.fired():
        wrong.insert(0, "a second command ran: " + ", ".join(lab.fired()))
    if wrong:
        raise ClaimFailed("; ".join(wrong[:3]))


DASH_VALUES = ("-a", "-w", "--", "-", "-b x", "-F#{pid}", "-t%0")


async def probe_argv_double_dash(lab: Lab) -> None:
    """Positionals rendered by driver.argv are never read as flags."""
    wrong = []
    for value in DASH_VALUES:
        done = await lab.tmux(
            render([cmd("set-buffer", b="dash", args=[value]), cmd("show-buffer", b="dash")])
        )
        shown = done.stdout.decode("utf-8", "replace").removesuffix("\n")
        if done.returncode != 0 or shown != value:
            wrong.append(f"{value!r} came back as {shown!r}")
    if wrong:
        raise ClaimFailed("; ".join(wrong[:3]))


DIRECTORY_NAMES = ("d #{session_name} ##[x] %H ;", "d#", "d#{pane_id}", "d-#S", "dé☺;")


async def probe_start_directory(lab: Lab) -> None:
    """A start directory with format syntax reaches tmux exactly (``-c``)."""
    wrong = []
    for index, leaf in enumerate(DIRECTORY_NAMES):
        directory = os.path.join(lab.directory, leaf)
        os.mkdir(directory)
        encoded = lab.encoders.directory(directory, "start_directory")
        out = await lab.ok(
            _argv(
                "new-session -d -s {} -c {} -P -F {} -- sleep 600",
                f"dir{index}",
                lab.encoders.argv(encoded),
                "#{session_path}",
            )
        )
        if out.removesuffix("\n") != directory:
            wrong.append(f"{leaf!r} came back as {out.strip()!r}")
        await lab.ok(["kill-session", "-t", f"dir{index}"])
    if wrong:
        raise ClaimFailed("; ".join(wrong[:3]))


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
    tmux = f"{shlex.quote(lab.binary)} -S {shlex.quote(lab.socket)}"
    script = (
        f"stty raw -echo; {tmux} wait-for -S ready; "
        f"head -c {len(data)} > {shlex.quote(received)}; {tmux} wait-for -S received; "
        "exec sleep 600"
    )
    _, _, pane = await lab.new_session("reader", "sh", "-c", script)
    await lab.ok(["wait-for", "ready", ";", "copy-mode", "-t", pane])
    await lab.ok(
        _argv("load-buffer -b paste - ; paste-buffer -d -r -b paste -t {}", pane), stdin=data
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
    tmux = f"{shlex.quote(lab.binary)} -S {shlex.quote(lab.socket)}"
    script = (
        f"stty raw -echo; {tmux} wait-for -S lines-ready; "
        f"head -c {len(expected)} > {shlex.quote(received)}; {tmux} wait-for -S lines-received; "
        "exec sleep 600"
    )
    _, _, pane = await lab.new_session("lines", "sh", "-c", script)
    await lab.ok(["wait-for", "lines-ready"])
    await lab.ok(_argv("load-buffer -b lines - ; paste-buffer -d -b lines -t {}", pane), stdin=data)
    await lab.ok(["wait-for", "lines-received"])
    got = await trio.Path(received).read_bytes()
    if got != expected:
        raise ClaimFailed(f"{got[:80]!r} arrived for {expected[:80]!r}")


async def probe_key_names(lab: Lab) -> None:
    """Every name in the send_keys vocabulary is a key name to tmux, not text.

    bind-key parses key names as send-keys does; no count is compared because
    tmux folds aliases into one binding (C-i is Tab, C-m is Enter).
    """
    from tmuxmcp.sinks.keys import KEY_VOCABULARY

    keys = sorted(KEY_VOCABULARY)
    argv: list[str] = []
    for key in keys:
        argv += [";"] if argv else []
        argv += ["bind-key", "-T", "tmuxmcp-verify", key, "send-keys", "x"]
    done = await lab.tmux(argv)  # an unknown name fails with "unknown key: NAME"
    if done.returncode != 0:
        raise ClaimFailed(done.stderr.decode("utf-8", "replace").strip()[:200])


async def probe_ids_exact(lab: Lab) -> None:
    """Ids address exactly their object; names that look like ids are never chosen.

    Also the premise of the id rule: tmux reads ``%01`` as ``%1``.
    """
    from tmuxmcp.sinks.target import IdKind

    other_session, other_window, _ = await lab.new_session("ids")
    wrong = []
    for value, kind in ((lab.session, IdKind.SESSION), (lab.window, IdKind.WINDOW),
                        (lab.pane, IdKind.PANE), (other_window, IdKind.WINDOW)):  # fmt: skip
        try:
            lab.encoders.target(value, kind, "id")
        except TmuxMcpError:
            wrong.append(f"the id rule refuses tmux's own id {value!r}")
    # Another window named like our window's and pane's ids, and like unknown ids.
    for name, target, expected in (
        (lab.window, lab.window, lab.window),
        (lab.pane, lab.pane, lab.pane),
        ("@999999", "@999999", None),
        ("%999999", "%999999", None),
    ):
        await lab.ok(["rename-window", "-t", other_window, "--", lab.encoders.argv(name)])
        done = await lab.tmux(["list-panes", "-t", target, "-F", "#{window_id} #{pane_id}"])
        found = done.stdout.decode().split() if done.returncode == 0 else None
        if expected is None and found is not None:
            wrong.append(f"unknown id {target} resolved to {found}")
        elif expected is not None and (found is None or expected not in found):
            wrong.append(f"{target} resolved to {found}, not {expected}")
    await lab.ok(["rename-session", "-t", other_session, "--", "999999"])
    if (await lab.tmux(["has-session", "-t", "$999999"])).returncode == 0:
        wrong.append("unknown id $999999 resolved to the session named 999999")
    alias = "%0" + lab.pane[1:]
    done = await lab.tmux(["list-panes", "-t", alias, "-F", "#{pane_id}"])
    if done.returncode != 0 or lab.pane not in done.stdout.decode().split():
        wrong.append(f"tmux no longer reads {alias} as {lab.pane} (premise of the id rule)")
    if wrong:
        raise ClaimFailed("; ".join(wrong[:3]))


async def probe_no_server_start(lab: Lab) -> None:
    """tmuxmcp's client passes -N, and -N never starts a server."""
    path = os.path.join(lab.directory, "nostart")
    client = TmuxClient(lab.binary, SocketSelection(SocketKind.PATH, path), lab.env)
    if "-N" not in client.base_argv():
        raise ClaimFailed("tmuxmcp's tmux client does not pass -N")
    for command in (cmd("new-session", "-d"), cmd("start-server")):
        with contextlib.suppress(TmuxMcpError):
            await client.run_unbound([command])
    answered = await lab.tmux(["list-sessions"], socket=path)
    if answered.returncode == 0:
        raise ClaimFailed("a tmux server started although -N was given")


async def probe_gate_foreign(lab: Lab) -> None:
    """The gate refuses a server tmuxmcp did not bind, and nothing after it runs."""
    path = os.path.join(lab.directory, "foreign")
    await lab.tmux(["new-session", "-d", "-s", "foreign", "--", "sleep", "600"], socket=path)
    try:
        facts = await lab.tmux(["display-message", "-p", "#{pid}:#{start_time}"], socket=path)
        identity = parse_identity(facts.stdout.decode().strip())
        if identity is None:
            raise ClaimFailed("the foreign server did not report its identity")
        client = TmuxClient(lab.binary, SocketSelection(SocketKind.PATH, path), lab.env)
        # Even the foreign server's true identity must not pass: only the
        # option binding sets can open the gate.
        client.bind(ServerIdentity(identity.pid, identity.start_time))
        try:
            await client.run(cmd("set-buffer", b="gate", args=["ran"]))
        except ServerReplaced:
            pass
        else:
            raise ClaimFailed("a command ran through the gate on a foreign server")
        if (await lab.tmux(["show-buffer", "-b", "gate"], socket=path)).returncode == 0:
            raise ClaimFailed("the command after the gate ran on the foreign server")
    finally:
        await lab.tmux(["kill-server"], socket=path)


async def probe_gate_copied_option(lab: Lab) -> None:
    """A server holding a copy of the gate option (name and value) is refused."""
    path = os.path.join(lab.directory, "copy")
    await lab.tmux(["new-session", "-d", "-s", "copy", "--", "sleep", "600"], socket=path)
    try:
        client = TmuxClient(lab.binary, SocketSelection(SocketKind.PATH, path), lab.env)
        # The identity of a server that is gone, and the option it carried,
        # copied here as any reader of the socket could.
        gone = ServerIdentity(1, 1)
        await lab.tmux(["set-option", "-s", client.marker, "1:1"], socket=path)
        client.bind(gone)
        try:
            await client.run(cmd("set-buffer", b="gate", args=["ran"]))
        except ServerReplaced:
            pass
        else:
            raise ClaimFailed("a command ran on a server holding a copied gate option")
        if (await lab.tmux(["show-buffer", "-b", "gate"], socket=path)).returncode == 0:
            raise ClaimFailed("the command after the gate ran on the copying server")
    finally:
        await lab.tmux(["kill-server"], socket=path)


async def _checked_client(lab: Lab, path: str, *, or_bare: bool = False) -> TmuxClient | None:
    """A client bound to a fresh server at ``path`` with the per-call check on.

    If this tmux cannot run the check (no whole arrays in formats): None, or
    with ``or_bare`` the bound client without a check.
    """
    from tmuxmcp.driver import binding

    await lab.tmux(
        ["new-session", "-d", "-s", "c", "-x", "80", "-y", "24", "--", "sleep", "600"],
        socket=path,
    )
    client = TmuxClient(lab.binary, SocketSelection(SocketKind.PATH, path), lab.env)
    facts = await binding.establish(client)
    if facts.aliases is None:
        return client if or_bare else None
    client.watch = ConfigWatch(facts.aliases)
    return client


_LIST = cmd("list-panes", "-a", F="#{pane_id}")
_RENAME = cmd("rename-window", t="c", args=["renamed"])

CHANGES_AFTER_STARTUP = (
    ("global hook", ["set-hook", "-g", "after-list-panes"], _LIST),
    ("session hook", ["set-hook", "-t", "c", "after-list-panes"], _LIST),
    ("window hook", ["set-hook", "-w", "-t", "c", "after-list-panes"], _LIST),
    ("pane hook", ["set-hook", "-p", "-t", "c", "after-list-panes"], _LIST),
    ("global window hook", ["set-hook", "-gw", "after-list-panes"], _LIST),
    ("gate hook", ["set-hook", "-g", "after-show-options"], _LIST),
    ("error hook", ["set-hook", "-g", "command-error"], _LIST),
    ("window event hook", ["set-hook", "-w", "-t", "c", "window-renamed"], _RENAME),
    ("pane event hook", ["set-hook", "-p", "-t", "c", "window-renamed"], _RENAME),
    ("alias", ["set-option", "-s", "command-alias[100]", "list-panes={}"], _LIST),
)
"""Each kind of configured behaviour a later client can add, how (``{}`` or a
last argument: the command it would run), and the call it must refuse."""


async def probe_configuration_check(lab: Lab) -> None:
    """Every kind of hook and alias added after startup refuses the call (CM-4)."""
    path = os.path.join(lab.directory, "config")
    paths = [path]
    try:
        client = await _checked_client(lab, path)
        if client is None:
            # tmux < 3.5: premise that no format sees a hook, so no check exists
            # and tmuxmcp publishes no narrow hint here (annotations rule 3c).
            await lab.tmux(["set-hook", "-g", "after-list-panes", "display -p x"], socket=path)
            seen = await lab.tmux(["display-message", "-p", "#{after-list-panes}"], socket=path)
            if seen.stdout.strip():
                raise ClaimFailed("this tmux shows hooks in formats but the binding found no check")
            return
        for index, (kind, setter, call) in enumerate(CHANGES_AFTER_STARTUP):
            # A fresh server per kind (a refused client stays refused); each on
            # its own socket, so none can meet a predecessor still exiting.
            path = f"{paths[0]}-{index}"
            paths.append(path)
            client = await _checked_client(lab, path)
            assert client is not None
            name = kind.replace(" ", "-")
            # A command-error hook runs when the refusing gate fails (the limit
            # annotations rule 3b answers), so its mark is not a sentinel.
            target = os.path.join(lab.directory, name) if kind == "error hook" else None
            ran = f"run-shell 'touch {target or lab.sentinel(name)}'"
            if kind == "alias":
                argv = [*setter[:-1], setter[-1].format(f"{ran} ; list-panes")]
            else:
                argv = [*setter, ran]
            done = await lab.tmux(argv, socket=path)
            if done.returncode != 0:
                raise ClaimFailed(f"could not add the {kind}: {done.stderr.decode()[:200]}")
            try:
                await client.run(call)
            except ConfigurationChanged:
                pass
            else:
                raise ClaimFailed(f"a call ran after a {kind} was added")
            if lab.fired():
                raise ClaimFailed(f"the {kind} ran although the call was refused")
    finally:
        for used in paths:
            await lab.tmux(["kill-server"], socket=used)


async def probe_alias_precedes_gate(lab: Lab) -> None:
    """An alias named after the gate's command runs before any check (why rule 3b stays)."""
    path = os.path.join(lab.directory, "limit")
    mark = os.path.join(lab.directory, "limit-ran")  # not a sentinel: it must run
    try:
        client = await _checked_client(lab, path, or_bare=True)
        assert client is not None
        alias = f"{GATE_COMMAND}=run-shell 'touch {mark}' ; {GATE_COMMAND}"
        await lab.tmux(["set-option", "-s", "command-alias[100]", alias], socket=path)
        with contextlib.suppress(ConfigurationChanged):
            await client.run(cmd("list-sessions", F="#{session_id}"))
        if not await trio.Path(mark).exists():
            raise ClaimFailed(
                "an alias of the gate's command no longer runs before the gate: "
                "annotations rule 3b can be revisited"
            )
    finally:
        await lab.tmux(["kill-server"], socket=path)


async def probe_numeric_bounds(lab: Lab) -> None:
    """capture-pane takes lines from -2^31 to 32767, the LineNumber bounds."""
    from tmuxmcp.capability.params import MAX_LINE, MIN_LINE

    await lab.ok(render([cmd("capture-pane", "-p", t=lab.pane, S=MIN_LINE, E=MAX_LINE)]))


FRAMED_DIRECTORY = "r\\q\\036\x01\x1b\x7f\r\t\nz\\ S F E M é \\ne\\"
"""A start directory with every character class the framing must survive (Rule 2)."""

FRAMED_TITLE = "t\\036 \\ \\\\ S F E M \\n %end {last} é☺"
"""A printable pane title with backslashes and marker-like text."""


async def probe_record_framing(lab: Lab) -> None:
    """Records framed by ``driver.records`` read back exactly on this tmux.

    The values hold backslashes, control characters, newlines, the text tmux
    3.5a prints for a control character (``\\036``) and the marker letters.
    """
    directory = os.path.join(lab.directory, FRAMED_DIRECTORY)
    os.mkdir(directory)
    # A pane program can enter any directory; tmuxmcp's own start_directory rule
    # refuses control characters, so this one is only format-escaped.
    encoded = lab.encoders.argv(lab.encoders.format(directory))
    # The pane's program signals once it runs, so its working directory is set
    # when it is read (a pane whose process has not started reports none).
    ready = f"{shlex.quote(lab.binary)} -S {shlex.quote(lab.socket)} wait-for -S framed"
    out = await lab.ok(
        _argv(
            "new-session -d -s framed -c {} -P -F {} -- sh -c {}",
            encoded,
            "#{pane_id}",
            f"{ready}; exec sleep 600",
        )
    )
    pane = out.strip()
    await lab.ok(["wait-for", "framed"])
    title = lab.encoders.argv(lab.encoders.format(FRAMED_TITLE))
    await lab.ok(["select-pane", "-t", pane, "-T", title])
    frame = RecordFormat(("pane_id", "pane_current_path", "pane_title", "version"))
    printed = await lab.ok(["list-panes", "-t", pane, "-F", frame.template])
    try:
        records = frame.parse(printed)
    except TmuxMcpError as exc:
        raise ClaimFailed(f"{exc.for_client()}; tmux printed {printed[:120]!r}") from exc
    expected = {"pane_id": pane, "pane_current_path": directory, "pane_title": FRAMED_TITLE}
    got = [{k: v for k, v in r.items() if k != "version"} for r in records]
    if got != [expected]:
        raise ClaimFailed(f"read {got!r} for {expected!r}; tmux printed {printed[:120]!r}")
    await lab.ok(["kill-session", "-t", "framed"])


SECTION_TEXT = "A \\036 \\ M S F E %begin 1 2 1 é"


async def probe_section_markers(lab: Lab) -> None:
    """Section markers split interleaved ``capture-pane`` output exactly on this tmux."""
    tmux = f"{shlex.quote(lab.binary)} -S {shlex.quote(lab.socket)}"
    script = f"printf '%s\\n' {shlex.quote(SECTION_TEXT)}; {tmux} wait-for -S shown; exec sleep 600"
    _, _, pane = await lab.new_session("sections", "sh", "-c", script)
    await lab.ok(["wait-for", "shown"])
    marker = SectionMarker()
    argv: list[str] = []
    for index in range(2):
        argv += ["display-message", "-p", "-t", pane, marker.line(index, "history_size"), ";"]
        argv += ["capture-pane", "-p", "-t", pane, ";"]
    printed = await lab.ok(argv[:-1])
    sections = marker.split(printed)
    if sorted(sections) != [0, 1]:
        raise ClaimFailed(f"found sections {sorted(sections)} in {printed[:120]!r}")
    for values, body in sections.values():
        if len(values) != 1 or not values[0].isdigit() or SECTION_TEXT not in body.split("\n"):
            raise ClaimFailed(f"a section read as {values!r}, {body[:80]!r}")
    await lab.ok(["kill-session", "-t", "sections"])


async def probe_buffer_delete_exact(lab: Lab) -> None:
    """delete_buffer's commands delete the named buffer, and nothing for an unknown name.

    Upstream tmux before 3.4 deletes the most recent buffer when ``-b`` names
    none; ``driver.buffers.delete_buffer_commands`` guards against that.
    """
    from tmuxmcp.driver.buffers import delete_buffer_commands

    async def ours() -> list[str]:  # earlier probes may leave buffers of their own
        names = (await lab.ok(["list-buffers", "-F", "#{buffer_name}"])).split()
        return sorted(set(names) & {"keep", "newest"})

    await lab.ok(_argv("set-buffer -b keep -- k ; set-buffer -b newest -- n"))
    missing = await lab.tmux(render(delete_buffer_commands("newes")))
    if missing.returncode == 0 or await ours() != ["keep", "newest"]:
        raise ClaimFailed(f"deleting the unknown buffer 'newes' left {await ours()}")
    await lab.ok(render(delete_buffer_commands("keep")))
    if await ours() != ["newest"]:
        raise ClaimFailed(f"deleting buffer 'keep' left {await ours()}")
    await lab.ok(["delete-buffer", "-b", "newest"])


# -- the claim table and the runner -------------------------------------------------


async def probe_output_fence(lab: Lab) -> None:
    """run_command's fence: an OSC 7 path printed after output shows only once that
    output is drawn, and ``capture-pane -J`` returns a wrapped line whole.

    The pane prints 3,000 lines, one line of 300 characters (wider than the
    pane), then the fence, then signals; the fence is then awaited (bounded)
    and the rows above the cursor must already hold the output's last lines.
    """
    fence = "tmuxmcp-verify-fence"
    tmux = f"{shlex.quote(lab.binary)} -S {shlex.quote(lab.socket)}"
    script = (
        "seq 1 3000; printf '%0300d\\n' 7; "
        f"printf '\\033]7;%s\\033\\\\' {fence}; {tmux} wait-for -S fenced; exec sleep 600"
    )
    _, _, pane = await lab.new_session("fence", "sh", "-c", script)
    await lab.ok(["wait-for", "fenced"])
    deadline = trio.current_time() + PROBE_SECONDS
    while True:
        seen = await lab.ok(["display-message", "-p", "-t", pane, "#{pane_path}"])
        if seen.strip() == fence:
            break
        if trio.current_time() > deadline:
            raise ClaimFailed(f"#{{pane_path}} never showed the OSC 7 fence (it is {seen!r})")
        await trio.sleep(0.01)
    rows = (await lab.ok(["capture-pane", "-p", "-J", "-t", pane, "-S", "-10"])).split("\n")
    body = [row.rstrip() for row in rows if row.strip()]
    if body[-2:] != ["3000", "0" * 299 + "7"]:
        raise ClaimFailed(f"when the fence showed, the screen ended with {body[-2:]!r}")


class Severity(StrEnum):
    """What a claim's failure means (see the module docstring)."""

    SAFETY = "safety"
    """Caller text could reach an interpreter, a wrong object or a foreign server: FAIL."""
    STRICTNESS = "strictness"
    """A rule is stricter than this tmux needs: NOTE, and the exit status stays 0."""


class Claim(msgspec.Struct, frozen=True):
    """One claim, the probe that checks it, and what its failure means."""

    slug: str
    text: str
    probe: Callable[[Lab], Awaitable[None]]
    severity: Severity = Severity.SAFETY


CLAIMS: tuple[Claim, ...] = (
    Claim(
        "output-fence",
        "run_command's OSC 7 fence shows only after the output before it is drawn; "
        "capture -J joins wrapped lines",
        probe_output_fence,
    ),
    Claim(
        "format-escape",
        "format-escaped names and titles arrive exactly; no #() job, #{} or strftime runs",
        probe_format_escape,
    ),
    Claim(
        "name-rule-sufficient",
        "names and titles the name rule accepts are stored exactly",
        probe_name_rule_sufficient,
    ),
    Claim(
        "name-rule-needed",
        "tmux rewrites or refuses '$x', backslash and control characters in names",
        probe_name_rule_needed,
        Severity.STRICTNESS,
    ),
    Claim(
        "argv-semicolon",
        "an escaped trailing ';' stays in its argument and never starts a second command",
        probe_argv_semicolon,
    ),
    Claim(
        "argv-double-dash",
        "positionals after '--' are never read as flags",
        probe_argv_double_dash,
    ),
    Claim(
        "start-directory",
        "start directories with format syntax arrive exactly (-c)",
        probe_start_directory,
    ),
    Claim(
        "paste-exact",
        "paste-buffer delivers text byte for byte, past 16 KiB and in copy mode",
        probe_paste_exact,
    ),
    Claim(
        "paste-lines",
        "paste-buffer without -r delivers each newline as CR (Enter), nothing else changed",
        probe_paste_lines,
    ),
    Claim(
        "key-names",
        "every send_keys key name is a tmux key name",
        probe_key_names,
    ),
    Claim(
        "ids-exact",
        "ids address exactly their object; unknown ids fail; '%01' aliases '%1'",
        probe_ids_exact,
    ),
    Claim(
        "no-server-start",
        "tmux -N never starts a server, and tmuxmcp always passes -N",
        probe_no_server_start,
    ),
    Claim(
        "gate-foreign",
        "the gate option refuses a foreign server; nothing after it runs there",
        probe_gate_foreign,
    ),
    Claim(
        "gate-copied-option",
        "a server holding a copy of the gate option is refused; nothing after the gate runs",
        probe_gate_copied_option,
    ),
    Claim(
        "configuration-check",
        "with narrow hints, a hook of any scope or an alias added later refuses the call",
        probe_configuration_check,
    ),
    Claim(
        "alias-precedes-gate",
        "an alias of the gate's own command runs before any in-band check",
        probe_alias_precedes_gate,
    ),
    Claim(
        "numeric-bounds",
        "capture-pane accepts the documented line range [-2^31, 32767]",
        probe_numeric_bounds,
    ),
    Claim(
        "record-framing",
        "framed records read back exactly: backslashes, control characters, newlines, "
        "escape-like and marker-like text",
        probe_record_framing,
    ),
    Claim(
        "section-markers",
        "section markers split interleaved capture-pane output exactly",
        probe_section_markers,
    ),
    Claim(
        "buffer-delete-exact",
        "delete_buffer deletes the named buffer, and no buffer for an unknown name",
        probe_buffer_delete_exact,
    ),
)


class Outcome(msgspec.Struct, frozen=True):
    """The result of one claim's probe."""

    slug: str
    text: str
    passed: bool
    detail: str = ""
    severity: Severity = Severity.SAFETY

    @property
    def status(self) -> str:
        """``PASS``, ``FAIL`` (a safety claim failed) or ``NOTE`` (a strictness finding)."""
        if self.passed:
            return "PASS"
        return "NOTE" if self.severity is Severity.STRICTNESS else "FAIL"


class Report(msgspec.Struct, frozen=True):
    """Every claim's outcome for one tmux binary."""

    binary: str
    version: str
    outcomes: tuple[Outcome, ...]

    @property
    def passed(self) -> bool:
        """True when no safety claim failed (strictness findings are notes)."""
        return bool(self.outcomes) and all(o.status != "FAIL" for o in self.outcomes)

    @property
    def notes(self) -> dict[str, str]:
        """Strictness findings, and an unproven version: slug -> what was found."""
        found = {o.slug: o.detail for o in self.outcomes if o.status == "NOTE"}
        if self.version != "unknown" and not proven_in_ci(self.version):
            found["unproven-version"] = unproven_note(self.version)
        return found

    def lines(self) -> list[str]:
        """One line per claim, ``PASS|FAIL|NOTE <slug>: <claim> (tmux X.Y)[: detail]``,
        then a ``NOTE unproven-version`` line if CI does not run this version."""
        out = []
        for o in self.outcomes:
            line = f"{o.status} {o.slug}: {o.text} (tmux {self.version})"
            out.append(line + (f": {o.detail}" if o.detail else ""))
        if "unproven-version" in self.notes:
            out.append(f"NOTE unproven-version: {self.notes['unproven-version']}")
        return out


async def _attempt(claim: Claim, lab: Lab) -> Outcome:
    def failed(detail: str) -> Outcome:
        return Outcome(claim.slug, claim.text, False, detail, claim.severity)

    try:
        await claim.probe(lab)
    except ClaimFailed as exc:
        return failed(str(exc))
    except TmuxMcpError as exc:
        return failed(exc.for_client())
    except Exception as exc:  # a probe must report, never crash the suite (Rule 2)
        return failed(f"probe error: {type(exc).__name__}: {exc}")
    return Outcome(claim.slug, claim.text, True, severity=claim.severity)


async def run_async(
    binary: str, *, encoders: Encoders | None = None, claims: Sequence[Claim] = CLAIMS
) -> Report:
    """Probe ``claims`` against ``binary`` on a throwaway server."""
    chosen = current_encoders() if encoders is None else encoders
    directory = tempfile.mkdtemp(prefix="tmuxmcp-verify-")
    lab = Lab(binary, directory, chosen)
    try:
        try:
            lab.session, lab.window, lab.pane = await lab.new_session("verify")
            version = (await lab.ok(["display-message", "-p", "#{version}"])).strip()
        except (ClaimFailed, TmuxMcpError, ValueError) as exc:
            detail = exc.for_client() if isinstance(exc, TmuxMcpError) else str(exc)
            failed = Outcome("setup", "a private tmux server starts", False, detail)
            return Report(binary=binary, version="unknown", outcomes=(failed,))
        outcomes = []
        for claim in claims:
            outcomes.append(await _attempt(claim, lab))
            # Each probe starts with no sentinel, so one failure cannot hide another.
            for name in lab.fired():
                os.unlink(lab.sentinel(name))
        return Report(binary=binary, version=version, outcomes=tuple(outcomes))
    finally:
        with contextlib.suppress(TmuxMcpError):
            await lab.tmux(["kill-server"])
        shutil.rmtree(directory, ignore_errors=True)


def run(
    binary: str, *, encoders: Encoders | None = None, claims: Sequence[Claim] = CLAIMS
) -> Report:
    """``run_async`` for synchronous callers (the CLI and tests)."""
    return trio.run(functools.partial(run_async, binary, encoders=encoders, claims=claims))


# -- the cache that server_info reads -----------------------------------------------


class Verified(msgspec.Struct, frozen=True, kw_only=True):
    """What ``tmuxmcp verify`` recorded for one binary."""

    tmux_version: str
    tmux_binary: str
    binary_sha256: str
    tmuxmcp_version: str
    claims: dict[str, bool]
    """Slug -> True unless the claim is a safety claim that failed."""
    checked_at: str
    notes: dict[str, str] = {}
    """Strictness findings (slug -> what was found); they do not unverify."""


def cache_directory() -> str:
    """``$XDG_CACHE_HOME/tmuxmcp`` (default ``~/.cache/tmuxmcp``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tmuxmcp")


def binary_digest(binary: str) -> str:
    """SHA-256 of the tmux executable: a rebuilt binary must be verified again."""
    st = os.stat(binary)
    return _digest(binary, st.st_ino, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _digest(binary: str, inode: int, size: int, mtime_ns: int) -> str:
    # Keyed by the file's identity, so server_info does not rehash an
    # unchanged binary on every call while a replaced one is hashed again.
    digest = hashlib.sha256()
    with open(binary, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cache_path(version: str, digest: str) -> str:
    """Where the outcome for this version and binary is recorded."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", version)[:40]
    return os.path.join(cache_directory(), f"verified-{safe}-{digest[:16]}.json")


def record(report: Report) -> str:
    """Write ``report`` to the cache (replacing any earlier outcome); its path."""
    digest = binary_digest(report.binary)
    entry = Verified(
        tmux_version=report.version,
        tmux_binary=report.binary,
        binary_sha256=digest,
        tmuxmcp_version=tmuxmcp.__version__,
        claims={o.slug: o.status != "FAIL" for o in report.outcomes},
        notes={o.slug: o.detail for o in report.outcomes if o.status == "NOTE"},
        checked_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    )
    path = cache_path(report.version, digest)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    partial = f"{path}.{os.getpid()}.tmp"
    with open(partial, "wb") as f:
        f.write(msgspec.json.encode(entry))
    os.replace(partial, path)
    return path


def verified_status(binary: str, version: str) -> dict[str, Any]:
    """Whether ``tmuxmcp verify`` passed for this binary and version (for server_info).

    Never raises: an unreadable cache means "not verified", with the reason.
    Verification counts only if it was made by this tmuxmcp version with
    today's claim list, so a new claim asks for a new run. Strictness findings
    and a version CI does not prove are reported under ``notes`` either way.
    """
    status: dict[str, Any] = {
        "tmux_version": version,
        "verified": False,
        "proven_in_ci": proven_in_ci(version),
        "notes": [] if proven_in_ci(version) else [f"unproven-version: {unproven_note(version)}"],
        "how_to_verify": f"run `tmuxmcp verify --tmux {binary}`",
    }
    try:
        with open(cache_path(version, binary_digest(binary)), "rb") as f:
            entry = msgspec.json.decode(f.read(), type=Verified)
    except FileNotFoundError:
        return {**status, "reason": "these claims were never verified for this tmux binary"}
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        return {**status, "reason": f"the verification record is unreadable ({type(exc).__name__})"}
    failed = sorted(slug for slug, ok in entry.claims.items() if not ok)
    missing = sorted({c.slug for c in CLAIMS} - set(entry.claims))
    status["checked_at"] = entry.checked_at
    status["notes"] = [f"{slug}: {detail}" for slug, detail in sorted(entry.notes.items())] + (
        status["notes"]
    )
    if entry.tmuxmcp_version != tmuxmcp.__version__:
        return {**status, "reason": f"verified by tmuxmcp {entry.tmuxmcp_version}; run it again"}
    if failed:
        return {**status, "reason": "claims failed: " + ", ".join(failed), "failed": failed}
    if missing:
        return {**status, "reason": "claims not yet verified: " + ", ".join(missing)}
    return {**status, "verified": True, "reason": "every claim passed"}


def main(tmux: str | None, *, write_cache: bool = True) -> int:
    """``tmuxmcp verify``: print one line per claim; 0 unless a safety claim failed."""
    from tmuxmcp.config import resolve_binary

    binary = resolve_binary(tmux, os.environ)
    report = run(binary)
    for line in report.lines():
        sys.stdout.write(line + "\n")
    sys.stdout.flush()
    if write_cache:
        try:
            where = record(report)
        except OSError as exc:
            sys.stderr.write(f"tmuxmcp: could not record the outcome: {exc.strerror}\n")
        else:
            sys.stderr.write(f"tmuxmcp: outcome recorded in {where}\n")
    return 0 if report.passed else 1
