"""Generated documentation agrees with the capability definition (CM-5)."""

from __future__ import annotations

from pathlib import Path

from tmuxmcp import docgen
from tmuxmcp.capability.definition import DEFINITION

ROOT = Path(__file__).resolve().parent.parent


def test_committed_generated_blocks_are_fresh() -> None:
    for path in docgen.documents(ROOT):
        if path.exists():
            text = path.read_text(encoding="utf-8")
            assert docgen.regenerate(text) == text, (
                f"{path} is stale: python -m tmuxmcp.docgen --write"
            )


def test_readme_lists_every_tool_from_the_definition() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for spec in DEFINITION:
        assert f"| `{spec.name}` | {spec.toolset.value} | {spec.reach.value} |" in readme


def test_a_changed_declaration_makes_the_block_stale() -> None:
    text = "<!-- BEGIN GENERATED: tool-table -->\nold\n<!-- END GENERATED: tool-table -->"
    assert docgen.regenerate(text) != text
    assert docgen.tool_table() in docgen.regenerate(text)
