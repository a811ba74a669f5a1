"""A ``send_keys`` call's parts as tmux invocations: keys and text, in order (issue 28.4).

Pure: the caller's parts, already encoded (``sinks.encoders``: a key from the
closed vocabulary, or text with no control character but tab and newline),
become the fewest tmux invocations that deliver them in order. Nothing here
runs tmux.

* **Rule 1: a key is a key, text is text.** A run of keys is one
  ``send-keys`` of their names (``sinks.keys``); in a tmux mode they are the
  mode's bindings, as a person's keys are. Text goes into a paste buffer and
  is written by ``paste-buffer -d`` (``sinks.text``): never the key-name
  parser, never a mode's bindings; byte for byte with ``-r``, each newline as
  Enter (CR) without it.
* **Rule 2: text never lands behind a mode.** A pasted text would reach the
  program under a tmux mode (copy-mode, view-mode, ...) while the screen
  shows the mode. Before an invocation's first text part, the mode guard
  (``driver.guards.mode_guard_name``) stops the rest of the invocation if the
  pane is in a mode. One guard an invocation is enough: once it passed,
  nothing later in that invocation can open a mode (keys go to the program,
  a paste writes to it), and tmux runs one invocation's commands without
  another client's in between. So a refused guard names its text part, and
  everything before that part was delivered.
* **Rule 3: as few invocations as tmux takes.** One invocation carries one
  stdin: the first text that does not fit in argv goes through
  ``load-buffer -``; smaller texts through ``set-buffer`` in argv (stored byte
  for byte, ``driver.argv`` escaping a final ``;``), while the command list
  stays within ``MAX_COMMAND_BYTES`` less the gate's reserve. A text that
  finds both taken starts the next invocation.
"""

from __future__ import annotations

import secrets
from typing import Annotated

import msgspec
from msgspec import Meta

from tmuxmcp.driver.argv import Command, cmd, render
from tmuxmcp.driver.client import GATE_RESERVE, MAX_COMMAND_BYTES, packed_size
from tmuxmcp.driver.guards import guard, mode_guard_name
from tmuxmcp.sinks.text import MAX_TEXT_BYTES

BUDGET = MAX_COMMAND_BYTES - GATE_RESERVE
"""Bytes of one invocation's command list that the parts may take (Rule 3)."""


# One part of send_keys: text typed byte for byte. No docstring: msgspec would put it
# in the input schema, which a model reads in every conversation (issue 14.1).
class TextPart(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    text: Annotated[str, Meta(max_length=MAX_TEXT_BYTES)]


Part = str | TextPart
"""A key name (``Enter``, ``C-c``, ``q``) or a text part."""


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """One tmux invocation of the plan."""

    commands: list[Command]
    stdin: bytes | None
    first_part: int
    """The index of the first part this invocation delivers."""
    guarded_part: int | None
    """The text part its mode guard stands before, if it has one (Rule 2)."""


def buffer_name() -> str:
    """A paste-buffer name no other client will pick."""
    return f"tmuxmcp-{secrets.token_hex(8)}"


def paste_flags(data: bytes, *, bracketed: bool) -> list[str]:
    """``paste-buffer`` flags: ``-r`` keeps bytes unless the text has line breaks (each
    then arrives as CR, Enter: tmux's default separator); ``-p`` brackets the paste if
    the program enabled bracketed paste."""
    return [*([] if b"\n" in data else ["-r"]), *(["-p"] if bracketed else [])]


class _Builder:
    def __init__(self, pane: str, marker: str, bracketed: bool, lead: list[Command]) -> None:
        self.pane, self.marker, self.bracketed = pane, marker, bracketed
        self.steps: list[Step] = []
        self._open(0)
        self._add(lead)

    def _open(self, first_part: int) -> None:
        self.commands: list[Command] = []
        self.stdin: bytes | None = None
        self.first = first_part
        self.guarded: int | None = None
        self.size = 0

    def close(self) -> None:
        if self.commands or not self.steps:
            self.steps.append(
                Step(
                    commands=self.commands,
                    stdin=self.stdin,
                    first_part=self.first,
                    guarded_part=self.guarded,
                )
            )

    def _fits(self, commands: list[Command]) -> bool:
        return self.size + packed_size(render(commands)) + 2 <= BUDGET

    def _add(self, commands: list[Command]) -> None:
        self.commands += commands
        self.size += packed_size(render(commands)) + 2

    def keys(self, index: int, names: list[str]) -> None:
        for name in names:
            command = [cmd("send-keys", t=self.pane, args=[name])]
            if not self._fits(command):
                self.close()
                self._open(index)
            last = self.commands[-1] if self.commands else None
            if last is not None and last.name == "send-keys":
                # Keys in a row share one send-keys (its argv grows by the one word).
                merged = cmd("send-keys", t=self.pane, args=[*last.args, name])
                self.commands[-1] = merged
                self.size += packed_size(render([command[0]])[-1:])
            else:
                self._add(command)

    def text(self, index: int, data: bytes) -> None:
        if not data:
            return  # nothing to paste (load-buffer of no bytes makes no buffer)
        name = buffer_name()
        paste = cmd("paste-buffer", "-d", *paste_flags(data, bracketed=self.bracketed),
                    b=name, t=self.pane)  # fmt: skip
        for attempt in range(2):
            check = [] if self.guarded is not None else [self._guard()]
            inline = [*check, cmd("set-buffer", b=name, args=[data.decode("utf-8")]), paste]
            if self._fits(inline):
                self._guarded(check, index)
                self._add(inline)
                return
            loaded = [*check, cmd("load-buffer", b=name, args=["-"]), paste]
            if self.stdin is None and self._fits(loaded):
                self._guarded(check, index)
                self._add(loaded)
                self.stdin = data
                return
            if attempt == 0:
                self.close()
                self._open(index)
        raise ValueError("a text part does not fit an invocation of its own")  # pragma: no cover

    def _guard(self) -> Command:
        return guard(mode_guard_name(self.marker, self.pane), self.pane)

    def _guarded(self, check: list[Command], index: int) -> None:
        if check:
            self.guarded = index


def plan(
    pane: str, parts: list[Part], *, marker: str, bracketed: bool, lead: list[Command]
) -> list[Step]:
    """The invocations that deliver ``parts`` to ``pane`` in order (Rules 1-3).

    Keys are given as their names, text parts as ``TextPart``; ``lead`` (the
    caller's cursor reads) opens the first invocation, before any part, so
    there is always at least one.
    """
    built = _Builder(pane, marker, bracketed, lead)
    for index, part in enumerate(parts):
        if isinstance(part, TextPart):
            built.text(index, part.text.encode("utf-8"))
        else:
            built.keys(index, [part])
    built.close()
    return built.steps
