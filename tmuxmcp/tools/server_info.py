"""``server_info`` (inspect): the selected socket, provenance, tmux version and surface.

One tmux invocation: the gate alone, which tells a bound server from one
that is gone, replaced or reconfigured (CM-1, CM-4). The published surface
comes from startup; after a loss or a refused call it is reported with the
evidence that no longer holds withdrawn. The text form says the same as the
structured one, in prose (some clients show only one of them).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from tmuxmcp.capability.arguments import Arguments
from tmuxmcp.capability.manifest import compact_report
from tmuxmcp.capability.params import switch
from tmuxmcp.capability.results import Own, ReportData
from tmuxmcp.errors import (
    BoundServerLost,
    ConfigurationChanged,
    ServerGone,
    ServerReplaced,
)
from tmuxmcp.tools.context import ToolContext
from tmuxmcp.verify.cache import verified_status


class ServerInfoArgs(Arguments):
    """Arguments of server_info."""

    detail: Annotated[bool, switch("Add each tool's declared properties and annotations.")] = False


MAX_SERVER_INFO_BYTES = 4000
"""Budget of the default result, its text and structuredContent together (issue 14.2);
``tests/test_budgets.py`` holds it."""


class ServerInfoResult(msgspec.Struct, frozen=True, kw_only=True):
    """The selected socket, provenance, tmux version and the published surface.

    ``info`` is the compact report by default (tool names only) and the full
    published surface with ``detail`` (each tool's declared properties and
    annotations). Both forms are read by models: some clients show only the
    structured result, others only the text, so the text says the same in
    prose, never as a JSON dump.
    """

    server_state: Own
    sink_claims: ReportData
    """Whether ``tmuxmcp verify`` passed for this tmux binary and version."""
    info: ReportData

    def text_form(self) -> str:
        """Readable form: the same facts as sentences, one topic a line."""
        return "\n".join(server_info_prose(self.server_state, self.sink_claims, self.info))


async def server_info(ctx: ToolContext, args: ServerInfoArgs) -> ServerInfoResult:
    """Handler for server_info: the published surface plus a live identity check."""
    reason = ""
    try:
        await ctx.client.run()
        state = "bound"
    except BoundServerLost as lost:
        state = lost.state
    except ServerGone:
        state = "gone"
    except ServerReplaced:
        state = "replaced"
    except ConfigurationChanged as changed:
        state = "configuration-changed"
        reason = changed.message
    claims = verified_status(ctx.client.binary, ctx.facts.version)
    if state == "bound":
        info = ctx.published
    elif state == "configuration-changed":
        info = changed_configuration_report(ctx, reason)
    else:
        info = lost_server_report(ctx, state)
    if not args.detail:
        info = compact_report(info)
        claims = compact_claims(claims)
    return ServerInfoResult(server_state=state, sink_claims=claims, info=info)


def compact_claims(claims: dict[str, Any]) -> dict[str, Any]:
    """The default form of the sink-claims status (issue 14.2): what a model acts on.

    How to verify goes once the claims are verified, and the time of the
    check always; every other key stays, so the form keeps one shape.
    ``detail`` returns it whole.
    """
    dropped = {"checked_at"}
    if claims.get("verified") is True:
        dropped.add("how_to_verify")
    return {key: value for key, value in claims.items() if key not in dropped}


def _yes(value: object) -> str:
    return "yes" if value is True else "no" if value is False else str(value)


def server_info_prose(state: str, claims: dict[str, Any], info: dict[str, Any]) -> list[str]:
    """The text form of a server_info result: what the structured one says, as sentences."""
    socket = info.get("socket", {})
    server = info.get("server", {})
    surface = info.get("surface", {})
    evidence = info.get("annotation_evidence", {})
    lines = [
        f"tmuxmcp {info.get('tmuxmcp_version')}: socket {socket.get('kind')} "
        f"{socket.get('value')} ({socket.get('path')}), "
        f"dedicated default: {_yes(socket.get('dedicated_default'))}.",
    ]
    if "note" in server:
        lines.append(f"Server bound at startup, {state}: {server['note']}.")
    else:
        lines.append(
            f"Server bound at startup, {state}: pid {server.get('pid')}, tmux "
            f"{server.get('tmux_version')} "
            f"({server.get('tmux_binary')}), provenance {server.get('provenance')}, created "
            f"by tmuxmcp: {_yes(server.get('created_by_tmuxmcp'))}, config files: "
            f"{server.get('config_files')}; self-teardown guard: "
            f"{server.get('self_teardown_guard')}."
        )
    if server.get("departures"):
        lines.append(
            "tmuxmcp started this server, but before it bound to it another client had "
            f"changed it: {'; '.join(server['departures'])}; so its provenance is unknown."
        )
    lines.append(claims_sentence(claims))
    lines.append(f"Toolsets on: {', '.join(surface.get('toolsets', [])) or 'none'}.")
    for off in surface.get("toolsets_off", []):
        lines.append(f"The {off['toolset']} toolset is off: {off['reason']}. {off['enable']}.")
    if surface.get("excluded_tools"):
        lines.append(f"Excluded by the operator: {', '.join(surface['excluded_tools'])}.")
    tools = surface.get("tools", [])
    if tools and isinstance(tools[0], dict):
        lines.append(f"Tools ({len(tools)}), with declared properties and annotations:")
        lines.extend(_tool_line(tool) for tool in tools)
    else:
        lines.append(f"Tools ({len(tools)}): {', '.join(tools)}.")
    lines.append(
        f"Narrow annotations allowed: {_yes(evidence.get('narrow_hints_allowed'))}"
        + (f" (withdrawn: {evidence['withdrawn']})" if evidence.get("withdrawn") else "")
        + "."
    )
    lines.extend(info.get("notices", []))
    return lines


def claims_sentence(claims: dict[str, Any]) -> str:
    """What the sink-claims status says, as one sentence (issue 31.4).

    Two facts kept apart, as the structured form keeps them: whether CI proves
    the claims on this tmux version (``proven_in_ci``), and whether
    ``tmuxmcp verify`` passed for this very binary (``verified``). A version CI
    proves is not called plainly "not verified": that read as a contradiction
    of the README, which says CI proves it.
    """
    version = claims.get("tmux_version")
    why = f" ({claims['reason']})" if claims.get("reason") else ""
    how = f"; to verify: {claims['how_to_verify']}" if claims.get("how_to_verify") else ""
    ci = "proven in CI" if claims.get("proven_in_ci") else "not proven in CI"
    if claims.get("verified"):
        here = "verified on this machine"
    elif claims.get("failed"):
        here = "not verified on this machine"
    else:
        here = "not verified on this machine yet"
    return f"Sink claims for tmux {version}: {ci}; {here}{why}{how}."


def _tool_line(tool: dict[str, Any]) -> str:
    hints = ", ".join(f"{k}={_yes(v)}" for k, v in tool.get("annotations", {}).items())
    nested = tool.get("nested_operations") or []
    return (
        f"- {tool['name']}: toolset {tool['toolset']}, reach {tool['process_reach']}, effect "
        f"{'+'.join(tool['tmux_effect'])}, outputs {', '.join(tool['output_classes'])}; "
        f"untrusted content: {_yes(tool['returns_untrusted_content'])}, may expose secrets: "
        f"{_yes(tool['may_expose_secrets'])}"
        + (f"; nested: {', '.join(nested)}" if nested else "")
        + (f"; annotations {hints}" if hints else "")
    )


def changed_configuration_report(ctx: ToolContext, reason: str) -> dict[str, Any]:
    """The published surface after the per-call check refused a call (CM-4).

    The annotations published at startup rested on evidence that no longer
    holds; they are withdrawn here and every call is refused until restart.
    """
    evidence = {
        **ctx.published.get("annotation_evidence", {}),
        "narrow_hints_allowed": False,
        "withdrawn": reason,
    }
    return {**ctx.published, "annotation_evidence": evidence}


def lost_server_report(ctx: ToolContext, state: str) -> dict[str, Any]:
    """The published surface after the bound server is gone or replaced (CM-1).

    Provenance was decided for the bound server only; whatever answers on the
    socket now has none that tmuxmcp knows, so none is claimed, and the
    annotation evidence that rested on it is withdrawn.
    """
    bound = ctx.facts.identity
    server = {
        "state": state,
        "provenance": None,
        "bound_pid": bound.pid,
        "bound_start_time": bound.start_time,
        "note": (
            f"the tmux server tmuxmcp bound to at startup (pid {bound.pid}) is {state}; "
            "no provenance is claimed for any server on the socket now and no call runs "
            "there; restart tmuxmcp to bind again"
        ),
        "tmux_binary": ctx.published["server"].get("tmux_binary"),
    }
    evidence = {
        **ctx.published.get("annotation_evidence", {}),
        "minimal_provenance": False,
        "narrow_hints_allowed": False,
    }
    return {**ctx.published, "server": server, "annotation_evidence": evidence}
