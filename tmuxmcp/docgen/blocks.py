"""The machinery: which generated block is rendered by what, and keeping the files fresh.

Two kinds of output, both rewritten by ``python -m tmuxmcp.docgen --write``
and compared by ``--check`` (exit status 1 when anything is stale; the tests
run the same comparison, so a declaration changed without regenerating fails
CI):

* **blocks**: the text between ``<!-- BEGIN GENERATED: name -->`` and
  ``<!-- END GENERATED: name -->`` in docs/**/*.md (README.md is written for
  people and holds none; it is still scanned, so a block put there is kept
  fresh too). Everything outside the markers is written by hand. A marker
  naming an unknown block is an error, not a silent no-op.
* **files**: ``docs/capabilities.json``, byte for byte what ``tmuxmcp
  manifest`` prints.

Every renderer is handed the ``Declared`` tools and resources (by default
the capability definition), so a test can render the docs of a changed
definition without patching a module.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from tmuxmcp.capability.manifest import definition_manifest
from tmuxmcp.capability.model import ResourceSpec, ToolSpec
from tmuxmcp.definition import DEFINITION, RESOURCES
from tmuxmcp.docgen import configuration, hint_tables, permissions, reference, trust


class Declared(NamedTuple):
    """What the docs are generated from."""

    tools: Sequence[ToolSpec[Any, Any]]
    resources: Sequence[ResourceSpec[Any, Any]]


DECLARED = Declared(DEFINITION, RESOURCES)
"""The capability definition: what the committed docs describe."""

BLOCKS: dict[str, Callable[[Declared], str]] = {
    "parameter-table": lambda d: reference.parameter_table(d.tools),
    "tool-overview": lambda d: reference.tool_overview(d.tools),
    "annotation-table": lambda d: hint_tables.annotation_table(d.tools),
    "vocabulary-legend": lambda d: reference.vocabulary_legend(),
    "tool-sections": lambda d: reference.tool_sections(d.tools),
    "resource-sections": lambda d: reference.resource_sections(d.resources),
    "command-table": lambda d: configuration.command_table(),
    "option-table": lambda d: configuration.option_table(),
    "toolset-table": lambda d: configuration.toolset_table(d.tools),
    "authority-table": lambda d: trust.authority_table(d.tools),
    "disclosure-table": lambda d: trust.disclosure_table(d.tools),
    "claude-allow-rule": lambda d: permissions.allow_rule(d.tools),
}


def capabilities_json(declared: Declared) -> str:
    """``docs/capabilities.json``: exactly what ``tmuxmcp manifest`` prints."""
    manifest = definition_manifest(declared.tools, declared.resources)
    return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


FILES: dict[str, Callable[[Declared], str]] = {
    "docs/capabilities.json": capabilities_json,
}

_BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<name>[a-z-]+) -->\n)"
    r"(?P<body>.*?)"
    r"(<!-- END GENERATED: (?P=name) -->)",
    re.S,
)
_MARKER = re.compile(r"<!-- (?:BEGIN|END) GENERATED: (?P<name>[^ ]+) -->")


class UnknownBlock(Exception):
    """A document names a generated block that docgen does not know."""


def regenerate(text: str, declared: Declared = DECLARED) -> str:
    """``text`` with every generated block brought up to date."""
    for marker in _MARKER.finditer(text):
        if marker["name"] not in BLOCKS:
            raise UnknownBlock(f"unknown generated block {marker['name']!r}")

    def fill(match: re.Match[str]) -> str:
        return match.group(1) + BLOCKS[match.group("name")](declared) + "\n" + match.group(4)

    return _BLOCK.sub(fill, text)


def documents(root: Path) -> list[Path]:
    """Files that may hold generated blocks."""
    return [root / "README.md", *sorted((root / "docs").glob("**/*.md"))]


def stale(root: Path, declared: Declared = DECLARED) -> dict[Path, str]:
    """Every generated output under ``root`` that differs from what it should be."""
    found: dict[Path, str] = {}
    for path in documents(root):
        if path.exists():
            text = path.read_text(encoding="utf-8")
            fresh = regenerate(text, declared)
            if fresh != text:
                found[path] = fresh
    for relative, make in FILES.items():
        path = root / relative
        fresh = make(declared)
        if not path.exists() or path.read_text(encoding="utf-8") != fresh:
            found[path] = fresh
    return found


def main(argv: Sequence[str]) -> int:
    """``--write`` or ``--check`` (default) against the repository at the cwd."""
    found = stale(Path.cwd())
    if "--write" in argv:
        for path, fresh in found.items():
            path.write_text(fresh, encoding="utf-8")
        return 0
    for path in found:
        sys.stderr.write(f"stale generated docs in {path}; run python -m tmuxmcp.docgen --write\n")
    return 1 if found else 0
