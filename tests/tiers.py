"""The two test tiers: ``-m fast`` (no tmux) and ``-m tmux`` (real tmux), and the
tripwire that keeps the fast tier honest.

Every collected test gets exactly one of the two markers, decided at
collection (``classify``), never written by hand on the fast side:

Rule 1: a test is ``tmux`` if it is marked so, if it uses a fixture that
  starts tmux (``TMUX_FIXTURES``, or any fixture that depends on one: pytest's
  fixture closure), or if its code, its fixtures' code or any function or
  class of the test packages they name (followed transitively) reaches a
  helper that starts tmux (``TMUX_HELPERS``) or names the ``"tmux"`` binary
  itself (``shutil.which("tmux")``). Code of ``tmuxmcp`` is not followed:
  what it runs is decided by the runner the test gives it.
Rule 2: every other test is ``fast``.
Rule 3: a fast test runs with a tripwire first on ``PATH``: a ``tmux`` that
  logs its argv to a file of this session and fails. After the test the log
  is read, and a test that ran it fails, whatever the code under test made
  of the failure (an error swallowed on purpose does not hide it). So a
  misclassified test fails in every run, the full suite's included, instead
  of passing on the developer's tmux; it never skips.
Rule 4: misclassification the other way (a ``tmux`` test that needs none) only
  makes the fast tier smaller; ``.ci/run`` prints the tier's size.
"""

from __future__ import annotations

import inspect
import os
import stat
import types
from collections.abc import Iterator
from typing import Any

import pytest

TMUX_FIXTURES = frozenset({"private_tmux", "fuzz_harness"})
"""Fixtures that start a private tmux server (``tests.conftest``, ``fuzz.conftest``)."""

TMUX_HELPER_NAMES = (
    ("tests.support", "PrivateTmux"),
    ("tests.support", "temporary_tmux"),
    ("tests.support", "serve"),
    ("tests.support", "tmux_wrapper"),
    ("fuzz.harness", "harness"),
    ("fuzz.harness", "Harness"),
)
"""Helpers that start or resolve a real tmux, by module and name."""

TEST_PACKAGES = ("tests", "fuzz", "bench")
"""Packages whose code ``classify`` follows (Rule 1)."""

FAST = "fast"
TMUX = "tmux"

TRIPWIRE_MESSAGE = "fast-tier test ran tmux"


def _helpers() -> set[int]:
    import importlib

    found: set[int] = set()
    for module_name, name in TMUX_HELPER_NAMES:
        found.add(id(getattr(importlib.import_module(module_name), name)))
    return found


def _ours(obj: object) -> bool:
    """Whether ``obj`` (a module, function or class) belongs to the test packages."""
    name = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None)
    # Not this module: its tripwire names "tmux" to stand in for it, never to run it.
    return (name or "").split(".")[0] in TEST_PACKAGES and name != __name__


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and every code object nested in it (inner functions, lambdas, comprehensions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _function(obj: Any) -> Any:
    """The plain function behind decorators (``functools.wraps``, hypothesis' ``@given``)."""
    inner = getattr(getattr(obj, "hypothesis", None), "inner_test", None)
    if inner is not None:
        obj = inner
    return inspect.unwrap(obj)


class _Reach:
    """Follows code of the test packages from a test to the helpers it reaches."""

    def __init__(self) -> None:
        self.helpers = _helpers()
        self.seen: dict[int, bool] = {}

    def reaches(self, obj: Any) -> bool:
        key = id(obj)
        if key in self.helpers:
            return True
        if key in self.seen:
            return self.seen[key]
        self.seen[key] = False  # a cycle reaches nothing new
        found = self._follow(obj)
        self.seen[key] = found
        return found

    def _follow(self, obj: Any) -> bool:
        if isinstance(obj, type):
            return _ours(obj) and any(
                self.reaches(member)
                for member in vars(obj).values()
                if inspect.isfunction(member) or isinstance(member, (staticmethod, classmethod))
            )
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        function = _function(obj)
        code = getattr(function, "__code__", None)
        if code is None or not _ours(function):
            return False
        scope = function.__globals__
        names: set[str] = set()
        for each in _codes(code):
            if "tmux" in each.co_consts:
                return True
            names.update(each.co_names)
        modules = [
            value
            for value in (scope.get(name) for name in names)
            if isinstance(value, types.ModuleType) and _ours(value)
        ]
        for name in names:
            candidates = [scope.get(name), *(getattr(module, name, None) for module in modules)]
            if any(c is not None and self.reaches(c) for c in candidates):
                return True
        return False


def _needs_tmux(item: pytest.Item, reach: _Reach) -> bool:
    if item.get_closest_marker(TMUX) is not None:
        return True
    fixtures = set(getattr(item, "fixturenames", ()))
    if fixtures & TMUX_FIXTURES:
        return True
    if reach.reaches(getattr(item, "function", None)):
        return True
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    return any(
        reach.reaches(definition.func)
        for name in fixtures
        for definition in definitions.get(name, ())
    )


_CLASSIFIED = pytest.StashKey[str]()


def classify(items: list[pytest.Item]) -> None:
    """Give every item exactly one of ``fast`` and ``tmux`` (Rules 1 and 2); idempotent."""
    reach = _Reach()
    for item in items:
        if _CLASSIFIED in item.stash:
            continue
        tier = TMUX if _needs_tmux(item, reach) else FAST
        item.stash[_CLASSIFIED] = tier
        item.add_marker(tier)


def tier_of(item: pytest.Item) -> str | None:
    """The tier ``classify`` gave ``item``."""
    return item.stash.get(_CLASSIFIED, None)


class Tripwire:
    """A ``tmux`` on ``PATH`` that logs and fails (Rule 3)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.log = os.path.join(directory, "ran")
        script = os.path.join(directory, "tmux")
        with open(script, "w") as f:
            f.write(
                "#!/bin/sh\n"
                f"printf '%s\\n' \"$*\" >> '{self.log}'\n"
                f"echo '{TRIPWIRE_MESSAGE}: mark it tmux (tests/tiers.py)' >&2\n"
                "exit 97\n"
            )
        os.chmod(script, stat.S_IRWXU)

    def ran(self) -> str | None:
        """The argv lines the tripwire logged since the last call, then forget them."""
        try:
            with open(self.log) as f:
                text = f.read()
        except FileNotFoundError:
            return None
        os.unlink(self.log)
        return text or None
