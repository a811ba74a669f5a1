"""``tmuxmcp verify``: passes on the installed tmux, fails when a claim is broken.

Each broken build below disables one encoder the way a regression would
(identity escaping, no argv escape, an id rule that accepts anything) and
checks that exactly the claims resting on it fail. The run uses only a
private ``mkdtemp`` directory and ``-S`` sockets; the cache goes to a
temporary ``XDG_CACHE_HOME``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import msgspec
import pytest

import tmuxmcp
from tmuxmcp import verify
from tmuxmcp.driver import client as client_module
from tmuxmcp.sinks import format as sinks_format


def _binary() -> str:
    found = shutil.which("tmux")
    assert found is not None, "tmux is not installed; .ci/run installs it"
    return os.path.realpath(found)


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))


def _failed(report: verify.Report) -> set[str]:
    return {o.slug for o in report.outcomes if not o.passed}


def test_every_claim_passes_on_the_installed_tmux() -> None:
    report = verify.run(_binary())
    assert report.passed, "\n".join(report.lines())
    assert [o.slug for o in report.outcomes] == [c.slug for c in verify.CLAIMS]
    version = subprocess.run(["tmux", "-V"], capture_output=True, text=True, check=True).stdout
    assert version.split()[1] == report.version
    for line in report.lines():
        assert line.startswith("PASS ") and line.endswith(f"(tmux {report.version})")


def test_identity_format_escape_fails_the_format_claims() -> None:
    broken = msgspec.structs.replace(verify.current_encoders(), format=lambda value: value)
    failed = _failed(verify.run(_binary(), encoders=broken))
    assert {"format-escape"} <= failed
    assert failed <= {"format-escape", "name-rule-needed"}


def test_monkeypatched_escape_format_fails_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken encoder in the code itself (not just in the Encoders) is caught."""
    monkeypatch.setattr(sinks_format, "escape_format", lambda value: value)
    report = verify.run(_binary())
    assert {"format-escape", "name-rule-sufficient"} <= _failed(report)
    detail = {o.slug: o.detail for o in report.outcomes}
    assert "#() job ran" in detail["format-escape"]


def test_missing_argv_escape_fails_the_semicolon_claim() -> None:
    broken = msgspec.structs.replace(verify.current_encoders(), argv=lambda value: value)
    report = verify.run(_binary(), encoders=broken)
    assert "argv-semicolon" in _failed(report)
    detail = {o.slug: o.detail for o in report.outcomes}["argv-semicolon"]
    assert "second command ran" in detail


def test_a_permissive_id_rule_is_not_what_verify_checks() -> None:
    """The id claim is about tmux's ids; a rule refusing them fails it."""

    def refuse_everything(value: str, kind: object, param: str) -> str:
        raise tmuxmcp.errors.UnsafeValue("refused")

    broken = msgspec.structs.replace(verify.current_encoders(), target=refuse_everything)
    assert _failed(verify.run(_binary(), encoders=broken)) == {"ids-exact"}


def test_a_broken_probe_is_a_fail_line_not_a_traceback() -> None:
    async def explode(lab: verify.Lab) -> None:
        raise RuntimeError("boom")

    claim = verify.Claim("exploding", "a probe that raises", explode)
    report = verify.run(_binary(), claims=[claim])
    assert not report.passed
    assert report.lines() == [
        f"FAIL exploding: a probe that raises (tmux {report.version}): "
        "probe error: RuntimeError: boom"
    ]


def test_a_missing_binary_fails_setup() -> None:
    report = verify.run("/nonexistent/tmux")
    assert not report.passed
    assert report.outcomes[0].slug == "setup"


def test_verified_status_follows_the_cache() -> None:
    binary = _binary()
    report = verify.run(binary)
    status = verify.verified_status(binary, report.version)
    assert status["verified"] is False and "never verified" in status["reason"]
    verify.record(report)
    status = verify.verified_status(binary, report.version)
    assert status["verified"] is True, status
    assert status["tmux_version"] == report.version
    failing = msgspec.structs.replace(
        report, outcomes=(msgspec.structs.replace(report.outcomes[0], passed=False),)
    )
    verify.record(failing)
    status = verify.verified_status(binary, report.version)
    assert status["verified"] is False
    assert status["failed"] == [report.outcomes[0].slug]
    assert verify.verified_status(binary, "9.9")["verified"] is False


def test_verified_status_never_raises_on_a_corrupt_cache() -> None:
    binary = _binary()
    path = verify.cache_path("3.3a", verify.binary_digest(binary))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("{not json")
    status = verify.verified_status(binary, "3.3a")
    assert status["verified"] is False and "unreadable" in status["reason"]


def test_the_cli_prints_one_line_per_claim_and_exits_zero(tmp_path: object) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tmuxmcp", "verify"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(verify.CLAIMS)
    assert all(line.startswith("PASS ") for line in lines)
    assert "outcome recorded in" in done.stderr
    assert os.listdir(os.path.join(str(tmp_path), "tmuxmcp"))


def test_a_gate_on_the_option_alone_fails_the_copied_option_claim(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 12 item 4: the claim fails for the gate as it was (option name only)."""
    monkeypatch.setattr(client_module, "gate_name", lambda marker, *rest: marker)
    failed = _failed(verify.run(_binary()))
    assert "gate-copied-option" in failed
    assert "gate-foreign" not in failed


def test_a_check_blind_to_after_hooks_fails_the_configuration_claim(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    """Issue 12 item 5: a per-call check that misses a hook kind is caught."""
    seen = subprocess.run(
        ["tmux", "-f", "/dev/null", "-S", os.path.join(str(tmp_path), "s"), "start-server",
         ";", "display-message", "-p", "#{command-alias}"],
        capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip
    if "split-pane" not in seen:
        pytest.skip("before tmux 3.5 there is no per-call check to break")
    monkeypatch.setattr(client_module, "hooks_for", lambda names: ["command-error"])
    report = verify.run(_binary())
    assert "configuration-check" in _failed(report)
    detail = {o.slug: o.detail for o in report.outcomes}["configuration-check"]
    assert "hook" in detail
