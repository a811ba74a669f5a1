"""Probes of the argv renderer: escaped ``;``, positionals after ``--``, numeric bounds.

Claims ``argv-semicolon``, ``argv-double-dash`` and ``numeric-bounds``: an
element ``driver.argv`` escapes stays one argument and never starts a second
tmux command, positionals are never read as flags, and the line range
``capture_pane`` accepts is the range tmux accepts.
"""

from __future__ import annotations

from tmuxmcp.capability.params import MAX_LINE, MIN_LINE
from tmuxmcp.driver.argv import cmd, render
from tmuxmcp.verify.lab import ClaimFailed, Lab, fill_argv

SEMICOLON_VALUES = ("x;", ";", "a;;", "a\\;", "\\;", "#{pane_id};", "; ;")


async def probe_argv_semicolon(lab: Lab) -> None:
    """An escaped trailing ';' stays in its argument and never starts a command."""
    wrong = []
    for value in SEMICOLON_VALUES:
        done = await lab.tmux(
            fill_argv("set-buffer -b semi -- {} ; show-buffer -b semi", lab.encoders.argv(value))
        )
        shown = done.stdout.decode("utf-8", "replace").removesuffix("\n")
        if done.returncode != 0 or shown != value:
            wrong.append(f"{value!r} came back as {shown!r}")
    # The caller's element is followed by tmuxmcp's own elements: were the
    # caller's ';' not escaped, they would run as a second command.
    await lab.tmux(
        fill_argv(
            "set-buffer -b inject -- {} run-shell {}",
            lab.encoders.argv("x;"),
            f"touch {lab.sentinel('semicolon-data')}",
        )
    )
    await lab.tmux(
        fill_argv(
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


async def probe_numeric_bounds(lab: Lab) -> None:
    """capture-pane takes lines from -2^31 to 32767, the LineNumber bounds."""
    await lab.ok(render([cmd("capture-pane", "-p", t=lab.pane, S=MIN_LINE, E=MAX_LINE)]))
