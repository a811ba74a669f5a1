"""A skip inside an async test keeps its reason and line in the report (tests/skip_reasons.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TEST = """
import pytest, trio

async def test_gated():
    async with trio.open_nursery():
        pytest.skip("needs tmux 9")
"""


def test_an_async_skip_is_reported_with_its_reason(tmp_path: Path) -> None:
    (tmp_path / "test_gate.py").write_text(TEST)
    (tmp_path / "conftest.py").write_text(
        "from tests.skip_reasons import pytest_runtest_makereport  # noqa: F401\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\ntrio_mode = true\n")
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(tmp_path)],
        check=False,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "1 skipped" in ran.stdout, ran.stdout + ran.stderr
    assert "test_gate.py:6: needs tmux 9" in ran.stdout, ran.stdout
