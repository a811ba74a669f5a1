"""The inline budget: how much bulk a result may carry so a client keeps it in view.

Issue 18 item 2. Claude Code keeps a tool result of up to about 50,000
characters of JSON in the model's view and moves a longer one to a file,
showing the model a 2,000-character preview. So every call with default
arguments produces structured JSON of at most ``INLINE_LIMIT`` characters.

Rule 1: bulk is counted as JSON, escapes included. A line or text costs its
  length as an encoded JSON string (``line_cost``): ``"`` and ``\\`` take 2,
  a control character 6 (``\\u001b``), a non-ASCII character its UTF-8
  bytes (msgspec writes it as is, a client may too), and the two quotes
  stand for the separator (a comma, or a ``\\n`` inside a joined text). That
  is an upper bound of both the text's UTF-8 bytes plus a newline and of the
  characters it takes in the compact encoded result, for any text.
Rule 2: a budget of ``DEFAULT_INLINE_CHARS`` (36,000) keeps a whole default
  result under ``INLINE_LIMIT`` (40,000): what is not bulk (ids, counts,
  flags, a cursor, the truncation marker) takes well under the 4,000 left.
  A record that is bulk itself (a match, a pane of a snapshot) is counted
  whole, by ``record_cost``.
  Many lines are counted together by ``lines_cost``, from one encoding of
  their joined text: the same number, without a string per line.
Rule 3: callers can still ask for more, up to each tool's own maximum; the
  facts (truncation, counts) come first in every result, so a preview of a
  longer one still says what was cut.
Rule 4: a line longer than a budget is cut, not dropped (issue 22.4): its
  start and its end are kept with a marker between saying how many of its
  characters were cut (``cut_line``), so a reader sees both ends of a
  minified JSON blob or a base64 line. Every tool that cuts a line cuts it
  here, with this marker. A budget needs ``CUT_ROOM`` characters left for a
  line to be cut rather than left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

INLINE_LIMIT = 40_000
"""Most characters of structured JSON a default call returns (Rule 2)."""
DEFAULT_INLINE_CHARS = 36_000
"""The default budget of a result's bulk, counted by ``line_cost`` and ``record_cost``."""
CUT_ROOM = 128
"""Budget characters a line must have left to be cut rather than dropped (Rule 4): room
for the marker and for some characters of each end."""
CUT_START_SHARE = 4
"""A cut line's start keeps 1/CUT_START_SHARE of what its marker leaves, its end the rest:
the end of a line is where it usually says how it ended (Rule 4)."""


def line_cost(line: str) -> int:
    """What ``line`` and its separator take of a budget (Rule 1): its length as a JSON string."""
    return len(msgspec.json.encode(line))


def lines_cost(lines: Sequence[str]) -> int:
    """The ``line_cost`` of every line of ``lines`` together, from one encoding of them.

    Joined by ``\\n``, each separator encodes as 2 characters and the quotes
    as 2, so the joined text encodes to the sum of the lines' costs: one
    encoder call, not one per line (10,000 of them were a capture's largest
    Python cost). A line must not itself hold a newline; split output never does.
    """
    if not lines:
        return 0
    return len(msgspec.json.encode("\n".join(lines)))


def record_cost(record: msgspec.Struct) -> int:
    """What ``record`` and the comma after it take of a budget: its compact JSON, plus one."""
    return len(msgspec.json.encode(record)) + 1


def end_within(line: str, budget: int) -> str:
    """The longest end of ``line`` whose ``line_cost`` fits ``budget``."""
    low, high = 0, len(line)
    while low < high:
        # Binary search on the kept length: the cost grows with it.
        mid = (low + high + 1) // 2
        if line_cost(line[len(line) - mid :]) <= budget:
            low = mid
        else:
            high = mid - 1
    return line[len(line) - low :]


def _start_within(line: str, budget: int) -> str:
    """The longest start of ``line`` whose ``line_cost`` fits ``budget``."""
    low, high = 0, len(line)
    while low < high:
        mid = (low + high + 1) // 2
        if line_cost(line[:mid]) <= budget:
            low = mid
        else:
            high = mid - 1
    return line[:low]


def _cut_marker(cut: int, length: int) -> str:
    return f"[... {cut:,} of this line's {length:,} characters cut ...]"


def cut_line(line: str, budget: int) -> list[str]:
    """``line`` cut to fit ``budget`` (Rule 4): its start, a marker, its end.

    The start gets 1/CUT_START_SHARE of what the marker leaves, the end the
    rest. The marker is costed as if the whole line were cut, so the three
    parts stay within ``budget`` whatever is kept: their ``lines_cost``, the
    same whether they are three lines or one text joined by newlines.
    """
    room = budget - line_cost(_cut_marker(len(line), len(line)))
    start = _start_within(line, room // CUT_START_SHARE)
    end = end_within(line[len(start) :], room - line_cost(start))
    return [start, _cut_marker(len(line) - len(start) - len(end), len(line)), end]
