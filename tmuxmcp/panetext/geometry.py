"""A pane's last seen geometry: the hint that lets a capture into history skip its probe.

A capture into history plans its windows from the pane's width and height
(``tools.capture``): the width bounds how many rows can fit ``max_chars``, the
height places the bottom window. Asking tmux for them first is one tmux
invocation of its own, about a fifth of a 10,000-line capture's time and
half of a short one's. ``PaneGeometry`` remembers what the last probe of
each pane said, so the next capture of that pane can send its first window
in the same invocation as the probe, behind the geometry guard
(``driver.guards.geometry_guard_name``).

Rule 1: a hint, never a fact. No read rests on it alone: the guard runs
  first in the invocation that reads, and a pane of another width or height
  refuses it, so nothing after it runs and the capture probes afresh. The
  bound of every read is the one planned from the pane's real geometry.
Rule 2: bounded. At most ``MAX_PANES`` panes are remembered; past that the
  table starts over (a miss costs one probe, as without the table).
Rule 3: one table a process, shared by every copy of the ``ToolContext``.
Rule 4: with the geometry, what a row of the pane cost on average at its last
  capture into history (``windows.WindowSizer``): the next capture plans its
  first window from it, so a 10,000-line capture of short rows is one window
  in the probe's invocation (issue 31.1). A hint like the geometry: it sizes
  a window only within the bound of ``windows`` Rule 1a, whatever it says.
"""

from __future__ import annotations

MAX_PANES = 1024
"""The most panes whose geometry is remembered (Rule 2)."""


class PaneGeometry:
    """The last width and height seen for each pane id (a hint, Rule 1)."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[int, int]] = {}
        self._row_cost: dict[str, float] = {}

    def get(self, pane_id: str) -> tuple[int, int] | None:
        """``(width, height)`` of ``pane_id`` as last seen, or ``None``."""
        return self._seen.get(pane_id)

    def remember(self, pane_id: str, width: int, height: int) -> None:
        """Note what a probe of ``pane_id`` said (Rule 2: the table stays bounded)."""
        if pane_id not in self._seen and len(self._seen) >= MAX_PANES:
            self._seen.clear()
            self._row_cost.clear()
        self._seen[pane_id] = (width, height)

    def row_cost(self, pane_id: str) -> float | None:
        """What a row of ``pane_id`` cost on average at its last capture (Rule 4), or None."""
        return self._row_cost.get(pane_id) if pane_id in self._seen else None

    def remember_row_cost(self, pane_id: str, per_row: float | None) -> None:
        """Note what the rows of a capture of ``pane_id`` cost on average (Rule 4)."""
        if per_row is not None and pane_id in self._seen:
            self._row_cost[pane_id] = per_row

    def forget(self, pane_id: str) -> None:
        """Drop ``pane_id``: its guard refused, so what was seen no longer holds."""
        self._seen.pop(pane_id, None)
        self._row_cost.pop(pane_id, None)
