"""Known bugs: failures this suite found in tmuxmcp code outside fuzz/, not fixed yet.

Each open bug is a ``KnownBug`` here and a strict ``xfail`` test in
``test_fixed_bugs.py``; the properties skip (``applies``) or accept
(``tolerates``) its inputs, so it cannot hide other failures, until the day it
is fixed and the xfail starts failing (fuzz/README.md, "Known bugs").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from fuzz.cases import Case
from fuzz.harness import Outcome


class KnownBug(NamedTuple):
    """A failure found by this suite, pinned in test_fixed_bugs.py (xfail) until fixed.

    ``applies`` selects inputs the properties skip (the bug would fail them);
    ``tolerates`` instead accepts one wrong outcome while still checking the rest.
    """

    slug: str
    applies: Callable[[Case, Any], bool]
    summary: str
    tolerates: Callable[[Case, Outcome], bool] = lambda case, outcome: False


KNOWN_BUGS: tuple[KnownBug, ...] = ()
"""None open. Fixed, with regression tests in test_fixed_bugs.py: leading-zero-ids,
unprintable-names, surrogate-in-convert, set-option-not-found, empty-send-text."""


def known_bug(case: Case, value: Any) -> KnownBug | None:
    """The known bug ``value`` would trigger for ``case``, if any."""
    return next((bug for bug in KNOWN_BUGS if bug.applies(case, value)), None)


def tolerated(case: Case, outcome: Outcome) -> bool:
    """Whether ``outcome`` is the wrong outcome of a known bug."""
    return any(bug.tolerates(case, outcome) for bug in KNOWN_BUGS)
