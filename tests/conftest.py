"""Shared fixtures: private tmux sockets, the fake tmux, and the two test tiers.

Every test that touches tmux gets its own ``TMUX_TMPDIR``, so even the
default dedicated label ``-L tmuxmcp`` resolves to a private socket and the
user's own tmux servers are never contacted. Each private server is killed
when the test ends.

Every test is put in the ``fast`` or the ``tmux`` tier at collection
(``tests.tiers``); a fast test runs with a tripwire ``tmux`` first on
``PATH`` and fails if it runs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from tests import tiers
from tests.bounds_support import byte_counter, filled_wide_pane, wide_pane  # noqa: F401 (fixtures)
from tests.skip_reasons import pytest_runtest_makereport  # noqa: F401 (a hook: reasons kept)
from tests.support import PrivateTmux, temporary_tmux
from tmuxmcp.driver.fake import FakeTmux


@pytest.fixture
def private_tmux() -> Iterator[PrivateTmux]:
    """A private tmux directory; ``-L tmuxmcp`` there is the dedicated socket."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed; .ci/run installs it")
    with temporary_tmux() as tmux:
        yield tmux


@pytest.fixture
def fake() -> Iterator[FakeTmux]:
    """A scripted tmux (``driver.fake``); the test fails if it leaves an expected
    command unrun or ran one the script lacks."""
    with FakeTmux() as scripted:
        yield scripted


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by the markers it gives
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tiers.classify(items)


@pytest.fixture(scope="session")
def _tripwire(tmp_path_factory: pytest.TempPathFactory) -> tiers.Tripwire:
    return tiers.Tripwire(str(tmp_path_factory.mktemp("tripwire")))


@pytest.fixture(autouse=True)
def _fast_tier_tripwire(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """In a fast test, ``tmux`` on ``PATH`` is the tripwire; running it fails the test."""
    if tiers.tier_of(request.node) != tiers.FAST:
        yield
        return
    tripwire: tiers.Tripwire = request.getfixturevalue("_tripwire")
    monkeypatch.setenv("PATH", tripwire.directory + os.pathsep + os.environ.get("PATH", ""))
    yield
    ran = tripwire.ran()
    if ran is not None:
        pytest.fail(
            f"{tiers.TRIPWIRE_MESSAGE}: {ran.strip()!r}; it needs real tmux, so give it a "
            "tmux fixture or helper, or @pytest.mark.tmux (tests/tiers.py)"
        )


@pytest.fixture(autouse=True)
def _no_inherited_tmux(monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests may run inside a tmux pane; never let that pane's server leak in.
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.delenv("TMUX_PANE", raising=False)


def pytest_report_header() -> list[str]:
    try:
        version = subprocess.run(
            ["tmux", "-V"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        version = "tmux not found"
    return [f"tmux: {version}", f"TMUX_TMPDIR isolation: per test ({os.getpid()})"]
