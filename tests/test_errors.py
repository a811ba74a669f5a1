"""Errors that teach (issue 14.3) and one error path (issue 10.3), through the dispatcher.

Each invalid-argument error opens with its slug and the parameter, says what
was wrong in plain words and what a valid value looks like; its location may
follow, and msgspec's own message never appears (issue 21.3). The expected
ranges are read from the published input schema (the contract), not from the
code that words the error.
"""

from __future__ import annotations

import ast
import inspect
import re
from typing import Any

import msgspec
import pytest

from tests.fake_support import fake_runtime
from tests.memory_session import memory_session
from tmuxmcp import errors, server
from tmuxmcp.capability.decode import decode_arguments
from tmuxmcp.capability.encode import encode_arguments
from tmuxmcp.definition import BY_NAME
from tmuxmcp.driver.fake import FakeTmux
from tmuxmcp.errors import InvalidArguments, ObjectNotFound, TmuxMcpError, UnsafeValue
from tmuxmcp.tools import inspect as inspect_tools
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.tools.run import RunRegistry


def _slugs() -> set[str]:
    return {
        cls.reference
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, TmuxMcpError)
    }


def _invalid(text: str, parameter: str) -> str:
    """The text after the slug, which must lead with the parameter."""
    assert text.startswith("[invalid-arguments] "), text
    rest = text.removeprefix("[invalid-arguments] ")
    assert rest.startswith(f"`{parameter}`"), f"the parameter must lead: {rest}"
    assert not rest.startswith("Expected"), "the msgspec message must not lead"
    return rest


async def test_invalid_argument_errors_teach(fake: FakeTmux) -> None:
    """Each error is decided before tmux is asked, so the fake world in memory shows all
    of it (issue 30.2): the schemas come from ``tools/list``, the errors from
    ``tools/call``, and no call runs a tmux command."""
    pane = "%3"
    async with memory_session(fake_runtime(fake)) as session:
        listed = await session.request("tools/list")
        schemas = {t["name"]: t["inputSchema"] for t in listed["result"]["tools"]}

        async def text(tool: str, arguments: dict[str, Any]) -> str:
            result = await session.call(tool, arguments)
            assert result["isError"] is True, result
            content = result["content"][0]["text"]
            assert isinstance(content, str)
            return content

        named = _invalid(await text("list_windows", {"session_id": "work"}), "session_id")
        assert "session ids look like `$3`; list_sessions returns them; names are not accepted" in (
            named
        )
        assert "work" not in named

        digits = _invalid(await text("capture_pane", {"pane_id": "0"}), "pane_id")
        assert "did you mean `%0`?" in digits

        window = _invalid(await text("capture_pane", {"pane_id": "@1"}), "pane_id")
        assert "that is a window id" in window
        assert "list_panes" in window

        for spelling, meant in [
            ("Ctrl-C", "C-c"),
            ("ctrl-c", "C-c"),
            ("^C", "C-c"),
            ("Control-C", "C-c"),
            ("Esc", "Escape"),
            ("Return", "Enter"),
            ("Alt-x", "M-x"),
        ]:
            # Issue 28.4: keys are checked by their encoder (a part may be text too).
            key = await text("send_keys", {"pane_id": pane, "keys": ["Enter", spelling]})
            assert key.startswith("[unsafe-value] `keys`"), key
            assert f"did you mean `{meant}`?" in key, key
            assert f"'{spelling}'" not in key, "the caller's key text is not echoed"

        as_string = _invalid(
            await text("capture_pane", {"pane_id": pane, "max_lines": "50000"}), "max_lines"
        )
        assert as_string.startswith("`max_lines` expected an integer, got a string")

        limit = schemas["capture_pane"]["properties"]["max_lines"]
        high = max(b["maximum"] for b in limit.get("anyOf", [limit]) if "maximum" in b)
        low = min(b["minimum"] for b in limit.get("anyOf", [limit]) if "minimum" in b)
        too_big = _invalid(
            await text("capture_pane", {"pane_id": pane, "max_lines": high + 1}), "max_lines"
        )
        assert "out of range" in too_big
        assert f"from {low} to {high}" in too_big

        option = await text(
            "set_option",
            {"option": "history-limit", "value": "50000", "session_id": "$0"},
        )
        assert _invalid(option, "value").startswith("`value` expected an integer, got a string")

        missing = _invalid(await text("capture_pane", {}), "pane_id")
        assert "required" in missing
        assert "`%3`" in missing

        unknown = _invalid(await text("capture_pane", {"pane_id": pane, "bogus": 1}), "bogus")
        assert "not a parameter of capture_pane" in unknown
        assert "`pane_id`" in unknown
    assert fake.calls == [], "every error is decided before tmux is asked"


