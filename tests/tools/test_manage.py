"""The manage toolset end to end over stdio, read back through bare tmux."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.raw_client import RawClient
from tests.support import PrivateTmux, error_text, serve, structured, temporary_tmux

# Characters that tmux's format, argv and target layers treat specially.
DANGEROUS = "#{}()[],%;:.'\"-=~!^@&*?|<> `"
UNICODE = "é☺日😀\u0301\u200b"


def _read(tmux: PrivateTmux, *args: str) -> str:
    return tmux.bare(*args).stdout.rstrip("\n")


async def test_create_session_window_and_split(private_tmux: PrivateTmux, tmp_path: object) -> None:
    directory = os.path.realpath(str(tmp_path))
    async with serve(private_tmux) as session:
        created = structured(
            await session.call_tool(
                "create_session",
                {"name": "w#{pane_id}", "start_directory": directory, "width": 100, "height": 30},
            )
        )
        sid, pid = created["session_id"], created["pane_id"]
        assert created["session_name"] == "w#{pane_id}"
        assert _read(private_tmux, "list-sessions", "-F", "#{session_id}=#{session_name}") == (
            f"{sid}=w#{{pane_id}}"
        )
        assert (
            _read(private_tmux, "display-message", "-p", "-t", pid, "#{pane_width}x#{pane_height}")
            == "100x30"
        )
        window = structured(
            await session.call_tool("create_window", {"session_id": sid, "name": "logs;"})
        )
        assert window["session_id"] == sid
        assert window["window_name"] == "logs;"
        assert (
            _read(
                private_tmux, "display-message", "-p", "-t", window["window_id"], "#{window_name}"
            )
            == "logs;"
        )
        split = structured(
            await session.call_tool(
                "split_pane",
                {
                    "pane_id": pid,
                    "direction": "horizontal",
                    "size_percent": 30,
                    "start_directory": directory,
                },
            )
        )
        assert split["window_id"] == created["window_id"]
        layout = _read(
            private_tmux, "list-panes", "-t", pid, "-F", "#{pane_id} #{pane_left} #{pane_width}"
        )
        rows = {line.split()[0]: line.split()[1:] for line in layout.splitlines()}
        assert int(rows[split["pane_id"]][0]) > int(rows[pid][0]), "horizontal puts the pane right"
        assert (
            _read(
                private_tmux,
                "display-message",
                "-p",
                "-t",
                split["pane_id"],
                "#{pane_current_path}",
            )
            == directory
        )
        both = await session.call_tool(
            "split_pane", {"pane_id": pid, "size_cells": 5, "size_percent": 5}
        )
        assert "not both" in error_text(both)


async def test_rename_and_title_round_trip_hostile_text(private_tmux: PrivateTmux) -> None:
    sentinel = os.path.join(private_tmux.directory, "ran")
    hostile = f"#(touch {sentinel})#{{session_name}}##[x];%H"
    async with serve(private_tmux) as session:
        ids = private_tmux.new_session("base")
        named = structured(
            await session.call_tool("rename", {"window_id": ids["window_id"], "name": hostile})
        )
        assert named == {"id": ids["window_id"], "name": hostile}
        assert (
            _read(private_tmux, "display-message", "-p", "-t", ids["window_id"], "#{window_name}")
            == hostile
        )
        titled = structured(
            await session.call_tool("set_pane_title", {"pane_id": ids["pane_id"], "title": hostile})
        )
        assert titled["name"] == hostile
        renamed = structured(
            await session.call_tool(
                "rename",
                {"session_id": ids["session_id"], "name": hostile.replace(".", "")},
            )
        )
        assert renamed["name"] == hostile.replace(".", "")
    assert not os.path.exists(sentinel), "a #() job ran"


async def test_select_layout_resize_swap_move(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        a = private_tmux.new_session("a")
        b = private_tmux.new_session("b")
        right = private_tmux.bare(
            "split-window", "-d", "-h", "-t", a["pane_id"], "-P", "-F", "#{pane_id}"
        ).stdout.strip()
        laid = structured(
            await session.call_tool(
                "select_layout", {"window_id": a["window_id"], "layout": "even-vertical"}
            )
        )
        assert laid["window"]["window_id"] == a["window_id"]
        tops = _read(private_tmux, "list-panes", "-t", a["window_id"], "-F", "#{pane_top}").split()
        assert len(set(tops)) == 2, "even-vertical stacks panes"
        bad = await session.call_tool(
            "select_layout", {"window_id": a["window_id"], "layout": "spiral"}
        )
        assert "invalid-arguments" in error_text(bad)
        resized = structured(
            await session.call_tool("resize_pane", {"pane_id": a["pane_id"], "height": 8})
        )
        assert resized["pane"]["height"] == 8
        assert (
            _read(private_tmux, "display-message", "-p", "-t", a["pane_id"], "#{pane_height}")
            == "8"
        )
        grown = structured(
            await session.call_tool(
                "resize_pane", {"pane_id": a["pane_id"], "direction": "down", "amount": 2}
            )
        )
        assert grown["pane"]["height"] == 10
        zoomed = structured(
            await session.call_tool("resize_pane", {"pane_id": a["pane_id"], "zoom": True})
        )
        assert zoomed["pane"]["pane_id"] == a["pane_id"]
        assert (
            _read(
                private_tmux, "display-message", "-p", "-t", a["window_id"], "#{window_zoomed_flag}"
            )
            == "1"
        )
        mixed = await session.call_tool(
            "resize_pane", {"pane_id": a["pane_id"], "width": 5, "zoom": True}
        )
        assert "exactly one" in error_text(mixed)
        await session.call_tool("resize_pane", {"pane_id": a["pane_id"], "zoom": True})
        structured(
            await session.call_tool("swap_pane", {"pane_id": right, "other_pane_id": b["pane_id"]})
        )
        assert (
            _read(private_tmux, "display-message", "-p", "-t", right, "#{window_id}")
            == b["window_id"]
        )
        assert (
            _read(private_tmux, "display-message", "-p", "-t", b["pane_id"], "#{window_id}")
            == a["window_id"]
        )
        moved = structured(
            await session.call_tool(
                "move_window", {"window_id": b["window_id"], "session_id": a["session_id"]}
            )
        )
        assert moved["window"]["session_id"] == a["session_id"]
        gone = private_tmux.bare("has-session", "-t", b["session_id"], check=False)
        assert gone.returncode != 0, "moving the last window deletes the emptied session"


async def test_select_a_window_or_a_pane(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        a = private_tmux.new_session("a")
        second = private_tmux.bare(
            "new-window", "-d", "-t", a["session_id"] + ":", "-P", "-F", "#{window_id}"
        ).stdout.strip()
        lower = private_tmux.bare(
            "split-window", "-d", "-t", a["pane_id"], "-P", "-F", "#{pane_id}"
        ).stdout.strip()
        structured(await session.call_tool("select", {"window_id": second}))
        assert _read(private_tmux, "display-message", "-p", "-t", second, "#{window_active}") == "1"
        structured(await session.call_tool("select", {"pane_id": lower}))
        assert _read(private_tmux, "display-message", "-p", "-t", lower, "#{pane_active}") == "1"


@pytest.fixture(scope="module")
def raw_server() -> Iterator[tuple[PrivateTmux, RawClient, dict[str, str]]]:
    with temporary_tmux() as tmux, RawClient(tmux.env) as client:
        yield tmux, client, tmux.new_session("prop")


NAME_CHARS = st.sampled_from(list(DANGEROUS + UNICODE + "ab #$\\\t"))
names = st.text(NAME_CHARS, min_size=1, max_size=40)


def _acceptable(name: str, *, session: bool) -> bool:
    """The documented name rule, restated independently of sinks.names."""
    forbidden = set("\\$\t") | (set(":.") if session else set())
    return not (forbidden & set(name))


def _check_name_property(
    raw_server: tuple[PrivateTmux, RawClient, dict[str, str]],
    tool: str,
    id_key: str,
    variable: str,
    name: str,
) -> None:
    tmux, client, ids = raw_server
    sentinel = os.path.join(tmux.directory, "sentinel")
    name = name.replace("SENTINEL", sentinel.replace(".", "_").replace(":", "_"))
    target = ids[id_key]
    before = tmux.bare("display-message", "-p", "-t", target, variable).stdout
    result = client.call(tool, {id_key: target, "name": name})
    stored = tmux.bare("display-message", "-p", "-t", target, variable).stdout.removesuffix("\n")
    if _acceptable(name, session=id_key == "session_id"):
        assert result["isError"] is False, result
        assert result["structuredContent"]["name"] == name
        assert stored == name
    else:
        assert result["isError"] is True
        # A session's ':' and '.' are refused by rename's argument Struct (issue 28.9).
        assert result["content"][0]["text"].startswith(("[unsafe-value]", "[invalid-arguments]"))
        assert stored + "\n" == before, "a refused name changes nothing"
    assert not os.path.exists(sentinel.replace(".", "_").replace(":", "_")), "a #() job ran"


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=names | names.map(lambda s: s + "#(touch SENTINEL)"))
@example(name="a$b")
def test_window_names_round_trip_exactly_or_are_refused(
    raw_server: tuple[PrivateTmux, RawClient, dict[str, str]], name: str
) -> None:
    """Names within the rule arrive exactly; others are refused; no #() job ever runs."""
    _check_name_property(raw_server, "rename", "window_id", "#{window_name}", name)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=names | names.map(lambda s: s + "#(touch SENTINEL)"))
@example(name="$a#(touch SENTINEL)")  # tmux 3.3a stored '$' as '\$' before the rule refused it
def test_session_names_round_trip_exactly_or_are_refused(
    raw_server: tuple[PrivateTmux, RawClient, dict[str, str]], name: str
) -> None:
    _check_name_property(raw_server, "rename", "session_id", "#{session_name}", name)
