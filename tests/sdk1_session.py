"""One session of the official SDK 1.x client with tmuxmcp; run by the SDK 1.x interpreter.

``tests/test_sdk1_client.py`` runs this file with the Python of a virtual
environment that holds ``mcp`` 1.x (``.ci/sdk1``, made by ``.ci/run``): the
1.x and 2.x SDKs cannot share one environment, and clients built on 1.x
(mcp-tmux among them) are still what many users run. It imports only the
standard library and that SDK, never ``tests`` or ``tmuxmcp``, and it is
written so that it reads the same under both SDKs' type stubs (results are
read through ``model_dump``, errors through ``getattr``).

Its one argument is a JSON object: the server's ``command``, ``args`` and
``env``, and the ``pane`` to use. It prints one JSON object, what the client
saw at each step, for the test to judge; the SDK 1.x client validates every
result with its own models on the way and raises if one does not fit.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def _dumped(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def _refusal(session: ClientSession, name: str) -> dict[str, Any]:
    """The protocol error a call of ``name`` gets, as the client reports it."""
    try:
        result = await session.call_tool(name, {})
    except Exception as error:  # McpError in 1.x, MCPError in 2.x
        data = getattr(error, "error", None)
        return {"raised": type(error).__name__, "error": _dumped(data) if data else None}
    return {"raised": None, "result": _dumped(result)}


async def session_report(config: dict[str, Any]) -> dict[str, Any]:
    params = StdioServerParameters(
        command=config["command"], args=config["args"], env=config["env"]
    )
    pane = config["pane"]
    report: dict[str, Any] = {"sdk": version("mcp")}
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        report["initialize"] = _dumped(await session.initialize())
        report["tools"] = [tool.name for tool in (await session.list_tools()).tools]
        report["list_panes"] = _dumped(await session.call_tool("list_panes", {}))
        report["run_command"] = _dumped(
            await session.call_tool("run_command", {"pane_id": pane, "command": "echo hi"})
        )
        report["error_result"] = _dumped(await session.call_tool("capture_pane", {"pane_id": "x"}))
        report["unknown_tool"] = await _refusal(session, "no_such_tool")
        resources = _dumped(await session.list_resources())
        report["resources"] = [r["uri"] for r in resources["resources"]]
        uri = f"tmux://pane/{pane.removeprefix('%')}"
        report["read"] = _dumped(await session.read_resource(uri))  # a str: 1.x converts it
        report["ping"] = _dumped(await session.send_ping())
    return report


def main() -> None:
    config = json.loads(sys.argv[1])
    report = anyio.run(session_report, config)
    sys.stdout.write(json.dumps(report) + "\n")


if __name__ == "__main__":
    main()
