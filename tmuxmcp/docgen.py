"""Generated documentation, derived from the capability definition (CM-5, CM-7).

Two kinds of output, both rewritten by ``python -m tmuxmcp.docgen --write``
and compared by ``--check`` (exit status 1 when anything is stale; the tests
run the same comparison, so a declaration changed without regenerating fails
CI):

* **blocks**: the text between ``<!-- BEGIN GENERATED: name -->`` and
  ``<!-- END GENERATED: name -->`` in docs/**/*.md (README.md is written for
  people and holds none; it is still scanned, so a block put there is kept
  fresh too). Everything
  outside the markers is written by hand. A marker naming an unknown block is
  an error, not a silent no-op.
* **files**: ``docs/capabilities.json``, byte for byte what ``tmuxmcp
  manifest`` prints.

Rules kept here:

1. Nothing about a tool's authority is typed into this module; every row comes
   from ``DEFINITION`` (through ``params_of``, ``describe``, ``object_schema``,
   the surface resolver and the annotation rule) or, for the command line,
   from the settings table (``tmuxmcp.settings``) that the parser is built from.
2. Annotations are computed, never copied: ``capability.scenarios`` resolves
   each documented scenario's surface and evidence exactly as
   ``runtime.decide`` does at startup.
3. Output is deterministic (definition order, sorted sets), so ``--check`` is a
   plain string comparison.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tmuxmcp.capability.annotations import CAUTIOUS, Hints
from tmuxmcp.capability.describe import describe
from tmuxmcp.capability.manifest import definition_manifest, hints_json
from tmuxmcp.capability.model import ToolSpec, params_of
from tmuxmcp.capability.scenarios import only_if_named, scenario_hints, scenarios
from tmuxmcp.capability.schema import object_schema
from tmuxmcp.capability.vocabulary import (
    EFFECT_MEANING,
    EFFECT_ORDER,
    REACH_MEANING,
    Reach,
    Toolset,
)
from tmuxmcp.definition import DEFINITION, RESOURCES
from tmuxmcp.settings import COMMANDS, DEFAULT_COMMAND
from tmuxmcp.sinks import Encoding, Sink

# ----------------------------------------------------------------- small helpers


_CODE_SPAN = re.compile(r"(`[^`]*`)")


def _cell(text: str) -> str:
    """Text made safe for one Markdown table cell.

    A ``|`` outside a code span would end the cell and is escaped; inside a
    code span Python-Markdown keeps it literal, and an escape would show.
    """
    parts = _CODE_SPAN.split(text.replace("\n", " "))
    return "".join(p if i % 2 else p.replace("|", "\\|") for i, p in enumerate(parts))


def _effects(spec: ToolSpec) -> str:
    return ", ".join(e.value for e in EFFECT_ORDER if e in spec.effects)


def _outputs(spec: ToolSpec) -> str:
    return ", ".join(sorted(o.value for o in spec.outputs))


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _by_toolset() -> list[tuple[Toolset, list[ToolSpec]]]:
    return [(t, [s for s in DEFINITION if s.toolset is t]) for t in Toolset]


# ------------------------------------------------------------- tool tables


def _tool_rows(name: Callable[[ToolSpec], str]) -> str:
    rows = [
        "| tool | toolset | process reach | tmux effect | output classes | secrets | untrusted |",
        "|---|---|---|---|---|---|---|",
    ]
    for spec in DEFINITION:
        rows.append(
            f"| {name(spec)} | {spec.toolset.value} | {spec.reach.value} | {_effects(spec)} | "
            f"{_outputs(spec)} | {_yes(spec.may_expose_secrets)} | "
            f"{_yes(spec.returns_untrusted_content)} |"
        )
    return "\n".join(rows)


def parameter_table() -> str:
    """One row per caller-controlled parameter with its sink and encoding."""
    rows = ["| tool | parameter | sink | encoding |", "|---|---|---|---|"]
    for spec in DEFINITION:
        for param in params_of(spec):
            rows.append(
                f"| [`{spec.name}`](#{spec.name}) | `{param.name}` | {param.sink.value} | "
                f"{param.encoding.value} |"
            )
    return "\n".join(rows)


# ------------------------------------------------------- annotation scenarios


def _hint_words(hints: Hints | None) -> str:
    if hints is None:
        return "— (its presence voids the evidence)"
    if hints == CAUTIOUS:
        return "cautious"
    words = [
        word
        for word, narrowed in (
            ("read-only", hints.read_only),
            ("non-destructive", not hints.destructive),
            ("idempotent", hints.idempotent),
            ("closed-world", not hints.open_world),
        )
        if narrowed
    ]
    return "narrowed: " + ", ".join(words)


def annotation_table() -> str:
    """Per tool, a one-word summary of its hints in every scenario."""
    cases = scenarios(DEFINITION)
    rows = [
        "| tool | " + " | ".join(c.title for c in cases) + " |",
        "|---|" + "---|" * len(cases),
    ]
    for spec in DEFINITION:
        cells = []
        for case in cases:
            text = _hint_words(scenario_hints(spec, case, DEFINITION))
            if only_if_named(spec, case):
                text += " (only if named)"
            cells.append(text)
        rows.append(f"| [`{spec.name}`](#{spec.name}) | " + " | ".join(cells) + " |")
    return "\n".join(rows)


# ------------------------------------------------------------ tool reference


def tool_overview() -> str:
    """The overview table of the reference, each tool linked to its section."""
    return _tool_rows(lambda spec: f"[`{spec.name}`](#{spec.name})")


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
    lines += [f"| `{r.value}` | {_cell(REACH_MEANING[r])} |" for r in Reach]
    lines += ["", "| tmux effect | meaning |", "|---|---|"]
    lines += [f"| `{e.value}` | {_cell(EFFECT_MEANING[e])} |" for e in EFFECT_ORDER]
    sink_docs, encoding_docs = _member_docs(Sink), _member_docs(Encoding)
    lines += ["", "| sink (interpreter boundary) | what reaches it |", "|---|---|"]
    lines += [f"| `{s.value}` | {_cell(sink_docs.get(s.value, ''))} |" for s in Sink]
    lines += ["", "| encoding | what tmuxmcp does to the value first |", "|---|---|"]
    lines += [f"| `{e.value}` | {_cell(encoding_docs.get(e.value, ''))} |" for e in Encoding]
    return "\n".join(lines)


_MAX_ENUM_SHOWN = 12


def _schema_type(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A short statement of one JSON Schema's type and constraints."""
    if "$ref" in schema:
        return _schema_type(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    if "anyOf" in schema:
        branches = [b for b in schema["anyOf"] if b.get("type") != "null"]
        text = " or ".join(_schema_type(b, defs) for b in branches)
        return text + (" or null" if len(branches) < len(schema["anyOf"]) else "")
    parts: list[str] = []
    if "enum" in schema:
        values = [json.dumps(v) for v in schema["enum"]]
        if len(values) > _MAX_ENUM_SHOWN:
            shown = ", ".join(values[:_MAX_ENUM_SHOWN])
            parts.append(f"one of {len(values)} values ({shown}, …; all in capabilities.json)")
        else:
            parts.append("one of " + ", ".join(values))
    else:
        parts.append(str(schema.get("type", "any")))
    if "pattern" in schema:
        parts.append(f"pattern `{schema['pattern']}`")
    for key, word in (
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("minimum", "≥"),
        ("exclusiveMinimum", ">"),
        ("maximum", "≤"),
        ("exclusiveMaximum", "<"),
        ("minItems", "min items"),
        ("maxItems", "max items"),
    ):
        if key in schema:
            parts.append(f"{word} {schema[key]}")
    if "items" in schema:
        parts.append("items: " + _schema_type(schema["items"], defs))
    return ", ".join(parts)


def _constraints(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    text = _schema_type(schema, defs)
    if "default" in schema:
        text += f"; default {json.dumps(schema['default'])}"
    return text


def _hints_table(spec: ToolSpec) -> list[str]:
    cases = scenarios(DEFINITION)
    rows = [
        "| hint | " + " | ".join(c.title for c in cases) + " |",
        "|---|" + "---|" * len(cases),
    ]
    per_case = [scenario_hints(spec, c, DEFINITION) for c in cases]
    for wire in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"):
        cells = []
        for case, hints in zip(cases, per_case, strict=True):
            if hints is None:
                cells.append("—")
                continue
            value = "true" if hints_json(hints)[wire] else "false"
            cells.append(value + (" (only if named)" if only_if_named(spec, case) else ""))
        rows.append(f"| `{wire}` | " + " | ".join(cells) + " |")
    return rows


def _tool_section(spec: ToolSpec) -> list[str]:
    out = [
        f"### `{spec.name}`",
        "",
        f"**{spec.title}** · toolset `{spec.toolset.value}` · process reach "
        f"`{spec.reach.value}` · tmux effect `{_effects(spec)}` · output classes "
        f"`{_outputs(spec)}` · may expose secrets: **{_yes(spec.may_expose_secrets)}** · "
        f"may return untrusted content: **{_yes(spec.returns_untrusted_content)}**",
        "",
        "Description, as advertised in `tools/list`:",
        "",
        "> " + describe(spec),
        "",
    ]
    schema = object_schema(spec.args)
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
                f"| `{param.name}` | {_yes(param.required)} | `{param.sink.value}` | "
                f"`{param.encoding.value}` | {_cell(_constraints(prop, defs))} | "
                f"{_cell(param.description)} |"
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
    returns = list(object_schema(spec.result).get("properties", {}))
    out += ["**Returns** " + ", ".join(f"`{name}`" for name in returns) + ".", ""]
    out += ["Whole-call annotations (they depend on the effective surface):", ""]
    out += _hints_table(spec)
    out.append("")
    return out


def tool_sections() -> str:
    """One section per tool, grouped by toolset in definition order."""
    out: list[str] = []
    for toolset, specs in _by_toolset():
        out += [f"## The {toolset.value} toolset", ""]
        if not specs:
            out += ["No tools.", ""]
        for spec in specs:
            out += _tool_section(spec)
    return "\n".join(out).rstrip("\n")


def resource_sections() -> str:
    """One section per resource template, with the same declared properties as a tool."""
    out: list[str] = []
    for spec in RESOURCES:
        required = ", ".join(f"[`{name}`](#{name})" for name in spec.requires)
        out += [
            f"### `{spec.uri_template}`",
            "",
            f"**{spec.title}** · process reach `{spec.reach.value}` · tmux effect "
            f"`{_effects(spec)}` · output classes `{_outputs(spec)}` · may expose secrets: "
            f"**{_yes(spec.may_expose_secrets)}** · may return untrusted content: "
            f"**{_yes(spec.returns_untrusted_content)}** · MIME type `{spec.mime_type}`",
            "",
            "Description, as advertised in `resources/templates/list`:",
            "",
            "> " + describe(spec),
            "",
            "| URI variable | sink | encoding | meaning |",
            "|---|---|---|---|",
        ]
        out += [
            f"| `{p.name}` | `{p.sink.value}` | `{p.encoding.value}` | {_cell(p.description)} |"
            for p in params_of(spec)
        ]
        out += [
            "",
            f"**Exists only while {required} are on the effective surface** (CM-3): the "
            "resource is read through them, so excluding either (or leaving out the inspect "
            "toolset) removes it from `resources/list`, `resources/templates/list` and "
            "`resources/read` alike, and the server then declares no resources capability. "
            "`resources/list` lists every pane on the socket by id and size only; an invalid "
            "URI or a missing pane is a JSON-RPC invalid-params error that says what a valid "
            "URI looks like.",
            "",
        ]
    return "\n".join(out).rstrip("\n")


# --------------------------------------------------- configuration reference


def option_table() -> str:
    """Flags, their environment variables, defaults and meanings (``tmuxmcp.settings``)."""
    rows = ["| flag | environment | default | meaning |", "|---|---|---|---|"]
    for setting in DEFAULT_COMMAND.settings:
        rows.append(
            f"| `{setting.flag} {setting.metavar}` | `{setting.env}` | "
            f"{_cell(setting.default or '') or '—'} | {_cell(setting.help)} |"
        )
    return "\n".join(rows)


def command_table() -> str:
    """The commands of ``tmuxmcp`` (``tmuxmcp.settings``)."""
    rows = ["| command | what it does |", "|---|---|"]
    rows += [f"| `tmuxmcp {command.name}` | {_cell(command.help)} |" for command in COMMANDS]
    return "\n".join(rows)


def toolset_table() -> str:
    """Which tools each toolset expands to."""
    rows = ["| toolset | tools |", "|---|---|"]
    for toolset, specs in _by_toolset():
        names = ", ".join(f"[`{s.name}`](tools.md#{s.name})" for s in specs) or "none"
        rows.append(f"| `{toolset.value}` | {names} |")
    return "\n".join(rows)


# ------------------------------------------------------------- trust model


def authority_table() -> str:
    """Tools that start or drive a pane process: they act with the tmux user's authority."""
    rows = ["| tool | toolset | process reach | what that means |", "|---|---|---|---|"]
    for spec in DEFINITION:
        if spec.reach is not Reach.NONE:
            rows.append(
                f"| [`{spec.name}`](tools.md#{spec.name}) | {spec.toolset.value} | "
                f"`{spec.reach.value}` | {_cell(REACH_MEANING[spec.reach])} |"
            )
    return "\n".join(rows)


def disclosure_table() -> str:
    """Tools that may return untrusted content or expose secrets."""
    rows = [
        "| tool | toolset | output classes | untrusted content | secrets |",
        "|---|---|---|---|---|",
    ]
    for spec in DEFINITION:
        if spec.returns_untrusted_content or spec.may_expose_secrets:
            rows.append(
                f"| [`{spec.name}`](tools.md#{spec.name}) | {spec.toolset.value} | "
                f"{_outputs(spec)} | {_yes(spec.returns_untrusted_content)} | "
                f"{_yes(spec.may_expose_secrets)} |"
            )
    return "\n".join(rows)


# ------------------------------------------------------------ the machinery


BLOCKS: dict[str, Callable[[], str]] = {
    "parameter-table": parameter_table,
    "tool-overview": tool_overview,
    "annotation-table": annotation_table,
    "vocabulary-legend": vocabulary_legend,
    "tool-sections": tool_sections,
    "resource-sections": resource_sections,
    "command-table": command_table,
    "option-table": option_table,
    "toolset-table": toolset_table,
    "authority-table": authority_table,
    "disclosure-table": disclosure_table,
}


def capabilities_json() -> str:
    """``docs/capabilities.json``: exactly what ``tmuxmcp manifest`` prints."""
    return (
        json.dumps(definition_manifest(DEFINITION, RESOURCES), indent=2, ensure_ascii=False) + "\n"
    )


FILES: dict[str, Callable[[], str]] = {
    "docs/capabilities.json": capabilities_json,
}

_BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<name>[a-z-]+) -->\n)"
    r"(?P<body>.*?)"
    r"(<!-- END GENERATED: (?P=name) -->)",
    re.S,
)
_MARKER = re.compile(r"<!-- (?:BEGIN|END) GENERATED: (?P<name>[^ ]+) -->")


