"""The confirmed redraw: whether the typed line may be replaced on screen by the shown command.

Pure: numbers and rows in, a decision out; no tmux, no files (issue 31.3).
After the script reports ``S``, it waits for tmuxmcp's word on the release
FIFO (``runscript``) before it runs the command. tmuxmcp reads the pane once
(``watch``: the cursor, the history size, the pane's size and the visible
rows, in one tmux invocation) and answers with ``plan``: a ``Redraw`` the
script carries out (up ``up`` rows to the typed line's first row, right to
its column, erase to the end of the screen, print the shown command and a
newline, all on the shell's saved stdout), or None, "no redraw", after which
the run is exactly as without one. Collection then knows where the output
starts (``Redraw.first``, an absolute row) instead of finding the typed line
by its text.

Rules:

Rule 1: a redraw only ever follows a screen that is exactly the prompt and
  the typed line as the shell echoed it: the typed line's first row is the
  prompt row the start mark holds (same absolute row, same width, the
  prompt's text left of its column unchanged), its rows are the line wrapped
  at the pane's width (``wrapped``: wide characters take two cells, and one
  that does not fit a row's last cell moves to the next), zsh's blank row
  below a line that fills its last row exactly is there, the cursor is at
  the start of the row Enter leaves it on, and every row from there down is
  blank. Anything else (a line printed after Enter by bash's ``PS0``, a zsh
  ``preexec``, ``set -v``; a transient prompt; a line taller than the pane,
  whose first row has scrolled off; a screen that changed) is no redraw.
Rule 2: what is printed is ``runscript.shown``: the command's first line,
  shortened, with every control character in caret notation (``^[`` for
  ESC, ``^?`` for DEL, ``M-^[`` for a C1 control), as a shell's line editor
  shows a control character typed at its prompt; no byte of the command's
  text reaches the terminal raw. The same text was just checked on screen
  inside the typed line, so its cells are counted as the terminal counts
  them (``rows_printed``).
Rule 3: what cannot be checked: output written between tmuxmcp's read and
  the script's redraw (a background job, a trap writing to ``/dev/tty`` at
  that instant) is erased with the typed line; collection checks the prompt
  row again and, where it is not found, reads the output as a start that is
  gone.
Rule 4: where the screen is the prompt and the typed line as echoed, then
  rows the shell printed below it before the command began (bash's ``PS0``,
  a zsh ``preexec``, ``set -v``'s copy of the line, a prompt dash drew after
  a line typed before it), ending at the cursor and blank below it, there is
  no redraw, but those rows are known (``Before``): the script has not run
  the command yet (it waits for this answer), so nothing on them is the
  command's output. Collection drops them from the start of the output where
  it still finds them there (``output.without_printed_first``).
"""

from __future__ import annotations

import msgspec

from tmuxmcp.panetext.scrollback import Mark, cells

NO_REDRAW = "n\n"
"""The answer that tells the script to run the command without a redraw."""


class Screen(msgspec.Struct, frozen=True, kw_only=True):
    """The pane as read once after ``S``: the cursor, the history, the size, the rows."""

    cursor_x: int
    cursor_y: int
    history_size: int
    height: int
    width: int
    alternate: bool
    rows: list[str]
    """The visible rows, top to bottom (``capture-pane -p``)."""


class Before(msgspec.Struct, frozen=True, kw_only=True):
    """What the shell printed between the typed line and the cursor before the command
    began (Rule 4): no redraw; the output starts after it."""

    rows: tuple[str, ...]
    """Whole rows printed below the typed line, top to bottom, trailing blanks off."""
    partial: str
    """The cursor's row left of the cursor ("" at its first column), blanks kept: the
    command's first line continues it."""


class Redraw(msgspec.Struct, frozen=True, kw_only=True):
    """A redraw tmuxmcp told the script to make, and where the output then starts."""

    up: int
    """Rows from the cursor up to the typed line's first row (the prompt row)."""
    column: int
    """The column the typed line began at (where the prompt ended)."""
    prompt_row: int
    """The prompt row, absolute (history rows counted from the top)."""
    rows: int
    """Rows the prompt row and the shown command take, its newline included: the
    output starts ``rows`` below the prompt row."""
    history_size: int
    """The history's size once the shown command is printed (grown where printing it
    scrolled the screen)."""
    shown: str

    @property
    def first(self) -> int:
        """The output's first row, absolute."""
        return self.prompt_row + self.rows

    def answer(self) -> str:
        """The line written to the script (``runscript``: ``<up>:<column>``)."""
        return f"{self.up}:{self.column}\n"


