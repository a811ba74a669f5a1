"""The claims ``tmuxmcp verify`` checks: one table row each, with its severity and its probe.

Claims come in two kinds: *sufficiency* (a rule makes values arrive exactly)
and *premise* (tmux still does what makes a rule necessary, e.g. it rewrites
``$x`` in names). Each claim also has a severity (``Severity``):

* ``safety``: its failure would let caller text reach an interpreter, a wrong
  object or a foreign server, or make tmuxmcp misread what tmux printed. It is
  a ``FAIL``: ``tmuxmcp verify`` exits 1 and ``server_info`` reports the
  claims unverified.
* ``strictness``: its failure only shows that a rule is stricter than this
  tmux needs (a premise that stopped holding, e.g. tmux 3.5a stores ``$x``
  names exactly). It is a ``NOTE``: the exit status stays 0, and the note is
  printed and reported in ``server_info``.

To add a claim: a probe in the family module of ``tmuxmcp.verify.probes``, its
id in ``tmuxmcp.verify.ClaimId``, its row here and in docs/verify.md's table
(``tests/test_docs.py`` checks the docs; this module refuses to import if the
table and ``ClaimId`` disagree).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from enum import StrEnum

import msgspec

from tmuxmcp.verify import ClaimId
from tmuxmcp.verify.lab import Lab
from tmuxmcp.verify.probes import argv, gate, guard, names, objects, output, pane_input


class Severity(StrEnum):
    """What a claim's failure means (see the module docstring)."""

    SAFETY = "safety"
    """Caller text could reach an interpreter, a wrong object or a foreign server: FAIL."""
    STRICTNESS = "strictness"
    """A rule is stricter than this tmux needs: NOTE, and the exit status stays 0."""


class Claim(msgspec.Struct, frozen=True):
    """One claim, the probe that checks it, and what its failure means."""

    slug: str
    text: str
    probe: Callable[[Lab], Awaitable[None]]
    severity: Severity = Severity.SAFETY


CLAIMS: tuple[Claim, ...] = (
    Claim(
        ClaimId.OUTPUT_FENCE,
        "run_command's OSC 7 fence shows only after the output before it is drawn; "
        "capture -J joins wrapped lines",
        output.probe_output_fence,
    ),
    Claim(
        ClaimId.FORMAT_ESCAPE,
        "format-escaped names and titles arrive exactly; no #() job, #{} or strftime runs",
        names.probe_format_escape,
    ),
    Claim(
        ClaimId.NAME_RULE_SUFFICIENT,
        "names and titles the name rule accepts are stored exactly",
        names.probe_name_rule_sufficient,
    ),
    Claim(
        ClaimId.NAME_RULE_NEEDED,
        "tmux rewrites or refuses '$x', backslash and control characters in names",
        names.probe_name_rule_needed,
        Severity.STRICTNESS,
    ),
    Claim(
        ClaimId.ARGV_SEMICOLON,
        "an escaped trailing ';' stays in its argument and never starts a second command",
        argv.probe_argv_semicolon,
    ),
    Claim(
        ClaimId.ARGV_DOUBLE_DASH,
        "positionals after '--' are never read as flags",
        argv.probe_argv_double_dash,
    ),
    Claim(
        ClaimId.START_DIRECTORY,
        "start directories with format syntax arrive exactly (-c)",
        names.probe_start_directory,
    ),
    Claim(
        ClaimId.PASTE_EXACT,
        "paste-buffer delivers text byte for byte, past 16 KiB and in copy mode",
        pane_input.probe_paste_exact,
    ),
    Claim(
        ClaimId.PASTE_LINES,
        "paste-buffer without -r delivers each newline as CR (Enter), nothing else changed",
        pane_input.probe_paste_lines,
    ),
    Claim(
        ClaimId.KEY_NAMES,
        "every send_keys key name is a tmux key name",
        pane_input.probe_key_names,
    ),
    Claim(
        ClaimId.KEY_PRINTABLE,
        "every printable send_keys key arrives as its byte and text parts keep their tabs; "
        "the mode guard refuses a pane in copy mode and passes once a q before it left it",
        pane_input.probe_key_printable,
    ),
    Claim(
        ClaimId.IDS_EXACT,
        "ids address exactly their object; unknown ids fail; '%01' aliases '%1'",
        objects.probe_ids_exact,
    ),
    Claim(
        ClaimId.NO_SERVER_START,
        "tmux -N never starts a server, and tmuxmcp always passes -N",
        gate.probe_no_server_start,
    ),
    Claim(
        ClaimId.GATE_FOREIGN,
        "the gate option refuses a foreign server; nothing after it runs there",
        gate.probe_gate_foreign,
    ),
    Claim(
        ClaimId.GATE_COPIED_OPTION,
        "a server holding a copy of the gate option is refused; nothing after the gate runs",
        gate.probe_gate_copied_option,
    ),
    Claim(
        ClaimId.CONFIGURATION_CHECK,
        "with narrow hints, a hook of any scope or an alias added later refuses the call",
        gate.probe_configuration_check,
    ),
    Claim(
        ClaimId.ALIAS_PRECEDES_GATE,
        "an alias of the gate's own command runs before any in-band check",
        gate.probe_alias_precedes_gate,
    ),
    Claim(
        ClaimId.NUMERIC_BOUNDS,
        "capture-pane accepts the documented line range [-2^31, 32767]",
        argv.probe_numeric_bounds,
    ),
    Claim(
        ClaimId.RECORD_FRAMING,
        "framed records read back exactly: backslashes, control characters, newlines, "
        "escape-like and marker-like text",
        output.probe_record_framing,
    ),
    Claim(
        ClaimId.SECTION_MARKERS,
        "section markers split interleaved capture-pane output exactly",
        output.probe_section_markers,
    ),
    Claim(
        ClaimId.BUFFER_DELETE_EXACT,
        "delete_buffer deletes the named buffer, and no buffer for an unknown name",
        objects.probe_buffer_delete_exact,
    ),
    Claim(
        ClaimId.PASTE_GUARD,
        "run_command's typing guard admits an unchanged pane and refuses another pane_pid, "
        "a mode, the alternate screen, continuation-prompt rows and a cursor off the prompt's "
        "end; a refusal stops the paste",
        guard.probe_paste_guard,
    ),
)


def check_table(claims: Sequence[Claim]) -> None:
    """Refuse a claim table whose ids are not exactly ``ClaimId``, in its order.

    The cache judges a record against ``ClaimId`` alone, so a claim missing
    there would never be asked for, and one missing here would never verify.
    """
    slugs = [claim.slug for claim in claims]
    if slugs != [claim_id.value for claim_id in ClaimId]:
        unknown = sorted(set(slugs) - {claim_id.value for claim_id in ClaimId})
        absent = sorted({claim_id.value for claim_id in ClaimId} - set(slugs))
        raise ValueError(
            "the claim table and ClaimId disagree: "
            f"not in ClaimId {unknown}, no row for {absent}, or out of order"
        )


check_table(CLAIMS)
