"""Where a ``tmuxmcp verify`` outcome is recorded, and how ``server_info`` reads it back.

A run's outcome is cached per binary: ``verified-<version>-<digest>.json``
under ``$XDG_CACHE_HOME/tmuxmcp`` (default ``~/.cache/tmuxmcp``), keyed by the
executable's SHA-256 so a rebuilt tmux must be verified again.

Rules:

* Rule 1, cheap: this is the one module of ``tmuxmcp.verify`` the tools layer
  imports (``pyproject.toml`` forbids the others), so it imports nothing else
  of the package but its ``__init__`` (the claim ids and CI versions) and
  nothing heavier than msgspec. A test imports it in a fresh interpreter and
  checks that trio and the driver stay unloaded.
* Rule 2, never raises for a reader: a missing, unreadable or stale record
  means "not verified", with the reason.
* Rule 3, current: a record counts only if this tmuxmcp version made it with
  today's claim list (``ClaimId``), so a new claim asks for a new run.
* Rule 4, atomic: a record is written to a temporary file and renamed, so a
  reader never sees half of one.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import os
import re
import shlex
import sys
from collections.abc import Mapping
from typing import Any

import msgspec

import tmuxmcp
from tmuxmcp.verify import ClaimId, proven_in_ci, unproven_note


class Verified(msgspec.Struct, frozen=True, kw_only=True):
    """What ``tmuxmcp verify`` recorded for one binary."""

    tmux_version: str
    tmux_binary: str
    binary_sha256: str
    tmuxmcp_version: str
    claims: dict[str, bool]
    """Slug -> True unless the claim is a safety claim that failed."""
    checked_at: str
    notes: dict[str, str] = {}
    """Strictness findings (slug -> what was found); they do not unverify."""


def cache_directory() -> str:
    """``$XDG_CACHE_HOME/tmuxmcp`` (default ``~/.cache/tmuxmcp``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tmuxmcp")


def binary_digest(binary: str) -> str:
    """SHA-256 of the tmux executable: a rebuilt binary must be verified again."""
    st = os.stat(binary)
    return _digest(binary, st.st_ino, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _digest(binary: str, inode: int, size: int, mtime_ns: int) -> str:
    # Keyed by the file's identity, so server_info does not rehash an
    # unchanged binary on every call while a replaced one is hashed again.
    digest = hashlib.sha256()
    with open(binary, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cache_path(version: str, digest: str) -> str:
    """Where the outcome for this version and binary is recorded."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", version)[:40]
    return os.path.join(cache_directory(), f"verified-{safe}-{digest[:16]}.json")


def record(
    binary: str, version: str, *, claims: Mapping[str, bool], notes: Mapping[str, str]
) -> str:
    """Record a run's verdicts for ``binary`` (replacing any earlier record); its path.

    ``claims``: slug -> False only for a safety claim that failed; ``notes``:
    the strictness findings, slug -> what was found.
    """
    digest = binary_digest(binary)
    entry = Verified(
        tmux_version=version,
        tmux_binary=binary,
        binary_sha256=digest,
        tmuxmcp_version=tmuxmcp.__version__,
        claims=dict(claims),
        notes=dict(notes),
        checked_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    )
    path = cache_path(version, digest)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    partial = f"{path}.{os.getpid()}.tmp"
    with open(partial, "wb") as f:
        f.write(msgspec.json.encode(entry))
    os.replace(partial, path)
    return path


def verify_command(binary: str) -> str:
    """The shell command that verifies ``binary`` with this very tmuxmcp.

    Named by this interpreter's path, not a bare ``tmuxmcp``: the README
    installs into a virtual environment that is not on ``PATH`` (issue 18.5),
    and an agent or operator must be able to paste the command as it stands.
    """
    return shlex.join([sys.executable, "-m", "tmuxmcp", "verify", "--tmux", binary])


def verified_status(binary: str, version: str) -> dict[str, Any]:
    """Whether ``tmuxmcp verify`` passed for this binary and version (for server_info).

    Never raises (Rule 2). Verification counts only if it was made by this
    tmuxmcp version with today's claim list (Rule 3). Strictness findings
    and a version CI does not prove are reported under ``notes`` either way.
    """
    status: dict[str, Any] = {
        "tmux_version": version,
        "verified": False,
        "proven_in_ci": proven_in_ci(version),
        "notes": [] if proven_in_ci(version) else [f"unproven-version: {unproven_note(version)}"],
        "how_to_verify": f"run `{verify_command(binary)}`",
    }
    try:
        with open(cache_path(version, binary_digest(binary)), "rb") as f:
            entry = msgspec.json.decode(f.read(), type=Verified)
    except FileNotFoundError:
        return {**status, "reason": "these claims were never verified for this tmux binary"}
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        return {**status, "reason": f"the verification record is unreadable ({type(exc).__name__})"}
    failed = sorted(slug for slug, ok in entry.claims.items() if not ok)
    missing = sorted({claim.value for claim in ClaimId} - set(entry.claims))
    status["checked_at"] = entry.checked_at
    status["notes"] = [f"{slug}: {detail}" for slug, detail in sorted(entry.notes.items())] + (
        status["notes"]
    )
    if entry.tmuxmcp_version != tmuxmcp.__version__:
        return {**status, "reason": f"verified by tmuxmcp {entry.tmuxmcp_version}; run it again"}
    if failed:
        return {**status, "reason": "claims failed: " + ", ".join(failed), "failed": failed}
    if missing:
        return {**status, "reason": "claims not yet verified: " + ", ".join(missing)}
    return {**status, "verified": True, "reason": "every claim passed"}
