"""What a person or a model reads at startup speaks plain words (issue 31.4).

The startup warning on stderr, the ``initialize`` instructions and
``server_info``'s text are read by people who do not have ADR 0001 at hand:
they name no rule id (``CM-1`` ...) and point to a page of the repository
instead. Code comments and the docs for engineers keep the ids. CM-3 and CM-7:
the reasons a toolset is off are still published, in words.

Also here: the sink-claims sentence keeps "proven in CI" and "verified on
this machine" apart, as the structured form does.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tmuxmcp import runtime
from tmuxmcp.capability.manifest import compact_report, definition_manifest
from tmuxmcp.capability.surface import TEARDOWN_HELP
from tmuxmcp.config import Options, load
from tmuxmcp.definition import DEFINITION, RESOURCES
from tmuxmcp.driver.binding import Provenance
from tmuxmcp.server import INSTRUCTIONS
from tmuxmcp.tools.server_info import claims_sentence, server_info_prose
from tmuxmcp.verify import PROVEN_VERSIONS

ROOT = Path(__file__).resolve().parent.parent
RULE_ID = re.compile(r"\bCM-\d")

STARTS = [
    pytest.param(flags, provenance, id=f"{'+'.join(flags) or 'default'}-{provenance.value}")
    for flags in ([], ["--toolsets", "inspect"], ["--socket-name", "other"])
    for provenance in Provenance
]


def _decide(flags: list[str], provenance: Provenance) -> runtime.Decision:
    names = dict(zip(flags[::2], flags[1::2], strict=True))
    options = Options(
        toolsets=names.get("--toolsets"),
        socket_name=names.get("--socket-name"),
        tmux=sys.executable,
    )
    config = load(options, {})
    server: dict[str, Any] = {
        "provenance": provenance.value,
        "created_by_tmuxmcp": provenance is Provenance.MINIMAL,
        "pid": 1,
        "tmux_version": "3.3a",
        "tmux_binary": config.tmux_binary,
        "config_files": [],
        "self_teardown_guard": "tmuxmcp does not run in a pane of this server",
    }
    return runtime.decide(
        config, provenance, per_call_check=True, socket_path="/tmp/x/default", server=server
    )


CLAIMS: list[dict[str, Any]] = [
    {"tmux_version": "3.3a", "verified": False, "proven_in_ci": True, "reason": "never run"},
    {"tmux_version": "3.4", "verified": False, "proven_in_ci": False, "reason": "never run"},
    {"tmux_version": "3.3a", "verified": True, "proven_in_ci": True, "reason": "every claim"},
    {"tmux_version": "3.3a", "verified": False, "proven_in_ci": True, "failed": ["x"]},
]


@pytest.mark.parametrize(("flags", "provenance"), STARTS)
def test_startup_text_names_no_rule_id(
    flags: list[str], provenance: Provenance, caplog: pytest.LogCaptureFixture
) -> None:
    """The stderr warning, the instructions and server_info's text, in every start."""
    decision = _decide(flags, provenance)
    with caplog.at_level(logging.WARNING, logger="tmuxmcp"):
        runtime.announce(decision.surface)
    off = [o.sentence() for o in decision.surface.off]
    texts = {
        "stderr": caplog.text,
        "instructions": " ".join([INSTRUCTIONS, *off]),
        **{
            f"server_info {i} {form}": "\n".join(server_info_prose("bound", claims, report))
            for i, claims in enumerate(CLAIMS)
            for form, report in (
                ("default", compact_report(decision.published)),
                ("detail", decision.published),
            )
        },
    }
    for source, text in texts.items():
        assert not RULE_ID.search(text), f"{source}: {text}"
    if provenance is Provenance.UNKNOWN and not flags:
        # The case a user meets most (a second start): the reason, and where to read on.
        assert "teardown toolset is off" in caplog.text
        assert "already running at startup, so its provenance is unknown" in caplog.text
        assert TEARDOWN_HELP in caplog.text


def test_the_teardown_link_points_at_a_section_that_exists() -> None:
    page, anchor = TEARDOWN_HELP.split("#")
    headings = re.findall(r"^#+ (.+)$", (ROOT / page).read_text(encoding="utf-8"), re.M)
    slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}
    assert anchor in slugs


def test_a_ci_proven_version_is_said_to_be_proven_and_not_yet_verified_here() -> None:
    version = sorted(PROVEN_VERSIONS)[0]
    sentence = claims_sentence(
        {
            "tmux_version": version,
            "verified": False,
            "proven_in_ci": True,
            "reason": "these claims were never verified for this tmux binary",
            "how_to_verify": "run `tmuxmcp verify`",
        }
    )
    assert sentence == (
        f"Sink claims for tmux {version}: proven in CI; not verified on "
        "this machine yet (these claims were never verified for this tmux binary); "
        "to verify: run `tmuxmcp verify`."
    )


def test_the_claims_sentence_keeps_each_case_apart() -> None:
    said = [claims_sentence(claims).removeprefix("Sink claims for tmux ") for claims in CLAIMS]
    assert said == [
        "3.3a: proven in CI; not verified on this machine yet (never run).",
        "3.4: not proven in CI; not verified on this machine yet (never run).",
        "3.3a: proven in CI; verified on this machine (every claim).",
        "3.3a: proven in CI; not verified on this machine.",
    ]


def test_the_tool_list_names_no_rule_id() -> None:
    """What ``tools/list`` and ``resources/templates/list`` give a model at startup:
    every description, schema (with the result types' docstrings) and parameter."""
    manifest = definition_manifest(DEFINITION, RESOURCES)
    for entry in [*manifest["tools"], *manifest["resources"]]:
        published = {k: v for k, v in entry.items() if k not in ("annotations",)}
        text = json.dumps(published)
        assert not RULE_ID.search(text), (entry["name"], RULE_ID.findall(text))