def test_every_key_suggestion_is_a_key_the_tool_accepts() -> None:
    """Suggestions come from the key vocabulary: each one decodes."""
    spec = BY_NAME["send_keys"]
    for spelling in ["Ctrl-C", "^Z", "control-a", "ESC", "return", "Backspace", "PgDn", "del"]:
        decoded = decode_arguments("send_keys", spec.args, {"pane_id": "%0", "keys": [spelling]})
        with pytest.raises(UnsafeValue) as raised:
            encode_arguments(decoded)
        found = re.search(r"did you mean `([^`]+)`\?", raised.value.message)
        assert found, raised.value.message
        keys = {"pane_id": "%0", "keys": [found[1]]}
        encode_arguments(decode_arguments("send_keys", spec.args, keys))


def test_every_client_visible_slug_is_declared_in_errors() -> None:
    """10.3: the dispatcher builds no slug text; internal-error is in errors.py."""
    assert "internal-error" in _slugs()
    source = inspect.getsource(server)
    literals = [
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    assert not [s for s in literals if re.match(r"\[[a-z-]+\]", s)], "slugs are built by errors.py"


class _NoPaneClient:
    """A client whose list-panes answer lacks the pane (it vanished meanwhile)."""

    async def run(self, *commands: object) -> Any:
        return msgspec.defstruct("Out", [("stdout", str)])(stdout="")


async def test_list_panes_reports_a_missing_pane_as_not_found() -> None:
    """10.3: the same error class as run_command for a pane tmux does not report."""
    context = ToolContext(
        client=_NoPaneClient(),  # type: ignore[arg-type]
        facts=None,  # type: ignore[arg-type]
        published={},
        nested={},
        runs=RunRegistry(),
    )
    args = msgspec.convert({"pane_id": "%7"}, inspect_tools.ListPanesArgs)
    with pytest.raises(ObjectNotFound):
        await inspect_tools.list_panes(context, args)


WRONG_TYPE = {"not": ["a", "valid", "value"]}
"""A JSON object: no parameter of any tool accepts one."""


@pytest.mark.parametrize("spec", list(BY_NAME.values()), ids=lambda s: s.name)
def test_every_parameter_error_leads_with_the_parameter(spec: Any) -> None:
    """The wording is derived for every declared parameter, not written per tool."""
    for field in msgspec.structs.fields(spec.args):
        with pytest.raises(InvalidArguments) as raised:
            decode_arguments(spec.name, spec.args, {field.encode_name: WRONG_TYPE})
        message = raised.value.message
        assert message.startswith(f"`{field.encode_name}` expected "), message
        assert "got an object" in message
        assert message.index("(") > message.index("; it takes "), message
        # Issue 21.3: the words are ours; msgspec's message is not passed on.
        assert "Expected `" not in message, message
        assert message.endswith(f"(at `$.{field.encode_name}`)"), message


def _drawn_tree() -> set[tuple[str, str | None]]:
    """(class, parent) for every class drawn in the ``errors`` module docstring."""
    assert errors.__doc__ is not None
    drawn: set[tuple[str, str | None]] = set()
    parents: list[str] = []
    for line in errors.__doc__.splitlines():
        if line.strip() == "TmuxMcpError":
            parents = ["TmuxMcpError"]
            drawn.add(("TmuxMcpError", None))
            continue
        branch = re.match(r"^    ((?:│   |    )*)(?:├|└)── (\w+)", line)
        if branch is None or not parents:
            continue
        depth = len(branch[1]) // 4 + 1
        del parents[depth:]
        drawn.add((branch[2], parents[-1]))
        parents.append(branch[2])
    return drawn


def _real_tree() -> set[tuple[str, str | None]]:
    """(class, parent) for every TmuxMcpError subclass in the package, all modules imported."""
    import importlib
    import pkgutil

    import tmuxmcp

    for module in pkgutil.walk_packages(tmuxmcp.__path__, "tmuxmcp."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    real: set[tuple[str, str | None]] = {("TmuxMcpError", None)}
    pending: list[type[TmuxMcpError]] = [TmuxMcpError]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("tmuxmcp."):
                real.add((sub.__name__, cls.__name__))
                pending.append(sub)
    return real


def test_the_drawn_exception_tree_is_the_class_hierarchy() -> None:
    """Issue 21.4: every error class is drawn, under its real parent, and nothing else is."""
    drawn, real = _drawn_tree(), _real_tree()
    assert len(drawn) > 10, "the drawing was not parsed"
    assert real - drawn == set(), "classes missing from the drawing"
    assert drawn - real == set(), "drawn classes that do not exist there"
