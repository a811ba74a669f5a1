"""Running the claims in a lab, and the ``tmuxmcp verify`` command (CM-5.4).

Rules: the claims run one after another on one private server
(``tmuxmcp.verify.lab``), each starting with no sentinel; a probe that raises
anything is that claim's ``FAIL`` line, never a traceback, and the next
claim still runs; a server that does not start is one ``FAIL setup`` line,
and a tmux older than the oldest supported version (``driver.versions``) is
one ``FAIL supported-version`` line, with no server started.
The command prints one line per claim and exits 0 unless a safety claim
failed.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Sequence

import trio

from tmuxmcp.config import child_environment, resolve_binary
from tmuxmcp.driver import versions
from tmuxmcp.errors import TmuxMcpError, TmuxUnsupported
from tmuxmcp.verify.claims import CLAIMS, Claim
from tmuxmcp.verify.lab import (
    PROBE_SECONDS,
    ClaimFailed,
    Encoders,
    Lab,
    current_encoders,
    open_lab,
)
from tmuxmcp.verify.report import Outcome, Report


async def _attempt(claim: Claim, lab: Lab) -> Outcome:
    def failed(detail: str) -> Outcome:
        return Outcome(claim.slug, claim.text, False, detail, claim.severity)

    try:
        await claim.probe(lab)
    except ClaimFailed as exc:
        return failed(str(exc))
    except TmuxMcpError as exc:
        return failed(exc.for_client())
    except Exception as exc:  # a probe must report, never crash the suite (lab Rule 2)
        return failed(f"probe error: {type(exc).__name__}: {exc}")
    return Outcome(claim.slug, claim.text, True, severity=claim.severity)


async def run_async(
    binary: str, *, encoders: Encoders | None = None, claims: Sequence[Claim] = CLAIMS
) -> Report:
    """Probe ``claims`` against ``binary`` on a throwaway server."""
    chosen = current_encoders() if encoders is None else encoders
    try:
        await versions.require_supported(binary, child_environment(os.environ), PROBE_SECONDS)
    except TmuxUnsupported as exc:
        too_old = Outcome(
            "supported-version",
            f"tmux is {versions.OLDEST_SUPPORTED_TEXT} or later",
            False,
            exc.for_client(),
        )
        return Report(binary=binary, version=exc.version, outcomes=(too_old,))
    async with open_lab(binary, chosen) as lab:
        try:
            version = await lab.start()
        except (ClaimFailed, TmuxMcpError, ValueError) as exc:
            detail = exc.for_client() if isinstance(exc, TmuxMcpError) else str(exc)
            failed = Outcome("setup", "a private tmux server starts", False, detail)
            return Report(binary=binary, version="unknown", outcomes=(failed,))
        outcomes = []
        for claim in claims:
            outcomes.append(await _attempt(claim, lab))
            lab.clear_sentinels()
        return Report(binary=binary, version=version, outcomes=tuple(outcomes))


def run(
    binary: str, *, encoders: Encoders | None = None, claims: Sequence[Claim] = CLAIMS
) -> Report:
    """``run_async`` for synchronous callers (the CLI and tests)."""
    return trio.run(functools.partial(run_async, binary, encoders=encoders, claims=claims))


def main(tmux: str | None, *, write_cache: bool = True) -> int:
    """``tmuxmcp verify``: print one line per claim; 0 unless a safety claim failed."""
    binary = resolve_binary(tmux, os.environ)
    report = run(binary)
    for line in report.lines():
        sys.stdout.write(line + "\n")
    sys.stdout.flush()
    if write_cache:
        try:
            where = report.record()
        except OSError as exc:
            sys.stderr.write(f"tmuxmcp: could not record the outcome: {exc.strerror}\n")
        else:
            sys.stderr.write(f"tmuxmcp: outcome recorded in {where}\n")
    return 0 if report.passed else 1
