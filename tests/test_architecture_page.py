"""The architecture page says what the code is (issue 30.5).

``docs/architecture.md`` is read by the engineer who changes tmuxmcp, so
every claim on it that a machine can check is checked here, from the page
and the code as they are (nothing below lists a module or a contract by
hand; a page that moves with the code keeps passing):

Rule 1: every module, file and name the page gives exists where it says: a
  path (``tmuxmcp/tools/run/``, ``driver/client.py``, ``tests/...``), a
  dotted name (``tmuxmcp.verify.cache``, ``protocol.tasks.opted_in``,
  ``runner.spawn``, ``Runtime.runs``), the names a path is followed by in
  parentheses (``capability/params.py`` (``PaneId``, ...)), and a function
  or class a row of a module table names (``| `state.py` | ... |``), which
  that module defines unless the row says whose it is.
Rule 2: every module of the package is named on the page: by its path, or
  by its name in a table row that names its package (or whose table's
  lead does, as the run wing's). A new module without a line fails here.
Rule 3: the page's table of import contracts (``| contract |``) lists
  exactly the contracts of ``pyproject.toml``, by their ``name``.
Rule 4: the claims the page makes about the import graph hold on the graph
  grimp builds (the graph ``lint-imports`` checks): no import circle
  anywhere in the package, the protocol package imports nothing else of
  tmuxmcp, capability knows no tool, the definition or the runtime, no
  contract ignores an import, and each order "layered `a` > `b` | `c`" the
  page gives is a layers contract's. Each check first asserts that the page
  still makes its claim, so the two change together.
Rule 5: a state table the page draws (after "as `state.TRANSITIONS` has
  it") shows every move of that table in the code, and no other; and every
  ``TRANSITIONS`` table of the package is drawn (issue 30.1: every state
  machine named in one place with its table).
Rule 6: no top-level room of the package (a package directory, with all it
  holds, or a module of ``tmuxmcp/`` itself) holds more than a quarter of the
  package's lines, as the page says (issue 30.1): a room that outgrows it is
  several rooms.
"""

from __future__ import annotations

import enum
import functools
import importlib
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grimp

from tmuxmcp.definition import DEFINITION

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "tmuxmcp"

_TICKED = re.compile(r"`([^`\n]+)`")
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED = re.compile(rf"^{_IDENT}(\.{_IDENT})+$")
_PATH = re.compile(r"^[A-Za-z0-9_./-]+(\.py|/)$")
_NOT_MODULE_SUFFIXES = (".py", ".md", ".json", ".toml", ".txt", ".html")


@functools.cache
def _page() -> str:
    return PAGE.read_text()


def _says(claim: str) -> bool:
    """The page makes ``claim``, however its lines are broken."""
    return " ".join(claim.split()) in " ".join(_page().split())


def _claims(claim: str) -> None:
    """The page still makes ``claim``, the one the test after it checks."""
    assert _says(claim), (
        f"docs/architecture.md no longer says {claim!r}: say it again, or change "
        "the claim and this test together"
    )


def _ticked(text: str) -> list[str]:
    return _TICKED.findall(text)


@functools.cache
def _modules() -> dict[str, Path]:
    """Every module of the package, dotted name to file; a package is its directory."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        found[".".join(parts)] = path
    return found


def _is_package(dotted: str) -> bool:
    return _modules()[dotted].name == "__init__.py"


def _has(obj: object, name: str) -> bool:
    """``obj.name`` exists, or is declared as a field (a Struct's, a dataclass's)."""
    if hasattr(obj, name):
        return True
    for klass in getattr(obj, "__mro__", (obj,)):
        if name in getattr(klass, "__annotations__", {}):
            return True
    return False


def _resolve(dotted: str) -> object | None:
    """The object ``dotted`` names: a module of tmuxmcp, then attributes of it."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        if module_name in _modules():
            obj: object = importlib.import_module(module_name)
            for name in parts[cut:]:
                if not _has(obj, name):
                    return None
                obj = getattr(obj, name, None)
            return obj if obj is not None else True
    return None


