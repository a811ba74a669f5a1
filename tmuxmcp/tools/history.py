"""The one bounded history reader (issue 30.3): every read of a span of a pane's rows.

``capture_pane`` (``capture``), a run's long output (``run.collect``), the
deep reads of the waiting tools (``observation``) and ``search_panes``
(``search``) read a pane's history here, through one loop (``read``): a
window planned by ``panetext.windows`` (``PaneRange.window``), read in one
tmux invocation, its rows kept and measured once by the budget
(``windows.Budget``, one way of counting: ``inline.line_cost``), until the
range is read or the budget says stop. What differs between the callers is
data given to it, never a loop of their own:

- what a row costs and when to stop: the ``Budget`` (``chars``, ``rows``,
  ``past``, ``from_text``, a per-row ``cost``), and ``each``, a caller's
  step after every window that may end the reading (search's matching);
- which direction, joined lines, escapes, the window margin and the first
  window's plan: the ``PaneRange`` (``down``, ``joined``, ``escapes``,
  ``margin``, ``first_rows``, ``window_bytes``), and whether its windows
  read the history size too (``track``, ``windows`` Rule 2);
- a first window read in another invocation: ``first``, the rows of
  capture_pane's window read behind the geometry guard (``behind_guard``,
  ``panetext.geometry``), of the frame a wait observes, of a batch of
  panes' first windows (``read_windows``, search); a run's output is read
  once its fence shows (``run.collect``), the shell held, so its rows do
  not move (``track`` off).

The spans that are not a history range (the visible rows a capture reads
with the pane's height, ``read_screen``; the few rows a run's mark may have
moved to, ``read_spans``) are read here too: no other module builds a
``capture-pane`` whose ``-E`` is not its ``-S`` (one row), nor plans or counts
a window (``tests/tools/test_one_reader.py``).

Rule 1 (the bound): one reading holds the rows its budget keeps plus one
  window, and a window is bounded by ``windows`` Rule 1a: 2,000-column
  panes with 20,000 rows of history are read within about ``chars`` plus
  one window, never whole.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.driver.guards import GuardRefused, Refusal, geometry_guard_name, guard
from tmuxmcp.driver.records import SectionMarker
from tmuxmcp.errors import InvalidArguments, ObjectNotFound
from tmuxmcp.panetext.windows import Budget, Chunk, PaneRange, Window, split_rows
from tmuxmcp.tools.context import ToolContext

Each = Callable[[Chunk], Awaitable[bool]]
"""A caller's step after each window's kept rows; False ends the reading."""


class Reading:
    """The rows a reading kept, top to bottom, and the number of the first (None: none).

    ``kept``: the rows as one ``Chunk``; a reading of one window is that window's
    chunk, its text not split into rows until they are asked for
    (``windows`` Rule 5).
    """

    __slots__ = ("kept", "start")

    def __init__(self, start: int | None, kept: Chunk) -> None:
        self.start = start
        self.kept = kept

    @property
    def rows(self) -> list[str]:
        """The rows kept, top to bottom."""
        return self.kept.rows


def window_commands(
    pane: PaneRange, marker: SectionMarker, index: int, window: Window
) -> list[Command]:
    """``history_size`` and the window's rows of ``pane``, as section ``index`` of one
    invocation (a tracked range's read, ``windows`` Rule 2)."""
    return [
        cmd("display-message", "-p", t=pane.pane_id, args=[marker.line(index, "history_size")]),
        _capture(pane, window),
    ]


def _capture(pane: PaneRange, window: Window) -> Command:
    first, last = window
    return cmd("capture-pane", *pane.flags, t=pane.pane_id, S=first - pane.base, E=last - pane.base)


def _history(values: list[str]) -> int | None:
    return int(values[0]) if len(values) == 1 and values[0].isdigit() else None


async def read_windows(
    ctx: ToolContext, reads: Sequence[tuple[PaneRange, Window]]
) -> list[Chunk | None]:
    """One window of each tracked range in ``reads``, in as few invocations as tmux's
    size limit allows: each one's rows (None: its pane is gone).

    A pane that closed since it was listed stops the whole invocation (tmux
    drops the rest of a command list after an error), so the ranges are then
    read one by one and only the missing one is skipped.
    """
    marker = SectionMarker()
    groups = [
        window_commands(pane, marker, index, window) for index, (pane, window) in enumerate(reads)
    ]
    try:
        out = await ctx.client.run_groups(groups)
    except ObjectNotFound:
        if len(reads) == 1:
            return [None]
        found: list[Chunk | None] = []
        for one in reads:
            found += await read_windows(ctx, [one])
        return found
    sections = marker.split(out.stdout)
    chunks: list[Chunk | None] = []
    for index, (pane, window) in enumerate(reads):
        values, body = sections.get(index, ([], ""))
        chunks.append(pane.take(window, body, _history(values)))
    return chunks


async def _read_window(
    ctx: ToolContext, pane: PaneRange, window: Window, *, gone: bool
) -> Chunk | None:
    if pane.track:
        if gone:
            return (await read_windows(ctx, [(pane, window)]))[0]
        marker = SectionMarker()
        out = await ctx.client.run(*window_commands(pane, marker, 0, window))
        values, body = marker.split(out.stdout).get(0, ([], ""))
        return pane.take(window, body, _history(values))
    out = await ctx.client.run(_capture(pane, window))
    return pane.take(window, out.stdout)


async def read(
    ctx: ToolContext,
    pane: PaneRange,
    budget: Budget,
    *,
    first: Chunk | None = None,
    each: Each | None = None,
    gone: bool = False,
) -> Reading:
    """THE loop: ``pane``'s range read window by window until it is read or ``budget``
    stops it.

    ``first``: the rows of the first window, already read by the caller's own
    invocation. ``each``: called with every window's kept rows, which the
    reading then does not hold (search matches them as they come); False
    ends the reading. ``gone``: a pane that closed ends the reading, what was
    read standing (else tmux's error is raised).
    """
    chunks: list[Chunk] = []
    chunk = first
    while True:
        if chunk is None:
            if pane.done or not budget.open:
                break
            chunk = await _read_window(
                ctx, pane, pane.window(budget.left, budget.rows_left), gone=gone
            )
            if chunk is None:
                break
        kept = budget.keep(chunk)
        budget.spend(kept.count, pane.sizer.saw(kept))
        chunk = None
        if each is not None:
            if not await each(kept):
                break
        elif kept.count:
            chunks.append(kept)
    if not pane.down:
        chunks.reverse()
    if not chunks:
        return Reading(None, Chunk(0, []))
    return Reading(chunks[0].start, Chunk.joined(chunks))


async def behind_guard(
    ctx: ToolContext, pane: PaneRange, budget: Budget, height: int
) -> Chunk | None:
    """The first window of ``pane`` (in capture_pane's numbers) read in one invocation
    with the history size, behind the geometry guard for the pane's remembered
    ``pane.width`` and ``height`` (``panetext.geometry``): its rows, the range's
    top clamped to the history's; None when the guard refused (nothing was read).
    """
    window = pane.window(budget.left, budget.rows_left)
    name = geometry_guard_name(ctx.client.marker, pane.pane_id, pane.width, height)
    try:
        out = await ctx.client.run(
            guard(name, pane.pane_id),
            cmd("display-message", "-p", t=pane.pane_id, args=["#{history_size}"]),
            _capture(pane, window),
        )
    except GuardRefused as refused:
        if refused.refusal is not Refusal.GEOMETRY_CHANGED:
            raise
        return None
    # The guard's option value, the history size, then the rows: found by offset, so
    # the rows are not copied out of the output (``windows`` Rule 5).
    stdout = out.stdout
    history_at = stdout.find("\n") + 1  # 0: no line after the guard's
    rows_at = (stdout.find("\n", history_at) + 1 or len(stdout) + 1) if history_at else 0
    history_text = stdout[history_at : rows_at - 1] if history_at else ""
    if not history_text.isdigit():
        raise InvalidArguments(f"tmux did not report the geometry of pane {pane.pane_id}")
    pane.clamp(int(history_text))
    return pane.take(window, stdout, begin=min(rows_at, len(stdout)))


async def read_screen(
    ctx: ToolContext, pane_id: str, flags: list[str], first: int, last: int
) -> tuple[int, list[str]]:
    """The pane's height and its rows ``first`` to ``last`` (0: the top visible row), in
    one invocation: a capture of at most one window from the top of its range."""
    out = await ctx.client.run(
        cmd("display-message", "-p", t=pane_id, args=["#{pane_height}"]),
        cmd("capture-pane", *flags, t=pane_id, S=first, E=last),
    )
    height_text, _, body = out.stdout.partition("\n")
    if not height_text.isdigit():
        raise InvalidArguments(f"tmux did not report the geometry of pane {pane_id}")
    return int(height_text), split_rows(body)


async def read_spans(
    ctx: ToolContext, pane_id: str, base: int, spans: Sequence[Window], separator: str
) -> list[list[str]]:
    """The physical rows of each (first, last) span of rows numbered from ``base`` (tmux's
    row 0), in one invocation, each opened by a ``separator`` line."""
    commands: list[Command] = []
    for first, last in spans:
        commands += [
            cmd("display-message", "-p", t=pane_id, args=[separator]),
            cmd("capture-pane", "-p", t=pane_id, S=first - base, E=last - base),
        ]
    out = await ctx.client.run(*commands)
    return [split_rows(chunk) for chunk in out.stdout.split(separator + "\n")[1:]]
