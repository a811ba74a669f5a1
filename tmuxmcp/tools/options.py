"""``set_option`` (manage): a closed list of options whose values tmux never interprets.

Each settable option has a scope (session, window or pane) and a value type
(on/off, a bounded integer, or a fixed word). tmux stores such values as
given (``set-option`` without ``-F``) and never reads them as a format, a
command or shell text. The option name is format-expanded by tmux, so it comes
from the closed list only. Why other options are not settable is stated on
``SETTABLE_OPTIONS``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from tmuxmcp.capability.arguments import Arguments, conflict
from tmuxmcp.capability.params import (
    PaneId,
    SessionId,
    WindowId,
    closed,
)
from tmuxmcp.capability.results import TmuxId, TmuxReport
from tmuxmcp.driver.argv import cmd
from tmuxmcp.panetext.render import record_line
from tmuxmcp.sinks import Sink
from tmuxmcp.tools.context import ToolContext


class OptionRule(msgspec.Struct, frozen=True):
    """How one settable option is scoped and typed."""

    scope: Literal["session", "window", "pane"]
    kind: Literal["bool", "int", "choice"]
    choices: tuple[str, ...] = ()
    maximum: int = 0


SETTABLE_OPTIONS: dict[str, OptionRule] = {
    "history-limit": OptionRule("session", "int", maximum=500_000),
    "mouse": OptionRule("session", "bool"),
    "status": OptionRule("session", "bool"),
    "mode-keys": OptionRule("window", "choice", ("vi", "emacs")),
    "monitor-activity": OptionRule("window", "bool"),
    "aggressive-resize": OptionRule("window", "bool"),
    "remain-on-exit": OptionRule("pane", "choice", ("on", "off", "failed")),
    "allow-rename": OptionRule("pane", "bool"),
}
"""The closed list of options any tool may set.

Each value is a number, on/off or a fixed word: tmux never reads it as a
format, command or shell text. Options that hold formats (status-left/right,
*-format, automatic-rename-format, set-titles-string), commands (hooks,
command-alias, key bindings) or shell (default-command, default-shell,
lock-command, editor) are not settable: setting one would give the caller
format, command or host-shell execution through tmux. automatic-rename is
excluded because enabling it evaluates automatic-rename-format, and
synchronize-panes because it copies input typed into one pane to every pane
of the window. history-limit is capped to bound server memory (about 530 bytes
per line).
"""

OptionName = Literal[
    "history-limit",
    "mouse",
    "status",
    "mode-keys",
    "monitor-activity",
    "aggressive-resize",
    "remain-on-exit",
    "allow-rename",
]


class SetOptionArgs(Arguments):
    """Arguments of set_option: the id matching the option's scope."""

    option: Annotated[
        OptionName,
        closed(
            "history-limit: int; mode-keys: vi|emacs; remain-on-exit: on|off|failed; others: "
            "bool. Session: history-limit, mouse, status; pane: remain-on-exit, allow-rename; "
            "else window.",
            Sink.TMUX_FORMAT,
        ),
    ]
    value: Annotated[
        bool | int | str,
        closed("Value, typed as the option requires.", Sink.LITERAL),
    ]
    session_id: SessionId | None = None
    window_id: WindowId | None = None
    pane_id: PaneId | None = None

    def __post_init__(self) -> None:
        rule = SETTABLE_OPTIONS[self.option]
        given_scopes = [
            scope
            for scope, value in (
                ("session", self.session_id),
                ("window", self.window_id),
                ("pane", self.pane_id),
            )
            if value is not None
        ]
        if given_scopes != [rule.scope]:
            conflict(
                f"`{rule.scope}_id`: {self.option} is a {rule.scope} option: give only "
                f"{rule.scope}_id",
                f"{rule.scope}_id",
                "option",
            )
        _check_value(self.option, rule, self.value)

    def target(self, rule: OptionRule) -> str:
        """The id of the option's scope (the only one given)."""
        target = {"session": self.session_id, "window": self.window_id, "pane": self.pane_id}
        found = target[rule.scope]
        assert found is not None  # __post_init__ refused any other combination
        return found


class OptionSet(msgspec.Struct, frozen=True, kw_only=True):
    """The option and the value tmux now reports for it."""

    target: TmuxId
    option: TmuxReport
    value: TmuxReport

    def text_form(self) -> str:
        """Readable form."""
        return record_line(self)


_JSON_KIND = {bool: "a boolean", int: "an integer", str: "a string"}
_WANTED = {"bool": bool, "int": int, "choice": str}


def _check_value(name: str, rule: OptionRule, value: bool | int | str) -> None:
    """Refuse a value the option ``name`` does not take (a rule over two fields)."""
    takes = {
        "bool": "true or false",
        "int": f"an integer from 0 to {rule.maximum}",
        "choice": "one of: " + ", ".join(f"`{c}`" for c in rule.choices),
    }[rule.kind]
    wanted = _WANTED[rule.kind]
    if type(value) is not wanted:
        conflict(
            f"`value` expected {_JSON_KIND[wanted]}, got {_JSON_KIND[type(value)]}; "
            f"{name} takes {takes}",
            "value",
            "option",
        )
    if rule.kind == "int" and not 0 <= int(value) <= rule.maximum:
        conflict(f"`value` is out of range (got {value}); {name} takes {takes}", "value", "option")
    if rule.kind == "choice" and value not in rule.choices:
        conflict(
            f"`value` is not one of the accepted values; {name} takes {takes}", "value", "option"
        )


def _rendered(rule: OptionRule, value: bool | int | str) -> str:
    """The value as tmux's ``set-option`` takes it (already checked by the Struct)."""
    if rule.kind == "bool":
        return "on" if value else "off"
    return str(value)


async def set_option(ctx: ToolContext, args: SetOptionArgs) -> OptionSet:
    """Handler for set_option."""
    rule = SETTABLE_OPTIONS[args.option]
    target = args.target(rule)
    value = _rendered(rule, args.value)
    scope_flag = {"session": (), "window": ("-w",), "pane": ("-p",)}[rule.scope]
    out = await ctx.client.run(
        cmd("set-option", *scope_flag, t=target, args=[args.option, value]),
        cmd("show-options", *scope_flag, "-v", t=target, args=[args.option]),
    )
    return OptionSet(target=target, option=args.option, value=out.stdout.strip())
