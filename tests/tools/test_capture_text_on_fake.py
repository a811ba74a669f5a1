"""capture_pane returns the same result whether its windows stay unsplit or not (issue 31.1).

A capture into history keeps each window as tmux printed it and splits it
into rows only if a row must be looked at alone (``panetext.windows`` Rule 5).
Here the whole handler runs on the fake (``driver.fake``) against one pane
that answers every read as tmux would (its history and screen, ``-S``/``-E``
clamped), twice for every case: as it is, and with every window split into
rows as it arrives (the reader before Rule 5). The results, and the tmux
commands run, must be the same, for a cold capture and a warm one (the first
window read behind the geometry guard), for any pane text (long rows, blank
rows, wide and control characters) and any range and caps. No tmux runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from unittest import mock

import trio
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.fake_support import call_tool, fake_runtime
from tmuxmcp.driver.fake import FakeCall, FakeTmux, Reply, expand_format
from tmuxmcp.driver.runner import Completed
from tmuxmcp.panetext.windows import Chunk, split_rows

TEXT = st.text(
    st.one_of(
        st.sampled_from(['"', "\\", "\x1b", "\x00", "\r", "é", "界", "\U0001f600", "\t"]),
        st.characters(exclude_characters="\n", exclude_categories=["Cs"]),
    ),
    max_size=12,
)
ROW = st.one_of(
    st.sampled_from(["", " ", "\u3000", "\x1c"]),
    TEXT,
    st.builds(lambda row, n: row * n, TEXT, st.integers(1, 400)),
)

SHORT = st.text(st.sampled_from("ab \t\x1b界"), max_size=4)
"""Rows much shorter than a wide pane: a capture of them reads windows sized from
what they cost, several when they are many."""


class SimulatedPane(FakeTmux):
    """A fake whose pane ``%3`` holds ``rows`` (its history, then ``height`` rows of
    screen) and answers any read of them, as tmux would, without a script."""

    def __init__(self, rows: Sequence[str], *, width: int, height: int) -> None:
        super().__init__()
        self.rows, self.width, self.height = list(rows), width, height
        self.history = len(rows) - height

    async def __call__(
        self,
        argv: Sequence[str],
        *,
        env: Any,
        seconds: float,
        stdin: bytes | None = None,
    ) -> Completed:
        words, _, _ = self._split(argv)  # the script is this one call's, answered below
        self.expect(*words, answer=self._answer)
        return await super().__call__(argv, env=env, seconds=seconds, stdin=stdin)

    def _answer(self, call: FakeCall) -> Reply:
        values = {
            "history_size": str(self.history),
            "pane_height": str(self.height),
            "pane_width": str(self.width),
        }
        out = []
        command: list[str] = []
        for word in [*call.words, ";"]:
            if word != ";":
                command.append(word)
                continue
            if command[0] == "show-options":  # the geometry guard: it holds
                out.append("1\n")
            elif command[0] == "display-message":
                out.append(expand_format(command[-1], values) + "\n")
            elif command[0] == "capture-pane":
                first = int(command[command.index("-S") + 1]) if "-S" in command else 0
                last = int(command[command.index("-E") + 1]) if "-E" in command else self.height - 1
                first, last = max(first, -self.history), min(last, self.height - 1)
                rows = self.rows[self.history + first : self.history + last + 1]
                out.append("".join(f"{row}\n" for row in rows))
            else:
                raise AssertionError(f"the simulated pane does not know {command}")
            command = []
        return Reply(stdout="".join(out))


def _split_at_once(start: int, body: str, *, begin: int = 0, split: bool = True) -> Chunk:
    """A window as the reader held it before Rule 5: split into rows when it arrives."""
    return Chunk(start, split_rows(body[begin:]))


async def _captures(
    rows: list[str], width: int, height: int, arguments: dict[str, Any]
) -> tuple[list[Any], list[tuple[str, ...]]]:
    pane = SimulatedPane(rows, width=width, height=height)
    served = fake_runtime(pane)
    results: list[Any] = []
    for _ in range(2):  # cold: the probe first; warm: behind the geometry guard
        called = await call_tool(pane, served, "capture_pane", arguments)
        results.append(called.structured if called.error is None else called.error)
        # What the rows cost, remembered to plan the next capture's first window.
        results.append(served.context.geometry.row_cost("%3"))
    # The marker option is drawn at random for each runtime.
    marker = served.context.client.marker
    return results, [tuple(w.replace(marker, "MARKER") for w in c) for c in pane.commands()]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(st.lists(ROW, min_size=1, max_size=40), st.lists(SHORT, min_size=1, max_size=9)),
    st.integers(1, 400),
    st.integers(1, 30),
    st.one_of(st.integers(2, 40), st.integers(150, 400)),
    st.one_of(st.integers(-320, -1), st.integers(0, 10)),
    st.one_of(st.none(), st.integers(-200, 40)),
    st.integers(1, 300),
    st.one_of(st.just(1_000), st.integers(1_000, 8_000)),
    st.booleans(),
)
# Short rows on a wide pane: nine windows, the last cut by max_chars.
@example(["ab"], 400, 10, 200, -320, None, 300, 1_000, False)
# Blank rows of every kind below the text, wide and control characters.
@example(["x界\x1b[0m", "", " ", "\u3000", "\x1c"], 300, 20, 200, -300, None, 100, 2_000, True)
# A row longer than max_chars among short ones: cut, its start and its end kept.
@example(["y" * 3_000, "ab", ""], 300, 5, 180, -290, -3, 200, 1_500, False)
def test_a_capture_is_the_same_with_its_windows_split_at_once(
    pattern: list[str],
    count: int,
    height: int,
    width: int,
    start: int,
    end: int | None,
    max_lines: int,
    max_chars: int,
    join_wrapped: bool,
) -> None:
    # A pane has at least its screen; a long one repeats a pattern of rows.
    rows = [pattern[at % len(pattern)] for at in range(max(count, height))]
    arguments: dict[str, Any] = {
        "pane_id": "%3",
        "start": start,
        "max_lines": max_lines,
        "max_chars": max_chars,
        "join_wrapped": join_wrapped,
    }
    if end is not None and end >= start:
        arguments["end"] = end
    unsplit = trio.run(_captures, rows, width, height, arguments)
    with mock.patch.object(Chunk, "printed", staticmethod(_split_at_once)):
        split = trio.run(_captures, rows, width, height, arguments)
    assert unsplit == split
