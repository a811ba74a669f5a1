"""``recover_pane`` (execute): bring a wedged pane back to ``shell-ready`` (issue 28.5).

One call reads the pane's state (``panes.pane_reading``, the same reading
``list_panes`` reports), types the least that leaves it, waits for the state
to change and reads it again, escalating step by step until the pane's shell
is at its prompt. It says which keys each step typed and the state after it.

Rules kept here:

* **Rule 1: least first.** The steps, by state (``plan``): a tmux mode is
  left with ``copy-mode -q`` (tmux's own command that cancels every mode, so
  no key reaches a mode's bindings); a pager (by its executable, ``PAGERS``)
  gets ``q``; a continuation prompt ``C-c``; text typed at the prompt after
  the prompt a run last typed at (``pending`` Rule 4) ``C-u``. These discard
  nothing but a pager's view or the pane's half-typed line.
* **Rule 2: nothing that holds work ends unless the caller names it.** A
  running command, a program reading a line or a secret, a REPL, an editor
  or any other program reading keys is ended only when ``end_pid`` is the
  pid the state reports as ``foreground_pid`` at that step: a pid is
  something a model must have read from ``list_panes`` or from this tool's
  refusal, never a word it says by habit, and a program started since (a
  new pid) is never ended on an old word. Then: a REPL ``C-c`` (drops its
  line), then ``C-d`` (its own exit); an editor its quit keys
  (``pane_state.EDITORS``: vim's ``:q!`` discards unsaved changes; nano's
  ``C-x`` then ``n``); anything else ``C-c`` (SIGINT), then ``C-\\``
  (SIGQUIT). A program that outlasts its last step is left as it is and the
  error says so: tmuxmcp never sends a signal but through the terminal.
* **Rule 3: each step waits for its effect, bounded.** After a step the
  state is read again when the pane's processes write or the tmux server
  reads their output (``activity``'s hint; a safety poll without it), until
  it is ``shell-ready``, or has changed to another state that is not a
  program still finishing (``running``), or ``STEP_SECONDS`` passed (once
  more when the process the step reached has exited but the pane still runs
  something: its shell between commands, a core being written); the next
  step is planned from what was read. At most ``MAX_STEPS`` steps.
* **Rule 4: a run in flight is the run wing's.** When a ``run_command`` run
  of this process holds the pane, its command is a running command like any
  other (Rule 2: it is ended only with ``end_pid``); a pager or a mode over
  it is left. The run's own watcher sees its command end (by itself, or by
  ``C-c``: the shell leaves the script and the watcher reads its status
  back), so the registry is never told anything here; recover waits, within
  ``RUN_SECONDS``, until the run is done (its status read back and the
  shell released) before it reports ``shell-ready``, and names the run, whose
  output ``wait_for_command`` collects. A run of another tmuxmcp process is
  seen only as its command; that process's watcher does the same.
* **Rule 5: errors say what to do next.** A state recover does not end
  (``dead``, a program it would end without ``end_pid``, a program that
  outlasted its steps) is ``[pane-not-ready]`` naming the keys already
  typed, the state now, and the call or key that goes on.
"""

from __future__ import annotations

import contextlib
from typing import Annotated, Final

import msgspec
import trio
from msgspec import Meta

from tmuxmcp.capability.arguments import Arguments
from tmuxmcp.capability.params import PaneId, sink
from tmuxmcp.capability.results import Own, TmuxId
from tmuxmcp.driver.argv import Command, cmd
from tmuxmcp.errors import ObjectNotFound, PaneNotReady
from tmuxmcp.panes.activity import ActivityHint
from tmuxmcp.panes.pane_reading import panes_with_state
from tmuxmcp.panes.pane_state import EDITORS, PAGERS, REPLS, PaneState, State
from tmuxmcp.panes.records import PaneWithState
from tmuxmcp.sinks import Encoding, Sink
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.observation import Pacer
from tmuxmcp.tools.run import registry_of, typed_ahead

STEP_SECONDS: Final = 3.0
"""How long one step waits for the state to change (Rule 3)."""
RUN_SECONDS: Final = 15.0
"""How long recover waits for a run of this process to be done once its command left
(Rule 4): the watcher checks a shell each second and may type a status probe."""
MAX_STEPS: Final = 8
"""Steps of one call, at most (Rule 3)."""
LEAVE_MODE: Final = "copy-mode -q"
"""How a step that leaves a tmux mode is reported: tmux's command, not keys."""
_KEY_NAMES: Final = frozenset({"Escape", "Enter"})
"""Keys of a step sent as tmux key names; others without a ``C-`` prefix are text."""
_FOLLOW_UP: Final = {"nano": (("n",),)}
"""An editor's step after its quit keys: nano asks whether to save a changed buffer."""


class RecoverPaneArgs(Arguments):
    """Arguments of recover_pane."""

    pane_id: PaneId
    end_pid: (
        Annotated[
            int,
            Meta(
                ge=1,
                description=("The foreground_pid to end, losing its work."),
                extra=sink(Sink.LOCAL, Encoding.NONE),
            ),
        ]
        | None
    ) = None


