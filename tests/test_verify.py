"""``tmuxmcp verify`` (CM-5.4): passes on the installed tmux, fails when a claim is broken.

Safety claims FAIL (exit 1, unverified); strictness findings are NOTEs (exit
0, still verified, listed in ``server_info``); a version outside
``tmuxmcp.verify.CI_MATRIX`` gets a note saying CI does not prove it.

Each broken build below disables one encoder the way a regression would
(identity escaping, no argv escape, an id rule that accepts anything) and
checks that exactly the claims resting on it fail. The run uses only a
private ``mkdtemp`` directory and ``-S`` sockets; the cache goes to a
temporary ``XDG_CACHE_HOME``.
"""

from __future__ import annotations

import os
import pathlib
import shlex
import shutil
import subprocess
import sys

import msgspec
import pytest

import tmuxmcp
from tmuxmcp.driver import argv as argv_module
from tmuxmcp.driver import client as client_module
from tmuxmcp.driver.versions import version_tuple
from tmuxmcp.sinks import format as sinks_format
from tmuxmcp.verify import PROVEN_VERSIONS, cache, proven_in_ci, unproven_note
from tmuxmcp.verify.claims import CLAIMS, Claim, Severity, check_table
from tmuxmcp.verify.lab import ClaimFailed, Lab, current_encoders
from tmuxmcp.verify.probes import pane_input
from tmuxmcp.verify.report import Report
from tmuxmcp.verify.runner import run


def _binary() -> str:
    found = shutil.which("tmux")
    assert found is not None, "tmux is not installed; .ci/run installs it"
    return os.path.realpath(found)


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))


def _failed(report: Report) -> set[str]:
    """The claims that FAILed (strictness NOTEs, e.g. on tmux 3.5a and 3.6, are not)."""
    return {o.slug for o in report.outcomes if o.status == "FAIL"}


_STRICT = {c.slug for c in CLAIMS if c.severity is Severity.STRICTNESS}


def _unproven(version: str) -> dict[str, str]:
    """The note a tmux outside ``CI_MATRIX`` adds (none on a CI version).

    So that these tests say the same on any version (an independent suite
    runs them on 3.2a, 3.4 and 3.7c too); that CI itself runs only matrix
    versions is checked by ``.ci/run``.
    """
    return {} if proven_in_ci(version) else {"unproven-version": unproven_note(version)}


def _unproven_lines(version: str) -> list[str]:
    return [f"NOTE {slug}: {note}" for slug, note in _unproven(version).items()]


def test_every_claim_passes_on_the_installed_tmux() -> None:
    """Every safety claim passes; strictness claims pass or are NOTEs (3.5a, 3.6)."""
    report = run(_binary())
    assert report.passed, "\n".join(report.lines())
    assert [o.slug for o in report.outcomes] == [c.slug for c in CLAIMS]
    version = subprocess.run(["tmux", "-V"], capture_output=True, text=True, check=True).stdout
    assert version.split()[1] == report.version
    lines = report.lines()
    assert lines[len(report.outcomes) :] == _unproven_lines(report.version)
    for outcome, line in zip(report.outcomes, lines[: len(report.outcomes)], strict=True):
        assert line.endswith(f"(tmux {report.version})") or line.startswith("NOTE ")
        assert outcome.passed or outcome.slug in _STRICT, line
        assert line.startswith("PASS " if outcome.passed else "NOTE "), line


