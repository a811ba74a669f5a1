"""Probe: can the script rewrite run_command's typed line on screen, before the command runs?

A probe, not a test: it prints a table and asserts nothing (issue 31.3). The
design probed: the script, first, moves the cursor back over the rows the typed
line took (counted beforehand from the prompt's column, the pane's width and the
line's cells, plus the blank row zsh leaves below a line that fills its last row
exactly), erases to the end of the screen and prints the shown command, so that
the pane and its history keep the prompt and the command, and the output follows
as if typed.

For each shell and case, a line as long as tmuxmcp's is pasted as tmuxmcp pastes
it (``paste-buffer -r``). Its first step records where the cursor is when it runs
(``tmux display`` from inside the pane), its second is the rewrite, then it prints
two lines. A row says how many rows the cursor moved after Enter against how many
were counted, and ``ok`` when the history read back (``capture-pane -J -S -``)
holds the prompt and the shown command, then the two lines, and nothing of the
typed line. Run it on each tmux (``PATH=.ci/tmux/3.6a/bin:$PATH``)::

    python bench/probe_redraw.py
"""

from __future__ import annotations

import os
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from benchlib import PrivateTmux, bench_tmux

SHELLS = ("dash", "bash", "zsh")
SHOWN = "echo hi; echo there"
WIDTH = 40


@dataclass(frozen=True)
class Case:
    name: str
    setup: tuple[str, ...] = ()
    shells: tuple[str, ...] = SHELLS
    height: int = 10
    bottom: bool = False
    ends: tuple[int, ...] = (0, 1, 20, WIDTH - 1)
    """Where the typed line ends: its cells from the prompt row's start, modulo the
    width (0: it fills its last row exactly)."""
    shown: str = SHOWN


CASES = (
    Case("line ends: last row full, 1 over, middle, 1 short"),
    Case("prompt on the last row, the screen scrolls", bottom=True),
    Case("typed line taller than the pane", height=5, ends=(20,)),
    Case(
        "wide characters in the command",
        ends=(0, 1, 2, 3, 20, WIDTH - 1),
        shown="echo あいうえおかきくけこ",
    ),
    Case("zsh RPROMPT", ("RPROMPT=r",), ("zsh",), ends=(0, 1, 20)),
    Case("zsh TRANSIENT_RPROMPT", ("RPROMPT=r", "setopt transient_rprompt"), ("zsh",), ends=(20,)),
    Case("zsh preexec printing a title", ("preexec() { print -n '\\e]2;t\\a'; }",), ("zsh",)),
    Case("zsh preexec printing a line", ("preexec() { print started; }",), ("zsh",), ends=(20,)),
    Case(
        "zsh transient prompt (zle-line-finish)",
        (
            "precmd() { PROMPT='long-prompt-abcdef $ '; }",
            "zle-line-finish() { PROMPT='$ '; zle reset-prompt; }",
            "zle -N zle-line-finish",
        ),
        ("zsh",),
        ends=(20,),
    ),
    Case("bash PS0", ("PS0='ps0 line\\n'",), ("bash",), ends=(20,)),
    Case("set -v", ("set -v",), ends=(20,)),
)


