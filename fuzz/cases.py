"""The fuzz cases: every parameter of every tool in the capability definition.

A case is one (tool, parameter) pair of ``DEFINITION``, read back through
``params_of`` with its declared sink and encoding, so a parameter is fuzzed as
soon as it is declared (CM-5). Its (sink, encoding) pair selects its property
(``fuzz.properties.PROPERTIES``).
"""

from __future__ import annotations

from typing import NamedTuple

from tmuxmcp.capability.model import ParamSpec, ToolSpec, params_of
from tmuxmcp.definition import DEFINITION
from tmuxmcp.sinks import Encoding, Sink


class Case(NamedTuple):
    """One parameter of one tool."""

    spec: ToolSpec
    param: ParamSpec

    def __str__(self) -> str:
        return f"{self.spec.name}.{self.param.name}"

    @property
    def key(self) -> tuple[Sink, Encoding]:
        """The (sink, encoding) pair that selects this parameter's property."""
        return (self.param.sink, self.param.encoding)

    @property
    def mutates(self) -> bool:
        """Whether the tool may change tmux state."""
        return any(effect.value != "observe" for effect in self.spec.effects)


def cases() -> list[Case]:
    """Every parameter of every tool in the definition."""
    return [Case(spec, param) for spec in DEFINITION for param in params_of(spec)]
