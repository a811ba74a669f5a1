"""The documentation agrees with the definition, builds, and makes no forbidden claim.

ADR 0001 CM-5 (documentation agrees with the one definition), CM-7 and the
informative sections (what documentation must say, and must never say).

Invariants checked here:

1. Every generated part of the docs, and ``docs/capabilities.json``, equals
   what ``python -m tmuxmcp.docgen --write`` would produce now.
2. The site builds with ``mkdocs build --strict`` (warnings, broken links and
   broken anchors are errors).
3. No public text (docs pages, README, tool and parameter descriptions, the
   published notices) presents a socket, a tool filter, a payload filter or an
   annotation as a sandbox, isolation, containment or a security boundary, or
   claims to prevent all subprocess execution, to own every object, that an
   inspect tool is safe, or that redaction or history suppression removes
   data. Negated statements ("is not a sandbox") are allowed. The checker is
   itself tested on claims it must catch and negations it must accept.
4. The conformance matrix cites only tests that exist, states its coverage
   honestly, and quotes every MUST sentence of the ADR exactly once.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import NamedTuple

import msgspec
import pytest

from tmuxmcp import docgen
from tmuxmcp.capability.describe import describe
from tmuxmcp.capability.manifest import NOTICES
from tmuxmcp.capability.model import params_of
from tmuxmcp.definition import DEFINITION, RESOURCES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _read(relative: str) -> str:
    return (ROOT / relative).read_text(encoding="utf-8")


# --------------------------------------------------------- generated content


def test_generated_docs_are_fresh() -> None:
    stale = docgen.stale(ROOT)
    assert not stale, (
        f"stale: {sorted(str(p.relative_to(ROOT)) for p in stale)}; "
        "run python -m tmuxmcp.docgen --write"
    )


def test_capabilities_json_is_what_tmuxmcp_manifest_prints() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tmuxmcp", "manifest"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == _read("docs/capabilities.json")


def test_a_changed_declaration_makes_the_docs_stale() -> None:
    changed = tuple(
        msgspec.structs.replace(s, summary=s.summary + " Changed.")
        if s.name == "run_command"
        else s
        for s in DEFINITION
    )
    declared = docgen.Declared(changed, RESOURCES)
    stale = {str(p.relative_to(ROOT)) for p in docgen.stale(ROOT, declared)}
    assert {"docs/tools.md", "docs/capabilities.json"} <= stale


def test_verify_docs_list_the_ci_proven_versions_and_every_claim_with_its_severity() -> None:
    """docs/verify.md names exactly the versions of CI_MATRIX, and each claim's severity."""
    from tmuxmcp.verify import PROVEN_VERSIONS
    from tmuxmcp.verify.claims import CLAIMS

    text = (DOCS / "verify.md").read_text()
    versions = sorted(PROVEN_VERSIONS)
    stated = f"CI proves every claim on tmux {', '.join(versions[:-1])} and {versions[-1]}"
    assert stated in text
    rows = dict(re.findall(r"^\| `([a-z-]+)` \| (safety|strictness) \|", text, re.M))
    assert rows == {claim.slug: claim.severity.value for claim in CLAIMS}


def test_the_docs_hold_every_generated_block() -> None:
    used = set()
    for path in docgen.documents(ROOT):
        if path.exists():
            used |= set(re.findall(r"<!-- BEGIN GENERATED: ([a-z-]+) -->", path.read_text()))
    assert used == set(docgen.BLOCKS)


def test_an_unknown_block_name_is_an_error() -> None:
    with pytest.raises(docgen.UnknownBlock, match="tool-tabel"):
        docgen.regenerate(
            "<!-- BEGIN GENERATED: tool-tabel -->\n<!-- END GENERATED: tool-tabel -->"
        )


def test_the_reference_has_a_section_for_every_tool() -> None:
    tools = _read("docs/tools.md")
    for spec in DEFINITION:
        assert f"\n### `{spec.name}`\n" in tools
        assert describe(spec) in tools
        for param in params_of(spec):
            assert f"| `{param.name}` |" in tools


def _allow_rule_in_quickstart() -> list[str]:
    """The ``permissions.allow`` list of the quickstart's Claude Code settings snippet."""
    quickstart = _read("docs/quickstart.md")
    block = quickstart.split("<!-- BEGIN GENERATED: claude-allow-rule -->", 1)[1]
    snippet = re.search(r"```json\n(.*?)```", block, re.S)
    assert snippet is not None, "the allow rule's JSON snippet is missing"
    settings = msgspec.json.decode(snippet.group(1))
    assert list(settings) == ["permissions"]
    allowed: list[str] = settings["permissions"]["allow"]
    return allowed


