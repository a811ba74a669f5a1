"""A run's output from the rows captured of its pane: where it starts, what is kept, the counts.

Pure: text in, text out; no tmux, no files, no clock. ``collect`` reads the
rows (bounded reads) and hands them here; the handlers turn the ``Outcome``
into the result's ``output`` and its counts with ``shape``.

Rules:

Rule 1 (where the output starts): the output begins on the row after the
  typed line, found by its text (``typed_index``), with three exceptions the
  terminal makes: text glued to the end of a typed line that filled its last
  row exactly is output (``glued``); the blank row zsh's line editor leaves
  below such a line is not (``editor_rows``); a line typed with echo off
  leaves the output on the prompt row, right of the prompt's column
  (``after_prompt``); the text is matched as joined rows show it, a blank
  before a wide character allowed (``typed_pattern``). ``set -v`` has the
  shell print the typed line once more first: that copy is dropped
  (``without_verbose_echo``). A command that moves
  the cursor up to its prompt row writes over the prompt: what differs from
  the prompt as it was at typing (``AtTyping``) is its first line
  (``written_over``; after a redraw, what differs from the row it showed,
  ``written_over_shown``); one that leaves the cursor above its typed line wrote
  over rows that were there before, which are not read, and the output says
  so first. Where the start is, is decided by tmux's counters and the typed
  line's own text, never by the rows around it alone (``collect``): a start
  is "gone" only when the history shrank or the typed line left its rows.
Rule 2 (what is kept): the output budget is counted by ``line_cost`` (a
  line's length as a JSON string, so a budget of N keeps the encoded output
  under N characters); the first 1/``HEAD_SHARE`` of it keeps the head, the
  rest the tail, with a marker saying how many lines are left out between.
  A line longer than the tail's whole share is cut, not dropped (issue
  22.4): its start and its end are kept with a marker between saying how
  many of its characters were cut (``cut_line``), whenever at least
  ``CUT_ROOM`` characters of the budget are left for it; below that, a
  single line keeps its end.
Rule 3 (the counts): ``output_lines`` counts every line the command printed
  that tmuxmcp saw or counted (kept, omitted or unread between head and
  tail); ``lines_omitted`` those left out of ``output``; ``lines_lost`` the
  lines that scrolled out of the history before they were read (at least
  that many, ``lost_at_least``: the typed line's rows are not output;
  None when some were lost and how many is unknown; 0 when the start was
  read); ``output_truncated`` is true when any line is missing
  or was cut.
  A start that is gone opens the output with a marker saying why.
Rule 4 (what the screen cannot keep): the output is what the screen holds,
  not the bytes written. tmux 3.6 draws U+FFFD for each byte that is not
  UTF-8: when the kept output holds any, a marker says how many and that
  the bytes are gone. tmux before 3.6 drops such bytes without a trace,
  and every version drops control characters; tabs become spaces before
  3.6. Nothing on the screen tells tmuxmcp of those (``docs/patterns.md``).
Rule 5 (where the output of a left run ends): a shell that left the script
  by itself (``state`` Rule 5) has drawn its prompt when the output is read:
  the output ends where that prompt begins (``before_prompt``), the prompt as
  the shell draws it on rows of its own (after the status probe, so a prompt
  of several rows is known whole), or else the prompt row the run was typed at.
"""

from __future__ import annotations

import functools
import re

import msgspec

from tmuxmcp.panetext.inline import CUT_ROOM, cut_line, end_within, line_cost, lines_cost
from tmuxmcp.panetext.scrollback import cells, trimmed_at_least

HEAD_SHARE = 4
"""The head keeps 1/HEAD_SHARE of an output budget, the tail the rest (Rule 2)."""


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """What a run produced, as read from its pane."""

    exit_status: int | None
    head: list[str]
    tail: list[str]
    """Output lines; when the output was longer than two windows, ``lines_omitted``
    screen rows between ``head`` and ``tail`` were not read."""
    lines_omitted: int
    lines_lost: int | None
    """Rows that scrolled out of the history before they were read; None if unknown."""
    start_lost: bool
    gap_reason: str | None = None
    """Why the start is gone: ``scrollback.GapReason`` (history-limit, history-cleared, ...)."""
    above_start: bool = False
    """The command left the cursor above its typed line: what it wrote there, over
    rows that were on the screen before it ran, is not read (Rule 1)."""


