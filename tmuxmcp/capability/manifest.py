"""Machine-readable forms of the definition and of the effective surface.

``definition_manifest`` is what ``tmuxmcp manifest`` prints and what the docs
are generated from. ``published_surface`` is what ``tmuxmcp surface`` prints
and ``server_info`` returns: the effective surface and the selected socket
(CM-7), each tool with its declared properties and its whole-call annotations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tmuxmcp
from tmuxmcp.capability.annotations import (
    Evidence,
    Hints,
    gather_evidence,
    whole_call_hints,
)
from tmuxmcp.capability.describe import describe
from tmuxmcp.capability.environment import PAGER_SAFE
from tmuxmcp.capability.model import ResourceSpec, ToolSpec, params_of
from tmuxmcp.capability.results import Content, contents_of
from tmuxmcp.capability.schema import input_schema, output_schema
from tmuxmcp.capability.surface import Surface, served_resources
from tmuxmcp.capability.vocabulary import EFFECT_ORDER, Effect, OutputClass, Reach, Toolset
from tmuxmcp.sinks import Encoding, Sink

NOTICES = (
    "The selected socket limits which tmux objects tools can name; it is not a sandbox and "
    "confines nothing on the host.",
    "Tools that start or drive pane processes run with the tmux user's authority: the tool "
    "surface is not authorization, and disabling execute alone is not containment.",
    "Annotations are consent metadata, not enforcement.",
    "tmux's own configuration (aliases, hooks, status jobs, plugins) can run commands beyond "
    "any tool's reach; tmuxmcp does not claim to prevent that.",
)


def declared_properties(spec: ToolSpec[Any, Any]) -> dict[str, Any]:
    """A tool's declared authority (CM-2) as JSON data."""
    return {
        "name": spec.name,
        "title": spec.title,
        "toolset": spec.toolset.value,
        "process_reach": spec.reach.value,
        "tmux_effect": [e.value for e in EFFECT_ORDER if e in spec.effects],
        "output_classes": sorted(o.value for o in spec.outputs),
        "may_expose_secrets": spec.may_expose_secrets,
        "returns_untrusted_content": spec.returns_untrusted_content,
        "nested_operations": list(spec.nested),
        # Declared by ``continues``: a call still unfinished after the hand-over time
        # may go on as an MCP Task, for a client that opts in on the call (issue 29).
        "continues_as_task": spec.continues is not None,
        # Declared by ``starts_panes``: the panes it starts get the pager-safe
        # environment unless the operator chose inherit (``capability.environment``).
        "pane_environment": (
            [f"{name}={value}" for name, value in PAGER_SAFE] if spec.starts_panes else []
        ),
    }


def hints_json(hints: Hints) -> dict[str, bool]:
    """Annotations under their MCP wire names."""
    return {
        "readOnlyHint": hints.read_only,
        "destructiveHint": hints.destructive,
        "idempotentHint": hints.idempotent,
        "openWorldHint": hints.open_world,
    }


def tool_annotations(spec: ToolSpec[Any, Any], evidence: Evidence) -> dict[str, Any]:
    """A tool's MCP annotations as every surface sends them: its title and all four hints.

    CM-4.5 to CM-4.8: without evidence each hint is *set* to its cautious
    value, never left out for a client to default, and with evidence each is
    set to its narrow value (``whole_call_hints``). Leaving out a hint that
    equals MCP's default would rely on every client applying that default;
    clients do not forward annotations to a model, so sending them costs no
    model context (issue 18.3). The title repeats the tool's own ``title`` so
    that a client reading only annotations shows the same name.
    """
    return {"title": spec.title, **hints_json(whole_call_hints(spec, evidence))}


def declared_annotations(spec: ToolSpec[Any, Any]) -> dict[str, Any]:
    """The annotations a tool is sent with, in each of the two cases a start can meet.

    ``cautious``: without evidence (any surface with a tool that reaches a
    process, a server tmuxmcp did not start, or a tmux with no per-call
    check). ``with_evidence``: on a surface where the evidence is sufficient
    (rule 3 of ``annotations``); a tool that reaches a process is never on
    such a surface, so it is cautious in both. Both are ``tool_annotations``,
    the form every surface sends (CM-4).
    """
    evidence = gather_evidence([spec], minimal_provenance=True, per_call_check=True)
    without = Evidence(
        minimal_provenance=False, surface_has_process_tools=True, per_call_check=False
    )
    return {
        "cautious": tool_annotations(spec, without),
        "with_evidence": tool_annotations(spec, evidence),
    }


def resource_properties(spec: ResourceSpec[Any, Any]) -> dict[str, Any]:
    """A resource's declared authority, as for a tool (CM-2, CM-7)."""
    entry = declared_properties(spec)
    del entry["nested_operations"], entry["continues_as_task"]
    entry.update(
        uri_template=spec.uri_template,
        mime_type=spec.mime_type,
        requires_tools=list(spec.requires),
        description=describe(spec),
        parameters=_parameters(spec),
    )
    return entry


