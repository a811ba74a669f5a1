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

import msgspec
import msgspec.inspect
import pytest
import trio
from mcp import ClientSession

from tests.support import PrivateTmux, serve, structured
from tmuxmcp import server
from tmuxmcp.definition import BY_NAME

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


async def _run(session: ClientSession, pane: str, command: str, **more: float) -> dict[str, Any]:
    """``run_command``'s result for ``command``: a timeout of 120 s unless ``more`` says
    otherwise, and any other arguments ``more`` gives."""
    return structured(
        await session.call_tool(
            "run_command", {"pane_id": pane, "command": command, "timeout": 120, **more}
        )
    )


async def _read_on(
    session: ClientSession, pane: str, cursor: str, **args: int
) -> list[dict[str, Any]]:
    """Every capture_since result from ``cursor`` on, until one says ``more`` is false."""
    results: list[dict[str, Any]] = []
    while not results or results[-1]["more"]:
        got = structured(
            await session.call_tool("capture_since", {"pane_id": pane, "cursor": cursor, **args})
        )
        results.append(got)
        cursor = got["cursor"]
    return results


@pytest.mark.parametrize("command", _LONG_OUTPUTS)
async def test_default_run_command_result_stays_inline(
    private_tmux: PrivateTmux, command: str
) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("long")["pane_id"]
        await private_tmux.wait_for_prompt(pane)
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
        await private_tmux.wait_for_prompt(pane)
        done = await _run(session, pane, "seq 1 30000", max_output_bytes=1024 * 1024)
        assert done["output"].split("\n") == [str(n) for n in range(1, 30001)]
        assert len(_json(done)) > INLINE_LIMIT


def _empty(kind: msgspec.inspect.Type) -> Any:
    """The least value of a declared type: None where it may be, else empty or zero."""
    mi = msgspec.inspect
    if isinstance(kind, mi.UnionType):
        if any(isinstance(t, mi.NoneType) for t in kind.types):
            return None
        return _empty(kind.types[0])
    if isinstance(kind, mi.StructType):
        return kind.cls(**{field.name: _empty(field.type) for field in kind.fields})
    if isinstance(kind, (mi.LiteralType, mi.EnumType)):
        return next(iter(kind.values if isinstance(kind, mi.LiteralType) else kind.cls))
    if isinstance(kind, mi.Metadata):
        return _empty(kind.type)
    empty = {mi.StrType: "", mi.IntType: 0, mi.FloatType: 0.0, mi.BoolType: False}
    if isinstance(kind, (mi.ListType, mi.VarTupleType)):
        return [] if isinstance(kind, mi.ListType) else ()
    return empty[type(kind)]


@pytest.mark.parametrize(
    ("tool", "facts", "bulk"),
    [
        ("capture_pane", ["lines", "captured_lines", "truncated", "truncated_by"], "text"),
        ("search_panes", ["outcome", "panes_searched", "truncated", "truncated_by"], "matches"),
        ("snapshot", ["omitted_operations", "content_truncated"], "sessions"),
        ("capture_since", ["more", "gap", "lines_lost", "first_row", "cursor"], "lines"),
    ],
)
def test_inspect_results_put_facts_before_bulk(tool: str, facts: list[str], bulk: str) -> None:
    """The order is the result Struct's and the one encoder's (``server.tool_result``),
    whatever a pane holds, so the result as a client receives it is built from the
    declared type with every field set, and no tmux is needed (issue 30.2: this read
    a real pane's capture, search, snapshot and capture_since for the same order)."""
    result = BY_NAME[tool].result
    sent = server.tool_result(_empty(msgspec.inspect.type_info(result))).structured_content
    assert isinstance(sent, msgspec.Raw)
    _before(_json(json.loads(bytes(sent))), facts, bulk)


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
    await tmux.wait_for_prompt(pane)
    first = structured(await session.call_tool("capture_since", {"pane_id": pane}))
    done = await _run(session, pane, _PRINT_QUOTES)
    assert done["exit_status"] == 0, done
    return await _read_on(session, pane, first["cursor"], **args)


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


