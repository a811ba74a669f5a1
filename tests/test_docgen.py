"""Generated documentation agrees with the capability definition (CM-5).

The README is written for people and holds no generated block: the generated
tables live on the docs site (docs/tools.md), and the README's two commands
stay true to what the repository provides.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from tmuxmcp import docgen
from tmuxmcp.capability.model import params_of
from tmuxmcp.definition import DEFINITION
from tmuxmcp.docgen import reference

ROOT = Path(__file__).resolve().parent.parent


def _read(relative: str) -> str:
    return (ROOT / relative).read_text(encoding="utf-8")


def test_committed_generated_blocks_are_fresh() -> None:
    for path in docgen.documents(ROOT):
        if path.exists():
            text = path.read_text(encoding="utf-8")
            assert docgen.regenerate(text) == text, (
                f"{path} is stale: python -m tmuxmcp.docgen --write"
            )


def test_the_reference_lists_every_tool_and_parameter_from_the_definition() -> None:
    tools = _read("docs/tools.md")
    for spec in DEFINITION:
        assert f"| [`{spec.name}`](#{spec.name}) | {spec.toolset.value} | {spec.reach.value} |" in (
            tools
        )
        for param in params_of(spec):
            row = (
                f"| [`{spec.name}`](#{spec.name}) | `{param.name}` | {param.sink.value} | "
                f"{param.encoding.value} |"
            )
            assert row in tools, row


def test_a_changed_declaration_makes_the_block_stale() -> None:
    text = "<!-- BEGIN GENERATED: parameter-table -->\nold\n<!-- END GENERATED: parameter-table -->"
    assert docgen.regenerate(text) != text
    assert reference.parameter_table(DEFINITION) in docgen.regenerate(text)


def test_the_readme_holds_no_generated_table() -> None:
    readme = _read("README.md")
    assert "GENERATED" not in readme
    assert "| tool |" not in readme


def _shell_lines(markdown: str) -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", markdown, re.S)
    return [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]


def test_the_readme_opens_with_what_it_is_and_what_it_needs() -> None:
    readme = _read("README.md")
    opening = readme[: readme.index("\n## ")]
    assert "Model Context Protocol" in opening
    assert "tmux" in opening
    needs = readme[readme.index("## What you need") :]
    needs = needs[: needs.index("\n## ", 1)]
    project = tomllib.loads(_read("pyproject.toml"))["project"]
    assert project["requires-python"] == ">=3.11"
    for fact in ("Python 3.11 or newer", "tmux", "clone", "virtual environment"):
        assert fact in needs, fact


def test_the_readmes_two_commands_are_what_the_repository_provides() -> None:
    lines = _shell_lines(_read("README.md"))
    assert "python3 -m venv .venv" in lines
    # The server: the console script pyproject declares, with no arguments
    # (the embedded default, the dedicated socket).
    assert ".venv/bin/pip install -e . && .venv/bin/tmuxmcp" in lines
    project = tomllib.loads(_read("pyproject.toml"))["project"]
    assert project["scripts"]["tmuxmcp"] == "tmuxmcp.cli:main"
    # The tests: .ci/run, which makes the venv it uses and runs pytest in it.
    assert "bash .ci/run" in lines
    ci = _read(".ci/run")
    assert "python3 -m venv .venv" in ci
    assert ".venv/bin/python -m pip install -q -e '.[test]'" in ci
    assert '.venv/bin/python -m pytest -p no:cacheprovider "$@"' in ci
    assert 'run_on distribution "$(dirname "$DIST_TMUX")" "$DIST_VERSION"\n' in ci