def _modules_ending(suffix: str) -> list[str]:
    """Modules whose dotted name ends with ``suffix`` (whole components)."""
    return [m for m in _modules() if m == suffix or m.endswith("." + suffix)]


def _path_modules(token: str) -> list[str]:
    """The modules a path on the page names (``run/state.py``, ``tmuxmcp/driver/``)."""
    dotted = token.removeprefix("tmuxmcp/").rstrip("/").removesuffix(".py")
    dotted = dotted.removesuffix("__init__").rstrip("/").replace("/", ".")
    if token.startswith("tmuxmcp/"):
        dotted = "tmuxmcp." + dotted if dotted else "tmuxmcp"
        return [dotted] if dotted in _modules() else []
    return _modules_ending(dotted)


_OTHER_TREES = ("tests/", "fuzz/", "bench/", "docs/")
"""Top-level directories of the repository besides the package: their paths are files."""


def _module_paths() -> Iterator[str]:
    """Every ticked path on the page that names something under ``tmuxmcp/``.

    A bare ``__init__.py`` is any package's, and a bare ``test_*.py`` a test
    file (checked by ``test_every_path_the_page_names_exists``).
    """
    for token in _ticked(_page()):
        if "<" in token or not _PATH.match(token) or token.startswith((*_OTHER_TREES, ".", "/")):
            continue
        if token in ("__init__.py", "__main__.py") or token.startswith("test_"):
            continue
        yield token


def test_every_path_the_page_names_exists() -> None:
    """Rule 1: a module path names a module of tmuxmcp; another path names a file."""
    missing = [token for token in _module_paths() if not _path_modules(token)]
    for token in _ticked(_page()):
        if "<" in token or not _PATH.match(token):
            continue
        if token.startswith(_OTHER_TREES) and not (ROOT / token).exists():
            missing.append(token)
        if token.startswith("test_") and not any((ROOT / "tests").rglob(token)):
            missing.append(token)
    assert missing == [], f"the page names paths that do not exist: {sorted(set(missing))}"


def _dotted_exists(token: str, classes: dict[str, set[str]]) -> bool:
    """Whether a dotted name on the page names something of tmuxmcp.

    ``tmuxmcp.x.y`` must resolve; ``x.y`` must when a module (or a class of
    tmuxmcp, as in ``Runtime.runs``) is called ``x``; other dotted text
    (``msgspec.Raw``) is not tmuxmcp's to check.
    """
    if token.startswith("tmuxmcp."):
        return _resolve(token) is not None
    head, _, rest = token.partition(".")
    candidates = [m for m in _modules_ending(head) if m != "tmuxmcp"]
    if candidates:
        return any(_resolve(f"{m}.{rest}") is not None for m in candidates)
    if head in classes:
        return any(_resolve(f"{m}.{token}") is not None for m in classes[head])
    return True


def test_every_dotted_name_the_page_names_exists() -> None:
    """Rule 1: every dotted name of tmuxmcp's on the page resolves."""
    classes = {name: modules for name, modules in _defined_where().items() if name[:1].isupper()}
    wrong = [
        token
        for token in set(_ticked(_page()))
        if _DOTTED.match(token)
        and not token.endswith(_NOT_MODULE_SUFFIXES)
        and not _dotted_exists(token, classes)
    ]
    assert wrong == [], f"the page names what no module of tmuxmcp has: {sorted(wrong)}"


# A ticked path followed by a parenthesis that opens with ticked names:
# ``capability/params.py`` (``PaneId``, ``Name``, ...).
_PATH_THEN_NAMES = re.compile(
    rf"`([A-Za-z0-9_/]+\.py)`\s*\(((?:`{_IDENT}`,?\s*)+)",
)


def test_the_names_a_module_is_said_to_hold_are_there() -> None:
    """Rule 1: where the page says a name lives, it lives there."""
    wrong = []
    for path, names in _PATH_THEN_NAMES.findall(_page()):
        modules = _path_modules(path)
        for name in _ticked(names):
            if not any(_has(importlib.import_module(m), name) for m in modules):
                wrong.append(f"{path}: {name}")
    assert wrong == [], f"the page puts names where they are not: {wrong}"