def test_the_claude_code_allow_rule_names_exactly_the_observe_only_tools() -> None:
    """Issue 31.4: the quickstart's allow rule is the definition's observe-only set (CM-2, CM-7).

    Worked out here from the declarations, not through docgen: a tool is in
    the rule exactly when its process reach is none, its tmux effect is
    observe alone, and so are those of every nested operation it may invoke.
    """
    by_name = {spec.name: spec for spec in DEFINITION}

    def observes_only(name: str) -> bool:
        spec = by_name[name]
        return spec.reach.value == "none" and {e.value for e in spec.effects} == {"observe"}

    expected = [
        f"mcp__tmux__{spec.name}"
        for spec in DEFINITION
        if observes_only(spec.name) and all(observes_only(n) for n in spec.nested)
    ]
    assert _allow_rule_in_quickstart() == expected
    # The set a reviewer expects: every inspect tool and wait_for_command, nothing that types.
    assert "mcp__tmux__wait_for_command" in expected
    assert not {"mcp__tmux__run_command", "mcp__tmux__send_keys"} & set(expected)


def test_the_allow_rule_says_which_allowed_tools_return_untrusted_or_secret_text() -> None:
    """Each allowed tool's row states its declared disclosures (CM-7)."""
    quickstart = _read("docs/quickstart.md")
    for rule in _allow_rule_in_quickstart():
        spec = next(s for s in DEFINITION if f"mcp__tmux__{s.name}" == rule)
        untrusted = "yes" if spec.returns_untrusted_content else "no"
        secrets = "yes" if spec.may_expose_secrets else "no"
        row = f"| [`{spec.name}`](tools.md#{spec.name}) | {spec.toolset.value} |"
        line = next(line for line in quickstart.splitlines() if line.startswith(row))
        assert line.endswith(f"| {untrusted} | {secrets} |"), line


def test_a_changed_reach_changes_the_allow_rule() -> None:
    """A tool declared to reach a process leaves the generated rule (it cannot drift)."""
    from tmuxmcp.capability.vocabulary import Reach

    changed = tuple(
        msgspec.structs.replace(s, reach=Reach.PANE_INPUT) if s.name == "capture_pane" else s
        for s in DEFINITION
    )
    stale = docgen.stale(ROOT, docgen.Declared(changed, RESOURCES))
    fresh = stale[DOCS / "quickstart.md"]
    assert '"mcp__tmux__capture_pane"' not in fresh
    # snapshot nests capture_pane, so it leaves the rule with it.
    assert '"mcp__tmux__snapshot"' not in fresh
    assert '"mcp__tmux__list_panes"' in fresh


def test_the_home_page_table_lists_every_page_of_the_nav() -> None:
    """Issue 31.4: docs/index.md's table of pages leaves none of mkdocs.yml's nav out."""
    nav = re.findall(r"^  - [^:]+: (\S+\.md)$", _read("mkdocs.yml"), re.M)
    assert "troubleshooting.md" in nav
    table = _section("docs/index.md", "Pages")
    listed = re.findall(r"^\| \[[^\]]+\]\(([^)#]+)\)", table, re.M)
    assert sorted(set(nav) - {"index.md"}) == sorted(p for p in listed if p.endswith(".md"))


# ---------------------------------------------------------- the site builds


def test_the_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    reference = (site / "tools" / "index.html").read_text(encoding="utf-8")
    for spec in DEFINITION:
        assert f'id="{spec.name}"' in reference
    assert (site / "capabilities.json").read_text(encoding="utf-8") == _read(
        "docs/capabilities.json"
    )


# ------------------------------------------------------------ wording check


class Claim(NamedTuple):
    """A statement no public text may make, unless it is negated."""

    name: str
    term: re.Pattern[str]
    context: re.Pattern[str] | None = None
    """If set, the claim counts only in a sentence that also matches this."""


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


