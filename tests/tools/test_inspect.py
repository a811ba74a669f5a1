"""The inspect toolset end to end over stdio, read back through bare tmux."""

from __future__ import annotations

import datetime
import subprocess
import sys
from unittest import mock

import trio
from hypothesis import given
from hypothesis import strategies as st

from tests.support import PrivateTmux, error_text, serve, structured
from tmuxmcp.panetext.inline import lines_cost
from tmuxmcp.tools import capture
from tmuxmcp.verify import proven_in_ci


async def test_list_tools_filter_by_id(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        a = private_tmux.new_session("alpha")
        b = private_tmux.new_session("beta")
        private_tmux.bare("split-window", "-d", "-t", b["pane_id"])
        private_tmux.bare("new-window", "-d", "-t", b["session_id"], "-n", "second")
        windows = structured(
            await session.call_tool("list_windows", {"session_id": b["session_id"]})
        )["windows"]
        assert [w["session_id"] for w in windows] == [b["session_id"]] * 2
        assert {w["name"] for w in windows} >= {"second"}
        all_windows = structured(await session.call_tool("list_windows", {}))["windows"]
        assert len(all_windows) == 3
        in_window = structured(
            await session.call_tool("list_panes", {"window_id": b["window_id"]})
        )["panes"]
        assert len(in_window) == 2
        assert {p["window_id"] for p in in_window} == {b["window_id"]}
        in_session = structured(
            await session.call_tool("list_panes", {"session_id": b["session_id"]})
        )["panes"]
        assert len(in_session) == 3
        everything = structured(await session.call_tool("list_panes", {}))["panes"]
        assert len(everything) == 4
        assert a["pane_id"] in {p["pane_id"] for p in everything}
        both = await session.call_tool(
            "list_panes", {"session_id": a["session_id"], "window_id": a["window_id"]}
        )
        assert "not both" in error_text(both)


async def test_list_sessions_says_when_each_session_was_created_in_utc(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 31.4: ``created`` is an RFC 3339 UTC time ("2026-12-06T07:01:02Z"), typed
    ``date-time`` in the output schema, not epoch seconds; the same instant tmux
    reports, in the structured result and the text form alike."""
    ids = private_tmux.new_session("dated")
    epoch = int(
        private_tmux.bare(
            "display-message", "-p", "-t", ids["pane_id"], "#{session_created}"
        ).stdout
    )
    expected = datetime.datetime.fromtimestamp(epoch, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    async with serve(private_tmux) as session:
        listed = await session.list_tools()
        result = await session.call_tool("list_sessions", {})
    (tool,) = [t for t in listed.tools if t.name == "list_sessions"]
    assert tool.output_schema is not None
    created_schema = tool.output_schema["$defs"]["SessionInfo"]["properties"]["created"]
    assert created_schema == {"type": "string", "format": "date-time"}
    (entry,) = structured(result)["sessions"]
    assert entry["created"] == expected
    text = " ".join(getattr(block, "text", "") for block in result.content)
    assert f"created={expected}" in text


async def test_pane_info_matches_bare_tmux_even_with_a_hostile_title(
    private_tmux: PrivateTmux,
) -> None:
    """Titles are set by pane programs (untrusted); framing must survive them."""
    async with serve(private_tmux) as session:
        ids = private_tmux.new_session("t")
        pane = ids["pane_id"]
        title = "evil\x1e\x1f\x1d title #{pane_id} ;"
        private_tmux.bare("select-pane", "-t", pane, "-T", title.replace("#", "##"))
        expected = private_tmux.bare("display-message", "-p", "-t", pane, "#{pane_title}")
        info = structured(await session.call_tool("list_panes", {"pane_id": pane}))["panes"][0]
        assert info["pane_id"] == pane
        assert info["title"] == expected.stdout.rstrip("\n")
        assert info["width"] == 80
        assert info["height"] == 24
        assert info["pid"] == int(
            private_tmux.bare("display-message", "-p", "-t", pane, "#{pane_pid}").stdout
        )


async def test_capture_visible_screen_and_ranges(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("c")["pane_id"]
        private_tmux.bare("send-keys", "-t", pane, "clear; seq 1 60", "Enter")
        await private_tmux.wait_for_screen(pane, "\n60\n")
        visible = structured(await session.call_tool("capture_pane", {"pane_id": pane}))
        bare = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout
        assert visible["text"] == bare.rstrip()
        assert visible["lines"] == len(bare.rstrip().split("\n"))
        assert visible["truncated"] is False
        history = structured(
            await session.call_tool("capture_pane", {"pane_id": pane, "start": -30, "end": -1})
        )
        bare_history = private_tmux.bare(
            "capture-pane", "-p", "-t", pane, "-S", "-30", "-E", "-1"
        ).stdout
        assert history["text"] == bare_history.removesuffix("\n")
        assert history["lines"] == 30
        limited = structured(
            await session.call_tool(
                "capture_pane", {"pane_id": pane, "start": -30, "end": -1, "max_lines": 5}
            )
        )
        assert limited["truncated"] is True
        assert limited["truncated_by"] == "max_lines"
        assert limited["text"].split("\n") == bare_history.split("\n")[-6:-1]
        assert limited["captured_lines"] == 30
        backwards = await session.call_tool("capture_pane", {"pane_id": pane, "start": 5, "end": 2})
        assert "start must not be greater than end" in error_text(backwards)


async def test_capture_escapes_and_joined_lines(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("e")["pane_id"]
        private_tmux.bare(
            "send-keys",
            "-t",
            pane,
            "clear; printf '\\033[31mRED\\033[0m\\n'; printf 'x%.0s' $(seq 1 120); echo",
            "Enter",
        )
        await private_tmux.wait_for_screen(pane, "RED\n")
        plain = structured(await session.call_tool("capture_pane", {"pane_id": pane}))["text"]
        assert "\x1b[" not in plain
        coloured = structured(
            await session.call_tool("capture_pane", {"pane_id": pane, "include_escapes": True})
        )["text"]
        assert "\x1b[31mRED" in coloured
        joined = structured(
            await session.call_tool("capture_pane", {"pane_id": pane, "join_wrapped": True})
        )["text"]
        assert "x" * 120 in joined
        assert "x" * 120 not in plain


async def test_capture_is_capped_in_bytes(private_tmux: PrivateTmux) -> None:
    from tmuxmcp.tools.capture import MAX_CAPTURE_BYTES

    async with serve(private_tmux) as session:
        private_tmux.bare("set-option", "-g", "history-limit", "30000")
        pane = private_tmux.new_session("big")["pane_id"]
        private_tmux.bare(
            "send-keys", "-t", pane, "clear; seq -f '%0100g' 1 12000; echo DO''NE", "Enter"
        )
        await private_tmux.wait_for_screen(pane, "\nDONE\n")
        result = structured(
            await session.call_tool(
                "capture_pane",
                {
                    "pane_id": pane,
                    "start": -30000,
                    "max_lines": 100_000,
                    "max_chars": MAX_CAPTURE_BYTES,
                },
            )
        )
        assert result["truncated"] is True
        assert result["truncated_by"] == "max_chars"
        assert len(result["text"].encode()) + 1 <= MAX_CAPTURE_BYTES
        kept = result["text"].split("\n")
        assert result["lines"] == len(kept) < result["captured_lines"]
        # 100-digit lines wrap at 80 columns; their second rows end in the number.
        assert "0" * 15 + "12000" in kept, "the cap keeps the last lines"
        assert "0" * 19 + "1" not in kept, "the cap drops the first lines"


async def test_server_info_publishes_socket_provenance_and_surface(
    private_tmux: PrivateTmux,
) -> None:
    """CM-7: the effective surface and selected socket are published."""
    async with serve(private_tmux, "--exclude-tools", "list_windows") as session:
        info = structured(await session.call_tool("server_info", {}))
        listed = {t.name for t in (await session.list_tools()).tools}
        # Read while tmuxmcp serves: at its exit it ends the empty server it started.
        pid = int(private_tmux.server_pid())
        version = private_tmux.bare("-V", check=False).stdout
    assert info["server_state"] == "bound"
    body = info["info"]
    assert body["socket"]["value"] == "tmuxmcp"
    assert body["socket"]["dedicated_default"] is True
    assert body["server"]["provenance"] == "minimal"
    assert body["server"]["created_by_tmuxmcp"] is True
    assert body["server"]["pid"] == pid
    assert body["server"]["tmux_version"] in version + "3.3a"
    assert set(body["surface"]["tools"]) == listed
    assert body["surface"]["excluded_tools"] == ["list_windows"]
    assert any("not a sandbox" in notice for notice in body["notices"])


def _captured_by_walking_lines(raw: str, max_lines: int | None) -> tuple[str, int, int, str | None]:
    """The capture rules as first written: split, cap, join. The fast path must agree."""
    lines = raw.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    kept, by = capture._cap(lines, max_lines)
    return "\n".join(kept), len(kept), len(lines), by


@given(
    st.text(st.sampled_from(["\n", "\r", "a", " ", "é", "☺", "😀", "\ufffd"]), max_size=60),
    st.one_of(st.none(), st.integers(1, 12)),
    st.integers(1, 80),
)
def test_capture_fast_path_agrees_with_walking_every_line(
    raw: str, max_lines: int | None, cap: int
) -> None:
    """Same text, counts and truncation for any output, line limit and byte cap."""
    with mock.patch.object(capture, "MAX_CAPTURE_BYTES", cap):
        assert capture._captured(raw, max_lines) == _captured_by_walking_lines(raw, max_lines)


def test_capture_just_under_and_at_the_byte_cap() -> None:
    cap = capture.MAX_CAPTURE_BYTES
    under = "x" * (cap - 2) + "\n"  # one line whose JSON string is cap characters
    assert capture._captured(under, None) == ("x" * (cap - 2), 1, 1, None)
    over = "y\n" + "x" * (cap - 2) + "\n"  # the last line alone fills the cap as JSON
    assert capture._captured(over, None) == ("x" * (cap - 2), 1, 2, "max_chars")


def test_a_line_longer_than_the_budget_is_cut_and_counted_once() -> None:
    """inline Rule 4: a line no range could return whole keeps its start and its end
    (the marker between) in what the lines after it leave, as one line of the count."""
    kept, by = capture._cap(["before", "x" * 5000, "end"], None, 1000)
    assert by == "max_chars"
    assert len(kept) == 2 and kept[1] == "end"
    start, marker, end = kept[0].split("\n")
    assert marker.endswith(" of this line's 5,000 characters cut ...]")
    assert start and end and set(start + end) == {"x"}
    assert lines_cost(kept) <= 1000


def test_a_line_that_fits_the_budget_alone_is_dropped_whole_not_cut() -> None:
    # "b" * 900 fits 1,000 alone: a narrower range returns it whole, so it is not cut.
    assert capture._cap(["b" * 900, "c" * 200], None, 1000) == (["c" * 200], "max_chars")
    # Under CUT_ROOM left after the lines below it: the long line is left out.
    assert capture._cap(["a" * 5000, "c" * 900], None, 1000) == (["c" * 900], "max_chars")


async def test_server_info_reports_whether_the_sink_claims_were_verified(
    private_tmux: PrivateTmux, tmp_path: object
) -> None:
    """Issue 6: server_info says whether `tmuxmcp verify` passed for this tmux."""
    private_tmux.env["XDG_CACHE_HOME"] = str(tmp_path)
    async with serve(private_tmux) as session:
        before = structured(await session.call_tool("server_info", {}))["sink_claims"]
        assert before["verified"] is False
        assert before["tmux_version"] in private_tmux.bare("-V", check=False).stdout
        done = subprocess.run(
            [sys.executable, "-m", "tmuxmcp", "verify"],
            env=private_tmux.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        after = structured(await session.call_tool("server_info", {}))["sink_claims"]
    assert after["verified"] is True
    # Strictness NOTEs (name-rule-needed on 3.5a and 3.6) keep the claims
    # verified and are reported: the same slugs verify printed, none invented.
    noted = [
        line.split()[1].rstrip(":") for line in done.stdout.splitlines() if line.startswith("NOTE ")
    ]
    assert [note.split(":")[0] for note in after["notes"]] == sorted(noted)
    assert after["proven_in_ci"] is proven_in_ci(before["tmux_version"])


async def test_a_megabyte_title_from_a_pane_program_is_cut_in_every_listing(
    private_tmux: PrivateTmux,
) -> None:
    """A pane program sets a 300,000-character title with one escape sequence; another
    client of the socket names a window and a buffer at length. Every listing carried
    them whole, twice (list_panes answered 600 KB for one pane): now each is cut to its
    type's declared maxLength, ending in an ellipsis, in the text form too."""
    long = 300_000
    pane = private_tmux.new_session("long")["pane_id"]
    private_tmux.bare(
        "send-keys", "-t", pane, "-l",
        f"printf '\\033]2;%s\\033\\\\' \"$(head -c {long} /dev/zero | tr '\\0' T)\"\n",
    )  # fmt: skip
    private_tmux.bare("rename-window", "-t", pane, "W" * 5000)
    private_tmux.bare("set-buffer", "-b", "B" * 5000, "--", "content")

    def title() -> str:
        return private_tmux.bare("display-message", "-p", "-t", pane, "#{pane_title}").stdout

    with trio.fail_after(20):  # the pane's sh runs the printf
        while len(title().strip()) < long:
            await trio.sleep(0.02)
    assert len(title().strip()) == long, "the pane set another title"
    async with serve(private_tmux) as session:
        for tool, args in [
            ("list_panes", {}),
            ("list_panes", {"pane_id": pane}),
            ("list_windows", {}),
            ("list_buffers", {}),
            ("snapshot", {}),
        ]:
            result = await session.call_tool(tool, args)
            assert not result.is_error, error_text(result)
            body = structured(result)
            found = [v for v in _strings(body) if v.startswith(("TTT", "WWW", "BBB"))]
            assert found, f"{tool}: no long value in {str(body)[:200]}"
            for value in found:
                assert len(value) <= 1024 and value.endswith("\u2026"), (tool, len(value))
            text = "".join(getattr(c, "text", "") for c in result.content)
            assert "T" * 1100 not in text and "W" * 1100 not in text, tool
            assert len(text) < 20_000, (tool, len(text))


def _strings(value: object) -> list[str]:
    """Every string anywhere in a decoded JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []
