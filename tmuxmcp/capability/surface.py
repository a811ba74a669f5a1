"""The startup decision of which tools are served (ADR 0001, CM-3).

Order, applied once: expand the selected toolsets, add named inclusions, then
remove named exclusions. An exclusion wins over every inclusion path,
including an aggregate's nested authority. Unknown names are rejected before
anything is served. The result is frozen for the process lifetime; discovery
(``tools/list``) and invocation (``tools/call``) both read it.

Defaults: all four toolsets on the dedicated default socket when this process
created the server with a minimal configuration. Otherwise (another socket, or
a server that already existed) ``teardown`` is enabled only when the operator
names it: ``--toolsets ...,teardown``, ``--toolsets all`` or an included
teardown tool.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from tmuxmcp.capability.model import ResourceSpec, ToolSpec
from tmuxmcp.capability.vocabulary import Toolset
from tmuxmcp.errors import ConfigError

ALL = "all"


class SurfaceRequest(msgspec.Struct, frozen=True):
    """The operator's selection, as given (None means the default toolsets)."""

    toolsets: tuple[str, ...] | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


class ToolsetOff(msgspec.Struct, frozen=True):
    """A toolset that is not served, why, and how the operator turns it on (issue 14.4)."""

    toolset: Toolset
    reason: str
    enable: str

    def sentence(self) -> str:
        """One line for the instructions, server_info and the startup log."""
        return f"The {self.toolset.value} toolset is off: {self.reason}. {self.enable}."


ENABLE_ALL = (
    "The operator turns it on with --toolsets all or naming it there (env TMUXMCP_TOOLSETS), "
    "or single tools with --include-tools (env TMUXMCP_INCLUDE_TOOLS)"
)
OTHER_SOCKET = (
    "the operator selected another socket (--socket-name or --socket-path), "
    "whose server's configuration is not tmuxmcp's"
)
# CM-1: provenance is claimed only for a server this process started.
UNKNOWN_PROVENANCE = (
    "the dedicated socket's server was already running at startup, so its provenance is unknown"
)


def altered_provenance(departures: tuple[str, ...]) -> str:
    """Why a server tmuxmcp started is not minimal: what another client had set on
    it before tmuxmcp bound to it (``driver.pristine``, issue 27 N1)."""
    return (
        "tmuxmcp started the dedicated socket's server, but before it bound to it "
        f"another client had changed it ({'; '.join(departures)}), so its provenance "
        "is unknown (CM-1)"
    )


NOT_SELECTED = "the operator's --toolsets (env TMUXMCP_TOOLSETS) does not name it"
TEARDOWN_HELP = "docs/troubleshooting.md#teardown-is-off"
"""Where a person reads why teardown is off and what to do, in tmuxmcp's repository."""
TEARDOWN_WAITS = f"see {TEARDOWN_HELP}"
"""Why the teardown toolset is off by default (CM-3: it waits for the operator),
as a page to read: the text people and models read at startup names no rule id
(issue 31.4), and server_info's budget (``MAX_SERVER_INFO_BYTES``) leaves room
for a link, not for the page."""


class Surface(msgspec.Struct, frozen=True):
    """The effective structured tool surface."""

    toolsets: tuple[Toolset, ...]
    tools: tuple[str, ...]
    excluded: tuple[str, ...]
    nested: dict[str, tuple[str, ...]]
    """Effective nested operations of each served aggregate."""
    default_toolsets: bool
    teardown_rule: str
    off: tuple[ToolsetOff, ...] = ()
    """Toolsets none of whose tools are served, each with its reason."""


def check_names(definition: Sequence[ToolSpec[Any, Any]], request: SurfaceRequest) -> None:
    """Reject unknown toolset and tool names (CM-3), naming the valid ones."""
    valid_sets = [t.value for t in Toolset]
    for name in request.toolsets or ():
        if name != ALL and name not in valid_sets:
            raise ConfigError(
                f"unknown toolset {name!r}; valid toolsets: {', '.join([*valid_sets, ALL])}"
            )
    valid_tools = [spec.name for spec in definition]
    lists = (("--include-tools", request.include), ("--exclude-tools", request.exclude))
    for option, names in lists:
        for name in names:
            if name not in valid_tools:
                raise ConfigError(
                    f"unknown tool {name!r} in {option}; valid tools: {', '.join(valid_tools)}"
                )


def resolve(
    definition: Sequence[ToolSpec[Any, Any]],
    request: SurfaceRequest,
    *,
    dedicated_minimal: bool,
    not_minimal_because: str = "the server is not the dedicated socket's minimal server",
) -> Surface:
    """Compute the frozen surface for this process.

    ``not_minimal_because`` says, for the explanation of a default-off
    teardown toolset, why the server is not the dedicated minimal one.
    """
    check_names(definition, request)
    if request.toolsets is None:
        chosen = set(Toolset) if dedicated_minimal else set(Toolset) - {Toolset.TEARDOWN}
    elif ALL in request.toolsets:
        chosen = set(Toolset)
    else:
        chosen = {Toolset(name) for name in request.toolsets}
    selected = {spec.name for spec in definition if spec.toolset in chosen}
    selected |= set(request.include)
    excluded = set(request.exclude)
    selected -= excluded
    tools = tuple(spec.name for spec in definition if spec.name in selected)
    nested = {
        spec.name: tuple(op for op in spec.nested if op not in excluded)
        for spec in definition
        if spec.name in selected and spec.nested
    }
    if dedicated_minimal:
        rule = "dedicated socket with minimal provenance: all four toolsets by default"
    else:
        rule = "teardown only when the operator names it (not the dedicated minimal server)"
    served = {spec.toolset for spec in definition if spec.name in selected}
    off = tuple(
        ToolsetOff(
            toolset=toolset,
            reason=(
                NOT_SELECTED
                if request.toolsets is not None
                else f"{not_minimal_because}; {TEARDOWN_WAITS}"
            ),
            enable=ENABLE_ALL,
        )
        for toolset in Toolset
        if toolset not in served and toolset not in chosen
    )
    return Surface(
        off=off,
        toolsets=tuple(t for t in Toolset if t in chosen),
        tools=tools,
        excluded=tuple(spec.name for spec in definition if spec.name in excluded),
        nested=nested,
        default_toolsets=request.toolsets is None,
        teardown_rule=rule,
    )


def served_resources(
    resources: Sequence[ResourceSpec[Any, Any]], surface: Surface
) -> tuple[ResourceSpec[Any, Any], ...]:
    """The resources of this surface: those whose every required tool is served (CM-3).

    A resource is read through tool operations, so the operator's selection
    applies to it as to an aggregate: excluding ``capture_pane`` (or any tool a
    resource requires) removes the resource from discovery and from reading.
    """
    return tuple(r for r in resources if all(name in surface.tools for name in r.requires))
