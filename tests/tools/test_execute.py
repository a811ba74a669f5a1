"""The execute toolset end to end over stdio: bytes arrive exactly, commands report status."""

from __future__ import annotations

import json
import os
import subprocess
import termios

import trio

from tests.support import PrivateTmux, error_text, serve, structured

HOSTILE = (
    'quote\' "dq" ;semi; #{pane_id} #(touch SENTINEL) $(touch SENTINEL) `id` '
    "back\\slash é☺日 trailing;"
)


def _raw_reader(tmux: PrivateTmux, count: int) -> tuple[str, str, str]:
    """A pane whose program stores exactly ``count`` raw bytes it reads."""
    out = os.path.join(tmux.directory, "received")
    done = os.path.join(tmux.directory, "done")
    ready = os.path.join(tmux.directory, "ready")
    # Bytes written after `stty raw` wait in the terminal until head reads them.
    script = f"stty raw -echo; touch {ready}; head -c {count} > {out}; touch {done}; sleep 30"
    ids = tmux.new_session("reader", "tmuxmcp", "sh", "-c", script)
    return ids["pane_id"], out, done


async def _wait_file(path: str) -> None:
    with trio.fail_after(15):
        while not os.path.exists(path):
            await trio.sleep(0.02)


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


async def _ready(tmux: PrivateTmux, pane: str) -> None:
    """Wait until the reader's terminal is in raw mode."""
    await _wait_file(os.path.join(tmux.directory, "ready"))


async def test_keys_and_text_arrive_in_order_byte_exact(private_tmux: PrivateTmux) -> None:
    """Issue 28.4: keys and text in one call, in order; text byte for byte (tabs too),
    printable keys as their bytes (``;`` and ``-`` alone too); the buffers are gone."""
    sentinel = os.path.join(private_tmux.directory, "sentinel")
    text = HOSTILE.replace("SENTINEL", sentinel) + "\tcol2"
    keys = ["i", {"text": text}, "Escape", {"text": ":wq"}, "Enter", ";", "-", "q", " ", "Tab"]
    expected = b"i" + text.encode() + b"\x1b:wq\r;-q \t"
    async with serve(private_tmux) as session:
        pane, out, done = _raw_reader(private_tmux, len(expected))
        await _ready(private_tmux, pane)
        result = structured(await session.call_tool("send_keys", {"pane_id": pane, "keys": keys}))
        assert result["pane_id"] == pane
        assert result["delivered"] == f"8 keys, {len(text.encode()) + 3} bytes of text"
        await _wait_file(done)
    assert _read(out) == expected
    assert not os.path.exists(sentinel)
    leftover = private_tmux.bare("list-buffers", "-F", "#{buffer_name}").stdout
    assert "tmuxmcp-" not in leftover, "the paste buffers are deleted after use"


async def test_large_text_goes_through_a_buffer(private_tmux: PrivateTmux) -> None:
    """Far over tmux's 16 KiB command limit, still exact, between keys and small text."""
    text = ("0123456789abcdef;#{x}é\t" * 6000)[:100_000]
    expected = b"<" + text.encode() + b"|small;\r" + text.encode() + b">"
    parts = ["<", {"text": text}, "|", {"text": "small;"}, "Enter", {"text": text}, ">"]
    async with serve(private_tmux) as session:
        pane, out, done = _raw_reader(private_tmux, len(expected))
        await _ready(private_tmux, pane)
        structured(await session.call_tool("send_keys", {"pane_id": pane, "keys": parts}))
        await _wait_file(done)
    assert _read(out) == expected


def _in_mode(tmux: PrivateTmux, pane: str) -> str:
    return tmux.bare("display-message", "-p", "-t", pane, "#{pane_in_mode}").stdout.strip()


