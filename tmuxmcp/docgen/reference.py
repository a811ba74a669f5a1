"""The tool reference (docs/tools.md): overview, parameters, vocabulary, one section per tool.

Every row comes from the definition given (``params_of``, ``describe``,
``input_schema``, ``output_schema``, the declared properties) and, for
annotations, from ``hint_tables``; nothing about a tool's authority is typed
here (CM-5, CM-7).
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from tmuxmcp.capability.describe import describe
from tmuxmcp.capability.model import ResourceSpec, ToolSpec, params_of
from tmuxmcp.capability.schema import input_schema, output_schema
from tmuxmcp.capability.vocabulary import EFFECT_MEANING, EFFECT_ORDER, REACH_MEANING, Reach
from tmuxmcp.docgen.hint_tables import tool_hints_table
from tmuxmcp.docgen.markdown import by_toolset, cell, effects, outputs, yes
from tmuxmcp.docgen.schema_text import constraints
from tmuxmcp.sinks import Encoding, Sink


def _tool_rows(
    tools: Sequence[ToolSpec[Any, Any]], name: Callable[[ToolSpec[Any, Any]], str]
) -> str:
    """One row per tool with its declared properties; ``name`` renders the first cell."""
    rows = [
        "| tool | toolset | process reach | tmux effect | output classes | secrets | untrusted |",
        "|---|---|---|---|---|---|---|",
    ]
    for spec in tools:
        rows.append(
            f"| {name(spec)} | {spec.toolset.value} | {spec.reach.value} | {effects(spec)} | "
            f"{outputs(spec)} | {yes(spec.may_expose_secrets)} | "
            f"{yes(spec.returns_untrusted_content)} |"
        )
    return "\n".join(rows)


def tool_overview(tools: Sequence[ToolSpec[Any, Any]]) -> str:
    """The overview table of the reference, each tool linked to its section."""
    return _tool_rows(tools, lambda spec: f"[`{spec.name}`](#{spec.name})")


def parameter_table(tools: Sequence[ToolSpec[Any, Any]]) -> str:
    """One row per caller-controlled parameter with its sink and encoding."""
    rows = ["| tool | parameter | sink | encoding |", "|---|---|---|---|"]
    for spec in tools:
        for param in params_of(spec):
            rows.append(
                f"| [`{spec.name}`](#{spec.name}) | `{param.name}` | {param.sink.value} | "
                f"{param.encoding.value} |"
            )
    return "\n".join(rows)


def _member_docs(enum: type[Sink] | type[Encoding]) -> dict[str, str]:
    """Attribute docstrings of an enum (the string after each member), from its source."""
    tree = ast.parse(inspect.getsource(enum))
    body = tree.body[0]
    assert isinstance(body, ast.ClassDef)
    docs: dict[str, str] = {}
    for node, following in zip(body.body, body.body[1:], strict=False):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[str(node.value.value)] = " ".join(following.value.value.split())
    return docs


def vocabulary_legend() -> str:
    """What every process reach, tmux effect, sink and encoding value means."""
    lines = ["| process reach | meaning |", "|---|---|"]
    lines += [f"| `{r.value}` | {cell(REACH_MEANING[r])} |" for r in Reach]
    lines += ["", "| tmux effect | meaning |", "|---|---|"]
    lines += [f"| `{e.value}` | {cell(EFFECT_MEANING[e])} |" for e in EFFECT_ORDER]
    sink_docs, encoding_docs = _member_docs(Sink), _member_docs(Encoding)
    lines += ["", "| sink (interpreter boundary) | what reaches it |", "|---|---|"]
    lines += [f"| `{s.value}` | {cell(sink_docs.get(s.value, ''))} |" for s in Sink]
    lines += ["", "| encoding | what tmuxmcp does to the value first |", "|---|---|"]
    lines += [f"| `{e.value}` | {cell(encoding_docs.get(e.value, ''))} |" for e in Encoding]
    return "\n".join(lines)


def _tool_section(spec: ToolSpec[Any, Any], tools: Sequence[ToolSpec[Any, Any]]) -> list[str]:
    out = [
        f"### `{spec.name}`",
        "",
        f"**{spec.title}** · toolset `{spec.toolset.value}` · process reach "
        f"`{spec.reach.value}` · tmux effect `{effects(spec)}` · output classes "
        f"`{outputs(spec)}` · may expose secrets: **{yes(spec.may_expose_secrets)}** · "
        f"may return untrusted content: **{yes(spec.returns_untrusted_content)}**",
        "",
        "Description, as advertised in `tools/list`:",
        "",
        "> " + describe(spec),
        "",
    ]
    schema = input_schema(spec.args)
    defs = schema.get("$defs", {})
    params = params_of(spec)
    if params:
        out += [
            "| parameter | required | sink | encoding | schema | meaning |",
            "|---|---|---|---|---|---|",
        ]
        for param in params:
            prop = schema["properties"][param.name]
            out.append(
                f"| `{param.name}` | {yes(param.required)} | `{param.sink.value}` | "
                f"`{param.encoding.value}` | {cell(constraints(prop, defs))} | "
                f"{cell(param.description)} |"
            )
    else:
        out.append("No parameters.")
    out.append("")
    if spec.nested:
        links = ", ".join(f"[`{op}`](#{op})" for op in spec.nested)
        out += [
            f"**Aggregate.** Nested operations it may invoke: {links}. These need not be "
            "advertised separately, and a named exclusion (`--exclude-tools`) removes an "
            "operation from this set; the call never performs an excluded one.",
            "",
        ]
    returns = list(output_schema(spec.result).get("properties", {}))
    out += ["**Returns** " + ", ".join(f"`{name}`" for name in returns) + ".", ""]
    out += ["Whole-call annotations (they depend on the effective surface):", ""]
    out += tool_hints_table(spec, tools)
    out.append("")
    return out


def tool_sections(tools: Sequence[ToolSpec[Any, Any]]) -> str:
    """One section per tool, grouped by toolset in definition order."""
    out: list[str] = []
    for toolset, specs in by_toolset(tools):
        out += [f"## The {toolset.value} toolset", ""]
        if not specs:
            out += ["No tools.", ""]
        for spec in specs:
            out += _tool_section(spec, tools)
    return "\n".join(out).rstrip("\n")


def resource_sections(resources: Sequence[ResourceSpec[Any, Any]]) -> str:
    """One section per resource (a fixed one or a template), with the same declared
    properties as a tool."""
    out: list[str] = []
    for spec in resources:
        required = ", ".join(f"[`{name}`](#{name})" for name in spec.requires)
        where = "resources/templates/list" if spec.is_template else "resources/list"
        out += [
            f"### `{spec.uri_template}`",
            "",
            f"**{spec.title}** · process reach `{spec.reach.value}` · tmux effect "
            f"`{effects(spec)}` · output classes `{outputs(spec)}` · may expose secrets: "
            f"**{yes(spec.may_expose_secrets)}** · may return untrusted content: "
            f"**{yes(spec.returns_untrusted_content)}** · MIME type `{spec.mime_type}`",
            "",
            f"Description, as advertised in `{where}`:",
            "",
            "> " + describe(spec),
            "",
        ]
        if spec.is_template:
            out += [
                "| URI variable | sink | encoding | meaning |",
                "|---|---|---|---|",
            ]
            out += [
                f"| `{p.name}` | `{p.sink.value}` | `{p.encoding.value}` | {cell(p.description)} |"
                for p in params_of(spec)
            ]
            listed = (
                "`resources/list` lists every pane on the socket by id and size only; an "
                "invalid URI or a missing pane is a JSON-RPC invalid-params error that says "
                "what a valid URI looks like."
            )
        else:
            out += ["A fixed URI with no variables."]
            listed = (
                "`resources/list` always lists it first, also on a server with no pane; "
                "every read lists the panes of that moment."
            )
        out += [
            "",
            f"**Exists only while {required} are on the effective surface** (CM-3): the "
            "resource is read through them, so excluding either (or leaving out the inspect "
            "toolset) removes it from `resources/list`, `resources/templates/list` and "
            "`resources/read` alike, and the server then declares no resources capability. "
            + listed,
            "",
        ]
    return "\n".join(out).rstrip("\n")