def test_a_framing_that_does_not_decode_fails_the_framing_claim(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """record-framing reads through driver.records itself: a parser that keeps
    tmux's escapes (and the doubled backslashes) is caught on every version."""
    from tmuxmcp.driver import records

    monkeypatch.setattr(records, "decode_value", lambda printed: printed)
    claims = [c for c in CLAIMS if c.slug in ("record-framing", "section-markers")]
    report = run(_binary(), claims=claims)
    assert _failed(report) == {"record-framing"}
    assert not report.passed
    assert report.lines()[0].startswith("FAIL record-framing: ")


async def _finds_stricter(lab: Lab) -> None:
    raise ClaimFailed("tmux stores this exactly; the rule can be relaxed")


async def _finds_unsafe(lab: Lab) -> None:
    raise ClaimFailed("a job ran")


_STRICTNESS = Claim("strict", "a strict rule", _finds_stricter, Severity.STRICTNESS)
_SAFETY = Claim("safe", "a safety claim", _finds_unsafe)


def test_a_strictness_finding_is_a_note_and_keeps_the_claims_verified() -> None:
    binary = _binary()
    report = run(binary, claims=[_STRICTNESS])
    assert report.passed
    assert report.lines()[0] == (
        f"NOTE strict: a strict rule (tmux {report.version}): "
        "tmux stores this exactly; the rule can be relaxed"
    )
    assert report.notes == {
        "strict": "tmux stores this exactly; the rule can be relaxed",
        **_unproven(report.version),
    }
    report.record()
    status = cache.verified_status(binary, report.version)
    # The cached run lacks today's claims, so it is not verified, but the note shows.
    assert "strict: tmux stores this exactly; the rule can be relaxed" in status["notes"]
    assert "failed" not in status


def test_a_safety_failure_is_a_fail_even_next_to_a_note() -> None:
    binary = _binary()
    report = run(binary, claims=[_STRICTNESS, _SAFETY])
    assert not report.passed
    assert [line.split()[0] for line in report.lines()] == [
        "NOTE",
        "FAIL",
        *(line.split()[0] for line in _unproven_lines(report.version)),
    ]
    report.record()
    status = cache.verified_status(binary, report.version)
    assert status["verified"] is False
    assert status["failed"] == ["safe"]


def test_whole_run_with_a_note_is_verified_in_server_info_terms() -> None:
    """A full run whose only finding is a strictness note counts as verified."""
    binary = _binary()
    report = run(binary)
    noted = msgspec.structs.replace(
        report,
        outcomes=tuple(
            msgspec.structs.replace(o, passed=False, detail="relaxable") if o.slug in _STRICT else o
            for o in report.outcomes
        ),
    )
    assert noted.passed
    noted.record()
    status = cache.verified_status(binary, report.version)
    assert status["verified"] is True, status
    assert [f"{slug}: relaxable" for slug in sorted(_STRICT)] + [
        f"{slug}: {note}" for slug, note in _unproven(report.version).items()
    ] == status["notes"]


def test_a_version_ci_does_not_prove_says_so() -> None:
    binary = _binary()
    report = run(binary, claims=[CLAIMS[0]])
    unproven = msgspec.structs.replace(report, version="9.9z")
    assert unproven.passed
    assert unproven.lines()[-1].startswith("NOTE unproven-version: tmux 9.9z is not one of")
    for version in sorted(PROVEN_VERSIONS):
        assert version in unproven.lines()[-1]
    status = cache.verified_status(binary, "9.9z")
    assert status["proven_in_ci"] is False
    assert any(note.startswith("unproven-version: ") for note in status["notes"])
    assert cache.verified_status(binary, report.version)["proven_in_ci"] is proven_in_ci(
        report.version
    )


def test_identity_format_escape_fails_the_format_claims() -> None:
    broken = msgspec.structs.replace(current_encoders(), format=lambda value: value)
    failed = _failed(run(_binary(), encoders=broken))
    assert {"format-escape"} <= failed
    assert failed <= {"format-escape", "name-rule-needed"}


def test_monkeypatched_escape_format_fails_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken encoder in the code itself (not just in the Encoders) is caught."""
    monkeypatch.setattr(sinks_format, "escape_format", lambda value: value)
    report = run(_binary())
    assert {"format-escape", "name-rule-sufficient"} <= _failed(report)
    detail = {o.slug: o.detail for o in report.outcomes}
    assert "#() job ran" in detail["format-escape"]


def test_missing_argv_escape_fails_the_semicolon_claim() -> None:
    broken = msgspec.structs.replace(current_encoders(), argv=lambda value: value)
    report = run(_binary(), encoders=broken)
    assert "argv-semicolon" in _failed(report)
    detail = {o.slug: o.detail for o in report.outcomes}["argv-semicolon"]
    assert "second command ran" in detail


def _only(slug: str) -> list[Claim]:
    return [claim for claim in CLAIMS if claim.slug == slug]


def test_a_mode_guard_blind_to_modes_fails_the_printable_key_claim(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 28.4: a guard that passes whatever the mode would let text land behind it."""
    monkeypatch.setattr(pane_input, "mode_guard_name", lambda marker, pane: marker)
    report = run(_binary(), claims=_only("key-printable"))
    assert _failed(report) == {"key-printable"}
    assert "copy mode" in report.outcomes[0].detail


def test_an_unescaped_lone_semicolon_key_fails_the_printable_key_claim(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 28.4: the key ``;`` alone would end send-keys (driver.argv Rule 1)."""
    monkeypatch.setattr(argv_module, "escape_element", lambda element: element)
    assert _failed(run(_binary(), claims=_only("key-printable"))) == {"key-printable"}


def test_a_permissive_id_rule_is_not_what_verify_checks() -> None:
    """The id claim is about tmux's ids; a rule refusing them fails it."""

    def refuse_everything(value: str, kind: object, param: str) -> str:
        raise tmuxmcp.errors.UnsafeValue("refused")

    broken = msgspec.structs.replace(current_encoders(), target=refuse_everything)
    assert _failed(run(_binary(), encoders=broken)) == {"ids-exact"}


def test_a_broken_probe_is_a_fail_line_not_a_traceback() -> None:
    async def explode(lab: Lab) -> None:
        raise RuntimeError("boom")

    claim = Claim("exploding", "a probe that raises", explode)
    report = run(_binary(), claims=[claim])
    assert not report.passed
    assert report.lines() == [
        f"FAIL exploding: a probe that raises (tmux {report.version}): "
        "probe error: RuntimeError: boom",
        *_unproven_lines(report.version),
    ]


def test_a_missing_binary_fails_setup() -> None:
    report = run("/nonexistent/tmux")
    assert not report.passed
    assert report.outcomes[0].slug == "setup"


def test_verified_status_follows_the_cache() -> None:
    binary = _binary()
    report = run(binary)
    status = cache.verified_status(binary, report.version)
    assert status["verified"] is False and "never verified" in status["reason"]
    report.record()
    status = cache.verified_status(binary, report.version)
    assert status["verified"] is True, status
    assert status["tmux_version"] == report.version
    failing = msgspec.structs.replace(
        report, outcomes=(msgspec.structs.replace(report.outcomes[0], passed=False),)
    )
    failing.record()
    status = cache.verified_status(binary, report.version)
    assert status["verified"] is False
    assert status["failed"] == [report.outcomes[0].slug]
    assert cache.verified_status(binary, "9.9")["verified"] is False


def test_verified_status_never_raises_on_a_corrupt_cache(tmp_path: pathlib.Path) -> None:
    """The cache is keyed by the binary's digest, never by running it, so any file
    stands in for tmux here (issue 30.2: the fast tier's tripwire fails it if it runs)."""
    binary = str(tmp_path / "a-tmux-binary")
    pathlib.Path(binary).write_bytes(b"not run\n")
    path = cache.cache_path("3.3a", cache.binary_digest(binary))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("{not json")
    status = cache.verified_status(binary, "3.3a")
    assert status["verified"] is False and "unreadable" in status["reason"]


def test_reading_the_cache_loads_neither_trio_nor_the_probes() -> None:
    """Issue 10.4: server_info imports only ``tmuxmcp.verify.cache``, and that
    module loads nothing of tmuxmcp but the package root and ``tmuxmcp.verify``
    (a fresh interpreter, so nothing else has loaded them first)."""
    script = (
        "import sys, tmuxmcp.verify.cache; "
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('tmuxmcp', 'trio', 'mcp', 'anyio'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["tmuxmcp", "tmuxmcp.verify", "tmuxmcp.verify.cache"]


def test_a_claim_table_that_disagrees_with_the_claim_ids_is_refused() -> None:
    """The cache judges a record by ``ClaimId`` alone, so the table must hold
    exactly those ids, in order: a row missing, an unknown row, or a swap."""
    check_table(CLAIMS)
    extra = Claim("unlisted", "a claim without an id", _finds_unsafe)
    for table, named in (
        (CLAIMS[:-1], CLAIMS[-1].slug),
        ((*CLAIMS, extra), "unlisted"),
        ((CLAIMS[1], CLAIMS[0], *CLAIMS[2:]), "out of order"),
    ):
        with pytest.raises(ValueError, match="the claim table and ClaimId disagree") as refused:
            check_table(table)
        assert named in str(refused.value)


@pytest.mark.tmux  # `tmuxmcp verify` in a subprocess finds tmux on PATH itself
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
    version = lines[0].rsplit("(tmux ", 1)[1].removesuffix(")")
    assert lines[len(CLAIMS) :] == _unproven_lines(version)
    for claim, line in zip(CLAIMS, lines[: len(CLAIMS)], strict=True):
        assert line.startswith(("PASS ", "NOTE ") if claim.slug in _STRICT else "PASS "), line
    assert "outcome recorded in" in done.stderr
    assert os.listdir(os.path.join(str(tmp_path), "tmuxmcp"))


def test_a_gate_on_the_option_alone_fails_the_copied_option_claim(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 12 item 4: the claim fails for the gate as it was (option name only).

    On tmux before 3.3 gate-foreign fails too: show-options succeeds there on
    a missing user option, which is why the gate compares the option's value.
    """
    monkeypatch.setattr(client_module, "gate_name", lambda marker, *rest: marker)
    report = run(_binary())
    failed = _failed(report)
    assert "gate-copied-option" in failed
    release = version_tuple(report.version)
    assert release is not None
    assert ("gate-foreign" in failed) is (release < (3, 3))


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
    report = run(_binary())
    assert "configuration-check" in _failed(report)
    detail = {o.slug: o.detail for o in report.outcomes}["configuration-check"]
    assert "hook" in detail


def test_the_verify_command_server_info_names_runs_as_given(tmp_path: pathlib.Path) -> None:
    # Issue 18.5: the README installs tmuxmcp into .venv, which is not on PATH,
    # so a bare `tmuxmcp verify` in server_info's advice fails when pasted.
    # The command is run exactly as named, with the virtual environment's bin
    # directory off PATH, and must verify this tmux.
    binary = _binary()
    advice = cache.verified_status(binary, "3.3a")["how_to_verify"]
    assert advice.startswith("run `") and advice.endswith("`"), advice
    argv = shlex.split(advice[len("run `") : -1])
    venv_bin = os.path.dirname(sys.executable)
    path = os.pathsep.join(
        d for d in os.environ.get("PATH", "").split(os.pathsep) if d and d != venv_bin
    )
    env = {**os.environ, "PATH": path, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("TMUX", None)
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("PASS ") and "\nFAIL " not in done.stdout, done.stdout