# -- the inspect tools: default budgets counted as JSON (issue 18.2) ------------------

MIB = 1024 * 1024


def _big_pane(tmux: PrivateTmux, name: str, columns: int, rows: int) -> str:
    """A pane of ``columns`` x ``rows`` running sh; its id."""
    size = ["-x", str(columns), "-y", str(rows)]
    pane = tmux.new_session(name, "tmuxmcp", *size, "sh")["pane_id"]
    tmux.bare("resize-window", "-t", pane, *size)
    return pane


async def _fill(tmux: PrivateTmux, pane: str, char: str, count: int, width: int) -> None:
    """``clear``, then ``count`` rows of ``width`` copies of ``char``, then DONE."""
    rows = f'awk \'BEGIN {{ for (i = 0; i < {count}; i++) printf "%{width}s\\n", "" }}\''
    tmux.bare("send-keys", "-t", pane, f"clear; {rows} | tr ' ' '{char}'; echo DO''NE", "Enter")
    await tmux.wait_for_screen(pane, "\nDONE\n")


# Rows that double when escaped: every character of them is two in JSON.
_ESCAPED = ['"', "\\"]


async def _escaping_screen(tmux: PrivateTmux, char: str) -> str:
    """A 400 x 100 screen of rows of 399 ``char``: about 80,000 characters as JSON."""
    pane = _big_pane(tmux, "escapes", 400, 100)
    await _fill(tmux, pane, char, 150, 399)
    return pane


def _screen_rows(tmux: PrivateTmux, pane: str) -> list[str]:
    rows = tmux.bare("capture-pane", "-p", "-t", pane).stdout.rstrip("\n").split("\n")
    while rows and not rows[-1].strip():
        rows.pop()
    return rows


@pytest.mark.parametrize("char", _ESCAPED)
async def test_default_capture_pane_stays_inline(private_tmux: PrivateTmux, char: str) -> None:
    """Before: the whole screen, 100 rows of 798 characters as JSON, about 80,000."""
    pane = await _escaping_screen(private_tmux, char)
    async with serve(private_tmux) as session:
        got = structured(await session.call_tool("capture_pane", {"pane_id": pane}))
    text = _json(got)
    assert len(text) <= INLINE_LIMIT
    _before(text, ["lines", "captured_lines", "truncated", "truncated_by"], "text")
    assert got["truncated"] is True
    assert got["truncated_by"] == "max_chars"
    kept = got["text"].split("\n")
    assert (
        got["lines"] == len(kept) < got["captured_lines"] == len(_screen_rows(private_tmux, pane))
    )
    assert kept == _screen_rows(private_tmux, pane)[-len(kept) :], "the last rows are kept"


async def test_capture_pane_returns_the_whole_screen_on_request(private_tmux: PrivateTmux) -> None:
    pane = await _escaping_screen(private_tmux, '"')
    async with serve(private_tmux) as session:
        got = structured(
            await session.call_tool("capture_pane", {"pane_id": pane, "max_chars": MIB})
        )
    assert got["truncated"] is False
    assert got["text"].split("\n") == _screen_rows(private_tmux, pane)
    assert len(_json(got)) > INLINE_LIMIT


@pytest.mark.parametrize("char", _ESCAPED)
async def test_default_pane_resource_stays_inline(private_tmux: PrivateTmux, char: str) -> None:
    """The resource reads the screen as capture_pane does; its text says what was cut."""
    pane = await _escaping_screen(private_tmux, char)
    async with serve(private_tmux) as session:
        read = await session.read_resource(f"tmux://pane/{pane[1:]}")
    (content,) = read.contents
    text = getattr(content, "text", "")
    assert len(json.dumps(text, ensure_ascii=False)) <= INLINE_LIMIT
    marker, _, rest = text.partition("\n")
    assert marker.startswith("[truncated by max_chars: last "), marker
    rows = rest.split("\n")
    assert rows == _screen_rows(private_tmux, pane)[-len(rows) :]


