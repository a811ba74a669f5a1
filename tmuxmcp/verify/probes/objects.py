"""Probes of exact addressing: ids and buffer names.

Claims ``ids-exact`` and ``buffer-delete-exact``: an id accepted by
``sinks.target`` addresses exactly its object (never a window named like
one), and ``driver.buffers`` deletes only the buffer it names.
"""

from __future__ import annotations

from tmuxmcp.driver.argv import render
from tmuxmcp.driver.buffers import delete_buffer_commands
from tmuxmcp.errors import TmuxMcpError
from tmuxmcp.sinks.target import IdKind
from tmuxmcp.verify.lab import ClaimFailed, Lab, fill_argv


async def probe_ids_exact(lab: Lab) -> None:
    """Ids address exactly their object; names that look like ids are never chosen.

    Also the premise of the id rule: tmux reads ``%01`` as ``%1``.
    """
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


async def probe_buffer_delete_exact(lab: Lab) -> None:
    """delete_buffer's commands delete the named buffer, and nothing for an unknown name.

    Upstream tmux before 3.4 deletes the most recent buffer when ``-b`` names
    none; ``driver.buffers.delete_buffer_commands`` guards against that.
    """

    async def ours() -> list[str]:  # earlier probes may leave buffers of their own
        names = (await lab.ok(["list-buffers", "-F", "#{buffer_name}"])).split()
        return sorted(set(names) & {"keep", "newest"})

    await lab.ok(fill_argv("set-buffer -b keep -- k ; set-buffer -b newest -- n"))
    missing = await lab.tmux(render(delete_buffer_commands("newes")))
    if missing.returncode == 0 or await ours() != ["keep", "newest"]:
        raise ClaimFailed(f"deleting the unknown buffer 'newes' left {await ours()}")
    await lab.ok(render(delete_buffer_commands("keep")))
    if await ours() != ["newest"]:
        raise ClaimFailed(f"deleting buffer 'keep' left {await ours()}")
    await lab.ok(["delete-buffer", "-b", "newest"])