class RecoverStep(msgspec.Struct, frozen=True, kw_only=True):
    """One step: what was typed and what the pane waited for after it."""

    sent: list[Own]
    """tmux key names (or text) typed, in order; ``copy-mode -q`` for a mode left."""
    state: State


class RecoverPaneResult(msgspec.Struct, frozen=True, kw_only=True):
    """A pane brought back to its shell's prompt."""

    pane_id: TmuxId
    state: State
    steps: list[RecoverStep]
    """Empty when the pane was already ``shell-ready``."""
    run_id: Own | None = None
    """A run_command run whose command the steps ended or let finish: wait_for_command
    collects its status and output."""

    def text_form(self) -> str:
        """Readable form."""
        lines = [f"{self.pane_id} {self.state}"]
        lines += [f"typed {' '.join(s.sent)} -> {s.state}" for s in self.steps]
        if not self.steps:
            lines.append("typed nothing")
        if self.run_id is not None:
            lines.append(f"run {self.run_id}: wait_for_command collects it")
        return "\n".join(lines)


class Step(msgspec.Struct, frozen=True):
    """A planned step: what to send, and whether it ends a program (Rule 2)."""

    keys: tuple[str, ...]
    ends: bool


def _program_steps(program: str, keys: bool) -> tuple[tuple[str, ...], ...]:
    """The steps that end a program (Rule 2), in order; ``keys``: it reads keys itself
    (an editor's or a REPL's own exit, not a signal: their terminal sends none)."""
    if keys and program in EDITORS:
        return (EDITORS[program], *_FOLLOW_UP.get(program, ()))
    if keys and program.startswith(REPLS):
        return (("C-c",), ("C-d",))
    return (("C-c",), ("C-\\",))


def plan(state: PaneState, attempt: int, *, typed: bool) -> Step | None:
    """Step number ``attempt`` (from 0) for ``state``, or None when there is none left
    (Rule 1, Rule 2); ``typed``: text waits at a ``shell-ready`` prompt."""
    name = state.state
    safe: tuple[str, ...] | None = None
    if name == "copy-mode":
        safe = (LEAVE_MODE,)
    elif name == "shell-continuation":
        safe = ("C-c",)
    elif name == "shell-ready":
        safe = ("C-u",) if typed else None
    elif name == "awaiting-keys" and (state.foreground_program or "") in PAGERS:
        safe = ("q",)
    if name in ("copy-mode", "shell-continuation", "shell-ready") or safe is not None:
        return Step(safe, ends=False) if safe is not None and attempt == 0 else None
    if name == "dead":
        return None
    steps = _program_steps(state.foreground_program or "", name == "awaiting-keys")
    return Step(steps[attempt], ends=True) if attempt < len(steps) else None


def _send(pane: str, keys: tuple[str, ...]) -> list[Command]:
    """The commands of one step: a mode left by tmux, keys by name, text as text."""
    if keys == (LEAVE_MODE,):
        return [cmd("copy-mode", "-q", t=pane)]
    commands: list[Command] = []
    for key in keys:
        if key in _KEY_NAMES or key.startswith("C-") or len(key) == 1:
            commands.append(cmd("send-keys", t=pane, args=[key]))
        else:
            commands.append(cmd("send-keys", "-l", t=pane, args=[key]))
    return commands


def _said(state: PaneState) -> str:
    """A state as an error names it."""
    program = state.foreground_program
    if state.state == "dead":
        if state.exit_signal is not None:
            return f"dead (signal {state.exit_signal})"
        return "dead" if state.exit_status is None else f"dead (exit {state.exit_status})"
    if program is None:
        return state.state
    return f"{state.state} ({program}, pid {state.foreground_pid})"