CLAIMS = (
    Claim("sandbox", _rx(r"\bsandbox\w*")),
    Claim("isolation", _rx(r"\bisolat\w*")),
    Claim("security boundary", _rx(r"\bsecurity[\s-]+boundar(?:y|ies)\b")),
    Claim("containment", _rx(r"\bcontainment\b")),
    Claim(
        "prevents all subprocess execution",
        _rx(r"\bprevent\w*\s+(?:all|any|every)\s+(?:sub)?process\w*"),
    ),
    Claim("owns every object", _rx(r"\b(?:owns?|ownership\s+of)\s+(?:every|all)\b")),
    Claim(
        "an inspect tool is safe",
        _rx(r"\b(?:safe|safely|harmless|risk-free)\b"),
        _rx(r"\b(?:inspect\w*|read-only|observ\w*)\b"),
    ),
    Claim(
        "redaction or history suppression removes data",
        _rx(r"\b(?:remov|eras|delet|scrub|wip|purg)\w*\b(?!\s+(?:nothing|no)\b)"),
        _rx(r"\b(?:redact\w*|suppress\w*)\b"),
    ),
)

# A negation anywhere earlier in the same clause negates the claim.
NEGATION = _rx(
    r"\b(?:not|no|never|none|nor|neither|nothing|without|cannot|rather\s+than|instead\s+of)\b"
    r"|n't\b"
)
# Clause boundaries: sentence and clause punctuation, table cells, paragraph,
# list item and heading starts (not single newlines: Markdown is hard-wrapped),
# and the conjunctions that start a new assertion. A boundary can only shorten a
# clause, so a spurious one makes the check stricter, never looser.
CLAUSE_BREAK = _rx(
    r"[.;:!?—|]|\n\s*\n|\n\s*(?:[*-]|\d+\.)\s|\n#"
    r"|\bbut\b|\bhowever\b|\bwhile\b|\bwhereas\b|,\s*(?:and|so)\b"
)
SENTENCE_BREAK = _rx(r"[.!?](?:\s|$)|\n\s*\n|\||\n\s*(?:[*-]|\d+\.)\s|\n#")


def _span(text: str, at: int, breaks: re.Pattern[str]) -> tuple[int, int]:
    start = 0
    for found in breaks.finditer(text, 0, at):
        start = found.end()
    end_match = breaks.search(text, at)
    return start, end_match.start() if end_match else len(text)


def forbidden_claims(text: str) -> list[str]:
    """Every un-negated forbidden claim in ``text``, as ``name: excerpt``."""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    found = []
    for claim in CLAIMS:
        for match in claim.term.finditer(text):
            if claim.context is not None:
                start, end = _span(text, match.start(), SENTENCE_BREAK)
                if not claim.context.search(text, start, end):
                    continue
            clause_start, _ = _span(text, match.start(), CLAUSE_BREAK)
            if NEGATION.search(text, clause_start, match.start()):
                continue
            excerpt = " ".join(text[max(0, match.start() - 60) : match.end() + 20].split())
            found.append(f"{claim.name}: …{excerpt}…")
    return found


