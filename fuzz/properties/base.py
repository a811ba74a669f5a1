"""What a property is: values to try for a case, and the check of one value.

Every property checks, for each example, through ``Harness.check_common``:
no tmuxmcp traceback (``internal-error``) and only tmuxmcp's error slugs
(invariant 3), no sentinel file (invariant 2) and an unchanged bystander
(invariant 4). What each adds is in its ``invariant`` text (and the README).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from fuzz.cases import Case
from fuzz.harness import Harness, Outcome


class Property:
    """A property of one (sink, encoding) class of parameters."""

    name = ""
    invariant = ""
    ci_examples = 10

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        """Values to try for ``case``."""
        raise NotImplementedError

    def check(self, h: Harness, case: Case, value: Any) -> None:
        """Call the tool with ``value`` and assert the property."""
        raise NotImplementedError

    def pinned(self, case: Case) -> list[Any]:
        """Explicit regression examples for ``case`` (every failure ever found)."""
        return []


def schema_refusal_names(outcome: Outcome, param: str) -> bool:
    """Whether a refusal is the schema refusing ``param`` itself (or an element of it)."""
    text = outcome.text
    return outcome.slug == "invalid-arguments" and (f"$.{param}`" in text or f"$.{param}[" in text)
