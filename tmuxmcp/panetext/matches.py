"""A matching row as the matching tools report it (``wait_for_text``, ``search_panes``).

One shape and one construction for both: where the row is, numbered as
``capture_pane`` numbers it, where the match starts in it, and the matched
text and the row, each cut to ``matching.excerpt``'s width around the match
(a row can be 10,000 cells wide). Both texts are terminal content (hostile:
``capability.results.Terminal``). ``search_panes`` adds which pane the row is in.
"""

from __future__ import annotations

from typing import Self

import msgspec

from tmuxmcp.capability.results import Terminal
from tmuxmcp.panetext.matching import EXCERPT_CHARS, Hit, excerpt


class Match(msgspec.Struct, frozen=True, kw_only=True):
    """Where the pattern matched."""

    row: int
    """Row number as capture_pane counts it: 0 is the top visible row, negative is scrollback."""
    in_scrollback: bool
    column: int
    """Character offset of the match in ``line``'s row."""
    matched: Terminal
    line: Terminal
    """The row (cut to 1000 characters around the match; search_panes cuts a first
    match narrower when it alone is over its ``max_chars``)."""

    @classmethod
    def found(
        cls, row: int, text: str, hit: Hit, *, width: int = EXCERPT_CHARS, **where: str
    ) -> Self:
        """The match ``hit`` in row ``row`` (relative) whose text is ``text``, each text
        cut to ``width`` characters; ``where`` fills the fields a subclass adds."""
        return cls(
            row=row,
            in_scrollback=row < 0,
            column=hit.start,
            matched=excerpt(text[hit.start : hit.end], Hit(0, 0, 0), width),
            line=excerpt(text, hit, width),
            **where,
        )