def _units() -> Iterator[tuple[str, str]]:
    """Each table row of the page with the text that leads its table.

    The lead is the prose between the table and the heading above it (the
    run wing's table is led by the paragraph naming ``tmuxmcp/tools/run/``).
    """
    lead: list[str] = []
    table_lead = ""
    in_table = False
    for line in _page().splitlines():
        if line.startswith("#"):
            lead, in_table = [], False
        elif line.startswith("|"):
            if not in_table:
                table_lead, in_table = "\n".join(lead), True
            yield line, table_lead
        else:
            in_table = False
            lead.append(line)


def _packages_named(text: str) -> set[str]:
    """The packages of tmuxmcp a text names by path (``tools/``) or full dotted name."""
    named: set[str] = set()
    for token in _ticked(text):
        if token.endswith("/") and _PATH.match(token):
            named.update(m for m in _path_modules(token) if _is_package(m))
        elif token in _modules() and _is_package(token):
            named.add(token)
    return named


def _named_modules() -> set[str]:
    page = _page()
    named: set[str] = set()
    for token in _module_paths():
        named.update(_path_modules(token))
    for token in _ticked(page):
        if token.startswith("tmuxmcp.") and token in _modules():
            named.add(token)
    for row, lead in _units():
        packages = _packages_named(row) or _packages_named(lead)
        packages.add("tmuxmcp")
        for token in _ticked(row):
            leaf = token.removesuffix(".py")
            if not re.fullmatch(_IDENT, leaf):
                continue
            named.update(
                f"{package}.{leaf}" for package in packages if f"{package}.{leaf}" in _modules()
            )
    return named


def test_every_module_of_the_package_is_named() -> None:
    """Rule 2: a module the page does not name is a room nobody is told of."""
    unnamed = sorted(set(_modules()) - {"tmuxmcp"} - _named_modules())
    assert unnamed == [], f"modules docs/architecture.md does not name: {unnamed}"


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    assert isinstance(contracts, list)
    return contracts


def _page_contracts() -> list[str]:
    """The first column of the page's contract table (header ``| contract |``)."""
    names: list[str] = []
    in_table = False
    for line in _page().splitlines():
        if line.startswith("| contract |"):
            in_table = True
        elif in_table and line.startswith("|"):
            cell = line.split("|")[1].strip()
            if not set(cell) <= {"-", " "}:
                names.append(cell.strip('"').strip("`"))
        else:
            in_table = False
    return names


def test_the_page_lists_every_contract_and_only_those() -> None:
    """Rule 3: each contract of pyproject.toml is on the page by name, and no other."""
    declared = [c["name"] for c in _contracts()]
    quoted = _page_contracts()
    assert quoted, "docs/architecture.md has no `| contract |` table"
    assert sorted(declared) == sorted(quoted), (
        f"not on the page: {sorted(set(declared) - set(quoted))}; "
        f"on the page but not in pyproject.toml: {sorted(set(quoted) - set(declared))}"
    )


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("tmuxmcp", cache_dir=None)


def _circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.find_modules_directly_imported_by(nxt)))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_import_circle_anywhere_in_the_package() -> None:
    """Rule 4: the page says there is no circle; there is none, at any depth."""
    _claims("No module of tmuxmcp imports itself back")
    assert _circles(_graph()) == []


def _imports_of(graph: grimp.ImportGraph, package: str) -> set[str]:
    """Modules outside ``package`` that a module inside it imports directly."""
    inside = {package} | graph.find_descendants(package)
    return {
        imported
        for module in inside
        for imported in graph.find_modules_directly_imported_by(module)
        if imported not in inside
    }


def test_the_protocol_package_imports_nothing_else_of_tmuxmcp() -> None:
    """Rule 4: "it imports no other module of tmuxmcp"."""
    _claims("it imports no other module of tmuxmcp")
    assert _imports_of(_graph(), "tmuxmcp.protocol") <= {"tmuxmcp"}


def test_capability_knows_no_tool() -> None:
    """Rule 4: "Nothing here knows which tools exist" (the capability row)."""
    _claims("Nothing here knows which tools exist")
    graph = _graph()
    above = ("tmuxmcp.tools", "tmuxmcp.definition", "tmuxmcp.runtime", "tmuxmcp.server")
    knows = {m for m in _imports_of(graph, "tmuxmcp.capability") if m.startswith(above)}
    assert knows == set()