class UnknownBlock(Exception):
    """A document names a generated block that docgen does not know."""


def regenerate(text: str) -> str:
    """``text`` with every generated block brought up to date."""
    for marker in _MARKER.finditer(text):
        if marker["name"] not in BLOCKS:
            raise UnknownBlock(f"unknown generated block {marker['name']!r}")

    def fill(match: re.Match[str]) -> str:
        return match.group(1) + BLOCKS[match.group("name")]() + "\n" + match.group(4)

    return _BLOCK.sub(fill, text)


def documents(root: Path) -> list[Path]:
    """Files that may hold generated blocks."""
    return [root / "README.md", *sorted((root / "docs").glob("**/*.md"))]


def stale(root: Path) -> dict[Path, str]:
    """Every generated output under ``root`` that differs from what it should be."""
    found: dict[Path, str] = {}
    for path in documents(root):
        if path.exists():
            text = path.read_text(encoding="utf-8")
            fresh = regenerate(text)
            if fresh != text:
                found[path] = fresh
    for relative, make in FILES.items():
        path = root / relative
        fresh = make()
        if not path.exists() or path.read_text(encoding="utf-8") != fresh:
            found[path] = fresh
    return found


def main(argv: Sequence[str]) -> int:
    """``--write`` or ``--check`` (default) against the repository at the cwd."""
    found = stale(Path.cwd())
    if "--write" in argv:
        for path, fresh in found.items():
            path.write_text(fresh, encoding="utf-8")
        return 0
    for path in found:
        sys.stderr.write(f"stale generated docs in {path}; run python -m tmuxmcp.docgen --write\n")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
