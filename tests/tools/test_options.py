"""set_option end to end: only the closed list, typed values, read back through bare tmux."""

from __future__ import annotations

from tests.support import PrivateTmux, error_text, serve, structured


def _read(tmux: PrivateTmux, *args: str) -> str:
    return tmux.bare(*args).stdout.rstrip("\n")


async def test_set_option_closed_list(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        a = private_tmux.new_session("a")
        done = structured(
            await session.call_tool(
                "set_option",
                {"option": "history-limit", "value": 5000, "session_id": a["session_id"]},
            )
        )
        assert done["value"] == "5000"
        assert (
            _read(private_tmux, "show-options", "-v", "-t", a["session_id"], "history-limit")
            == "5000"
        )
        structured(
            await session.call_tool(
                "set_option", {"option": "mode-keys", "value": "vi", "window_id": a["window_id"]}
            )
        )
        assert (
            _read(private_tmux, "show-options", "-w", "-v", "-t", a["window_id"], "mode-keys")
            == "vi"
        )
        structured(
            await session.call_tool(
                "set_option",
                {"option": "remain-on-exit", "value": "failed", "pane_id": a["pane_id"]},
            )
        )
        assert (
            _read(private_tmux, "show-options", "-p", "-v", "-t", a["pane_id"], "remain-on-exit")
            == "failed"
        )
        structured(
            await session.call_tool(
                "set_option", {"option": "mouse", "value": True, "session_id": a["session_id"]}
            )
        )
        assert _read(private_tmux, "show-options", "-v", "-t", a["session_id"], "mouse") == "on"
        for arguments, fragment in (
            (
                {"option": "default-command", "value": "sh", "session_id": a["session_id"]},
                "invalid-arguments",
            ),
            (
                {"option": "status-left", "value": "#(id)", "session_id": a["session_id"]},
                "invalid-arguments",
            ),
            ({"option": "mouse", "value": "on", "session_id": a["session_id"]}, "true or false"),
            (
                {"option": "history-limit", "value": 10**9, "session_id": a["session_id"]},
                "integer from 0",
            ),
            (
                {"option": "history-limit", "value": 10, "window_id": a["window_id"]},
                "session option",
            ),
            ({"option": "mode-keys", "value": "ed", "window_id": a["window_id"]}, "one of"),
        ):
            assert fragment in error_text(await session.call_tool("set_option", arguments))
