"""What the text copy of a tool result costs: bytes on the wire and encoding time.

A benchmark, not a test: it prints what it measured and exits 0. A
``tools/call`` result carries the tool's result twice, as
``structuredContent`` and as the text of its content block (issue 19.3: the
spec asks for the text, and clients without structured output read it).
Here one real result, ``capture_pane`` of 10,000 lines of a private tmux
pane (``benchlib.fill_pane``), is turned into a response line three ways,
in this process, timed over ``--iterations`` rounds that run the three in a
rotating order (after 10 rounds of warm-up), so they share the moments of
load (median µs):

* ``both``: what the server sends, ``server.tool_result`` plus the
  response's encoding (the JSON is encoded once; the text is those bytes
  as a JSON string);
* ``structured only``: the same response without the text block;
* ``sdk path``: the pre-issue-19 path, for comparison: ``to_builtins``, the
  SDK's pydantic ``CallToolResult``, its dump, the SDK server's schema
  sieve, then msgspec.

    python bench/bench_encode.py --lines 10000 --iterations 200
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence

import msgspec
import trio
from benchlib import bench_tmux, fill_pane, loadavg, rotated

from tmuxmcp import runtime, server
from tmuxmcp.config import Options, load
from tmuxmcp.protocol.messages import Response, encode
from tmuxmcp.protocol.results import CallToolResult
from tmuxmcp.tools.capture import MAX_CAPTURE_BYTES


def _medians_us(cases: dict[str, Callable[[], object]], iterations: int) -> dict[str, float]:
    """Median µs of each case, run in a rotating order so that they share the load."""
    names = list(cases)
    times: dict[str, list[float]] = {name: [] for name in names}
    for index in range(iterations + 10):  # the first 10 rounds warm up
        for name in rotated(names, index):
            began = time.perf_counter()
            cases[name]()
            if index >= 10:
                times[name].append(time.perf_counter() - began)
    return {name: statistics.median(times[name]) * 1e6 for name in names}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--iterations", type=int, default=200)
    ns = parser.parse_args(argv)
    with bench_tmux("tme") as tmux:
        ids = fill_pane(tmux, ns.lines, 200, 50)

        async def capture() -> msgspec.Struct:
            state = await runtime.start(load(Options(), tmux.env))
            spec = server.BY_NAME["capture_pane"]
            arguments = {
                "pane_id": ids["pane_id"],
                "start": -ns.lines,
                "max_lines": ns.lines + 50,
                "max_chars": MAX_CAPTURE_BYTES,  # the default keeps 36,000 characters
            }
            args = server.encode_arguments(
                server.decode_arguments("capture_pane", spec.args, arguments)
            )
            return await spec.handler(state.context, args)

        result = trio.run(capture)
    rows = msgspec.to_builtins(result).get("captured_lines")

    def both() -> bytes:
        return encode(Response(1, server.tool_result(result)))

    def structured_only() -> bytes:
        made = server.tool_result(result)
        return encode(Response(1, msgspec.structs.replace(made, content=[])))

    from mcp_types import CallToolResult as SdkResult
    from mcp_types import TextContent as SdkText
    from mcp_types import methods as sdk_methods

    def sdk_path() -> bytes:
        text = server.tool_result(result).content[0].text  # the same text form
        made = SdkResult(
            content=[SdkText(type="text", text=text)],
            structured_content=msgspec.to_builtins(result),
        )
        dumped = made.model_dump(by_alias=True, mode="json", exclude_none=True)
        sieved = sdk_methods.serialize_server_result("tools/call", "2025-11-25", dumped)
        return msgspec.json.encode({"jsonrpc": "2.0", "id": 1, "result": sieved})

    assert isinstance(server.tool_result(result), CallToolResult)
    cases = {"both": both, "structured only": structured_only, "sdk path": sdk_path}
    sizes = {name: len(work()) for name, work in cases.items()}
    medians = _medians_us(cases, ns.iterations)
    print(f"capture_pane of {ns.lines} lines ({rows} rows returned), load average {loadavg()}")
    print(f"{'response':<18} {'bytes':>10} {'median µs':>10}")
    for name in cases:
        print(f"{name:<18} {sizes[name]:>10} {medians[name]:>10.0f}")
    print(
        f"text copy: {sizes['both'] - sizes['structured only']} bytes, "
        f"{medians['both'] - medians['structured only']:.0f} µs"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