def public_texts() -> list[tuple[str, str]]:
    """Every text tmuxmcp publishes: docs pages, README, descriptions, notices."""
    from tmuxmcp.server import INSTRUCTIONS

    texts = [
        (str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in docgen.documents(ROOT)
    ]
    texts += [(name, _read(name)) for name in ("CONTRIBUTING.md", "CHANGELOG.md")]
    for spec in DEFINITION:
        texts.append((f"description of {spec.name}", describe(spec)))
        for param in params_of(spec):
            texts.append((f"parameter {spec.name}.{param.name}", param.description))
    texts += [(f"notice {i}", notice) for i, notice in enumerate(NOTICES)]
    texts.append(("server instructions", INSTRUCTIONS))
    from tmuxmcp.capability import surface

    for name in (
        "ENABLE_ALL",
        "NOT_SELECTED",
        "OTHER_SOCKET",
        "UNKNOWN_PROVENANCE",
        "TEARDOWN_WAITS",
    ):
        texts.append((f"toolset-off text {name}", getattr(surface, name)))
    return texts


@pytest.mark.parametrize("text", [pytest.param(text, id=source) for source, text in public_texts()])
def test_public_text_makes_no_forbidden_claim(text: str) -> None:
    assert forbidden_claims(text) == []


@pytest.mark.parametrize(
    "claim",
    [
        "The dedicated socket is a sandbox.",
        "The socket sandboxes the agent.",
        "Annotations provide isolation between agents.",
        "Tool filtering acts as a security boundary.",
        "The payload filter is a security-boundary for tmux.",
        "Excluding run_command gives containment.",
        "A socket is not a sandbox, and the surface filter is a security boundary.",
        "It is not just a filter: it is a sandbox.",
        "Filtering is no substitute for reading docs, but it isolates the agent.",
        "tmuxmcp prevents all subprocess execution.",
        "tmuxmcp owns every object on the socket.",
        "Inspect tools are safe to enable.",
        "Read-only tools are harmless.",
        "Audit redaction removes the command from the client transcript.",
        "History suppression erases the command from scrollback.",
        "| the socket | a sandbox for the agent |",
    ],
)
def test_the_wording_check_catches_claims(claim: str) -> None:
    assert forbidden_claims(claim), claim


@pytest.mark.parametrize(
    "statement",
    [
        "A socket is not a sandbox.",
        "The socket is not a security boundary.",
        "Neither the socket nor annotations are a sandbox.",
        "It does not provide operating-system isolation and must not be described as a sandbox.",
        "None of these mechanisms is a sandbox, and none of them is a security boundary.",
        "An implementation MUST NOT describe a dedicated socket, restricted tool surface, payload "
        "filter, or MCP annotation as a sandbox or security boundary.",
        "Disabling the execute toolset alone is not containment.",
        "tmuxmcp does not claim to prevent all subprocess execution.",
        "tmuxmcp does not claim ownership of every object on a shared socket.",
        "An inspect tool observes tmux, but that does not make what it returns harmless.",
        "Redaction removes nothing from client transcripts.",
        "History suppression is best-effort hygiene, not erasure.",
        "| the socket | limits names | it is not a sandbox |",
        "It isn't a sandbox.",
        "Pick a name that is safe to type.",
    ],
)
def test_the_wording_check_accepts_negations(statement: str) -> None:
    assert forbidden_claims(statement) == [], statement


def test_the_wording_check_catches_claims_and_accepts_negations() -> None:
    """The checker on one text with both (the matrix cites this test for CM-7)."""
    text = "The socket is not a sandbox. Annotations are a security boundary."
    found = forbidden_claims(text)
    assert len(found) == 1
    assert found[0].startswith("security boundary:")


# ------------------------------------------------- what the docs must state


def _section(page: str, heading: str) -> str:
    text = _read(page)
    start = text.index(f"\n## {heading}\n")
    following = text.find("\n## ", start + 1)
    return text[start : following if following != -1 else len(text)]


def _squash(text: str) -> str:
    return " ".join(text.split())


def test_installation_and_trust_docs_state_the_tmux_users_authority() -> None:
    for page in ("README.md", "docs/quickstart.md", "docs/trust.md"):
        assert "run with the tmux user's authority" in _squash(_read(page)).lower(), page
    listed = _section("docs/trust.md", "Execute tools run with the tmux user's authority")
    for spec in DEFINITION:
        assert (f"[`{spec.name}`]" in listed) is (spec.reach.value != "none"), spec.name


def test_docs_distinguish_object_selection_from_confinement() -> None:
    section = _squash(_section("docs/trust.md", "The socket selects objects; it is not a sandbox"))
    assert "socket-scoped object selection" in section
    assert "operating-system confinement" in section
    assert "does not give you" in section


def test_docs_distinguish_surface_filtering_from_authorization() -> None:
    section = _squash(_section("docs/trust.md", "Filtering the tool surface is not authorization"))
    assert "inventory configuration" in section
    assert "excluding `run_command` alone does not stop commands" in section
    assert "not authorization" in _squash(_read("docs/configuration.md"))


def test_docs_describe_annotations_as_consent_metadata() -> None:
    section = _squash(
        _section("docs/trust.md", "Annotations are consent metadata, not enforcement")
    )
    assert "never uses them to allow or refuse anything" in section
    assert "consent" in section
    assert "consent metadata" in " ".join(NOTICES)


def test_ambient_behaviour_is_described_separately_from_process_reach() -> None:
    section = _squash(
        _section("docs/trust.md", "Ambient tmux behaviour is separate from direct process reach")
    )
    for mechanism in ("command aliases", "hooks", "status jobs", "plugins", "pane processes"):
        assert mechanism in section, mechanism
    assert "does not claim to prevent all subprocess execution" in section
    assert "direct operation" in section


def test_shared_sockets_and_the_guard_are_described_with_their_limits() -> None:
    section = _squash(_section("docs/trust.md", "Shared sockets and the self-teardown guard"))
    assert "does not claim to own the objects on the socket" in section
    assert "protects only against those direct tools" in section
    assert "pane command" in section
    assert "other tmux client" in section
    for spec in DEFINITION:
        text = describe(spec)
        if "tmuxmcp's own pane" in text:
            assert re.search(r"\((?:a guard for )?(?:teardown|direct) tools only", text), spec.name


def test_redaction_and_history_suppression_are_described_with_their_limits() -> None:
    section = _squash(_section("docs/trust.md", "Redaction and history suppression"))
    for surface in (
        "client's transcript",
        "pane scrollback",
        "process arguments",
        "shell history",
        "operating system",
    ):
        assert surface in section, surface
    assert "best-effort" in section


def test_aggregates_disclose_every_nested_operation() -> None:
    tools = _read("docs/tools.md")
    aggregates = [spec for spec in DEFINITION if spec.nested]
    assert aggregates, "the definition has an aggregate (snapshot)"
    for spec in aggregates:
        assert "Nested operations: " + ", ".join(spec.nested) + "." in describe(spec)
        section = tools[tools.index(f"### `{spec.name}`") :]
        section = section[: section.find("\n### ", 1)]
        for op in spec.nested:
            assert f"[`{op}`](#{op})" in section


# ------------------------------------------------------ conformance matrix


ROW = re.compile(
    r"^\| (?P<id>(?:CM-\d|[A-Z]{3})\.\d+) \| (?P<req>.*?) \| (?P<tests>.*?) \| (?P<status>.*) \|$"
)
TEST_REF = re.compile(r"`(?P<path>tests/[\w/]+\.py)::(?P<name>[\w:]+)`")


class Row(NamedTuple):
    id: str
    requirement: str
    tests: list[tuple[str, str]]
    status: str


def matrix_rows(text: str) -> list[Row]:
    rows = []
    for line in text.splitlines():
        if match := ROW.match(line):
            refs = [(m["path"], m["name"]) for m in TEST_REF.finditer(match["tests"])]
            rows.append(Row(match["id"], match["req"], refs, match["status"]))
    return rows


def _defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names |= {
                f"{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
    return {n for n in names if n.rsplit("::", 1)[-1].startswith("test_")}


def matrix_problems(rows: list[Row], root: Path) -> list[str]:
    """Cited tests that do not exist, and statuses that misstate coverage."""
    problems = []
    for row in rows:
        for path, name in row.tests:
            file = root / path
            if not file.is_file():
                problems.append(f"{row.id}: {path} does not exist")
            elif name not in _defined_tests(file):
                problems.append(f"{row.id}: {path} has no test {name}")
        if not row.tests and not row.status.startswith("no test yet"):
            problems.append(f"{row.id}: cites no test but says {row.status!r}")
        if row.tests and row.status.startswith("no test yet"):
            problems.append(f"{row.id}: cites tests but says 'no test yet'")
        if not row.status.startswith(("tested", "partly tested: ", "no test yet: ")):
            problems.append(f"{row.id}: unknown status {row.status!r}")
    return problems


def test_every_test_the_conformance_matrix_cites_exists() -> None:
    rows = matrix_rows(_read("docs/conformance.md"))
    assert len(rows) >= 60
    assert len({r.id for r in rows}) == len(rows), "row ids are unique"
    assert matrix_problems(rows, ROOT) == []


def test_the_matrix_check_rejects_a_missing_test_and_a_false_status() -> None:
    rows = matrix_rows(
        "| CM-9.1 | X MUST be. | `tests/test_cli.py::test_no_such_test` | tested |\n"
        "| CM-9.2 | Y MUST be. | `tests/nowhere.py::test_x` | tested |\n"
        "| CM-9.3 | Z MUST be. | — | tested |\n"
        "| CM-9.4 | W MUST be. | `tests/test_cli.py::test_version_and_help` | no test yet: x |\n"
        "| CM-9.5 | V MUST be. | `tests/test_cli.py::test_version_and_help` | tested |\n"
    )
    problems = matrix_problems(rows, ROOT)
    assert [p.split(":")[0] for p in problems] == ["CM-9.1", "CM-9.2", "CM-9.3", "CM-9.4"]


def _normal(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    return " ".join(text.split())


ADR_CANDIDATES = (
    os.environ.get("TMUXMCP_ADR", ""),
    str(ROOT.parent / "shared" / "spec" / "adr-0001-capability-boundaries.txt"),
)


def adr_requirements(text: str) -> list[str]:
    """Every sentence of the ADR that holds MUST (or MUST NOT)."""
    sentences = []
    for line in text.splitlines():
        paragraph = line.strip()
        if not paragraph or paragraph.endswith("¶"):
            continue
        for sentence in re.split(r"(?<=[.:])\s+(?=[A-Z])", paragraph):
            if re.search(r"\bMUST\b", sentence):
                sentences.append(_normal(sentence))
    return sentences


def test_the_matrix_quotes_every_requirement_of_the_adr() -> None:
    found = [p for p in ADR_CANDIDATES if p and os.path.isfile(p)]
    if not found:
        pytest.skip("ADR 0001 text not available (set TMUXMCP_ADR to its path)")
    requirements = adr_requirements(Path(found[0]).read_text(encoding="utf-8"))
    rows = matrix_rows(_read("docs/conformance.md"))
    assert len(rows) == len(requirements)
    for requirement in requirements:
        quoting = [r.id for r in rows if requirement in _normal(r.requirement)]
        assert len(quoting) == 1, (requirement, quoting)


SHELL_FENCES = ("sh", "bash", "shell", "console")

BARE_TMUXMCP = re.compile(r"(?:^|[;&|(]\s*|\s--\s+)tmuxmcp(?=\s|$|\))")
"""``tmuxmcp`` run as a command: at the start of a command, or after ``--``
(a client's ``mcp add ... -- COMMAND``), not as a word inside one
(``tmux -L tmuxmcp``)."""

CONFIGURED_BARE = re.compile(r'\bcommand"?\s*[:=]\s*"tmuxmcp"')
"""A client configuration (JSON or TOML) whose command is a bare ``tmuxmcp``."""


def _shell_lines(text: str) -> list[str]:
    """The command lines of every shell code block, prompts and comments removed."""
    lines: list[str] = []
    for fence, body in re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S):
        if fence not in SHELL_FENCES:
            continue
        for raw in body.splitlines():
            if fence == "console" and not raw.startswith("$ "):
                continue  # output, not a command
            command = raw[2:] if fence == "console" else raw
            lines.append(command.split(" #", 1)[0].strip())
    return lines


def test_no_shell_block_runs_a_tmuxmcp_that_is_not_on_path() -> None:
    """Issue 18.5: the README installs into .venv, so a bare ``tmuxmcp`` is not found.

    Every page a person reads (README, CONTRIBUTING, docs/) runs
    ``.venv/bin/tmuxmcp`` or gives a client its realpath.
    """
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted(DOCS.glob("*.md"))]
    found = [
        f"{page.relative_to(ROOT)}: {line}"
        for page in pages
        for line in _shell_lines(page.read_text(encoding="utf-8"))
        if BARE_TMUXMCP.search(line)
    ]
    found += [
        f"{page.relative_to(ROOT)}: {match.group(0)}"
        for page in pages
        for match in CONFIGURED_BARE.finditer(page.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_the_bare_command_check_sees_what_it_must() -> None:
    """The pattern itself, on lines it must and must not flag."""
    flagged = ["tmuxmcp surface", "claude mcp add tmux -- tmuxmcp", "cd x && tmuxmcp verify"]
    assert CONFIGURED_BARE.search('"command": "tmuxmcp",')
    assert CONFIGURED_BARE.search('command = "tmuxmcp"')
    assert not CONFIGURED_BARE.search('"command": "/home/you/src/tmuxmcp/.venv/bin/tmuxmcp"')
    passed = [
        "tmux -L tmuxmcp attach",
        ".venv/bin/tmuxmcp surface",
        'claude mcp add --scope user tmux -- "$(realpath .venv/bin/tmuxmcp)"',
        "git clone <this repository> tmuxmcp && cd tmuxmcp",
    ]
    assert [bool(BARE_TMUXMCP.search(line)) for line in flagged + passed] == [True] * len(
        flagged
    ) + [False] * len(passed)


def test_the_architecture_page_names_every_module() -> None:
    """Issue 21.5: every module of the package is named on the architecture page,
    in a code span, by its file name (with or without ``.py``) or its path."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named: set[str] = set()
    for span in re.findall(r"`([^`\n]+)`", page):
        for word in re.findall(r"[A-Za-z_][A-Za-z0-9_./]*", span):
            named |= {word, word.removesuffix(".py"), word.rsplit("/", 1)[-1].removesuffix(".py")}
    package = ROOT / "tmuxmcp"
    missing = [
        str(path.relative_to(ROOT))
        for path in sorted(package.rglob("*.py"))
        if path.stem != "__init__"
        and not {path.stem, str(path.relative_to(package)), str(path.relative_to(ROOT))} & named
    ]
    assert not missing, f"docs/architecture.md does not name: {', '.join(missing)}"
