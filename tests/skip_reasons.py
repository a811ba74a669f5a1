"""Skip reasons that survive pytest-trio.

pytest-trio runs a test in a nursery; a ``pytest.skip(reason)`` inside it
arrives as an exception group, which the plugin answers with a bare
``pytest.skip()``: every skip of an async test was reported as "Skipped" at
a line of pytest's own, and a reader of the CI log could not tell a missing
tool from a version gate. This hook puts the test's own reason and line back.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest
from _pytest.outcomes import Skipped


def _own_skip(error: BaseException) -> Skipped | None:
    """The one Skipped the test raised, found in the group the bare skip replaced."""
    group = error.__context__
    while isinstance(group, BaseExceptionGroup) and len(group.exceptions) == 1:
        group = group.exceptions[0]
    return group if isinstance(group, Skipped) else None


def _caller(skipped: Skipped) -> tuple[str, int] | None:
    """The innermost frame outside pytest: the line that called ``pytest.skip``."""
    found = None
    frame = skipped.__traceback__
    while frame is not None:
        filename = frame.tb_frame.f_code.co_filename
        if f"{os.sep}_pytest{os.sep}" not in filename:
            found = (filename, frame.tb_lineno)
        frame = frame.tb_next
    return found


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if call.excinfo is None or not report.skipped or not isinstance(report.longrepr, tuple):
        return report
    own = _own_skip(call.excinfo.value)
    where = _caller(own) if own is not None and own.msg else None
    if own is not None and where is not None:
        report.longrepr = (where[0], where[1], f"Skipped: {own.msg}")
    return report