async def _wide_matches(tmux: PrivateTmux) -> str:
    """A 1,200-column pane whose 150 rows are 1,100 double quotes each: every row matches."""
    pane = _big_pane(tmux, "wide", 1200, 50)
    await _fill(tmux, pane, '"', 150, 1100)
    return pane


async def test_default_search_panes_stays_inline(private_tmux: PrivateTmux) -> None:
    """Before: 100 matches of 1,000-character rows of quotes, over 200,000 characters."""
    await _wide_matches(private_tmux)
    async with serve(private_tmux) as session:
        got = structured(await session.call_tool("search_panes", {"pattern": '"'}))
    text = _json(got)
    assert len(text) <= INLINE_LIMIT
    _before(text, ["outcome", "panes_searched", "truncated", "truncated_by"], "matches")
    assert got["truncated"] is True
    assert got["truncated_by"] == "max_chars"
    assert 0 < len(got["matches"]) < 100


async def test_search_panes_returns_every_match_on_request(private_tmux: PrivateTmux) -> None:
    await _wide_matches(private_tmux)
    async with serve(private_tmux) as session:
        got = structured(
            await session.call_tool("search_panes", {"pattern": '"', "max_chars": MIB})
        )
    assert got["truncated_by"] == "max_matches"
    assert len(got["matches"]) == 100
    assert len(_json(got)) > INLINE_LIMIT


def _panes(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for s in result["sessions"] for w in s["windows"] or [] for p in w["panes"] or []]


@pytest.mark.parametrize("char", _ESCAPED)
async def test_default_snapshot_of_a_large_screen_stays_inline(
    private_tmux: PrivateTmux, char: str
) -> None:
    """Before: the 400 x 100 screen of escapes whole, about 80,000 characters."""
    pane = await _escaping_screen(private_tmux, char)
    async with serve(private_tmux) as session:
        got = structured(await session.call_tool("snapshot", {}))
    text = _json(got)
    assert len(text) <= INLINE_LIMIT
    _before(text, ["omitted_operations", "content_truncated", "tree_truncated"], "sessions")
    assert got["content_truncated"] is True
    (listed,) = _panes(got)
    assert listed["pane_id"] == pane
    assert listed["content"] is None


SESSIONS = 250