class TypedLine(msgspec.Struct, frozen=True, kw_only=True):
    """What Rule 1 needs to know of the line tmuxmcp typed."""

    text: str
    """The line as typed (``runscript.typed_line``)."""
    shell: str
    """The base name of the shell it was typed into."""
    column: int
    """The cursor's column when it was typed (where the prompt ended)."""
    width: int
    """The pane's width then."""


class AtTyping(msgspec.Struct, frozen=True, kw_only=True):
    """What the screen showed around the prompt row when the line was typed (Rule 1)."""

    prompt: str
    """The prompt row's text left of the cursor (what the typed line follows)."""
    clear_below: bool
    """Every screen row below the cursor was blank: anything written there since is
    the command's, even where it moved the cursor back up before it ended."""


def at_typing(rows: list[str], cursor: int, column: int) -> AtTyping:
    """``AtTyping`` from the screen ``rows`` captured at typing, the cursor on row ``cursor``."""
    prompt = left_of(rows[cursor], column) if 0 <= cursor < len(rows) else ""
    # capture-pane drops a row's trailing blanks: the prompt's own end space too.
    return AtTyping(
        prompt=prompt + " " * max(0, column - cells(prompt)),
        clear_below=not any(row.strip() for row in rows[cursor + 1 :]),
    )


def left_of(row: str, column: int) -> str:
    """The characters of ``row`` in its first ``column`` cells."""
    used = 0
    for index, ch in enumerate(row):
        if used >= column:
            return row[:index]
        used += cells(ch)
    return row


class Shaped(msgspec.Struct, frozen=True, kw_only=True):
    """The result's ``output`` and its counts (Rule 3)."""

    text: str
    output_lines: int
    lines_omitted: int
    output_truncated: bool
    lines_lost: int | None


# -- Rule 1: where the output starts ------------------------------------------------------


@functools.lru_cache(maxsize=16)
def typed_pattern(text: str) -> re.Pattern[str]:
    """``text`` as the screen shows it when rows are joined (``capture-pane -J``).

    A wide character that does not fit the last cell of a row moves to the
    next row and leaves that cell blank; joined, the blank is a space before
    the character (issue 22.3: `echo 'x` and forty あ in an 80-column pane).
    So each wide character may follow one space the text does not have.
    """
    parts = [(" ?" if cells(ch) == 2 else "") + re.escape(ch) for ch in text]
    return re.compile("".join(parts))


def _last_match(line: str, text: str) -> re.Match[str] | None:
    found = None
    for found in typed_pattern(text).finditer(line):  # noqa: B007 -- the last one is kept
        pass
    return found


def typed_index(lines: list[str], typed: str) -> int | None:
    """Index of the last joined line of the prompt and the typed line.

    A line editor may break a long line with cursor moves instead of letting
    it wrap, so the typed text can span several joined lines: they are searched
    together.
    """
    needle = typed.strip()
    pattern = typed_pattern(needle)
    # Only the last characters before a line that a match can span can hold
    # the start of a match ending in it: keeping just those makes the search
    # linear (it was quadratic in the rows captured, about a millisecond per
    # call). A match is at most one blank longer per wide character.
    keep = len(needle) + sum(1 for ch in needle if cells(ch) == 2)
    exact = stripped = ""
    for index, line in enumerate(lines):
        exact = exact[max(0, len(exact) - keep) :] + line
        stripped = stripped[max(0, len(stripped) - keep) :] + line.rstrip()
        if pattern.search(exact) or pattern.search(stripped):
            return index
    return None


def glued(line: str, typed: str, width: int) -> list[str]:
    """Output joined to the end of the typed line's row, as its first line.

    A typed line that fills its last row exactly leaves the cursor in the
    terminal's pending-wrap state; the output's first character then wraps,
    and tmux joins that row to the typed one (`capture-pane -J`): a command
    whose line was as wide as the pane lost its first output line. Only text
    that starts a row counts: right of a typed line that ends mid-row is the
    line editor's (zsh's RPROMPT), not output.
    """
    found = _last_match(line, typed.strip()[-32:])
    if found is None or width <= 0:
        return []
    stop = found.end()
    rest = line[stop:].rstrip()
    return [rest] if rest and cells(line[:stop]) % width == 0 else []


def editor_rows(line: str, below: list[str], shell: str, width: int) -> int:
    """Rows below the typed line that zsh's line editor drew (0 or 1): when the typed
    line fills its last row exactly, zsh moves the cursor to the next row itself and
    then ends the line with a newline too, which leaves a blank row above the output."""
    used = cells(line)
    full = used > 0 and width > 0 and used % width == 0
    return 1 if full and shell == "zsh" and below and not below[0].strip() else 0


