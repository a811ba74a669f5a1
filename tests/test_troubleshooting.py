"""docs/troubleshooting.md quotes what tmuxmcp really prints (issue 31.4).

Every line of the page's ``text`` blocks that starts as tmuxmcp's own output
(``tmuxmcp: `` on stderr, ``Sink claims`` in ``server_info``) must be one the
code produces now, for the case the page describes: each is produced here
through the same path a start takes (``cli.main`` for stderr errors,
``runtime.announce`` for the warning, ``claims_sentence`` over
``verified_status`` for server_info). A reworded message fails this test
until the page quotes the new words. Lines of other programs (tmux, the
shell, pip) are the page's to explain and are not compared.
"""

from __future__ import annotations

import logging
import os
import re
import stat
import sys
from pathlib import Path

import pytest

from tmuxmcp import cli, runtime
from tmuxmcp.config import Options, load
from tmuxmcp.driver.binding import Provenance
from tmuxmcp.tools.server_info import claims_sentence
from tmuxmcp.verify.cache import verified_status

PAGE = Path(__file__).resolve().parent.parent / "docs" / "troubleshooting.md"
OURS = ("tmuxmcp: ", "Sink claims ")


def quoted_lines() -> list[str]:
    """The lines of tmuxmcp's own output that the page quotes."""
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"^```text\n(.*?)^```", text, re.M | re.S)
    return [line for block in blocks for line in block.splitlines() if line.startswith(OURS)]


def _stderr_of(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    status = cli.main(args)
    assert status != 0
    return capsys.readouterr().err.strip()


def printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> set[str]:
    """What the code prints in each case the page describes."""
    found: set[str] = set()
    # tmux missing: no tmux on the client's PATH.
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("TMUXMCP_TMUX", raising=False)
    found.add(_stderr_of(["surface"], capsys))
    # tmux too old: a binary that answers -V as tmux 3.1c does.
    old = tmp_path / "old-tmux"
    old.write_text("#!/bin/sh\necho 'tmux 3.1c'\n")
    old.chmod(old.stat().st_mode | stat.S_IXUSR)
    found.add(_stderr_of(["surface", "--tmux", str(old)], capsys))
    # Teardown off: the dedicated socket's server was already running.
    config = load(Options(tmux=sys.executable), {})
    decision = runtime.decide(
        config, Provenance.UNKNOWN, per_call_check=True, socket_path=None, server={}
    )
    found |= {f"tmuxmcp: WARNING: {off.sentence()}" for off in decision.surface.off}
    # Not verified yet, on a version CI proves, with the README's paths.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    claims = verified_status("/usr/bin/tmux", "3.3a")
    found.add(
        claims_sentence(claims).replace(sys.executable, "/home/you/src/tmuxmcp/.venv/bin/python")
    )
    return found


def test_every_message_the_page_quotes_is_what_the_code_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    quoted = quoted_lines()
    made = printed(tmp_path, capsys, monkeypatch)
    assert len(quoted) == 4, quoted
    assert sorted(quoted) == sorted(made), "\n".join(sorted(set(quoted) ^ made))


def test_the_warning_is_written_as_the_page_quotes_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The stderr form: ``cli`` formats each record as ``tmuxmcp: LEVEL: message``."""
    config = load(Options(tmux=sys.executable), {})
    decision = runtime.decide(
        config, Provenance.UNKNOWN, per_call_check=True, socket_path=None, server={}
    )
    with caplog.at_level(logging.WARNING, logger="tmuxmcp"):
        runtime.announce(decision.surface)
    (record,) = caplog.records
    formatter = logging.Formatter("tmuxmcp: %(levelname)s: %(message)s")
    assert formatter.format(record) in quoted_lines()
    assert os.path.basename(PAGE) in formatter.format(record)
