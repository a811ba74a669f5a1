"""Generated documentation blocks, derived from the capability definition (CM-5).

``python -m tmuxmcp.docgen --write`` rewrites every generated block between
``<!-- BEGIN GENERATED: name -->`` and ``<!-- END GENERATED: name -->`` markers
in README.md and docs/*.md; ``--check`` exits 1 when any block is stale. The
tests run the check, so a change to a tool's declaration that is not
regenerated fails CI.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from tmuxmcp.capability.definition import DEFINITION
from tmuxmcp.capability.model import params_of
from tmuxmcp.capability.vocabulary import EFFECT_ORDER


def tool_table() -> str:
    """One row per tool: toolset, reach, effect, outputs, disclosures."""
    rows = [
        "| tool | toolset | process reach | tmux effect | output classes | secrets | untrusted |",
        "|---|---|---|---|---|---|---|",
    ]
    for spec in DEFINITION:
        effects = ", ".join(e.value for e in EFFECT_ORDER if e in spec.effects)
        outputs = ", ".join(sorted(o.value for o in spec.outputs))
        rows.append(
            f"| `{spec.name}` | {spec.toolset.value} | {spec.reach.value} | {effects} | "
            f"{outputs} | {'yes' if spec.may_expose_secrets else 'no'} | "
            f"{'yes' if spec.returns_untrusted_content else 'no'} |"
        )
    return "\n".join(rows)


def parameter_table() -> str:
    """One row per caller-controlled parameter with its sink and encoding."""
    rows = ["| tool | parameter | sink | encoding |", "|---|---|---|---|"]
    for spec in DEFINITION:
        for param in params_of(spec):
            rows.append(
                f"| `{spec.name}` | `{param.name}` | {param.sink.value} | {param.encoding.value} |"
            )
    return "\n".join(rows)


BLOCKS: dict[str, Callable[[], str]] = {
    "tool-table": tool_table,
    "parameter-table": parameter_table,
}

_BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<name>[a-z-]+) -->\n)"
    r"(?P<body>.*?)"
    r"(<!-- END GENERATED: (?P=name) -->)",
    re.S,
)


def regenerate(text: str) -> str:
    """``text`` with every generated block brought up to date."""

    def fill(match: re.Match[str]) -> str:
        return match.group(1) + BLOCKS[match.group("name")]() + "\n" + match.group(4)

    return _BLOCK.sub(fill, text)


def documents(root: Path) -> list[Path]:
    """Files that may hold generated blocks."""
    return [root / "README.md", *sorted((root / "docs").glob("**/*.md"))]


def main(argv: list[str]) -> int:
    """``--write`` or ``--check`` (default) against the repository at the cwd."""
    root = Path.cwd()
    stale = []
    for path in documents(root):
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        fresh = regenerate(text)
        if fresh != text:
            stale.append(path)
            if "--write" in argv:
                path.write_text(fresh, encoding="utf-8")
    if stale and "--write" not in argv:
        for path in stale:
            sys.stderr.write(
                f"stale generated block in {path}; run python -m tmuxmcp.docgen --write\n"
            )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
