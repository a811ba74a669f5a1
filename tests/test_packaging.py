"""The package declares what it imports, and ships its type information (issue 10.5).

Invariants:

1. Every third-party module that a ``tmuxmcp`` module imports belongs to a
   distribution named in ``[project].dependencies``: an undeclared one works
   only while something else happens to install it.
2. ``tmuxmcp/py.typed`` exists (PEP 561), so type checkers of code that uses
   tmuxmcp read its annotations.
3. The lint and type tools are pinned to exact versions.
4. A fresh install brings tmuxmcp's own runtime dependencies and theirs, and
   nothing else: no SDK, no HTTP stack (issue 19.1). A new distribution fails
   ``test_a_fresh_install_brings_only_the_runtime_dependencies`` until it is
   named there, on purpose: each is code a reviewer must trust.
5. That install is a copy (``pip install .``, as pipx and ``uv tool install``
   make), and the copy serves: nothing the package needs at run time lives
   only in the clone (issue 31.4).
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.raw_client import RawClient
from tests.support import PrivateTmux
from tmuxmcp import __version__ as tmuxmcp_version
from tmuxmcp.definition import DEFINITION

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


RUNTIME_CLOSURE = {
    "tmuxmcp",
    "trio",
    "attrs",  # trio's
    "idna",  # trio's
    "outcome",  # trio's
    "sniffio",  # trio's
    "sortedcontainers",  # trio's
    "msgspec",
    "google-re2",
}
"""Every distribution ``pip install .`` brings, by name (invariant 4)."""

_LIST_DISTRIBUTIONS = (
    "import importlib.metadata, json, re; "
    "print(json.dumps(sorted({re.sub(r'[-_.]+', '-', d.metadata['Name']).lower() "
    "for d in importlib.metadata.distributions()})))"
)


def _distributions(python: Path) -> set[str]:
    done = subprocess.run(
        [str(python), "-c", _LIST_DISTRIBUTIONS],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    names: list[str] = json.loads(done.stdout)
    return set(names)


class Installed(NamedTuple):
    """A new virtual environment with the clone installed into it, not editable."""

    python: Path
    before: set[str]
    """The distributions the environment held before the install."""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """``pip install <clone>`` (a copy, as pipx and ``uv tool install`` make) into a
    new virtual environment; one per module, shared by the tests that read it."""
    target = tmp_path_factory.mktemp("fresh") / "venv"
    venv.EnvBuilder(with_pip=True).create(target)
    python = target / "bin" / "python"
    before = _distributions(python)
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return Installed(python, before)


def test_a_fresh_install_brings_only_the_runtime_dependencies(installed: Installed) -> None:
    """Invariant 4, issue 19.1: a real ``pip install <clone>`` into a new virtual
    environment adds exactly ``RUNTIME_CLOSURE`` to what the environment held."""
    added = _distributions(installed.python) - installed.before
    assert added == RUNTIME_CLOSURE, {
        "unexpected": sorted(added - RUNTIME_CLOSURE),
        "missing": sorted(RUNTIME_CLOSURE - added),
    }


def test_a_non_editable_install_serves_from_its_own_copy(
    installed: Installed, private_tmux: PrivateTmux, tmp_path: Path
) -> None:
    """Issue 31.4: the README's pipx / uv tool install line makes a copy, not a link to
    the clone. That copy's ``tmuxmcp`` answers ``--help``, imports the package from its
    own environment (run outside the clone), and serves: the initialize handshake,
    the whole tool list and a tool call, over stdio against tmux."""
    tmuxmcp = installed.python.parent / "tmuxmcp"
    outside = {**private_tmux.env, "PYTHONPATH": ""}
    helped = subprocess.run(
        [str(tmuxmcp), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
        env=outside,
    )
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("usage: tmuxmcp")
    where = subprocess.run(
        [str(installed.python), "-c", "import tmuxmcp; print(tmuxmcp.__file__)"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=tmp_path,
        env=outside,
    ).stdout.strip()
    site = installed.python.parent.parent / "lib"
    assert Path(where).is_relative_to(site), where
    assert not Path(where).is_relative_to(ROOT), where
    with RawClient(outside, command=[str(tmuxmcp)], cwd=str(tmp_path)) as client:
        tools = client.request("tools/list", {})["result"]["tools"]
        info = client.call("server_info", {})
    assert [t["name"] for t in tools] == [spec.name for spec in DEFINITION]
    assert info["isError"] is False, info
    assert info["structuredContent"]["info"]["tmuxmcp_version"] == tmuxmcp_version