def after_prompt(row: str, typed: TypedLine, width: int) -> list[str]:
    """The output on the prompt row when the typed line was not echoed: the text right of
    the cursor's column at typing, unless it is (the start of) the typed line after all."""
    if typed.width != width:
        return []  # rewrapped: the column no longer says where the prompt ends
    used = 0
    for index, ch in enumerate(row):
        if used >= typed.column:
            rest = row[index:].rstrip()
            break
        used += cells(ch)
    else:
        return []
    if not rest or typed.text.strip().startswith(rest.strip()):
        return []
    return [rest]


def below_typed_line(
    joined: list[str], at: int, below: int, typed: TypedLine, width: int
) -> list[str]:
    """The output when one capture held all of it: the joined rows after the typed line
    (found at ``at``), less the ``below`` rows under the cursor."""
    body = joined[at + 1 : len(joined) - below if below else None]
    body = body[editor_rows(joined[at], body, typed.shell, width) :]
    return glued(joined[at], typed.text, width) + body


def after_start(
    head: list[str], tail: list[str], omitted: int, typed: TypedLine, width: int
) -> tuple[list[str], list[str]]:
    """The output's head and tail when they were read from the prompt row down: the
    rows up to the typed line dropped (or, with echo off, the prompt left of it)."""
    both = head + tail if not omitted else head
    at = typed_index(both[:64], typed.text)
    # Not echoed (`stty -echo` in a shell without a line editor, as dash
    # is): the output starts on the prompt row, right of the prompt.
    if at is None:
        first_line = after_prompt(both[0], typed, width) if both else []
    else:
        first_line = glued(both[at], typed.text, width)
    dropped = (at if at is not None else 0) + 1
    if at is not None:
        dropped += editor_rows(both[at], both[dropped:], typed.shell, width)
    if omitted:
        return first_line + head[dropped:], tail
    return [], first_line + both[dropped:]


def written_over(row: str, typed: str, prompt: str) -> list[str]:
    """What the command wrote over the start of its own prompt row, as its first line.

    A command that moves the cursor up to its prompt row (``tput cup 0 0``, a
    scroll region's home) writes over the prompt there, and a line feed leaves
    the rest of the row as it was: the row is then the command's text followed
    by the tail of the prompt and the typed line. What differs from the prompt
    is the command's; a character it wrote equal to the one under it cannot be
    told from the prompt, so the text is cut where the row agrees with it again.
    """
    found = typed_pattern(typed.strip()).search(row)
    if found is None:
        return []
    at = found.start()
    expected = prompt + typed[: len(typed) - len(typed.lstrip())]
    before = row[:at]
    if len(before) != len(expected) or before == expected:
        return []  # not the prompt as it was drawn (a wrapped or redrawn prompt)
    agree = len(before)
    while agree > 0 and before[agree - 1] == expected[agree - 1]:
        agree -= 1
    written = before[:agree].rstrip()
    return [written] if written else []


def written_over_shown(row: str, shown_row: str) -> list[str]:
    """What the command wrote over the start of the row a redraw left showing
    ``shown_row`` (the prompt and the shown command's first row, ``redraw``), as its
    first line: the row up to where it agrees with ``shown_row`` to its end.

    Unlike a typed line, which ``written_over`` needs intact after the prompt, the
    whole row is known here, so text written past the prompt into the shown command
    (dash's prompt ``# `` is shorter than ``TOP``) is told too. Only a row that still
    ends as the shown one and is as wide: the command wrote over its start in place.
    A row that lost its end (``clear``, an erase) or grew is not told apart from a
    screen cleared and written anew, so nothing is guessed ([]: the start is gone).
    Compared from the row's end, so a wide character written over two narrow ones
    is no shift. A character written equal to the one under it still cannot be
    told: the text is cut where the row agrees again. Trailing blanks off, as rows
    are read.
    """
    row, shown_row = row.rstrip(), shown_row.rstrip()
    if row == shown_row or cells(row) != cells(shown_row):
        return []
    agree = 0
    limit = min(len(row), len(shown_row))
    while agree < limit and row[len(row) - 1 - agree] == shown_row[len(shown_row) - 1 - agree]:
        agree += 1
    written = row[: len(row) - agree].rstrip()
    return [written] if agree and written else []


ZSH_EOL_MARK = re.compile(r"[%#] +$")
"""zsh's ``PROMPT_SP`` mark (``%`` or ``#``) and the blanks it pads its row with, at the end
of a last line printed with no newline, before the prompt zsh draws on the next row."""


