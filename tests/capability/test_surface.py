"""The startup surface (CM-3): expand toolsets, add inclusions, remove exclusions."""

from __future__ import annotations

from typing import Any

import pytest

from tmuxmcp.capability.model import ToolSpec
from tmuxmcp.capability.surface import SurfaceRequest, resolve
from tmuxmcp.capability.vocabulary import Effect, OutputClass, Reach, Toolset
from tmuxmcp.definition import DEFINITION
from tmuxmcp.errors import ConfigError
from tmuxmcp.tools import inspect


def _tool(name: str, toolset: Toolset, nested: tuple[str, ...] = ()) -> ToolSpec[Any, Any]:
    return ToolSpec(
        name=name,
        title=name,
        toolset=toolset,
        reach=Reach.NONE,
        effects=frozenset({Effect.OBSERVE}),
        outputs=frozenset({OutputClass.TMUX_METADATA}),
        summary="probe",
        args=inspect.ListSessionsArgs,
        result=inspect.ListSessionsResult,
        handler=inspect.list_sessions,
        nested=nested,
    )


FAKE = (
    _tool("look", Toolset.INSPECT),
    _tool("peek", Toolset.INSPECT),
    _tool("rename", Toolset.MANAGE),
    _tool("run", Toolset.EXECUTE),
    _tool("kill", Toolset.TEARDOWN),
    _tool("overview", Toolset.INSPECT, nested=("look", "peek")),
)


def test_dedicated_minimal_default_enables_all_four_toolsets() -> None:
    surface = resolve(FAKE, SurfaceRequest(), dedicated_minimal=True)
    assert set(surface.toolsets) == set(Toolset)
    assert "kill" in surface.tools


def test_other_sockets_need_teardown_named_explicitly() -> None:
    surface = resolve(FAKE, SurfaceRequest(), dedicated_minimal=False)
    assert Toolset.TEARDOWN not in surface.toolsets
    assert "kill" not in surface.tools
    assert {"look", "rename", "run"} <= set(surface.tools)
    named = resolve(FAKE, SurfaceRequest(toolsets=("inspect", "teardown")), dedicated_minimal=False)
    assert "kill" in named.tools
    included = resolve(FAKE, SurfaceRequest(include=("kill",)), dedicated_minimal=False)
    assert "kill" in included.tools
    assert "kill" in resolve(FAKE, SurfaceRequest(toolsets=("all",)), dedicated_minimal=False).tools


def test_inspect_and_teardown_is_a_legal_surface() -> None:
    surface = resolve(
        FAKE, SurfaceRequest(toolsets=("inspect", "teardown")), dedicated_minimal=True
    )
    assert set(surface.tools) == {"look", "peek", "overview", "kill"}


def test_exclusion_wins_over_every_inclusion_path() -> None:
    request = SurfaceRequest(toolsets=("inspect",), include=("look",), exclude=("look",))
    surface = resolve(FAKE, request, dedicated_minimal=True)
    assert "look" not in surface.tools
    assert surface.excluded == ("look",)


def test_exclusion_removes_nested_authority_from_aggregates() -> None:
    surface = resolve(FAKE, SurfaceRequest(exclude=("peek",)), dedicated_minimal=True)
    assert surface.nested["overview"] == ("look",)
    unexcluded = resolve(FAKE, SurfaceRequest(toolsets=("inspect",)), dedicated_minimal=True)
    assert unexcluded.nested["overview"] == ("look", "peek")


def test_nested_operations_need_not_be_advertised_separately() -> None:
    request = SurfaceRequest(toolsets=("manage",), include=("overview",))
    surface = resolve(FAKE, request, dedicated_minimal=True)
    assert "look" not in surface.tools
    assert surface.nested["overview"] == ("look", "peek")


@pytest.mark.parametrize(
    ("request_", "bad"),
    [
        (SurfaceRequest(toolsets=("inspect", "readonly")), "readonly"),
        (SurfaceRequest(include=("nope",)), "nope"),
        (SurfaceRequest(exclude=("list_sessionz",)), "list_sessionz"),
    ],
)
def test_unknown_names_are_rejected_naming_the_valid_ones(
    request_: SurfaceRequest, bad: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve(DEFINITION, request_, dedicated_minimal=True)
    message = caught.value.message
    assert repr(bad) in message
    assert "valid" in message
    assert ("inspect" in message) or ("list_sessions" in message)


def test_surface_order_follows_the_definition() -> None:
    surface = resolve(DEFINITION, SurfaceRequest(), dedicated_minimal=True)
    assert list(surface.tools) == [s.name for s in DEFINITION if s.name in surface.tools]
