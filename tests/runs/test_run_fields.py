"""A run's fields: its data, set once, and its life, written by ``Run.handle`` alone
(``tmuxmcp.runs.state`` Rule 2, issue 30.1).

Two scans of the source (``ast``, no imports of the modules scanned): inside
``state.py`` only ``Run.__init__`` and ``Run.handle`` assign a run's
attributes, and no other module of the package assigns one at all. And the
fields a run reports that restate its phase or an event (``started``,
``status``, ``outcome``, ``error``, ``finished_at``, the typing's facts) are
derived from the events it kept, so they agree with the phase in every phase.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

from tests.runs.test_state import _ERROR, _MARK, _OUTCOME, FINAL_PHASES, PATHS, _run_in
from tmuxmcp.errors import CommandInterrupted
from tmuxmcp.runs import state

P = state.Phase
PACKAGE = pathlib.Path(state.__file__).resolve().parent.parent
STATE = pathlib.Path(state.__file__).resolve()

DATA = {"run_id", "pane", "budget", "files", "fence", "began", "probe", "cancel"}
"""What a run is: given when it is made (``cancel`` is its watcher's scope)."""
LIFE = {"phase", "done", "checked", "typing", "start", "answered", "end", "stopped", "ending"}
"""Its life: the phase, its ``done`` event, and the events that moved it."""


def _run_names() -> set[str]:
    """Every name a run answers to: its attributes and its properties."""
    run = _run_in(P.PREPARING)
    return set(vars(run)) | {
        name for name, value in vars(state.Run).items() if isinstance(value, property)
    }


async def test_a_run_keeps_its_data_and_the_events_of_its_life_and_nothing_restated() -> None:
    """No flag beside the phase: 16 attributes, each data or a record of an event."""
    assert set(vars(_run_in(P.PREPARING))) == DATA | LIFE


def _self_assignments(function: ast.AST) -> set[str]:
    """The ``self.<name>`` a function assigns (=, +=, annotated, del)."""
    names: set[str] = set()
    for node in ast.walk(function):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            for part in ast.walk(target):
                if (
                    isinstance(part, ast.Attribute)
                    and isinstance(part.value, ast.Name)
                    and part.value.id == "self"
                ):
                    names.add(part.attr)
    return names


async def test_only_making_a_run_and_handling_an_event_assign_its_fields() -> None:
    """Rule 2: a run's fields are written in ``__init__`` (its data, its life's start)
    and in ``handle`` (its life) and nowhere else; ``handle`` writes its life only."""
    tree = ast.parse(STATE.read_text(encoding="utf-8"))
    (run_class,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Run"]
    writers = {
        method.name: _self_assignments(method)
        for method in run_class.body
        if isinstance(method, ast.FunctionDef) and _self_assignments(method)
    }
    assert set(writers) == {"__init__", "handle"}
    assert writers["handle"] <= LIFE


def _assigned(target: ast.expr) -> list[ast.Attribute]:
    """The attributes a target assigns (through tuples, not into containers)."""
    if isinstance(target, ast.Tuple | ast.List):
        return [a for element in target.elts for a in _assigned(element)]
    if isinstance(target, ast.Starred):
        return _assigned(target.value)
    return [target] if isinstance(target, ast.Attribute) else []


def _foreign_writes(source: str, names: set[str]) -> list[str]:
    """Assignments, in ``source``, to an attribute named like a run's, of anything but
    ``self`` (another class's own fields), and ``setattr`` calls."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
        ):
            found.append(f"{node.lineno} setattr")
        for target in targets:
            for attribute in _assigned(target):
                if attribute.attr in names and not (
                    isinstance(attribute.value, ast.Name) and attribute.value.id == "self"
                ):
                    found.append(f"{attribute.lineno} .{attribute.attr}")
    return found


PURE_FLOOR = PACKAGE / "panetext"
"""The pure floor's import contract forbids the run engine, so no run reaches its code
(its ``Chunk`` has a ``start`` of its own, set outside ``self``)."""

MODULES = sorted(
    path for path in PACKAGE.rglob("*.py") if path != STATE and not path.is_relative_to(PURE_FLOOR)
)
"""Every module of the package but the table's and the pure floor's."""


async def test_no_module_outside_the_table_writes_a_runs_field() -> None:
    """Rule 2: the modules that type, watch and collect a run send events; no module
    but ``state`` assigns a field by any name a run answers to (a scan of the whole
    package: no other class has a field of those names written from outside)."""
    names = _run_names()
    writes = {
        str(path.relative_to(PACKAGE)): found
        for path in MODULES
        if (found := _foreign_writes(path.read_text(encoding="utf-8"), names))
    }
    assert writes == {}


async def test_the_scan_sees_a_write_from_outside() -> None:
    """The scan is not blind: a planted write of a run's life is found."""
    planted = "def f(run, runs):\n    run.phase = None\n    run.stopped += 1\n"
    planted += "    runs[run.pane] = run\n    setattr(run, 'done', None)\n"
    assert _foreign_writes(planted, _run_names()) == ["2 .phase", "3 .stopped", "5 setattr"]


# -- the events that carry what used to be restated -----------------------------------


async def test_typing_carries_the_callers_command() -> None:
    """``Typed`` carries the command as given; nothing else writes it."""
    run = _run_in(P.PREPARING)
    assert run.command == ""
    run.handle(state.Typed(line=" . /r1\n", mark=_MARK, restore_path="/home", command="make  test"))
    assert (run.command, run.typed, run.mark, run.restore_path) == (
        "make  test",
        " . /r1\n",
        _MARK,
        "/home",
    )


async def test_a_second_check_replaces_the_evidence_of_the_first() -> None:
    """A refused typing checks again (``Checked`` in ``PREPARING``): the last one holds."""
    run = _run_in(P.PREPARING)
    assert (run.pane_pid, run.shell_pid, run.shell_image) == (0, None, None)
    run.handle(state.Checked(100, 101, (1, 2)))
    run.handle(state.Checked(200, None))
    assert (run.pane_pid, run.shell_pid, run.shell_image) == (200, None, None)


async def test_started_is_the_scripts_first_report_whichever_came() -> None:
    """``started`` is derived: an ``E`` read with its ``S`` unseen started the run too."""
    cases: list[tuple[list[state.Event], int | None, int | None]] = [
        ([state.Started(7)], 7, None),
        ([state.Ended(3)], None, 3),
        ([state.Started(7), state.Ended(3)], 7, 3),
    ]
    for reports, status_before, status in cases:
        run = _run_in(P.TYPED)
        assert not run.started
        for report in reports:
            run.handle(report)
        assert (run.started, run.status_before, run.status) == (True, status_before, status)


@pytest.mark.parametrize("phase", sorted(PATHS, key=str))
async def test_what_a_run_reports_agrees_with_its_phase(phase: state.Phase) -> None:
    """Rule 3, derived: an ending, ``done`` and ``finished_at`` exactly in a final phase,
    an outcome exactly in ``COLLECTED``, an error in every other final phase but
    ``ABANDONED``."""
    run = _run_in(phase)
    final = phase in FINAL_PHASES
    assert (run.ending is not None, run.done.is_set(), run.finished_at is not None) == (
        final,
        final,
        final,
    )
    assert (run.outcome is not None) is (phase is P.COLLECTED)
    assert (run.error is not None) is (final and phase not in (P.COLLECTED, P.ABANDONED))
    if run.ending is not None:
        assert type(run.ending.event) is PATHS[phase][-1]


async def test_a_cancelled_runs_error_is_made_once_with_its_ending() -> None:
    """``Cancelled`` carries no error; the ending makes it once, so every reader (the call
    waiting, ``wait_for_command`` later) raises the same one."""
    run = _run_in(P.RUNNING)
    run.handle(state.Cancelled())
    assert isinstance(run.error, CommandInterrupted)
    assert run.error is run.error
    assert run.ending is not None and run.ending.error is run.error


async def test_a_probed_run_reports_the_status_read_back_as_its_own() -> None:
    """``Probed`` carries the outcome; the status is the outcome's, not stored twice."""
    run = _run_in(P.LEFT)
    assert (run.status, run.status_before) == (None, 0)
    run.handle(state.Probed(_OUTCOME))
    assert (run.status, run.outcome, run.error) == (_OUTCOME.exit_status, _OUTCOME, None)


async def test_an_error_event_ends_the_run_with_its_own_error() -> None:
    run = _run_in(P.TYPED)
    run.handle(state.Failed(_ERROR))
    assert run.error is _ERROR and run.outcome is None
