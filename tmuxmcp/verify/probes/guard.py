"""Probe of the typing guard ``run_command`` pastes behind (``driver.guards``).

Claim ``paste-guard``: the guard's option name, expanded by this tmux in the
pane's context, names tmuxmcp's marker option for a pane that is as readiness
saw it, and names no option for each change the decision rested on: another
``pane_pid``, an unknown pane, copy mode, the alternate screen, a visible row
beginning like a continuation prompt (on the top row too, where a search that
counted rows from zero would miss it), a cursor off the column where the
prompt ended (text typed after it, ``runs.pending``). After a refused guard, the command
after it in the same invocation (the paste) never runs.
"""

from __future__ import annotations

from tmuxmcp.driver.guards import guard_name
from tmuxmcp.verify.lab import ClaimFailed, Lab

MARKER = "@tmuxmcp_verify_guard"
AFTER = "@tmuxmcp_verify_after"


async def _admits(
    lab: Lab, pane: str, pane_pid: int, *, rows: bool, cursor_x: int | None = None
) -> bool:
    """Whether the guard passes; ClaimFailed if a refused guard let the next command run."""
    await lab.ok(["set-option", "-s", "-u", AFTER])
    name = guard_name(MARKER, pane, pane_pid, rows=rows, cursor_x=cursor_x)
    done = await lab.tmux(
        ["show-options", "-s", "-v", "-t", pane, name, ";", "set-option", "-s", AFTER, "1"]
    )
    after = (await lab.ok(["show-options", "-s", "-v", "-q", AFTER])).strip()
    if done.returncode != 0 and after:
        raise ClaimFailed(f"a refused guard on {pane} let the command after it run")
    if done.returncode == 0 and not after:
        raise ClaimFailed(f"a passing guard on {pane} did not let the command after it run")
    return done.returncode == 0


async def _pane(lab: Lab, name: str, text: str) -> tuple[str, int]:
    """A pane whose program prints ``text`` (printf format) and then waits."""
    ready = lab.signal_from_shell(f"guard-{name}")
    _, _, pane = await lab.new_session(
        f"guard-{name}", "sh", "-c", f"printf '{text}'; {ready}; exec sleep 600"
    )
    await lab.ok(["wait-for", f"guard-{name}"])
    pid = (await lab.ok(["display-message", "-p", "-t", pane, "#{pane_pid}"])).strip()
    return pane, int(pid)


async def probe_paste_guard(lab: Lab) -> None:
    """The guard admits an unchanged pane and refuses each change (see the module)."""
    await lab.ok(["set-option", "-s", MARKER, "1"])
    pane, pid = await _pane(lab, "plain", "$ ")
    for rows in (True, False):
        if not await _admits(lab, pane, pid, rows=rows):
            raise ClaimFailed(f"the guard refused an unchanged pane (rows={rows})")
    refused = {
        "another pane_pid": (pane, pid + 1),
        "an unknown pane": ("%999999", pid),
    }
    for what, (target, number) in refused.items():
        if await _admits(lab, target, number, rows=True):
            raise ClaimFailed(f"the guard admitted {what}")
    # "$ " leaves the cursor in column 2; text typed after the prompt moves it on.
    if not await _admits(lab, pane, pid, rows=False, cursor_x=2):
        raise ClaimFailed("the guard refused a cursor in the column the prompt ends in")
    if await _admits(lab, pane, pid, rows=False, cursor_x=1):
        raise ClaimFailed("the guard admitted a cursor off the column the prompt ends in")
    await lab.ok(["copy-mode", "-t", pane])
    if await _admits(lab, pane, pid, rows=False):
        raise ClaimFailed("the guard admitted a pane in copy mode")
    await lab.ok(["send-keys", "-t", pane, "-X", "cancel"])
    alternate, alt_pid = await _pane(lab, "alternate", "\\033[?1049h$ ")
    if await _admits(lab, alternate, alt_pid, rows=False):
        raise ClaimFailed("the guard admitted a pane on the alternate screen")
    prompts = {"top": "> ", "later": "out\\nquote> ", "zsh nested": "ok\\ncmdand dquote> "}
    for where, text in prompts.items():
        shown, shown_pid = await _pane(lab, where.replace(" ", "-"), text)
        if await _admits(lab, shown, shown_pid, rows=True):
            raise ClaimFailed(f"the guard admitted a continuation prompt row ({where})")
        if not await _admits(lab, shown, shown_pid, rows=False):
            raise ClaimFailed(f"without rows the guard refused a pane ({where}) that is unchanged")
    for name in ("plain", "alternate", *(w.replace(" ", "-") for w in prompts)):
        await lab.ok(["kill-session", "-t", f"guard-{name}"])
    await lab.ok(["set-option", "-s", "-u", MARKER])
