"""Probes of how tmuxmcp reads tmux's output: the run fence, records and section markers.

Claims ``output-fence``, ``record-framing`` and ``section-markers``: the OSC 7
fence ``run_command`` waits for shows only after the output before it is
drawn, and ``driver.records`` reads framed records and sections back exactly
however this tmux prints them.
"""

from __future__ import annotations

import os
import shlex

import trio

from tmuxmcp.driver.records import RecordFormat, SectionMarker
from tmuxmcp.errors import TmuxMcpError
from tmuxmcp.verify.lab import PROBE_SECONDS, ClaimFailed, Lab, fill_argv


async def probe_output_fence(lab: Lab) -> None:
    """run_command's fence: an OSC 7 path printed after output shows only once that
    output is drawn, and ``capture-pane -J`` returns a wrapped line whole.

    The pane prints 3,000 lines, one line of 300 characters (wider than the
    pane), then the fence, then signals; the fence is then awaited (bounded)
    and the rows above the cursor must already hold the output's last lines.
    """
    fence = "tmuxmcp-verify-fence"
    script = (
        "seq 1 3000; printf '%0300d\\n' 7; "
        f"printf '\\033]7;%s\\033\\\\' {fence}; {lab.signal_from_shell('fenced')}; "
        "exec sleep 600"
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


FRAMED_DIRECTORY = "r\\q\\036\x01\x1b\x7f\r\t\nz\\ S F E M é \\ne $HOME\\"
"""A start directory with every character class the framing must survive (lab Rule 2)."""

FRAMED_TITLE = "t\\036 \\ \\\\ S F E M \\n %end {last} é☺ $HOME ${x} $_ \\$x $"
"""A printable pane title with backslashes, marker-like text and dollars (tmux 3.4
prints ``\\$`` for a ``$`` before a letter, ``_`` or ``{``; this one ends in ``$``,
which the next field's marker letter follows)."""

STORED_TITLE_OPTION = "@tmuxmcp_verify_title"


async def stored_title(lab: Lab, pane: str, title: str) -> str:
    """What tmux stored for a pane title set to ``title``, compared inside tmux.

    The value as given, or (tmux 3.7 and later, whose ``clean_name`` passes
    every title through ``vis``) with each backslash doubled. Each candidate
    is put in a user option and compared with ``#{==:}``, which prints ``0``
    or ``1`` on every version, so the answer owes nothing to ``driver.records``.
    """
    candidates = (title, title.replace("\\", "\\\\"))
    for candidate in candidates:
        value = lab.encoders.argv(candidate)
        await lab.ok(["set-option", "-s", STORED_TITLE_OPTION, value])
        same = f"#{{==:#{{pane_title}},#{{{STORED_TITLE_OPTION}}}}}"
        if (await lab.ok(["display-message", "-p", "-t", pane, same])).strip() == "1":
            return candidate
    raise ClaimFailed(f"tmux stored the pane title {title!r} as neither of {candidates!r}")


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
    ready = lab.signal_from_shell("framed")
    out = await lab.ok(
        fill_argv(
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
    expected_title = await stored_title(lab, pane, FRAMED_TITLE)
    frame = RecordFormat(("pane_id", "pane_current_path", "pane_title", "version"))
    printed = await lab.ok(["list-panes", "-t", pane, "-F", frame.template])
    try:
        records = frame.parse(printed)
    except TmuxMcpError as exc:
        raise ClaimFailed(f"{exc.for_client()}; tmux printed {printed[:120]!r}") from exc
    expected = {"pane_id": pane, "pane_current_path": directory, "pane_title": expected_title}
    got = [{k: v for k, v in r.items() if k != "version"} for r in records]
    if got != [expected]:
        raise ClaimFailed(f"read {got!r} for {expected!r}; tmux printed {printed[:120]!r}")
    await lab.ok(["kill-session", "-t", "framed"])


SECTION_TEXT = "A \\036 \\ M S F E %begin 1 2 1 é"


async def probe_section_markers(lab: Lab) -> None:
    """Section markers split interleaved ``capture-pane`` output exactly on this tmux."""
    script = (
        f"printf '%s\\n' {shlex.quote(SECTION_TEXT)}; {lab.signal_from_shell('shown')}; "
        "exec sleep 600"
    )
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