def before_prompt(
    head: list[str], tail: list[str], prompt: list[str], shell: str
) -> tuple[list[str], list[str]]:
    """Rule 5: the output of a run whose shell left the script, read up to the cursor at
    the prompt the shell drew then, whose rows are ``prompt`` (joined, the last one up
    to the cursor). That prompt is not output, and what is left of it on its first row
    (the command's last line, printed with no newline) is, but for zsh's
    ``PROMPT_SP`` mark; nor are the blank lines the shell moved down by before it
    (bash, dash and zsh start a fresh line after a command killed by SIGINT).

    ``prompt`` is the prompt as the shell drew it next, on rows of its own (after
    the status probe), or the one the run was typed at; where the rows read do not
    end with all of it, only its last row is looked for, and a last row that does
    not end with that either holds a prompt that changed, and is dropped whole.
    """
    lines = list(tail if tail else head)
    prompt = prompt or [""]
    *upper, last = (row.rstrip() for row in prompt)
    rows = len(prompt)
    if (
        upper
        and len(lines) >= rows
        and [row.rstrip() for row in lines[-rows + 1 :]]
        == [
            *upper[1:],
            last,
        ]
    ):
        # Every row of the prompt but its first is there as drawn; what the first
        # follows on its row is output. A blank first row is the prompt's own newline,
        # which a last line printed with no newline took as its end.
        del lines[-rows + 1 :]
        first = lines.pop().rstrip()
        kept = first[: len(first) - len(upper[0])] if first.endswith(upper[0]) else first
        if kept.strip():
            lines.append(kept)
    elif lines:
        row = lines.pop().rstrip()
        kept = row[: len(row) - len(last)] if last and row.endswith(last) else ""
        if kept.strip():
            lines.append(kept)
    if shell == "zsh" and lines:
        lines[-1] = ZSH_EOL_MARK.sub("", lines[-1])
    while lines and not lines[-1].strip():
        lines.pop()
    return (head, lines) if tail else (lines, tail)


def left_outcome(read: Outcome, prompt: list[str], shell: str, status: int) -> Outcome:
    """Rule 5: the outcome of a run whose shell left the script, from its rows as read
    up to the cursor (``collect.left``), the rows of the prompt the shell drew, and the
    status read back."""
    head, tail = before_prompt(read.head, read.tail, prompt, shell)
    return msgspec.structs.replace(
        read,
        exit_status=status,
        head=[line.rstrip() for line in head],
        tail=[line.rstrip() for line in tail],
    )


def without_verbose_echo(
    head: list[str], tail: list[str], typed: str
) -> tuple[list[str], list[str]]:
    """``set -v`` (verbose) has the shell print each line it reads: the typed line comes
    once more, as the output's first line, before the command runs; drop that copy."""
    if head and head[0].strip() == typed.strip():
        return head[1:], tail
    if not head and tail and tail[0].strip() == typed.strip():
        return head, tail[1:]
    return head, tail


def without_printed_first(
    head: list[str], tail: list[str], rows: tuple[str, ...], partial: str
) -> tuple[list[str], list[str]]:
    """Drop what the shell printed below the typed line before the command began
    (``redraw`` Rule 4: bash's ``PS0``, a prompt dash drew after the line): ``rows``,
    whole rows, then ``partial``, the start of the row the command's first line
    continues. Only where the output still starts with exactly them; else nothing is
    dropped (the command wrote over them, or they wrapped and were joined)."""
    lines = head or tail
    count = len(rows)
    if len(lines) < count + (1 if partial else 0) or any(
        line.rstrip() != row.rstrip() for line, row in zip(lines, rows, strict=False)
    ):
        return head, tail
    rest = lines[count:]
    if partial:
        first = rest[0]
        if first.startswith(partial):
            rest = [first[len(partial) :], *rest[1:]]
        elif first.rstrip() == partial.rstrip():
            # The command printed nothing on that row (its blanks were never
            # captured): an empty first line, or no output at all.
            rest = ["", *rest[1:]] if rest[1:] else []
        else:
            return head, tail
    return (rest, tail) if head else (head, rest)


# -- Rules 2 and 3: what is kept, and the counts ---------------------------------------------