def _many_sessions(tmux: PrivateTmux) -> None:
    """``SESSIONS`` sessions of one sh pane each, made in batches (one tmux call per 50)."""
    for batch in range(SESSIONS // 50):
        words: list[str] = []
        for n in range(50):
            words += ["new-session", "-d", "-s", f"s{batch}-{n}", "sh", ";"]
        tmux.bare(*words[:-1])


async def test_default_snapshot_of_many_sessions_stays_inline(private_tmux: PrivateTmux) -> None:
    """Before: 250 sessions, their windows and panes, about 100,000 characters."""
    _many_sessions(private_tmux)
    async with serve(private_tmux) as session:
        got = structured(await session.call_tool("snapshot", {}))
    text = _json(got)
    assert len(text) <= INLINE_LIMIT
    _before(
        text,
        ["omitted_operations", "content_truncated", "tree_truncated", "records_omitted"],
        "sessions",
    )
    assert got["tree_truncated"] is True
    windows = [w for s in got["sessions"] for w in s["windows"]]
    listed_records = len(got["sessions"]) + len(windows) + len(_panes(got))
    assert got["records_omitted"] == 3 * SESSIONS - listed_records > 0
    listed = private_tmux.bare("list-sessions", "-F", "#{session_id}").stdout.split()
    assert [s["session_id"] for s in got["sessions"]] == listed[: len(got["sessions"])]


async def test_snapshot_lists_every_pane_on_request(private_tmux: PrivateTmux) -> None:
    _many_sessions(private_tmux)
    async with serve(private_tmux) as session:
        got = structured(await session.call_tool("snapshot", {"max_chars": 4 * MIB}))
    assert got["tree_truncated"] is False
    assert got["records_omitted"] == 0
    assert len(_panes(got)) == SESSIONS
    assert all(p["content"] is not None for p in _panes(got))
    assert len(_json(got)) > INLINE_LIMIT


async def test_default_wait_for_command_result_stays_inline(private_tmux: PrivateTmux) -> None:
    """A run that outlived run_command's timeout, collected with default arguments."""
    go = f"{private_tmux.directory}/go"
    quotes = _LONG_OUTPUTS[1]
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("later")["pane_id"]
        await private_tmux.wait_for_prompt(pane)
        started = await _run(
            session, pane, f"while [ ! -e {go} ]; do sleep 0.05; done; {quotes}", timeout=0.5
        )
        assert started["completed"] is False
        open(go, "w").close()
        done = structured(
            await session.call_tool(
                "wait_for_command",
                {"pane_id": pane, "run_id": started["run_id"], "timeout": 120},
            )
        )
    text = _json(done)
    assert done["completed"] is True
    assert done["output_truncated"] is True
    assert len(text) <= INLINE_LIMIT
    _before(text, ["completed", "output_lines", "output_truncated", "lines_omitted"], "output")


async def test_capture_since_counts_its_partial_row(private_tmux: PrivateTmux) -> None:
    """Before: five rows of 3,000 quotes filled max_chars (30,010 characters) and the
    cursor's row (4,990 quotes, 9,982 as JSON) came on top, over 40,000 in all. Now
    the partial row is counted after the lines; left out, it comes once caught up."""
    pane = _big_pane(private_tmux, "partial", 5000, 40)
    async with serve(private_tmux) as session:
        await private_tmux.wait_for_prompt(pane)
        first = structured(await session.call_tool("capture_since", {"pane_id": pane}))
        rows = 'awk \'BEGIN { for (i = 0; i < 12; i++) printf "%3000s\\n", "" }\''
        partial = 'awk \'BEGIN { printf "%4990s", "" }\''
        # Twelve rows, then one left open: cat holds the cursor after it.
        command = f"{rows} | tr ' ' '\"'; {partial} | tr ' ' '\"'; cat"
        private_tmux.bare("send-keys", "-t", pane, command, "Enter")
        await private_tmux.wait_for_screen(pane, '"' * 4990)
        with trio.fail_after(10):
            while private_tmux.pane_command(pane) != "cat":
                await trio.sleep(0.02)
        results = await _read_on(session, pane, first["cursor"])
    for got in results:
        assert len(_json(got)) <= INLINE_LIMIT
        assert got["gap"] is None
    assert results[0]["more"] is True
    assert results[0]["partial_omitted"] is True
    assert results[0]["partial"] == ""
    assert results[-1]["partial_omitted"] is False
    assert results[-1]["partial"] == '"' * 4990
    assert sum(line == '"' * 3000 for got in results for line in got["lines"]) == 12


async def test_capture_since_on_a_wide_pane_resumes_after_a_far_window(
    private_tmux: PrivateTmux,
) -> None:
    """Before: an internal error. On a 5,000-column pane a result holds 8 full rows, so
    a cursor 200 rows up is found in a far window; when the rows returned reached that
    window's end, the next cursor was marked in the screen's rows, which do not hold the
    two rows above it (``mark_at``: ValueError)."""
    pane = _big_pane(private_tmux, "far", 5000, 40)
    async with serve(private_tmux) as session:
        await private_tmux.wait_for_prompt(pane)
        first = structured(await session.call_tool("capture_since", {"pane_id": pane}))
        command = "awk 'BEGIN { for (i = 0; i < 200; i++) print \"row\" i }'; echo DO''NE"
        private_tmux.bare("send-keys", "-t", pane, command, "Enter")
        await private_tmux.wait_for_screen(pane, "\nDONE\n")
        results = await _read_on(session, pane, first["cursor"])
    assert [r["gap"] for r in results] == [None] * len(results)
    rows = [line for got in results for line in got["lines"] if line.startswith("row")]
    assert rows == [f"row{i}" for i in range(200)]