def _parameters(spec: ToolSpec[Any, Any]) -> list[dict[str, Any]]:
    """Each declared parameter: its name, whether required, its sink and encoding."""
    return [
        {
            "name": p.name,
            "required": p.required,
            "sink": p.sink.value,
            "encoding": p.encoding.value,
            "description": p.description,
        }
        for p in params_of(spec)
    ]


def definition_manifest(
    definition: Sequence[ToolSpec[Any, Any]], resources: Sequence[ResourceSpec[Any, Any]] = ()
) -> dict[str, Any]:
    """The whole capability definition: its tools and its resources."""
    tools = []
    for spec in definition:
        entry = declared_properties(spec)
        entry.update(
            summary=spec.summary,
            repeat_safe=spec.repeat_safe,
            additive=spec.additive,
            annotations=declared_annotations(spec),
            description=describe(spec),
            parameters=_parameters(spec),
            result_content={
                path.split(".", 1)[1]: kind.value for path, kind in contents_of(spec.result).items()
            },
            input_schema=input_schema(spec.args),
            output_schema=output_schema(spec.result),
        )
        tools.append(entry)
    return {
        "tmuxmcp_version": tmuxmcp.__version__,
        "vocabulary": {
            "toolsets": [t.value for t in Toolset],
            "process_reach": [r.value for r in Reach],
            "prohibited_process_reach": [Reach.HOST_COMMAND.value],
            "tmux_effect": [e.value for e in Effect],
            "output_classes": [o.value for o in OutputClass],
            "sinks": [s.value for s in Sink],
            "encodings": [e.value for e in Encoding],
            "result_content": [c.value for c in Content],
        },
        "tools": tools,
        "resources": [resource_properties(spec) for spec in resources],
    }


def published_surface(
    definition: Sequence[ToolSpec[Any, Any]],
    surface: Surface,
    evidence: Evidence,
    *,
    socket: dict[str, Any],
    server: dict[str, Any],
    resources: Sequence[ResourceSpec[Any, Any]] = (),
) -> dict[str, Any]:
    """The effective surface and selected socket, as published (CM-7).

    ``resources`` is the whole definition's; those the surface serves are
    published by URI template (``served_resources``).
    """
    tools = []
    for spec in definition:
        if spec.name not in surface.tools:
            continue
        entry = declared_properties(spec)
        if spec.nested:
            effective = surface.nested.get(spec.name, ())
            entry["nested_operations"] = list(effective)
            entry["excluded_nested_operations"] = [op for op in spec.nested if op not in effective]
        entry["annotations"] = tool_annotations(spec, evidence)
        tools.append(entry)
    return {
        "tmuxmcp_version": tmuxmcp.__version__,
        "socket": socket,
        "server": server,
        "surface": {
            "toolsets": [t.value for t in surface.toolsets],
            "default_toolsets": surface.default_toolsets,
            "teardown_rule": surface.teardown_rule,
            "toolsets_off": [
                {"toolset": o.toolset.value, "reason": o.reason, "enable": o.enable}
                for o in surface.off
            ],
            "excluded_tools": list(surface.excluded),
            "resources": [r.uri_template for r in served_resources(resources, surface)],
            "tools": tools,
        },
        "annotation_evidence": {
            "minimal_provenance": evidence.minimal_provenance,
            "surface_has_process_tools": evidence.surface_has_process_tools,
            "per_call_check": evidence.per_call_check,
            "narrow_hints_allowed": evidence.sufficient,
        },
        "notices": list(NOTICES),
    }


_DETAIL_ONLY = frozenset({"tools", "default_toolsets", "teardown_rule"})
"""Surface keys only ``detail`` returns. The default toolsets rule is said by
``toolsets_off`` where it turns a toolset off, and an aggregate's effective
nested operations by its own description (CM-7), so neither is repeated."""

_EVIDENCE_KEPT = frozenset({"narrow_hints_allowed", "withdrawn"})
"""Annotation evidence in the default body: the verdict, and why it was
withdrawn if it was; the three conditions behind it are ``detail``'s."""


def compact_report(report: dict[str, Any]) -> dict[str, Any]:
    """The default ``server_info`` body: the published report with tool names only.

    It keeps the socket (kind, value and path; its tmux flags only repeat
    them), the server (its pid; the start time is the per-call gate's), the
    toolsets on and off with the reason, the exclusions, whether narrow
    annotations are allowed, and the notices. Each tool's declared properties
    and annotations, the default toolsets rule and the evidence behind the
    annotations are what ``detail: true`` adds. Issue 14.2: a model reads
    this whole, so it carries no bulk.
    """
    surface = report.get("surface", {})
    compact_surface = {k: v for k, v in surface.items() if k not in _DETAIL_ONLY}
    compact_surface["tools"] = [tool["name"] for tool in surface.get("tools", [])]
    evidence = report.get("annotation_evidence", {})
    compact_evidence = {k: v for k, v in evidence.items() if k in _EVIDENCE_KEPT}
    server = {k: v for k, v in report.get("server", {}).items() if k != "start_time"}
    socket = {k: v for k, v in report.get("socket", {}).items() if k != "tmux_flags"}
    return {
        **report,
        "socket": socket,
        "server": server,
        "surface": compact_surface,
        "annotation_evidence": compact_evidence,
    }
