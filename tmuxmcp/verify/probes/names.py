"""Probes of the format escape and the name rule: names, titles and start directories.

Claims ``format-escape``, ``name-rule-sufficient``, ``name-rule-needed`` and
``start-directory``: values that pass through ``sinks.format`` (and, for
names, ``sinks.names``; for directories, ``sinks.path``) are stored exactly
and never run a ``#()`` job, and tmux still alters what the name rule
refuses. Every value is read back through ``driver.records``, as the server
reads names.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.errors import TmuxMcpError
from tmuxmcp.sinks.names import NameKind
from tmuxmcp.verify.lab import ClaimFailed, Lab, fill_argv

JOB_GRACE = "sleep 0.3"
"""Keeps the probing client alive so a ``#()`` job it started can finish.

tmux ties format jobs to the command client and sends them SIGTERM when it
exits (format.c ``format_lost_client``), so without this a job that did start
might die before it touched its sentinel.
"""


_NAME_VARIABLES = {
    NameKind.SESSION: "session_name",
    NameKind.WINDOW: "window_name",
    NameKind.TITLE: "pane_title",
}
"""The format variable that reads each kind of name back (``_set_name`` stores it)."""


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
    frame = RecordFormat(tuple(_NAME_VARIABLES.values()))

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
                (kind, value, record[_NAME_VARIABLES[kind]])
                for (kind, value, _), record in zip(values, records, strict=True)
            ]
        # Something was refused: fall through to one client per value to say which.
    out: list[tuple[NameKind, str, str | None]] = []
    for kind, value, encoded in values:
        done = await lab.tmux(commands(kind, encoded))
        records = frame.parse(done.stdout.decode("utf-8", "replace"))
        stored = records[0][_NAME_VARIABLES[kind]] if len(records) == 1 else None
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


DIRECTORY_NAMES = ("d #{session_name} ##[x] %H ;", "d#", "d#{pane_id}", "d-#S", "dé☺;")


async def probe_start_directory(lab: Lab) -> None:
    """A start directory with format syntax reaches tmux exactly (``-c``)."""
    wrong = []
    for index, leaf in enumerate(DIRECTORY_NAMES):
        directory = os.path.join(lab.directory, leaf)
        os.mkdir(directory)
        encoded = lab.encoders.directory(directory, "start_directory")
        out = await lab.ok(
            fill_argv(
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