async def test_text_in_copy_mode_is_refused_with_the_key_that_leaves_it(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 28.4: text would reach the program behind copy mode unseen (it did, as
    send_text): refused, nothing sent, naming the key q; q sent as a key leaves the
    mode in the same call, and the text after it arrives."""
    expected = b"after q\r"
    async with serve(private_tmux) as session:
        pane, out, done = _raw_reader(private_tmux, len(expected))
        await _ready(private_tmux, pane)
        private_tmux.bare("copy-mode", "-t", pane)
        assert _in_mode(private_tmux, pane) == "1"
        refused = await session.call_tool(
            "send_keys", {"pane_id": pane, "keys": [{"text": "q hello q"}, "Enter"]}
        )
        message = error_text(refused)
        assert message.startswith("[pane-not-ready]"), message
        assert "copy-mode" in message and "nothing was sent" in message, message
        assert 'keys ["q"' in message, message
        assert _in_mode(private_tmux, pane) == "1"
        # Keys before the text are keys for the mode (Escape only clears a selection
        # in vi mode): sent, and said so.
        private_tmux.bare("set-option", "-w", "-t", pane, "mode-keys", "vi")
        later = error_text(
            await session.call_tool(
                "send_keys", {"pane_id": pane, "keys": ["Escape", {"text": "x"}]}
            )
        )
        assert "keys[1] (text) was refused and the 1 parts before it were sent" in later, later
        sent = await session.call_tool(
            "send_keys", {"pane_id": pane, "keys": ["q", {"text": "after q"}, "Enter"]}
        )
        assert not sent.is_error, error_text(sent)
        assert _in_mode(private_tmux, pane) == "0"
        await _wait_file(done)
    assert _read(out) == expected


async def test_newlines_arrive_as_enter_in_one_paste(private_tmux: PrivateTmux) -> None:
    """Each LF is delivered as CR, the byte the Enter key sends; nothing else changes."""
    text = "first line\n  second; #{pane_id}\n\nlast"
    expected = text.replace("\n", "\r").encode() + b"\r"
    async with serve(private_tmux) as session:
        pane, out, done = _raw_reader(private_tmux, len(expected))
        await _ready(private_tmux, pane)
        result = await session.call_tool(
            "send_keys", {"pane_id": pane, "keys": [{"text": text}, "Enter"]}
        )
        assert not result.is_error, result.content
        assert "3 line breaks as Enter" in structured(result)["delivered"]
        await _wait_file(done)
    assert _read(out) == expected


async def test_a_bracketed_multi_line_paste_keeps_its_lines_inside_the_brackets(
    private_tmux: PrivateTmux,
) -> None:
    """A program that enabled bracketed paste gets the lines as one paste; Enter after it."""
    text = "one\ntwo"
    expected = b"\x1b[200~one\rtwo\x1b[201~\r"
    out = os.path.join(private_tmux.directory, "received")
    done = os.path.join(private_tmux.directory, "done")
    ready = os.path.join(private_tmux.directory, "ready")
    script = (
        f"printf '\\033[?2004h'; stty raw -echo; touch {ready}; "
        f"head -c {len(expected)} > {out}; touch {done}; sleep 30"
    )
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("bp", "tmuxmcp", "sh", "-c", script)["pane_id"]
        await _ready(private_tmux, pane)
        args = {"pane_id": pane, "keys": [{"text": text}, "Enter"], "bracketed_paste": True}
        result = await session.call_tool("send_keys", args)
        assert not result.is_error, result.content
        await _wait_file(done)
    assert _read(out) == expected


async def test_a_multi_line_snippet_runs_in_a_python_repl(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("py", "tmuxmcp", "python3", "-I", "-q")["pane_id"]
        first = await session.call_tool(
            "wait_for_text",
            {"pane_id": pane, "pattern": ">>> ", "scope": "screen", "timeout": 20},
        )
        assert structured(first)["outcome"] == "matched"
        # The trailing newline ends the body; Enter gives the empty line that ends the block.
        snippet = {"pane_id": pane, "keys": [{"text": "def f():\n    return 5\n"}, "Enter"]}
        defined = await session.call_tool("send_keys", snippet)
        assert not defined.is_error, defined.content
        sent = structured(
            await session.call_tool(
                "send_keys", {"pane_id": pane, "keys": [{"text": "f()"}, "Enter"]}
            )
        )
        called = structured(
            await session.call_tool(
                "wait_for_text",
                {"pane_id": pane, "pattern": "^5$", "regex": True, "timeout": 10,
                 "since": sent["cursor"]},
            )
        )  # fmt: skip
        assert called["outcome"] == "matched", called
        screen = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout
        assert "Error" not in screen, screen  # no SyntaxError or IndentationError
        assert "    return 5" in screen


async def test_send_keys_sends_exactly_the_named_keys(private_tmux: PrivateTmux) -> None:
    expected = b"\r\t\x01\x1b[A\x7f\x1bx" * 2
    async with serve(private_tmux) as session:
        pane, out, done = _raw_reader(private_tmux, len(expected))
        await _ready(private_tmux, pane)
        keys = ["Enter", "Tab", "C-a", "Up", "BSpace", "M-x"]
        structured(
            await session.call_tool("send_keys", {"pane_id": pane, "keys": keys, "repeat": 2})
        )
        await _wait_file(done)
        for bad in (["hello"], ["Enter;"], ["0x41"], ["é"], [{"txt": "a"}], [3], []):
            text = error_text(await session.call_tool("send_keys", {"pane_id": pane, "keys": bad}))
            assert text.startswith(("[invalid-arguments]", "[unsafe-value]")), text
    assert _read(out) == expected


async def _wait_for_keys(tmux: PrivateTmux, pane: str, needle: str) -> None:
    """Wait (deadline 15 s) until the pane shows ``needle`` and its terminal is out of
    canonical mode: the program (vim, less) reads keys itself."""
    tty = tmux.bare("display-message", "-p", "-t", pane, "#{pane_tty}").stdout.strip()
    await tmux.wait_for_screen(pane, needle)
    with trio.fail_after(15):
        while True:
            fd = os.open(tty, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
            try:
                if not termios.tcgetattr(fd)[3] & termios.ICANON:
                    return
            finally:
                os.close(fd)
            await trio.sleep(0.02)


async def test_vim_edits_and_saves_a_line_with_a_tab_in_one_call(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 28.4: i, a line with a tab, Escape, :wq, Enter: one send_keys call (it took
    17 calls); the file holds the line, tab and all."""
    path = os.path.join(private_tmux.directory, "edited.txt")
    vim = ("vim", "-u", "NONE", "-N", "-n", "-i", "NONE", path)
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("vim", "tmuxmcp", *vim)["pane_id"]
        await _wait_for_keys(private_tmux, pane, "~")
        keys = ["i", {"text": "name\tvalue; #{x} é"}, "Escape", {"text": ":wq"}, "Enter"]
        sent = await session.call_tool("send_keys", {"pane_id": pane, "keys": keys})
        assert not sent.is_error, error_text(sent)
        with trio.fail_after(15):
            while not os.path.exists(path) or _read(path) != "name\tvalue; #{x} é\n".encode():
                await trio.sleep(0.02)


async def test_q_sent_as_a_key_leaves_less(private_tmux: PrivateTmux) -> None:
    """Issue 28.4: a printable key is a key: q reaches the pager, which quits."""
    done = os.path.join(private_tmux.directory, "done")
    script = f"seq 1 500 | less; touch {done}; sleep 30"
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("less", "tmuxmcp", "sh", "-c", script)["pane_id"]
        await _wait_for_keys(private_tmux, pane, "\n2\n")
        sent = await session.call_tool("send_keys", {"pane_id": pane, "keys": ["q"]})
        assert not sent.is_error, error_text(sent)
        await _wait_file(done)


async def test_paste_buffer(private_tmux: PrivateTmux) -> None:
    expected = b"from buffer\r"
    async with serve(private_tmux) as session:
        pane, out, done = _raw_reader(private_tmux, len(expected))
        await _ready(private_tmux, pane)
        private_tmux.bare("set-buffer", "-b", "clip", "from buffer\n")
        structured(await session.call_tool("paste_buffer", {"pane_id": pane, "buffer": "clip"}))
        await _wait_file(done)
        assert "clip" in private_tmux.bare("list-buffers", "-F", "#{buffer_name}").stdout
    assert _read(out) == expected


async def test_paste_buffer_in_copy_mode_is_refused_and_the_buffer_kept(
    private_tmux: PrivateTmux,
) -> None:
    """Issue 28.4: a paste is text too; behind copy mode it would reach the program
    unseen. Refused, naming the key q; after q, the same buffer pastes."""
    expected = b"from buffer\r"
    async with serve(private_tmux) as session:
        pane, out, done = _raw_reader(private_tmux, len(expected))
        await _ready(private_tmux, pane)
        private_tmux.bare("set-buffer", "-b", "clip", "from buffer\n")
        private_tmux.bare("copy-mode", "-t", pane)
        args = {"pane_id": pane, "buffer": "clip"}
        message = error_text(await session.call_tool("paste_buffer", args))
        assert message.startswith("[pane-not-ready]"), message
        assert "the paste was refused and nothing was sent" in message, message
        assert 'send_keys keys ["q"' in message, message
        structured(await session.call_tool("send_keys", {"pane_id": pane, "keys": ["q"]}))
        structured(await session.call_tool("paste_buffer", args))
        await _wait_file(done)
    assert _read(out) == expected


async def test_run_command_status_and_own_output(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("run")["pane_id"]
        private_tmux.bare("send-keys", "-t", pane, "echo EARLIER-NOISE", "Enter")
        quiet = structured(
            await session.call_tool("run_command", {"pane_id": pane, "command": "true"})
        )
        assert (quiet["exit_status"], quiet["output"], quiet["completed"]) == (0, "", True)
        one = structured(
            await session.call_tool("run_command", {"pane_id": pane, "command": "echo hello"})
        )
        assert one["output"] == "hello"
        failed = structured(
            await session.call_tool("run_command", {"pane_id": pane, "command": "sh -c 'exit 42'"})
        )
        assert failed["exit_status"] == 42
        long = structured(
            await session.call_tool("run_command", {"pane_id": pane, "command": "seq 1 150"})
        )
        assert long["output"].split("\n") == [str(n) for n in range(1, 151)]
        assert long["output_truncated"] is False
        tricky = structured(
            await session.call_tool(
                "run_command", {"pane_id": pane, "command": "printf '%s' 'a;b #{pane_id}'"}
            )
        )
        assert tricky["output"] == "a;b #{pane_id}"
        multi = structured(
            await session.call_tool("run_command", {"pane_id": pane, "command": "cd /tmp\npwd"})
        )
        assert multi["output"] == "/tmp"
        assert "EARLIER-NOISE" not in json.dumps([quiet, one, long, multi])
        capped = structured(
            await session.call_tool(
                "run_command", {"pane_id": pane, "command": "seq 1 150", "max_output_bytes": 12}
            )
        )
        assert capped["output_truncated"] is True
        kept = capped["output"].split("\n")
        # The start and the end are kept; the marker line says how much is left out
        # and is not counted against the budget. The budget counts each line as a
        # JSON string (its quotes stand for the escaped newline between lines).
        assert kept[0] == "1" and kept[-1] == "150"
        assert kept[1] == f"[... {150 - len(kept) + 1} lines omitted ...]"
        assert capped["lines_omitted"] == 150 - len(kept) + 1
        assert sum(len(json.dumps(line)) for line in kept if not line.startswith("[...")) <= 12


def _waiting_tmux_clients(tmux: PrivateTmux) -> list[str]:
    found = subprocess.run(
        ["pgrep", "-af", "wait-for tmuxmcp-"], capture_output=True, text=True, check=False
    ).stdout
    return [line for line in found.splitlines() if tmux.directory in line or "-N" in line]


async def test_run_command_timeout_and_cancel_leave_no_tmux_child(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("slow")["pane_id"]
        with trio.fail_after(10):
            result = structured(
                await session.call_tool(
                    "run_command", {"pane_id": pane, "command": "sleep 600", "timeout": 0.5}
                )
            )
        assert result["timed_out"] is True
        assert result["completed"] is False
        assert result["exit_status"] is None
        assert not _waiting_tmux_clients(private_tmux)
        assert (
            private_tmux.bare(
                "display-message", "-p", "-t", pane, "#{pane_current_command}"
            ).stdout.strip()
            == "sleep"
        )
        # It sleeps until stopped here: a shorter sleep could end before the look above
        # on a loaded machine (issue 27.4).
        private_tmux.bare("send-keys", "-t", pane, "C-c")
        with trio.fail_after(15):
            while (
                private_tmux.bare(
                    "display-message", "-p", "-t", pane, "#{pane_current_command}"
                ).stdout.strip()
                != "sh"
            ):
                await trio.sleep(0.05)
        with trio.move_on_after(0.7) as scope:
            await session.call_tool("run_command", {"pane_id": pane, "command": "sleep 3"})
        assert scope.cancelled_caught
        with trio.fail_after(5):
            while _waiting_tmux_clients(private_tmux):
                await trio.sleep(0.02)


async def test_run_command_reports_progress(private_tmux: PrivateTmux) -> None:
    seen: list[float] = []
    messages: list[str | None] = []

    go = os.path.join(private_tmux.directory, "go")

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)
        messages.append(message)
        if sum(1 for m in messages if m is not None and m.endswith("tick-one")) >= 2:
            open(go, "w").close()  # two reports after the output: the command may end

    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("p")["pane_id"]
        # The command runs until two reports carried its output, not for a fixed
        # time that, on a loaded machine, could pass before the first report came
        # or before tick-one was printed (issue 27.4).
        command = f"echo tick-one; while [ ! -e {go} ]; do sleep 0.05; done"
        result = await session.call_tool(
            "run_command",
            {"pane_id": pane, "command": command, "timeout": 60},
            progress_callback=on_progress,
        )
        assert structured(result)["exit_status"] == 0
    assert len(seen) >= 2
    assert seen == sorted(seen)
    # Each message carries the last line on the screen (issue 11): from the first
    # one after tick-one was printed, that line is tick-one.
    first = next(i for i, m in enumerate(messages) if m is not None and m.endswith("tick-one"))
    assert all(m is not None and m.endswith("tick-one") for m in messages[first:]), messages


async def test_run_command_refuses_panes_not_at_a_shell(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        busy = private_tmux.new_session("busy", "tmuxmcp", "sleep", "30")["pane_id"]
        text = error_text(
            await session.call_tool("run_command", {"pane_id": busy, "command": "ls"})
        )
        assert text.startswith("[pane-not-ready]")
        assert "sleep" in text
        shell = private_tmux.new_session("mode")["pane_id"]
        private_tmux.bare("copy-mode", "-t", shell)
        text = error_text(
            await session.call_tool("run_command", {"pane_id": shell, "command": "ls"})
        )
        assert "copy or view mode" in text
        # Issue 28.4: the hint names what send_keys takes; followed, it leaves the mode.
        assert 'send_keys keys ["q"]' in text, text
        left = await session.call_tool("send_keys", {"pane_id": shell, "keys": ["q"]})
        assert not left.is_error, error_text(left)
        assert _in_mode(private_tmux, shell) == "0"
        # A tab is a command's own text now (issue 22.1); a carriage return is not.
        for bad in ("", "echo\x1b[2J", "a\rb"):
            text = error_text(
                await session.call_tool("run_command", {"pane_id": shell, "command": bad})
            )
            assert text.startswith(("[unsafe-value]", "[invalid-arguments]"))


async def test_respawn_pane_restarts_the_process(private_tmux: PrivateTmux) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("r")["pane_id"]
        before = private_tmux.bare("display-message", "-p", "-t", pane, "#{pane_pid}").stdout
        structured(await session.call_tool("respawn_pane", {"pane_id": pane}))
        after = private_tmux.bare("display-message", "-p", "-t", pane, "#{pane_pid}").stdout
        assert before != after


async def test_audit_log_has_one_redacted_line_per_call(private_tmux: PrivateTmux) -> None:
    log = os.path.join(private_tmux.directory, "audit.jsonl")
    secret = "hunter2-SECRET-payload"
    async with serve(private_tmux, "--audit-log", log) as session:
        pane = private_tmux.new_session("a")["pane_id"]
        await session.call_tool("send_keys", {"pane_id": pane, "keys": [{"text": secret}]})
        await session.call_tool("run_command", {"pane_id": pane, "command": f"echo {secret}"})
        await session.call_tool("send_keys", {"pane_id": pane, "keys": ["C-u"]})
        await session.call_tool("capture_pane", {"pane_id": "bad id"})
    with open(log) as f:
        raw = f.read()
    lines = [json.loads(line) for line in raw.splitlines()]
    assert [entry["tool"] for entry in lines] == [
        "send_keys",
        "run_command",
        "send_keys",
        "capture_pane",
    ]
    assert secret not in raw
    assert "C-u" not in raw
    assert lines[0]["arguments"]["pane_id"] == pane
    assert lines[0]["arguments"]["keys"] == {
        "redacted": True,
        "length": lines[0]["arguments"]["keys"]["length"],
        "hmac": lines[0]["arguments"]["keys"]["hmac"],
    }
    assert lines[0]["outcome"] == "ok"
    assert lines[3]["outcome"] == "invalid-arguments"
    assert all(entry["duration_ms"] >= 0 for entry in lines)
    assert oct(os.stat(log).st_mode & 0o777) == "0o600"


async def test_concurrent_run_commands_on_one_pane_run_one_after_another(
    private_tmux: PrivateTmux,
) -> None:
    async with serve(private_tmux) as session:
        pane = private_tmux.new_session("both")["pane_id"]
        results: dict[str, dict[str, object]] = {}

        async def run(word: str) -> None:
            result = await session.call_tool(
                "run_command", {"pane_id": pane, "command": f"sleep 0.3; echo {word}"}
            )
            results[word] = structured(result)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(run, "first")
            nursery.start_soon(run, "second")
    assert {word: r["output"] for word, r in results.items()} == {
        "first": "first",
        "second": "second",
    }
    assert all(r["exit_status"] == 0 for r in results.values())
