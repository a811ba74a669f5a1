"""``tests.tiers``: every test lands in exactly one tier, and a fast test that runs tmux
fails instead of passing on the machine's tmux or skipping.

The classification is checked on small functions of this module (it follows
code of the test packages), and the tripwire on an inner pytest session whose
one test is fast by the rules but runs tmux anyway.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests import support, tiers

pytest_plugins = ["pytester"]


def _pure() -> int:
    return len("no tmux here")


def _via_support() -> None:
    with support.temporary_tmux():
        pass


def _two_steps_away() -> None:
    _via_support()


def _resolves_the_binary() -> str | None:
    return shutil.which("tmux")


def _runs_it_by_name() -> None:
    subprocess.run(["tmux", "-V"], check=False)


@pytest.mark.parametrize(
    ("function", "reaches"),
    [
        (_pure, False),
        (_via_support, True),
        (_two_steps_away, True),
        (_resolves_the_binary, True),
        (_runs_it_by_name, True),
        (support.PrivateTmux, True),
        (support.structured, False),
    ],
)
def test_code_that_reaches_a_tmux_helper_is_found(function: object, reaches: bool) -> None:
    """Rule 1: a helper that starts tmux, or the ``tmux`` binary named, reached through
    the test packages' own functions, makes a test need tmux; pure code does not."""
    assert tiers._Reach().reaches(function) is reaches


def test_every_collected_test_has_exactly_one_tier(request: pytest.FixtureRequest) -> None:
    """Rules 1 and 2: one of the two markers on every item of this session."""
    for item in request.session.items:
        marks = {m.name for m in item.iter_markers()} & {tiers.FAST, tiers.TMUX}
        assert len(marks) == 1, (item.nodeid, marks)


def test_a_fast_test_finds_the_tripwire_first_on_path(_tripwire: tiers.Tripwire) -> None:
    """Rule 3: in this (fast) test, the ``tmux`` that ``PATH`` resolves is the tripwire,
    which fails and logs its arguments (read here, so this test itself passes)."""
    first = os.environ["PATH"].split(os.pathsep)[0]
    script = os.path.join(first, tiers.TMUX)
    done = subprocess.run([script, "-V"], capture_output=True, text=True, check=False)
    assert done.returncode == 97
    assert tiers.TRIPWIRE_MESSAGE in done.stderr
    assert _tripwire.ran() == "-V\n"
    assert _tripwire.ran() is None


INNER_TEST = """
import subprocess

def test_swallows_a_failing_tmux():
    done = subprocess.run(["tmux", "-V"], capture_output=True, check=False)
    assert done.returncode != 0  # whatever the code makes of it, the tripwire saw it

def test_needs_nothing():
    assert True
"""


def test_a_fast_test_that_runs_tmux_fails_even_if_it_swallows_the_error(
    pytester: pytest.Pytester,
) -> None:
    """Rule 3: an inner session with this project's tier hooks; its test runs ``tmux``
    (its module is outside the test packages, so the rules put it in the fast tier)
    and passes by itself, yet the session reports it as an error, not a pass or a
    skip."""
    pytester.makeini("[pytest]\nmarkers =\n    fast: fast tier\n    tmux: real tmux\n")
    pytester.makeconftest(
        "from tests.conftest import pytest_collection_modifyitems, _tripwire, _fast_tier_tripwire\n"
    )
    pytester.makepyfile(test_inner=INNER_TEST)
    result = pytester.runpytest_inprocess("-m", "fast", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines([f"*{tiers.TRIPWIRE_MESSAGE}*-V*"])
