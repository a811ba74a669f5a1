"""A check for ``mypy tests``, not for pytest: a mismatched ToolSpec must not type-check.

``ToolSpec`` is generic in its argument and result Structs (issue 21.3,
CM-5: one declaration per tool, and its parts agree). Each spec below names
a handler that does not fit its ``args`` or ``result`` and carries a
``type: ignore[arg-type]``. The repository's mypy configuration is strict,
which includes ``warn_unused_ignores``: if a mismatch stopped being a type
error, its ignore would be unused and ``mypy tests`` would fail. The first
function is the control: a matching spec that needs no ignore.

The specs are built in functions that nothing calls: the check is mypy's.

A table of specs (``definition.DEFINITION``) holds ``DeclaredTool``, made by
``declare_tool`` (issue 30.4): under a plain annotated tuple of ``ToolSpec(...)``
mypy solved each entry's types from the annotation (``Any``) and accepted a
handler of another tool. The last functions write such a table the plain way
(annotated, a list, a dict) and must still be refused, and a ``ToolSpec(...)``
entry that skips ``declare_tool`` must not fit the table.
"""

from __future__ import annotations

from typing import Any

from tmuxmcp.capability.model import (
    DeclaredResource,
    DeclaredTool,
    ResourceSpec,
    ToolSpec,
    declare_resource,
    declare_tool,
)
from tmuxmcp.capability.vocabulary import Effect, OutputClass, Reach, Toolset
from tmuxmcp.tools import capture, inspect, manage, resources

# What every spec below shares; only args, result and handler are under test.
_SHARED: dict[str, Any] = {
    "title": "Test spec",
    "toolset": Toolset.INSPECT,
    "reach": Reach.NONE,
    "effects": frozenset({Effect.OBSERVE}),
    "outputs": frozenset({OutputClass.TMUX_METADATA}),
}


def matching() -> ToolSpec[manage.SwapPaneArgs, manage.Done]:
    return ToolSpec(
        name="swap_pane",
        **_SHARED,
        summary="control",
        args=manage.SwapPaneArgs,
        result=manage.Done,
        handler=manage.swap_pane,
    )


def handler_of_another_tool() -> object:
    return ToolSpec(
        name="swap_pane",
        **_SHARED,
        summary="takes SelectArgs, declares SwapPaneArgs",
        args=manage.SwapPaneArgs,
        result=manage.Done,
        handler=manage.select,  # type: ignore[arg-type]
    )


def result_of_another_tool() -> object:
    return ToolSpec(
        name="list_sessions",
        **_SHARED,
        summary="returns ListSessionsResult, declares ListWindowsResult",
        args=inspect.ListSessionsArgs,
        result=inspect.ListWindowsResult,
        handler=inspect.list_sessions,  # type: ignore[arg-type]
    )


def resource_with_a_tool_result() -> object:
    return ResourceSpec(
        name="pane",
        **_SHARED,
        summary="returns PaneScreen, declares CapturePaneResult",
        args=resources.PaneResourceArgs,
        result=capture.CapturePaneResult,
        handler=resources.read_pane_resource,  # type: ignore[arg-type]
        uri_template=resources.PANE_TEMPLATE,
        variables=resources.args_of_uri,
        lister=resources.list_pane_resources,
        requires=("capture_pane",),
    )


def in_a_collection() -> tuple[ToolSpec[Any, Any], ...]:
    # The way ``definition`` builds its tuple: added to an empty annotated
    # tuple, each spec is still checked on its own.
    specs: tuple[ToolSpec[Any, Any], ...] = ()
    specs += (
        ToolSpec(
            name="swap_pane",
            **_SHARED,
            summary="in a tuple, still checked",
            args=manage.SwapPaneArgs,
            result=manage.Done,
            handler=manage.select,  # type: ignore[arg-type]
        ),
    )
    return specs


def _swap_variables(uri: str) -> manage.SwapPaneArgs:
    return manage.SwapPaneArgs(pane_id="%1", other_pane_id="%2")


def resource_whose_uri_decodes_to_other_arguments() -> object:
    return ResourceSpec(
        name="pane",
        **_SHARED,
        summary="variables give SwapPaneArgs, args declares PaneResourceArgs",
        args=resources.PaneResourceArgs,
        result=resources.PaneScreen,
        handler=resources.read_pane_resource,
        uri_template=resources.PANE_TEMPLATE,
        variables=_swap_variables,  # type: ignore[arg-type]
        lister=resources.list_pane_resources,
        requires=("capture_pane",),
    )


def a_plainly_annotated_table() -> tuple[DeclaredTool, ...]:
    # The way that let a mismatch through before issue 30.4: the annotation is the
    # entries' only context. declare_tool solves each entry's types from itself.
    specs: tuple[DeclaredTool, ...] = (
        declare_tool(
            name="list_sessions",
            **_SHARED,
            summary="control: a matching entry",
            args=inspect.ListSessionsArgs,
            result=inspect.ListSessionsResult,
            handler=inspect.list_sessions,
        ),
        declare_tool(
            name="swap_pane",
            **_SHARED,
            summary="takes SelectArgs, declares SwapPaneArgs",
            args=manage.SwapPaneArgs,
            result=manage.Done,
            handler=manage.select,  # type: ignore[arg-type]
        ),
        declare_tool(
            name="list_sessions",
            **_SHARED,
            summary="returns ListSessionsResult, declares ListWindowsResult",
            args=inspect.ListSessionsArgs,
            result=inspect.ListWindowsResult,
            handler=inspect.list_sessions,  # type: ignore[arg-type]
        ),
    )
    return specs


def a_table_as_a_list_or_a_dict() -> list[DeclaredTool]:
    by_name: dict[str, DeclaredTool] = {
        "swap_pane": declare_tool(
            name="swap_pane",
            **_SHARED,
            summary="in a dict, still checked",
            args=manage.SwapPaneArgs,
            result=manage.Done,
            handler=manage.select,  # type: ignore[arg-type]
        )
    }
    return [
        *by_name.values(),
        declare_tool(
            name="swap_pane",
            **_SHARED,
            summary="in a list, still checked",
            args=manage.SwapPaneArgs,
            result=manage.Done,
            handler=manage.select,  # type: ignore[arg-type]
        ),
    ]


def a_resource_table() -> tuple[DeclaredResource, ...]:
    return (
        declare_resource(
            name="pane",
            **_SHARED,
            summary="returns PaneScreen, declares CapturePaneResult",
            args=resources.PaneResourceArgs,
            result=capture.CapturePaneResult,
            handler=resources.read_pane_resource,  # type: ignore[arg-type]
            uri_template=resources.PANE_TEMPLATE,
            variables=resources.args_of_uri,
            lister=resources.list_pane_resources,
            requires=("capture_pane",),
        ),
    )


def an_entry_that_skips_declare_tool() -> tuple[DeclaredTool, ...]:
    # A bare ToolSpec, even a matching one, is not a DeclaredTool: every entry of a
    # table goes through declare_tool, so none is solved from the table's type.
    return (
        ToolSpec(  # type: ignore[return-value]
            name="swap_pane",
            **_SHARED,
            summary="matching, but not declared",
            args=manage.SwapPaneArgs,
            result=manage.Done,
            handler=manage.swap_pane,
        ),
    )