def wrapped(column: int, text: str, width: int) -> tuple[list[str], int]:
    """``text`` written from ``column`` of a row ``width`` cells wide: the characters
    each row gets (the first row's from ``column``), and the cells used on the last."""
    rows = [""]
    x = column
    for ch in text:
        size = cells(ch)
        if size and x + size > width:
            rows.append("")
            x = 0
        rows[-1] += ch
        x += size
    return rows, x


def rows_typed(column: int, text: str, width: int, shell: str) -> int:
    """Rows from the prompt row to the cursor once Enter is read (Rule 1): the line's
    rows, and the one Enter moves to; zsh moves down itself first from a line that
    fills its last row exactly, which leaves a blank row."""
    rows, x = wrapped(column, text, width)
    return len(rows) + (1 if shell == "zsh" and x == width else 0)


def rows_printed(column: int, text: str, width: int) -> int:
    """Rows from the prompt row to the row a newline after ``text`` leaves the cursor on:
    from a row filled exactly the newline takes the cursor down one row, as from any."""
    return len(wrapped(column, text, width)[0])


def split_at(row: str, x: int) -> tuple[str, str]:
    """``row`` cut at cell ``x``: its characters in the first ``x`` cells, blank-padded to
    ``x`` cells (``capture-pane`` leaves trailing blanks off), and the rest; a wide
    character across ``x`` goes to the rest."""
    used = 0
    for index, ch in enumerate(row):
        size = cells(ch)
        if used + size > x:
            return row[:index] + " " * (x - used), row[index:]
        used += size
    return row + " " * (x - used), ""


def plan(
    screen: Screen,
    *,
    typed: str,
    shell: str,
    mark: Mark,
    prompt: str,
    shown: str,
) -> Redraw | Before | None:
    """The redraw to make on ``screen`` where it is exactly the prompt and the typed line
    (Rule 1); what the shell printed after that line where the cursor is lower down
    (Rule 4); None where the screen is neither. ``typed``: the line as typed;
    ``prompt``: the prompt row's text left of the mark's column at typing
    (``output.AtTyping``)."""
    width, column = screen.width, mark.column
    if (
        screen.alternate
        or mark.alternate
        or width != mark.width
        or not 0 <= column < width
        or len(screen.rows) < screen.height
    ):
        return None
    text = typed.rstrip("\n")
    up = rows_typed(column, text, width, shell)
    # The prompt row where the mark holds it, on the screen (a history trimmed since
    # typing moved it: then the rows there are not the typed line, and no answer).
    top = mark.row - screen.history_size
    enter = top + up  # the row Enter leaves the cursor on
    if top < 0 or screen.cursor_y < enter:
        return None
    rows, _ = wrapped(column, text, width)
    rows[0] = prompt + rows[0]
    expected = [row.rstrip() for row in rows] + [""] * (up - len(rows))
    found = [row.rstrip() for row in screen.rows[top:enter]]
    partial, right = split_at(screen.rows[screen.cursor_y], screen.cursor_x)
    if (
        found != expected
        or right.strip()
        or any(row.strip() for row in screen.rows[screen.cursor_y + 1 :])
    ):
        return None
    if screen.cursor_y > enter or screen.cursor_x > 0:
        printed = tuple(row.rstrip() for row in screen.rows[enter : screen.cursor_y])
        return Before(rows=printed, partial=partial)
    taken = rows_printed(column, shown, width)
    scrolled = max(0, top + taken - (screen.height - 1))
    return Redraw(
        up=up,
        column=column,
        prompt_row=mark.row,
        rows=taken,
        history_size=screen.history_size + scrolled,
        shown=shown,
    )


def shown_rows(redraw: Redraw, prompt: str, width: int) -> list[str]:
    """The rows the prompt and the shown command fill once redrawn, trailing blanks off
    (collection checks them where they are still read)."""
    rows, _ = wrapped(redraw.column, redraw.shown, width)
    rows[0] = prompt + rows[0]
    return [row.rstrip() for row in rows]