def test_no_contract_ignores_an_import_as_the_page_says() -> None:
    """Rule 4: "No contract ignores an import"."""
    _claims("No contract ignores an import")
    assert [c["name"] for c in _contracts() if c.get("ignore_imports")] == []


def _defined_where() -> dict[str, set[str]]:
    """Each function or class of tmuxmcp, by name, to the modules that define it."""
    where: dict[str, set[str]] = {}
    for module_name in _modules():
        if module_name.endswith(".__main__"):
            continue  # running it is its job
        module = importlib.import_module(module_name)
        for name, obj in vars(module).items():
            if callable(obj) and getattr(obj, "__module__", None) == module_name:
                where.setdefault(name, set()).add(module_name)
    return where


def test_a_module_row_names_what_its_module_defines() -> None:
    """Rule 1: in a table of modules (``| `state.py` | ...``), a function or class
    the row names is defined in that module, unless the row says whose it is
    (``windows.WindowSizer``). A tool's name is the tool's, not its handler's."""
    where = _defined_where()
    tools = {spec.name for spec in DEFINITION}  # `run_command` the tool, not its handler
    wrong = []
    for row, lead in _units():
        first = _ticked(row.split("|")[1])
        if len(first) != 1 or not first[0].endswith(".py"):
            continue
        packages = _packages_named(lead)
        modules = {
            m for m in _path_modules(first[0]) if not packages or m.rpartition(".")[0] in packages
        }
        for token in _ticked("|".join(row.split("|")[2:])):
            if token in where and token not in tools and not where[token] & modules:
                wrong.append(f"{first[0]}: {token} is defined in {sorted(where[token])}")
    assert wrong == [], f"the page's module tables put names in the wrong module: {wrong}"


_LAYERED = re.compile(rf"layered\s+((?:`{_IDENT}`\s*[|>]\s*)+`{_IDENT}`)")


def _layers(spec: list[str]) -> list[frozenset[str]]:
    return [frozenset(re.split(r"\s*[|:]\s*", layer.strip())) for layer in spec]


def test_each_order_the_page_gives_is_a_layers_contract() -> None:
    """Rule 4: "inside it the modules are layered `a` > `b` | `c` > ..." is the
    layers contract of that package, in that order."""
    stated = [
        [frozenset(_ticked(group)) for group in order.split(">")]
        for order in _LAYERED.findall(" ".join(_page().split()))
    ]
    assert stated, "the page gives no package's layers"
    declared = [_layers(c["layers"]) for c in _contracts() if c["type"] == "layers"]
    wrong = [order for order in stated if order not in declared]
    assert wrong == [], f"orders on the page no layers contract has: {wrong}"


_TABLE_NAME = re.compile(rf"`((?:{_IDENT}\.)+TRANSITIONS)`")
_SOURCES = re.compile(r"^([A-Z_]+(?:,\s*[A-Z_]+)*)\s+(--.*)$")
_MOVE = re.compile(r"--(\w+)-->\s+(the same (?:phase|state)|[A-Z_]+)")


def _drawn_moves(drawing: str) -> set[tuple[str, str, str]]:
    """The moves a drawn table shows: ``A, B --Event--> C --Next--> D; --Other--> E``.

    A chain goes on from where its last move led; after ``;`` the line's
    first phases start again; "the same phase" (or state) leads each to itself.
    """
    moves: set[tuple[str, str, str]] = set()
    for line in drawing.splitlines():
        match = _SOURCES.match(line.strip())
        if match is None:
            continue
        first = [phase.strip() for phase in match[1].split(",")]
        for chain in match[2].split(";"):
            sources = first
            for event, target in _MOVE.findall(chain):
                same = target.startswith("the same ")
                for source in sources:
                    moves.add((source, event, source if same else target))
                if not same:
                    sources = [target]
    return moves


def _event_name(event: object) -> str:
    """A table's key: an event class (the run's) or an enum member (the session's)."""
    return event.name if isinstance(event, enum.Enum) else getattr(event, "__name__", "?")


