"""Probe: what the shell prints for a command typed by a person, and through run_command.

A probe, not a test: it prints a table and asserts nothing (issue 31.2 and 31.3).
For each shell (dash as ``sh``, bash, zsh) and each case, the command is
typed into a fresh pane with ``send-keys`` (the oracle: what a person sees)
and run with ``run_command`` in another fresh pane of the same shell, after
the same setup lines; a case is "as typed" when the output rows and the exit
status are the same. It also prints what a watcher sees of the last typed
line: its length and how many times it names tmuxmcp's private directory.
With ``--tree DIR`` (repeatable) each source tree is probed in turn, so the
main branch and a change can be compared in one run:

    python bench/probe_as_typed.py --tree /path/to/main --tree .
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

import trio
from benchlib import PrivateTmux, bench_tmux, serve, structured

SHELLS = {
    "sh": ("dash",),
    "bash": ("bash", "--norc", "--noprofile"),
    "zsh": ("zsh", "-f"),
}

CASES: list[tuple[str, tuple[str, ...], str, tuple[str, ...]]] = [
    # (name, setup lines, command, the shells it is for)
    ("not found", (), "nonexistent_cmd_lc", ("sh", "bash", "zsh")),
    ("cd error", (), "cd /nonexistent_dir_lc", ("sh", "bash", "zsh")),
    ("syntax error", (), "echo (", ("sh", "bash")),  # zsh waits for more: `(` opens
    ("set -x", ("set -x",), "echo hi", ("sh", "bash", "zsh")),
    ("status", (), "(exit 3)", ("sh", "bash", "zsh")),
    ("ERR_RETURN", ("setopt err_return",), "false; echo never", ("zsh",)),
    ("return at the prompt", (), "return 3; echo after", ("zsh",)),
]

PS1 = "$ "


async def _settle(tmux: PrivateTmux, pane: str, lines: tuple[str, ...]) -> None:
    """Type ``lines`` (after a plain ``$ `` prompt), then wait until a marker shows."""
    await tmux.wait_for_prompt(pane)
    for line in (f"PS1='{PS1}'", *lines):
        tmux.bare("send-keys", "-t", pane, "-l", line)
        tmux.bare("send-keys", "-t", pane, "Enter")
    token = os.urandom(4).hex()
    tmux.bare("send-keys", "-t", pane, "-l", f'echo "MAR""K-{token}"')
    tmux.bare("send-keys", "-t", pane, "Enter")
    await _wait_for(tmux, pane, f"MARK-{token}")
    await tmux.wait_for_prompt(pane)


async def _wait_for(tmux: PrivateTmux, pane: str, text: str) -> str:
    with trio.fail_after(20):
        while True:
            screen = tmux.bare("capture-pane", "-p", "-J", "-t", pane).stdout
            if re.search(rf"^{re.escape(text)}", screen, re.M):
                return screen
            await trio.sleep(0.05)


async def _wait_for_prompt_after(tmux: PrivateTmux, pane: str, command: str) -> None:
    """Wait until the shell drew an empty prompt on a row below the typed ``command``."""
    with trio.fail_after(20):
        while True:
            rows = tmux.bare("capture-pane", "-p", "-t", pane).stdout.split("\n")
            cursor = int(tmux.bare("display-message", "-p", "-t", pane, "#{cursor_y}").stdout)
            typed_at = [i for i, row in enumerate(rows) if row.rstrip() == PS1 + command]
            if typed_at and cursor > typed_at[-1] and rows[cursor].rstrip() == PS1.rstrip():
                return
            await trio.sleep(0.05)


def _pane(tmux: PrivateTmux, name: str, shell: str) -> str:
    ids = tmux.new_session(name, "tmuxmcp", "-x", "250", *SHELLS[shell])
    return ids["pane_id"]


async def typed(tmux: PrivateTmux, shell: str, setup: tuple[str, ...], command: str) -> Any:
    """The oracle: the rows after the typed command and its status, as a person sees."""
    pane = _pane(tmux, f"typed-{shell}-{os.urandom(2).hex()}", shell)
    await _settle(tmux, pane, setup)
    tmux.bare("send-keys", "-t", pane, "-l", command)
    tmux.bare("send-keys", "-t", pane, "Enter")
    await _wait_for_prompt_after(tmux, pane, command)
    tmux.bare("send-keys", "-t", pane, "-l", 'echo "ST""=$?"')
    tmux.bare("send-keys", "-t", pane, "Enter")
    rows = (await _wait_for(tmux, pane, "ST=")).split("\n")
    start = max(i for i, row in enumerate(rows) if row == PS1 + command) + 1
    end = max(i for i, row in enumerate(rows) if row.startswith(PS1 + 'echo "ST""=$?"'))
    status = next(int(row[3:]) for row in rows[end:] if re.fullmatch(r"ST=\d+", row))
    tmux.bare("kill-session", "-t", pane)
    return "\n".join(rows[start:end]).rstrip("\n"), status


async def probe(tree: str) -> None:
    with bench_tmux("tmt") as tmux:
        tmux.private_home("/bin/sh")
        async with serve(tmux.env, tree=tree) as session:
            print(f"## {tree}")
            for shell in SHELLS:
                same = 0
                cases = [c for c in CASES if shell in c[3]]
                watched = ""
                for name, setup, command, _ in cases:
                    oracle = await typed(tmux, shell, setup, command)
                    pane = _pane(tmux, f"run-{shell}-{os.urandom(2).hex()}", shell)
                    await _settle(tmux, pane, setup)
                    result = await session.call_tool(
                        "run_command", {"pane_id": pane, "command": command, "timeout": 20}
                    )
                    if result.is_error:  # a refusal is a case that differs, not an end
                        text = " ".join(getattr(block, "text", "") for block in result.content)
                        mine = (text[:60], None)
                    else:
                        got = structured(f"{shell} {name}", result)
                        mine = (got["output"], got["exit_status"])
                    screen = tmux.bare("capture-pane", "-p", "-J", "-t", pane).stdout
                    watched = next((r for r in screen.split("\n") if "{ _=" in r), watched)
                    tmux.bare("kill-session", "-t", pane)
                    ok = mine == oracle
                    same += ok
                    mark = "as typed" if ok else "differs"
                    print(f"  {shell:4} {name:20} {mark:8} typed={oracle!r} run={mine!r}")
                print(f"  {shell:4} as typed: {same} of {len(cases)}")
                print(
                    f"  {shell:4} watcher's line: {len(watched)} characters, "
                    f"private directory named {watched.count('tmuxmcp-')} times: {watched}"
                )


def main() -> None:
    args = sys.argv[1:]
    trees = [args[i + 1] for i, arg in enumerate(args) if arg == "--tree"] or ["."]
    for tree in trees:
        trio.run(probe, os.path.abspath(tree))


if __name__ == "__main__":
    main()
