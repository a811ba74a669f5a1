"""The package declares what it imports, and ships its type information (issue 10.5).

Invariants:

1. Every third-party module that a ``tmuxmcp`` module imports belongs to a
   distribution named in ``[project].dependencies``: an undeclared one works
   only while something else happens to install it.
2. ``tmuxmcp/py.typed`` exists (PEP 561), so type checkers of code that uses
   tmuxmcp read its annotations.
3. The lint and type tools are pinned to exact versions.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tmuxmcp"


def _project() -> dict[str, Any]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project: dict[str, Any] = data["project"]
    return project


def _name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match[0]).lower()


def imported_top_level_modules(package: Path) -> set[str]:
    """Every absolute top-level module name imported anywhere under ``package``."""
    found: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found


def undeclared(modules: set[str], declared: set[str]) -> set[str]:
    """Modules neither in the standard library, nor ours, nor from a declared distribution."""
    owners = importlib.metadata.packages_distributions()
    missing = set()
    for module in modules - set(sys.stdlib_module_names) - {"tmuxmcp", "__future__"}:
        distributions = {_name(d) for d in owners.get(module, [module])}
        if not distributions & declared:
            missing.add(module)
    return missing


def test_every_imported_third_party_module_is_a_declared_dependency() -> None:
    declared = {_name(r) for r in _project()["dependencies"]}
    modules = imported_top_level_modules(PACKAGE)
    assert {"trio", "msgspec"} <= modules  # the scan sees real imports
    assert undeclared(modules, declared) == set()


def test_the_dependency_check_catches_an_undeclared_import() -> None:
    declared = {_name(r) for r in _project()["dependencies"]}
    assert undeclared({"anyio", "json"}, declared - {"anyio"}) == {"anyio"}


def test_the_package_ships_py_typed() -> None:
    assert (PACKAGE / "py.typed").is_file()


def test_lint_and_type_tools_are_pinned_exactly() -> None:
    extras: dict[str, list[str]] = _project()["optional-dependencies"]
    pins = {_name(r): r for r in extras["test"]}
    for tool in ("ruff", "mypy"):
        assert re.fullmatch(rf"{tool}==\d+(\.\d+)+", pins[tool]), pins[tool]