def cells(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def rows_taken(column: int, text: str, width: int, shell: str) -> int:
    """Rows from the prompt row to the cursor after Enter, as counted beforehand."""
    x, rows = column, 0
    for ch in text:
        if x + cells(ch) > width:  # a wide character that does not fit moves down
            rows, x = rows + 1, 0
        x += cells(ch)
    return rows + 1 + (1 if shell == "zsh" and x == width else 0)


def wait(condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.02)


def frame(tmux: PrivateTmux, pane: str, label: str) -> tuple[int, int, int]:
    out = tmux.bare(
        "display-message", "-p", "-t", pane, "#{cursor_x} #{cursor_y} #{history_size}", label=label
    )
    x, y, h = map(int, out.stdout.split())
    return x, y, h


def trial(tmux: PrivateTmux, case: Case, shell: str, end: int) -> str:
    token = os.urandom(4).hex()
    label = f"r{token}"
    home = os.path.join(tmux.directory, label)
    os.makedirs(home)
    open(os.path.join(home, ".zshrc"), "w").close()  # an empty rc file: no zsh-newuser-install
    env = ["env", f"HOME={home}", "TERM=screen", "LANG=C.UTF-8", shell]
    size = ["-x", str(WIDTH), "-y", str(case.height)]
    tmux.bare("new-session", "-d", "-s", "s", *size, *env, label=label, config="/dev/null")
    try:
        pane = "s:0.0"
        for line in ("PS1='$ '", "PROMPT='$ '", *case.setup, f"echo ready-{token}"):
            tmux.bare("send-keys", "-t", pane, "-l", line, label=label)
            tmux.bare("send-keys", "-t", pane, "Enter", label=label)

        def rows() -> str:
            return tmux.bare("capture-pane", "-p", "-t", pane, label=label).stdout

        ready = f"ready-{token}"
        wait(lambda: ready in rows().split("\n") and frame(tmux, pane, label)[0] > 0, "the prompt")
        if case.bottom:
            fill = f"i=0; while [ $i -lt {case.height} ]; do echo; i=$((i+1)); done"
            tmux.bare("send-keys", "-t", pane, "-l", fill, label=label)
            tmux.bare("send-keys", "-t", pane, "Enter", label=label)
            wait(
                lambda: (
                    frame(tmux, pane, label)[1] == case.height - 1
                    and frame(tmux, pane, label)[0] > 0
                ),
                "fill",
            )
        x0, y0, h0 = frame(tmux, pane, label)
        where = os.path.join(home, "pos")
        shown = "'" + case.shown.replace("'", "'\\''") + "'"
        record = (
            f"{tmux.binary} -L {label} display -p '#{{cursor_x}} #{{cursor_y}} #{{history_size}}'"
        )

        def typed(up: int, pad: int) -> str:
            redraw = f"printf '\\033[%dA\\r\\033[%dC\\033[J%s\\r\\n' {up} {x0} {shown} >&7"
            command = f"{{ echo hi; echo there-{token}; }} >&7 2>&1"
            steps = f"_={shown} _p={'x' * pad}; {record} >{where}; {redraw}; {command}"
            return f"{{ {steps}; }} 7>&1 >/dev/null 2>&1"

        up, pad = 1, 0
        for _ in range(4):  # padded to end where asked; the count's digits are in it too
            pad = (pad + end - x0 - cells(typed(up, pad))) % WIDTH
            up = rows_taken(x0, typed(up, pad), WIDTH, shell)
        tmux.bare("set-buffer", "-b", label, "--", typed(up, pad) + "\n", label=label)
        tmux.bare("paste-buffer", "-d", "-r", "-b", label, "-t", pane, label=label)
        wait(lambda: os.path.exists(where) and os.path.getsize(where) > 0, "the typed line to run")
        wait(
            lambda: f"there-{token}" in rows() and frame(tmux, pane, label)[0] > 0,
            "the next prompt",
        )
        x1, y1, h1 = map(int, open(where).read().split())  # noqa: SIM115
        moved = (h1 + y1) - (h0 + y0)
        history = tmux.bare("capture-pane", "-p", "-J", "-S", "-", "-t", pane, label=label)
        lines = [row.rstrip() for row in history.stdout.split("\n")]
        want = ["hi", f"there-{token}"]
        kept = any(
            lines[i].endswith("$ " + case.shown) and lines[i + 1 : i + 3] == want
            for i in range(len(lines))
        )
        leak = any("_p=" in row or "display -p" in row or "printf" in row for row in lines)
        verdict = "ok" if kept and not leak else "BROKEN" + (" (typed text left)" if leak else "")
        return f"moved {moved} counted {up} at column {x1}: {verdict}"
    except TimeoutError as timeout:
        screen = tmux.bare("capture-pane", "-p", "-t", "s:0.0", label=label, check=False)
        return f"not measured: timed out waiting for {timeout}; screen {screen.stdout!r}"
    finally:
        tmux.bare("kill-server", label=label, check=False)


def main() -> None:
    with bench_tmux("tmr") as tmux:
        version = tmux.bare("-V", label="version").stdout.strip()
        print(f"{version}, pane {WIDTH} columns")
        for case in CASES:
            for shell in case.shells:
                found: dict[str, int] = {}
                for end in case.ends:
                    row = trial(tmux, case, shell, end)
                    found[row] = found.get(row, 0) + 1
                for row, count in sorted(found.items()):
                    print(f"{case.name:45} {shell:5} x{count:<3} {row}")


if __name__ == "__main__":
    main()
