"""Every run of this process: its private directory, the runs by id and by pane, the watchers.

No tmux here. ``RunRegistry`` makes runs (``state.Run``) with their own ids
and file names in this process's private directory, keeps the last
``KEEP_FINISHED`` finished ones for ``wait_for_command`` (and every run a
task follows, ``hold``, until the task expires), knows which run
holds each pane (one at a time per pane in this process, in the order the
calls came: ``turns``; ``panelock`` across processes), how many panes may run
commands at once (``run_limit``, less the descriptors that waits continuing as
MCP Tasks hold), and the nursery that watches runs (the server's, so a run
outlives the call that started it).

The private directory is made in ``$TMPDIR`` when it is set, else on a
memory file system when there is one (``$XDG_RUNTIME_DIR``, ``/dev/shm``;
``directory.directory_base``): each run creates four files and two FIFOs,
and on a disk file system (``/tmp`` on ext4) that alone took about a
millisecond of a call. A directory left behind (a command outlived this
process, or it was killed) is removed by a later tmuxmcp's ``sweep`` once
its owner and shells are gone.
"""

from __future__ import annotations

import resource
import secrets
import shutil

import trio

from tmuxmcp.errors import InternalError
from tmuxmcp.runs import directory, pending, sweep, turns
from tmuxmcp.runs.state import Run

KEEP_FINISHED = 64
"""Finished runs kept for ``wait_for_command`` to report again."""

DESCRIPTORS_PER_RUN = 8
"""Descriptors one running command may need: its status and release FIFOs and its
pane lock (held while it runs), and the output memfds (pipes where memfds are
refused) and pidfd of the tmux client its watcher may be running (issue 27, N8)."""
DESCRIPTOR_HEADROOM = 128
"""Descriptors kept for everything else: the protocol, the audit log, other tools'
tmux clients, the waits' ``/proc`` counters (``activity``)."""