class _Recovery:
    """One recover_pane call."""

    def __init__(self, ctx: ToolContext, pane: str, end_pid: int | None, hint: ActivityHint | None):
        self.ctx, self.pane, self.end_pid = ctx, pane, end_pid
        self.pacer = Pacer(hint, trio.current_time())
        self.steps: list[RecoverStep] = []
        run = registry_of(ctx.runs).busy.get(pane)
        self.run = run if run is not None and not run.done.is_set() else None

    async def read(self) -> PaneWithState:
        """The pane with its state now."""
        for found in await panes_with_state(
            self.ctx.client, self.ctx.kernel, cmd("list-panes", t=self.pane)
        ):
            if found.pane_id == self.pane:
                self.pacer.follow(found.pid or 0)
                return found
        raise ObjectNotFound(
            f"tmux did not report pane {self.pane}; list_panes returns current ids"
        )

    async def typed(self, pane: PaneWithState) -> bool:
        """Whether text waits after the prompt a run last typed at (``pending`` Rule 4)."""
        prompt = registry_of(self.ctx.runs).prompt(self.pane)
        if prompt is None:
            return False
        out = await self.ctx.client.run(
            cmd("capture-pane", "-p", t=self.pane, S=pane.cursor_y, E=pane.cursor_y)
        )
        return bool(typed_ahead(out.stdout.partition("\n")[0], pane.cursor_x, prompt))

    def _history(self) -> str:
        if not self.steps:
            return "Typed nothing."
        return "Typed: " + "; ".join(f"{' '.join(s.sent)} -> {s.state}" for s in self.steps) + "."

    def refuse(self, state: PaneState, why: str) -> PaneNotReady:
        """Rule 5: what was typed, the state now, and what goes on."""
        return PaneNotReady(f"pane {self.pane} is {_said(state)}: {why} {self._history()}")

    async def wait_settled(self, before: PaneState) -> PaneWithState:
        """Rule 3: the state once it changed from ``before`` (or the step's time is up)."""
        deadline = trio.current_time() + STEP_SECONDS
        extended = False
        while True:
            await self.pacer.wait(deadline)
            found = await self.read()
            now = found.state
            moved = (now.state, now.foreground_pid, now.mode) != (
                before.state,
                before.foreground_pid,
                before.mode,
            )
            if now.state == "shell-ready" or (moved and now.state != "running"):
                return found
            if trio.current_time() < deadline:
                continue
            if now.state == "running" and not extended and self._gone(before):
                # The program the step reached has exited and something still runs
                # (a shell between its commands, a core being written): once more.
                extended, deadline = True, deadline + STEP_SECONDS
                continue
            return found

    def _gone(self, before: PaneState) -> bool:
        """Whether the foreground process a step reached has exited (Rule 3)."""
        pid = before.foreground_pid
        return pid is not None and not self.ctx.kernel.running(pid)

    async def wait_run_done(self) -> PaneWithState | None:
        """Rule 4: the state once this process's run in the pane is done (or its time is up)."""
        if self.run is None:
            return None
        with trio.move_on_after(RUN_SECONDS):
            await self.run.done.wait()
        return await self.read()

    async def step(self, pane: PaneWithState, step: Step) -> PaneWithState:
        """Type one step and wait for its effect."""
        await self.ctx.client.run(*_send(self.pane, step.keys))
        self.ctx.runs.input_handled(self.pane)
        after = await self.wait_settled(pane.state)
        self.steps.append(RecoverStep(sent=list(step.keys), state=after.state.state))
        return after

    def _unended(self, state: PaneState) -> PaneNotReady:
        """Rule 2: a program recover would end, and the caller did not name it."""
        run = f" (run_command run {self.run.run_id}'s command)" if self.run is not None else ""
        return self.refuse(
            state,
            f"ending it{run} may lose its work, so recover_pane typed nothing to it. To end "
            f"it, call recover_pane with end_pid {state.foreground_pid}"
            + (", or collect the run with wait_for_command." if self.run is not None else "."),
        )

    def _stuck(self, state: PaneState) -> PaneNotReady:
        if state.state == "dead":
            return self.refuse(state, "respawn_pane restarts its program.")
        if state.foreground_pid is None:
            return self.refuse(
                state,
                "its foreground process cannot be read, so it is never ended here;"
                " send_keys C-c interrupts it.",
            )
        return self.refuse(
            state,
            "it outlasted every step recover_pane has for it; send_keys its own quit keys, "
            "or respawn_pane (which ends every process of the pane).",
        )

    async def run_steps(self) -> RecoverPaneResult:
        """Rule 1-3: plan, type, wait, until ``shell-ready``."""
        pane = await self.read()
        attempt, seen = 0, (pane.state.state, pane.state.foreground_pid)
        waited = False
        for _ in range(MAX_STEPS + 2):
            state = pane.state
            typed = state.state == "shell-ready" and await self.typed(pane)
            if state.state == "shell-ready" and not typed:
                done = await self.wait_run_done()
                if done is None or done.state.state == "shell-ready":
                    return self._result(done or pane)
                pane = done
                continue
            if (state.state, state.foreground_pid) != seen:
                attempt, seen = 0, (state.state, state.foreground_pid)
            step = plan(state, attempt, typed=typed)
            if step is None or len(self.steps) >= MAX_STEPS:
                raise self._stuck(state)
            if step.ends and (state.foreground_pid is None or state.foreground_pid != self.end_pid):
                if self.run is not None and self.steps and not waited:
                    # Rule 4: a step ended the run's command (a pager's q); its script
                    # still holds the shell until the watcher has read the status.
                    waited = True
                    pane = await self.wait_run_done() or pane
                    continue
                if state.foreground_pid is None:
                    raise self._stuck(state)
                raise self._unended(state)
            pane = await self.step(pane, step)
            attempt += 1
        raise self._stuck(pane.state)

    def _result(self, pane: PaneWithState) -> RecoverPaneResult:
        return RecoverPaneResult(
            pane_id=self.pane,
            state=pane.state.state,
            steps=self.steps,
            run_id=None if self.run is None else self.run.run_id,
        )


async def recover_pane(ctx: ToolContext, args: RecoverPaneArgs) -> RecoverPaneResult:
    """Handler for recover_pane."""
    bound = ctx.client.bound
    hint = None if bound is None else ActivityHint.open(bound.pid, bound.start_time)
    with hint if hint is not None else contextlib.nullcontext():
        return await _Recovery(ctx, args.pane_id, args.end_pid, hint).run_steps()
