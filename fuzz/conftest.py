"""Fixtures for the fuzz suite: one harness (private tmux server) per test module.

Examples share their module's server for speed; each example gets a fresh
world when the previous call may have changed it, and the bystander and the
sentinel directory are checked after every call (see ``harness``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fuzz import profiles
from fuzz.harness import Harness, harness
from tests.conftest import (  # noqa: F401 (autouse fixtures and a hook: TMUX scrubbed, tiers)
    _fast_tier_tripwire,
    _no_inherited_tmux,
    _tripwire,
    pytest_collection_modifyitems,
)
from tests.skip_reasons import pytest_runtest_makereport  # noqa: F401 (a hook: reasons kept)


@pytest.fixture(scope="module")
def fuzz_harness() -> Iterator[Harness]:
    """A private tmux server with tmuxmcp bound to it, a bystander and a world."""
    with harness() as h:
        yield h


def pytest_report_header() -> list[str]:
    return [f"fuzz profile: {profiles.PROFILE} (HYPOTHESIS_PROFILE=ci|deep)"]