def _descriptors() -> int:
    """What the open-file limit (``RLIMIT_NOFILE``, read on each call, so a raised limit
    counts at once) leaves after the headroom."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 1 << 20
    return soft - DESCRIPTOR_HEADROOM


def run_limit(waiting: int = 0) -> int:
    """How many panes may run commands at once: what the open-file limit leaves after the
    headroom and the ``waiting`` descriptors that waits continuing as tasks hold."""
    return max(1, (_descriptors() - waiting) // DESCRIPTORS_PER_RUN)


class RunRegistry:
    """Every run of this process, its private directory and its watchers."""

    def __init__(self) -> None:
        self._directory: str | None = None
        self._count = 0
        self.runs: dict[str, Run] = {}
        self.busy: dict[str, Run] = {}
        """The run that holds each pane, from before typing until it is done."""
        self.turns = turns.PaneTurns()
        """Each pane's turn and the calls waiting for it, in order (``turns``)."""
        self.nursery: trio.Nursery | None = None
        self._pane_pids: dict[str, int] = {}
        self._held: set[str] = set()
        """Runs a task follows: exempt from the count-based eviction until released."""
        self._prompts: dict[str, pending.Prompt] = {}
        self._unseen_input: dict[str, int] = {}
        """Panes whose shell (the pid) may hold input no screen shows (``pending`` Rule 5)."""
        self.waiting = 0
        """Descriptors held by waits that continue as MCP Tasks (``tools.handover``),
        counted against the same open-file limit as the runs (issue 29.4)."""

    def attach(self, nursery: trio.Nursery | None) -> None:
        """Watch runs in ``nursery`` (the server's), so they outlive the calls that start them."""
        self.nursery = nursery

    def directory(self) -> str:
        """This process's private directory (0700), made on first use."""
        if self._directory is None:
            self._directory = directory.make(directory.directory_base())
        return self._directory

    def sweep(self) -> list[str]:
        """Remove the directories other tmuxmcp processes left that nobody can use any
        more (``sweep``: owner and shells gone); their paths."""
        return sweep.sweep(directory.directory_base())

    async def take_pane(
        self, pane: str, seconds: float, waiting: turns.Waiting | None = None
    ) -> turns.Turn:
        """``pane``'s turn, behind the calls that asked first (``turns``), within
        ``seconds``; refused past ``run_limit`` panes."""
        return await self.turns.take(pane, seconds, limit=run_limit(self.waiting), waiting=waiting)

    def hold_descriptors(self, count: int) -> bool:
        """Count ``count`` descriptors a wait will hold for as long as a task follows it,
        if the open-file limit leaves them after the runs' (issue 29.4); False if not."""
        held = self.turns.held() * DESCRIPTORS_PER_RUN + self.waiting
        if held + count > _descriptors():
            return False
        self.waiting += count
        return True

    def drop_descriptors(self, count: int) -> None:
        """A wait ``hold_descriptors`` counted has ended."""
        self.waiting -= count

    def new_run(
        self, pane: str, *, budget: int, lock_fd: int, turn: turns.Turn | None = None
    ) -> Run:
        """A fresh run on ``pane`` with its own id and file names; it holds the pane
        (and ``turn``, given back when the run frees the pane)."""
        self._count += 1
        run = Run(
            secrets.token_hex(6),
            pane,
            self.directory(),
            self._count,
            budget=budget,
            lock_fd=lock_fd,
        )
        self.runs[run.run_id] = run
        self.busy[pane] = run
        if turn is not None:
            self.turns.ran(turn, run)
        finished = [r for r in self.runs.values() if r.done.is_set() and r.run_id not in self._held]
        for old in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            self.runs.pop(old.run_id, None)
        return run

    def new_probe(self, pane: str) -> Run:
        """A status probe on ``pane`` (``state`` Rule 5): a run with its own file names,
        typed while the run whose status it reads back still holds the pane and its
        lock, so it is neither kept for ``wait_for_command`` nor said to hold the pane."""
        self._count += 1
        return Run(
            secrets.token_hex(6),
            pane,
            self.directory(),
            self._count,
            budget=0,
            lock_fd=-1,
            probe=True,
        )

    def hold(self, run: Run) -> None:
        """Keep ``run`` for ``wait_for_command`` whatever else finishes (a task follows it)."""
        self._held.add(run.run_id)

    def release(self, run: Run) -> None:
        """``run`` is no longer followed by a task: it ages out like any other."""
        self._held.discard(run.run_id)

    def pane_pid(self, pane: str) -> int | None:
        """The ``pane_pid`` last seen for ``pane``: where readiness reads /proc before
        typing. Only a hint: the typing guard (``driver.guards.guard_name``) checks it
        against tmux's own value in the invocation that pastes."""
        return self._pane_pids.get(pane)

    def saw_pane_pid(self, pane: str, pid: int) -> None:
        """tmux reported ``pid`` as ``pane``'s ``pane_pid``."""
        self._pane_pids[pane] = pid

    def forget_pane_pid(self, pane: str) -> None:
        """The ``pane_pid`` seen before no longer holds (the pane changed)."""
        self._pane_pids.pop(pane, None)

    def prompt(self, pane: str) -> pending.Prompt | None:
        """Where ``pane``'s prompt ended when a line was last typed there (``pending``
        Rule 4); only a hint, which the typing guard checks (the cursor's column)."""
        return self._prompts.get(pane)

    def saw_prompt(self, pane: str, prompt: pending.Prompt) -> None:
        """A line was typed into ``pane`` at ``prompt``."""
        self._prompts[pane] = prompt

    def input_may_wait(self, pane: str, shell_pid: int) -> None:
        """A person may have typed into ``pane``'s shell ``shell_pid`` during a run, and
        that shell does not show it (``pending`` Rule 5)."""
        self._unseen_input[pane] = shell_pid

    def unseen_input(self, pane: str, shell_pid: int | None) -> bool:
        """Whether ``pane``'s shell ``shell_pid`` may hold input no screen shows."""
        return shell_pid is not None and self._unseen_input.get(pane) == shell_pid

    def input_handled(self, pane: str) -> None:
        """tmuxmcp sent keys, text or a buffer to ``pane``: its caller dealt with its input."""
        self._unseen_input.pop(pane, None)

    def free(self, run: Run) -> None:
        """``run`` no longer holds its pane: the next call waiting for it gets it."""
        if self.busy.get(run.pane) is run:
            del self.busy[run.pane]
        turn = self.turns.turn_of(run)
        if turn is not None:
            self.turns.give_back(turn)

    def shutdown(self) -> None:
        """Release every shell still held; remove the private directory unless a
        command still running will look for its files when it ends."""
        going = False
        for run in list(self.runs.values()):
            run.cancel.cancel()
            if not run.closed:  # its watcher, or its failed start, closed it already
                run.close()
            going = going or run.outlived
        if self._directory is not None and not going:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None


def of(runs: object) -> RunRegistry:
    """The registry a ``ToolContext`` carries as ``runs``.

    The context is typed below the wing (``context.PaneInputs``, what the other
    tools tell the registry), so it cannot name this class without an import
    circle (issue 30.1); ``runtime`` puts a ``RunRegistry`` there, and the wing
    gets it back with its whole type here.
    """
    if not isinstance(runs, RunRegistry):
        raise InternalError(f"the tool context carries {type(runs).__name__}, not a RunRegistry")
    return runs
