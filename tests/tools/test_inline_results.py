"""Results a client keeps inline: facts before bulk, and a default budget.

Issue 18 item 2. Claude Code keeps a tool result of up to about 50,000
characters of JSON in the model's view and shows only the first 2,000 of a
longer one. So a default ``run_command`` result is at most 40,000 characters
of structured JSON whatever its output holds, and every structured result
puts its status, truncation and counts before its bulk (``output``, ``text``,
``lines``, ``matches``, ``sessions``). The JSON is measured as a client
serialises the structuredContent it received: compact, non-ASCII kept as is.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import trio
from mcp import ClientSession

from tests.support import PrivateTmux, serve, structured

INLINE_LIMIT = 40_000

# Each prints 30,000 lines or more; the second is all JSON escapes (each
# character written as two), the third wide characters (three UTF-8 bytes each).
_LONG_OUTPUTS = [
    "seq 1 30000",
    'awk \'BEGIN { for (i = 0; i < 30000; i++) print "\\\\\\"\\\\\\"\\\\\\"\\\\\\"" }\'',
    "awk 'BEGIN { for (i = 0; i < 3000; i++) print \"日本語のテキスト日本語のテキスト\" }'",
]


def _json(content: dict[str, Any]) -> str:
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"))


def _before(text: str, facts: list[str], bulk: str) -> None:
    """Every fact key appears in ``text`` before the bulk key."""
    bulk_at = text.index(f'"{bulk}":')
    for fact in facts:
        assert text.index(f'"{fact}":') < bulk_at, (fact, bulk)


async def _at_prompt(tmux: PrivateTmux, pane: str) -> None:
    with trio.fail_after(10):
        while tmux.bare("display-message", "-p", "-t", pane, "#{cursor_x}").stdout.strip() in (
            "",
            "0",
        ):
            await trio.sleep(0.02)


async def _run(session: ClientSession, pane: str, command: str) -> dict[str, Any]:
    return structured(
        await session.call_tool(
            "run_command", {"pane_id": pane, "command": command, "timeout": 120}
        )
    )


@pytest.mark.parametrize("command", _LONG_OUTPUTS)
async def test_default_run_command_result_stays_inline(
    private_tmux: PrivateTmux, command: str
) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("long")["pane_id"]
        await _at_prompt(private_tmux, pane)
        done = await _run(session, pane, command)
        text = _json(done)
        assert done["completed"] is True
        assert done["output_truncated"] is True
        assert len(text) <= INLINE_LIMIT
        _before(
            text,
            ["completed", "exit_status", "output_lines", "output_truncated", "lines_omitted"],
            "output",
        )
        # The marker sits between the kept head and tail.
        head, _, tail = done["output"].partition("lines omitted")
        assert head and tail


async def test_larger_budget_on_request(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("more")["pane_id"]
        await _at_prompt(private_tmux, pane)
        done = structured(
            await session.call_tool(
                "run_command",
                {
                    "pane_id": pane,
                    "command": "seq 1 30000",
                    "timeout": 120,
                    "max_output_bytes": 1024 * 1024,
                },
            )
        )
        assert done["output"].split("\n") == [str(n) for n in range(1, 30001)]
        assert len(_json(done)) > INLINE_LIMIT


async def test_inspect_results_put_facts_before_bulk(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("facts")["pane_id"]
        await _at_prompt(private_tmux, pane)
        await _run(session, pane, "seq 1 3000")
        capture = _json(structured(await session.call_tool("capture_pane", {"pane_id": pane})))
        _before(capture, ["lines", "captured_lines", "truncated", "truncated_by"], "text")
        search = _json(structured(await session.call_tool("search_panes", {"pattern": "1"})))
        _before(search, ["outcome", "panes_searched", "truncated", "truncated_by"], "matches")
        snapshot = _json(structured(await session.call_tool("snapshot", {})))
        _before(snapshot, ["omitted_operations", "content_truncated"], "sessions")
        first = structured(await session.call_tool("capture_since", {"pane_id": pane}))
        since = _json(
            structured(
                await session.call_tool(
                    "capture_since", {"pane_id": pane, "cursor": first["cursor"]}
                )
            )
        )
        _before(since, ["more", "gap", "lines_lost", "first_row", "cursor"], "lines")


# 1,500 rows of 79 double quotes: all the same text, and 160 characters each as JSON.
_QUOTES = '"' * 79
_PRINT_QUOTES = (
    'awk \'BEGIN { s = sprintf("%79s", ""); gsub(/ /, "\\"", s);'
    " for (i = 0; i < 1500; i++) print s }'"
)


async def _follow(
    session: ClientSession, tmux: PrivateTmux, pane: str, **args: int
) -> list[dict[str, Any]]:
    """Every capture_since result from before ``_PRINT_QUOTES`` ran until ``more`` is false."""
    await _at_prompt(tmux, pane)
    first = structured(await session.call_tool("capture_since", {"pane_id": pane}))
    done = await _run(session, pane, _PRINT_QUOTES)
    assert done["exit_status"] == 0, done
    cursor, results = first["cursor"], []
    while True:
        result = structured(
            await session.call_tool("capture_since", {"pane_id": pane, "cursor": cursor, **args})
        )
        results.append(result)
        cursor = result["cursor"]
        if not result["more"]:
            return results


def _quote_rows(results: list[dict[str, Any]]) -> int:
    return sum(line == _QUOTES for result in results for line in result["lines"])


async def test_capture_since_loses_no_row_of_identical_rows(private_tmux: PrivateTmux) -> None:
    # Read 200 at a time, every row must come back once, or a gap must say
    # that some did not. Before the fix: 200 rows, then a jump of about 1,000
    # rows with gap None and lines_lost 0, because the cursor's row was above
    # the near read and a later copy of its text matched.
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("since")["pane_id"]
        results = await _follow(session, private_tmux, pane, max_lines=200)
        assert [r["gap"] for r in results] == [None] * len(results)
        assert _quote_rows(results) == 1500


async def test_default_capture_since_stays_inline_and_loses_no_row(
    private_tmux: PrivateTmux,
) -> None:
    # The default max_lines' 1,000 rows were about 160,000 characters (issue
    # 18.2). With default arguments each result fits inline, and the rows past
    # its budget wait behind the cursor, none lost.
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("since")["pane_id"]
        results = await _follow(session, private_tmux, pane)
        assert len(results) > 1
        for result in results:
            assert len(_json(result)) <= INLINE_LIMIT
            assert result["gap"] is None
        assert _quote_rows(results) == 1500
