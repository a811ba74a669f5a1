"""``tmuxmcp verify``: the sink claims, proven on the tmux binary a user has (CM-5.4).

Every rule in ``tmuxmcp.sinks`` and ``tmuxmcp.driver`` rests on a claim about
what tmux does with bytes (research/tmux-sinks.md). Those claims were measured
on particular tmux versions; ``tmuxmcp verify`` re-measures them on the local
binary and prints one line per claim::

    PASS format-escape: ... (tmux 3.3a)

The package, one job a module, lowest first:

* ``cache``: where a run's outcome is recorded and read back
  (``verified_status``, for ``server_info``). The only module the tools layer
  may import (an import-linter contract in ``pyproject.toml``), so it imports
  nothing else of this package and nothing heavy.
* ``lab``: the private tmux server a run probes, and the encoders under test.
* ``probes/``: one module per family of claims, each probe a coroutine that
  returns if tmux behaves as its claim says and raises ``ClaimFailed`` if not.
* ``claims``: the table, one row per claim: its id, what it says, its
  severity and the probe that proves it.
* ``report``: one claim's outcome, a run's lines, and recording them.
* ``runner``: running the claims in a lab, and the ``tmuxmcp verify`` command.

This module holds only what the cheap reader and the heavy runner share: the
CI-proven versions and the claim ids. Rule: it imports no other module of
tmuxmcp, so importing ``tmuxmcp.verify.cache`` stays cheap.
"""

from __future__ import annotations

from enum import StrEnum

CI_MATRIX: dict[str, str] = {"3.3a": "3.3a", "3.5a": "3.5a", "3.6a": "3.6"}
"""The tmux versions ``.ci/run`` proves every claim on: source release -> ``#{version}``.

The one list of CI-proven versions (docs/verify.md and ``.ci/run`` read it
from here). tmux 3.6a's tarball is a snapshot that reports itself as 3.6.
"""

PROVEN_VERSIONS = frozenset(CI_MATRIX.values())


def proven_in_ci(version: str) -> bool:
    """True if CI proves the claims on tmux ``version`` (as ``#{version}`` reports it)."""
    return version in PROVEN_VERSIONS


def unproven_note(version: str) -> str:
    """What ``verify`` and ``server_info`` say about a version CI does not run."""
    return (
        f"tmux {version} is not one of the versions CI proves these claims on "
        f"({', '.join(sorted(PROVEN_VERSIONS))}); the claims were measured on this binary only"
    )


class ClaimId(StrEnum):
    """The id of every claim, in the order a run checks them.

    Declared here, not only in ``claims.CLAIMS``, because the cache must know
    today's claim list (a run made before a claim existed does not verify it)
    without importing the probes. ``claims`` refuses to import unless its
    table holds exactly these ids, in this order.
    """

    OUTPUT_FENCE = "output-fence"
    FORMAT_ESCAPE = "format-escape"
    NAME_RULE_SUFFICIENT = "name-rule-sufficient"
    NAME_RULE_NEEDED = "name-rule-needed"
    ARGV_SEMICOLON = "argv-semicolon"
    ARGV_DOUBLE_DASH = "argv-double-dash"
    START_DIRECTORY = "start-directory"
    PASTE_EXACT = "paste-exact"
    PASTE_LINES = "paste-lines"
    KEY_NAMES = "key-names"
    KEY_PRINTABLE = "key-printable"
    IDS_EXACT = "ids-exact"
    NO_SERVER_START = "no-server-start"
    GATE_FOREIGN = "gate-foreign"
    GATE_COPIED_OPTION = "gate-copied-option"
    CONFIGURATION_CHECK = "configuration-check"
    ALIAS_PRECEDES_GATE = "alias-precedes-gate"
    NUMERIC_BOUNDS = "numeric-bounds"
    RECORD_FRAMING = "record-framing"
    SECTION_MARKERS = "section-markers"
    BUFFER_DELETE_EXACT = "buffer-delete-exact"
    PASTE_GUARD = "paste-guard"