def typed_rows(typed: TypedLine) -> int:
    """Rows the prompt and the typed line took at most: a wide character that
    does not fit a row's last cell moves to the next row, so each row is counted
    one cell short."""
    used = typed.column + cells(typed.text.strip("\n"))
    return max(1, -(-used // max(1, typed.width - 1)))


def lost_at_least(mark_row: int, typed: TypedLine, trim: int) -> int:
    """Output lines certainly trimmed from the history when the start mark is gone (Rule 3).

    Of the rows certainly trimmed (``scrollback.trimmed_at_least``), the ones
    above the mark and the prompt's and typed line's own rows are not output.
    """
    return max(0, trimmed_at_least(mark_row, trim) - mark_row - typed_rows(typed))


def _omitted(count: int) -> str:
    return f"[... {count:,} lines omitted ...]"


_GAPS = {
    "history-cleared": "the screen and its history were cleared (clear, tmux clear-history)",
    "overwritten": (
        "the rows where it began were cleared or written over (clear, cursor moves), "
        "and the history did not shrink, so how many lines went is unknown"
    ),
    "screen-switched": "a full-screen program took over the screen",
    "reflowed": "the pane was resized, so its rows were rewrapped",
}


_ABOVE_START = (
    "[... the command moved the cursor above its typed line or wrote above it; rows "
    "there were on the screen before it ran, so what it wrote there is not read ...]"
)


REPLACEMENT = "\ufffd"
"""What tmux 3.6 and later draw for each byte that is not UTF-8 (earlier versions drop it)."""


def _replaced(count: int) -> str:
    """The marker that says the screen replaced bytes it could not hold (Rule 4)."""
    return (
        f"[... {count:,} characters of this output are U+FFFD: the screen shows each byte "
        "that is not UTF-8 so, the bytes themselves are not kept (pipe through `od -c` "
        "to see them) ...]"
    )


def _lost(outcome: Outcome) -> str:
    """The marker that opens an output whose start is gone, saying why."""
    if outcome.gap_reason in _GAPS:
        return f"[... earlier output is gone: {_GAPS[outcome.gap_reason]} ...]"
    count = (
        f"at least {outcome.lines_lost:,} earlier lines" if outcome.lines_lost else "earlier lines"
    )
    return f"[... {count} scrolled out of the pane's history ...]"


def shape(outcome: Outcome, budget: int) -> Shaped:
    """The result's ``output`` and its counts for ``outcome``, within ``budget`` (Rules 2, 3).

    ``budget`` is counted by ``line_cost``, as the text is encoded in JSON.
    The start and the end are kept, with an explicit marker where lines are
    left out; a start lost from the history is said first.
    """
    head, tail, omitted = list(outcome.head), list(outcome.tail), outcome.lines_omitted
    total = len(head) + len(tail) + omitted
    size = lines_cost(head + tail)  # the sum of their line_cost, from one encoding
    cut = False
    if size > budget:
        lines = head + tail
        keep_head: list[str] = []
        used = 0
        for line in lines:
            cost = line_cost(line)
            if used + cost > budget // HEAD_SHARE:
                break
            keep_head.append(line)
            used += cost
        keep_tail: list[str] = []
        for line in reversed(lines[len(keep_head) :]):
            cost = line_cost(line)
            if used + cost > budget:
                break
            keep_tail.append(line)
            used += cost
        keep_tail.reverse()
        gap = lines[len(keep_head) : len(lines) - len(keep_tail)]
        room = budget - used - (line_cost(_omitted(omitted + len(gap))) if len(gap) > 1 else 0)
        if gap and room >= CUT_ROOM and line_cost(gap[-1]) > budget - budget // HEAD_SHARE:
            # The line the tail stopped at is longer than the tail's whole share:
            # keep its start and its end rather than drop it (issue 22.4).
            keep_tail = cut_line(gap.pop(), room) + keep_tail
            cut = True
        elif not keep_head and not keep_tail and lines:
            # One line longer than a budget too small to cut it: keep its end.
            keep_tail = [end_within(lines[-1], budget)]
            gap = lines[:-1]
            cut = True
        omitted += len(gap)
        head, tail = keep_head, keep_tail
    parts = list(head)
    if omitted:
        parts.append(_omitted(omitted))
    parts += tail
    replaced = sum(line.count(REPLACEMENT) for line in head + tail)
    if replaced:
        parts.insert(0, _replaced(replaced))
    if outcome.above_start:
        parts.insert(0, _ABOVE_START)
    if outcome.start_lost:
        parts.insert(0, _lost(outcome))
    return Shaped(
        text="\n".join(parts),
        output_lines=total,
        lines_omitted=omitted,
        output_truncated=bool(omitted) or outcome.start_lost or outcome.above_start or cut,
        lines_lost=outcome.lines_lost if outcome.start_lost else 0,
    )
