"""A run's outcome: one line per claim, whether it passed, and its record in the cache.

Rules: a run passes when no *safety* claim failed (a strictness finding is a
``NOTE``, see ``tmuxmcp.verify.claims``); a version CI does not prove adds a
``NOTE unproven-version`` line, unless tmuxmcp does not support it at all; the
record written for ``server_info`` (``tmuxmcp.verify.cache``) holds the same
verdicts the lines show.
"""

from __future__ import annotations

import msgspec

from tmuxmcp.verify import cache, proven_in_ci, unproven_note
from tmuxmcp.verify.claims import Severity


class Outcome(msgspec.Struct, frozen=True):
    """The result of one claim's probe."""

    slug: str
    text: str
    passed: bool
    detail: str = ""
    severity: Severity = Severity.SAFETY

    @property
    def status(self) -> str:
        """``PASS``, ``FAIL`` (a safety claim failed) or ``NOTE`` (a strictness finding)."""
        if self.passed:
            return "PASS"
        return "NOTE" if self.severity is Severity.STRICTNESS else "FAIL"


class Report(msgspec.Struct, frozen=True):
    """Every claim's outcome for one tmux binary."""

    binary: str
    version: str
    outcomes: tuple[Outcome, ...]

    @property
    def passed(self) -> bool:
        """True when no safety claim failed (strictness findings are notes)."""
        return bool(self.outcomes) and all(o.status != "FAIL" for o in self.outcomes)

    @property
    def notes(self) -> dict[str, str]:
        """Strictness findings, and an unproven version: slug -> what was found."""
        found = {o.slug: o.detail for o in self.outcomes if o.status == "NOTE"}
        refused = any(o.slug == "supported-version" for o in self.outcomes)
        if self.version != "unknown" and not refused and not proven_in_ci(self.version):
            found["unproven-version"] = unproven_note(self.version)
        return found

    def lines(self) -> list[str]:
        """One line per claim, ``PASS|FAIL|NOTE <slug>: <claim> (tmux X.Y)[: detail]``,
        then a ``NOTE unproven-version`` line if CI does not run this version."""
        out = []
        for o in self.outcomes:
            line = f"{o.status} {o.slug}: {o.text} (tmux {self.version})"
            out.append(line + (f": {o.detail}" if o.detail else ""))
        if "unproven-version" in self.notes:
            out.append(f"NOTE unproven-version: {self.notes['unproven-version']}")
        return out

    def record(self) -> str:
        """Write this report to the cache (replacing any earlier outcome); its path."""
        return cache.record(
            self.binary,
            self.version,
            claims={o.slug: o.status != "FAIL" for o in self.outcomes},
            notes={o.slug: o.detail for o in self.outcomes if o.status == "NOTE"},
        )
