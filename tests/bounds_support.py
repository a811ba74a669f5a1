"""What the bounded-read tests share: counting tmux's output, and wide, long panes (13.2).

The bound of a reader is checked where it is decided: a ``--tmux`` wrapper
logs the bytes each tmux invocation wrote to stdout with its argv, so a test
counts what the server read from tmux for one call, not its RSS
(``ByteCounter``). The panes that make a missed bound visible are wide and
long: ``wide_pane`` is 2,000 columns by 40 rows with room for 30,000 rows of
history, ``fill_rows`` prints full rows into it, and ``filled_wide_pane`` is
that pane holding 20,000 of them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from tests.support import PrivateTmux, tmux_wrapper

WIDE_COLUMNS = 2000
WIDE_ROWS = 40
FULL_ROW_BYTES = WIDE_COLUMNS + 1
"""What one full row of ``wide_pane`` costs as ``capture-pane -p`` prints it."""
HISTORY_LIMIT = 30000
SLACK = 4096
"""Bytes allowed besides the rows: the frames, separators and listings of a call."""


def fill_rows(rows: int = 20000, columns: int = WIDE_COLUMNS) -> str:
    """A shell command printing ``rows`` rows of ``columns`` x's (full rows, no wrap)."""
    return (
        f'awk \'BEGIN{{s=sprintf("%{columns}s","");gsub(/ /,"x",s);for(i=0;i<{rows};i++)print s}}\''
    )


class ByteCounter:
    """A tmux wrapper for ``--tmux`` that logs ``<stdout bytes> <argv>`` per invocation.

    It runs tmux itself and exits with its status, so it never reaches the
    wrapper's own exec: the output has to pass through it to be counted.
    """

    def __init__(self, directory: str) -> None:
        real = shutil.which("tmux") or "tmux"
        self.log = os.path.join(directory, "reads")
        counting = (
            f'out="{directory}/out.$$"\n'
            f'"{real}" "$@" > "$out"; rc=$?\n'
            f'printf "%s %s\\n" "$(wc -c < "$out")" "$*" >> "{self.log}"\n'
            'cat "$out"; rm -f "$out"; exit $rc'
        )
        self.wrapper = tmux_wrapper(os.path.join(directory, "counting-tmux"), counting, real)

    def reset(self) -> None:
        """Forget what was counted so far (before the call under test)."""
        open(self.log, "w").close()

    def reads(self) -> list[tuple[int, str]]:
        """Each invocation since the last reset: its stdout bytes and its log line."""
        try:
            with open(self.log) as f:
                return [(int(line.split(" ", 1)[0]), line) for line in f if line.strip()]
        except FileNotFoundError:
            return []

    def total(self) -> int:
        """Bytes tmux wrote to the server since the last reset."""
        return sum(size for size, _ in self.reads())

    def biggest(self) -> int:
        """The most bytes one invocation wrote since the last reset."""
        return max((size for size, _ in self.reads()), default=0)

    def captures(self) -> list[str]:
        """The log lines of the invocations that ran ``capture-pane``."""
        return [line for _, line in self.reads() if "capture-pane" in line]

    def capture_spans(self) -> list[int]:
        """Rows each ``capture-pane`` since the last reset asked for (-S to -E).

        Fails on a capture without both: it would read to an end of the pane.
        """
        spans = []
        for line in self.captures():
            words = line.split()
            rest = words[words.index("capture-pane") :]
            assert "-S" in rest and "-E" in rest, f"an unbounded capture: {line}"
            start, end = int(rest[rest.index("-S") + 1]), int(rest[rest.index("-E") + 1])
            spans.append(end - start + 1)
        return spans


@pytest.fixture
def byte_counter(private_tmux: PrivateTmux) -> Iterator[ByteCounter]:
    """A ``ByteCounter`` in the test's private tmux directory (pass ``.wrapper`` to serve)."""
    yield ByteCounter(private_tmux.directory)


def new_long_pane(tmux: PrivateTmux, name: str = "long", *, wide: bool = False) -> dict[str, str]:
    """A session of one pane running sh with room for 30,000 history rows; its ids.

    ``wide``: the pane is 2,000 x 40 (else 80 x 24). A seed session first, so
    the history limit is set on a running server before the pane exists.
    """
    tmux.new_session("seed")
    tmux.bare("set-option", "-g", "history-limit", str(HISTORY_LIMIT))
    if not wide:
        return tmux.new_session(name)
    size = ["-x", str(WIDE_COLUMNS), "-y", str(WIDE_ROWS)]
    ids = tmux.new_session(name, "tmuxmcp", *size, "sh")
    tmux.bare("resize-window", "-t", ids["pane_id"], *size)
    return ids


@pytest.fixture
def wide_pane(private_tmux: PrivateTmux) -> dict[str, str]:
    """``new_long_pane``'s ids: a fresh, empty 2,000-column pane."""
    return new_long_pane(private_tmux, "wide", wide=True)


@pytest.fixture
async def filled_wide_pane(private_tmux: PrivateTmux, wide_pane: dict[str, str]) -> dict[str, str]:
    """``wide_pane`` after ``clear``, 20,000 full rows and ``DONE``: a history of about
    40 MB that a reader must not take whole."""
    await fill_and_wait(private_tmux, wide_pane["pane_id"], fill_rows())
    return wide_pane


async def fill_and_wait(tmux: PrivateTmux, pane: str, fill: str, *, clear: bool = True) -> None:
    """Type ``fill; echo DONE`` (bare tmux) and wait until DONE is on the screen."""
    line = f"{'clear; ' if clear else ''}{fill}; echo DO''NE"
    tmux.bare("send-keys", "-t", pane, line, "Enter")
    await tmux.wait_for_screen(pane, "\nDONE\n")