def _tables() -> dict[str, object]:
    """Every module-level ``TRANSITIONS`` of the package, by module."""
    found: dict[str, object] = {}
    for module_name in _modules():
        if module_name.endswith(".__main__"):
            continue
        table = getattr(importlib.import_module(module_name), "TRANSITIONS", None)
        if isinstance(table, dict):
            found[module_name] = table
    return found


def test_each_drawn_state_table_is_the_code_s() -> None:
    """Rule 5: a drawing led by "as `x.TRANSITIONS` has it" shows every move of
    that table and no other; every table of the package is drawn."""
    page = _page()
    drawn: set[str] = set()
    for lead, drawing in re.findall(r"((?:[^\n]+\n)+)\n```text\n(.*?)```", page, re.DOTALL):
        names = _TABLE_NAME.findall(lead)
        if not names:
            continue
        (name,) = names
        module, _, table = name.rpartition(".")
        candidates = [m for m in _modules_ending(module) if _resolve(f"{m}.{table}") is not None]
        assert len(candidates) == 1, f"the page draws {name}: modules {candidates} have it"
        transitions = getattr(importlib.import_module(candidates[0]), table)
        code = {
            (phase.name, _event_name(event), target.name)
            for phase, moves in transitions.items()
            for event, target in moves.items()
        }
        shown = _drawn_moves(drawing)
        assert shown == code, (
            f"the drawing of {name} differs from the code: only drawn {sorted(shown - code)}, "
            f"not drawn {sorted(code - shown)}"
        )
        drawn.add(candidates[0])
    assert drawn, "the page draws no state table"
    undrawn = sorted(set(_tables()) - drawn)
    assert undrawn == [], f"state tables the page does not draw: {undrawn}"


ROOM_SHARE = 0.25
"""The most of the package's lines one top-level room may hold (Rule 6)."""


def _lines(path: Path) -> int:
    """Lines of a file, as ``wc -l`` counts them."""
    return path.read_bytes().count(b"\n")


def room_sizes(package: Path = PACKAGE) -> dict[str, int]:
    """Lines of each top-level room of ``package``: a subpackage with everything under it,
    or a module of the package itself."""
    sizes: dict[str, int] = {}
    for path in package.rglob("*.py"):
        top = path.relative_to(package).parts[0]
        room = f"{top}/" if (package / top).is_dir() else top
        sizes[room] = sizes.get(room, 0) + _lines(path)
    return sizes


def rooms_over_share(sizes: dict[str, int], share: float = ROOM_SHARE) -> list[str]:
    """The rooms holding more than ``share`` of all the lines, with their part."""
    total = sum(sizes.values())
    return [
        f"{room}: {lines} of {total} lines ({lines / total:.1%})"
        for room, lines in sorted(sizes.items())
        if lines > share * total
    ]


def test_the_room_check_finds_a_room_over_a_quarter() -> None:
    """Rule 6 on made-up sizes: at a quarter a room passes, a line more and it fails."""
    others = {"driver/": 25, "runs/": 25, "server.py": 25}
    assert rooms_over_share({"tools/": 25, **others}) == []
    assert rooms_over_share({"tools/": 26, **others}) == ["tools/: 26 of 101 lines (25.7%)"]


def test_room_sizes_counts_a_package_with_all_it_holds(tmp_path: Path) -> None:
    """Rule 6: a subpackage is one room with its subpackages; a top-level module is one."""
    (tmp_path / "tools" / "run").mkdir(parents=True)
    (tmp_path / "tools" / "a.py").write_text("x = 1\ny = 2\n")
    (tmp_path / "tools" / "run" / "b.py").write_text("z = 3\n")
    (tmp_path / "server.py").write_text("w = 4\n")
    assert room_sizes(tmp_path) == {"tools/": 3, "server.py": 1}


def test_no_top_level_room_holds_more_than_a_quarter_of_the_package() -> None:
    """Rule 6: the biggest room of the package is at most a quarter of its lines."""
    _claims("No top-level room of the package holds more than a quarter of its lines")
    assert rooms_over_share(room_sizes()) == []
