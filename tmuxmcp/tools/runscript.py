"""The script ``run_command`` has the pane's shell source, and the short line that starts it.

Pure: text only. What is typed into the pane is one short line,

    `` : 'first line of the command'; . /dev/shm/tmuxmcp-k3j2/r7``

so a person watching sees their command (shown, never run, as the argument of
the no-op ``:``) and a path (``run_directory.directory_base``: on Linux usually
``$XDG_RUNTIME_DIR`` or /dev/shm, else the temporary directory). Everything
else lives in files in tmuxmcp's private directory (mode 0700), never on the
screen:

* ``c<k>``: the command itself, exactly as given, sourced by the script. A
  command of any length up to the cap runs whole: nothing passes through the
  terminal's line discipline, whose 4,095-byte line limit would cut it.
* ``r<k>``: the script. It reports ``S`` (started) and ``E <status>`` on the
  FIFO ``s<k>``, opened read-write (``1<>``) so the shell never blocks on it
  even if tmuxmcp is gone. After the command, and before ``E``, it prints a
  *fence*: an OSC 7 sequence setting ``#{pane_path}`` to a per-run secret.
  tmux handles a pane's output in order, so once tmux reports that path,
  every byte the command printed is on the screen. The script then waits on
  the FIFO ``g<k>`` (held open by tmuxmcp; a dead tmuxmcp closes it, which
  releases the wait), so the shell cannot draw its next prompt before the
  output is read: the end of the output is the cursor position at the fence,
  not a marker a program could print. Released, it sources ``t<k>``, which
  tmuxmcp writes at collection: it puts ``#{pane_path}`` back and returns the
  command's status, so ``$?`` at the prompt is the command's.
* shells that abandon a whole dot script on a syntax error in a nested one
  (dash, ash, ksh ...) source the command with ``command .``: POSIX takes the
  special-builtin error behaviour away from a builtin run by ``command``, so
  a syntax error ends the run with status 2 and the shell's own message,
  instead of never reporting. bash and zsh continue after such an error by
  themselves (and zsh's ``command`` runs external programs only).

Rules: the command is never altered or re-quoted; the file descriptor of the
release FIFO (9) is closed for the command (``9<&-``), so the command's
programs do not inherit it; names typed on screen are shell-quoted words.
What a per-run secret protects against, and what it cannot: see
``docs/trust.md`` (a program running as the same user can read tmuxmcp's
files and write its FIFOs).
"""

from __future__ import annotations

from tmuxmcp.sinks.shell import quote_word

SHELLS_WITHOUT_RECOVERY = frozenset(
    {"dash", "sh", "ash", "busybox", "ksh", "ksh93", "mksh", "oksh", "yash"}
)
"""Shells whose dot script is abandoned on a syntax error (they source with ``command .``)."""

DISPLAY_CHARS = 60


def shown(command: str) -> str:
    """The part of the command a person sees typed: its first line, shortened."""
    first = command.strip().split("\n", 1)[0]
    more = first != command.strip()
    if len(first) > DISPLAY_CHARS:
        first, more = first[:DISPLAY_CHARS], True
    return first + (" …" if more else "")


def typed_line(command: str, script: str, *, suppress_history: bool) -> str:
    """The line typed into the pane (ending in a newline)."""
    lead = " " if suppress_history else ""
    display = quote_word(shown(command), "command")
    return f"{lead}: {display}; . {quote_word(script, 'script')}\n"


def osc7(value: str) -> str:
    """``printf`` arguments that set ``#{pane_path}`` to ``value`` (a safe word)."""
    word = quote_word(value, "path") if value else "''"
    return f"\\printf '\\033]7;%s\\033\\\\' {word}"


def restorable_path(path: str) -> str:
    """``#{pane_path}`` to put back; a value with control characters is not replayed."""
    return "" if any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in path) else path


def script(*, files: dict[str, str], fence: str, check_syntax: bool) -> str:
    """The script sourced by the pane's shell.

    ``files`` maps ``c``, ``s``, ``g``, ``t`` to their paths.
    """
    q = {key: quote_word(path, key) for key, path in files.items()}
    run = f"command . {q['c']}" if check_syntax else f". {q['c']}"
    # The fence is drawn before the status is reported, so that by the time
    # tmuxmcp reads the status the fence is already in the terminal's output
    # and its first read of the pane finds it. The status is kept meanwhile in
    # the variable the release read sets anyway (unset at the end).
    return (
        f"\\printf 'S\\n' 1<>{q['s']}\n"
        f"{{ {{ {run}\n"
        "} 9<&-\n"
        "tmuxmcp_release=$?\n"
        f"{osc7(fence)}\n"
        f"\\printf 'E %d\\n' \"$tmuxmcp_release\" 1<>{q['s']}\n"
        f"\\read tmuxmcp_release <&9\n"
        f"}} 9<{q['g']}\n"
        "unset tmuxmcp_release\n"
        f". {q['t']}\n"
    )


def status_return(status: int, restore_path: str | None) -> str:
    """The last file the script sources: it puts ``#{pane_path}`` back and makes
    ``$?`` the command's status. Written when the run is collected; until then it
    holds ``return 0`` alone (what a script released by a dead tmuxmcp finds)."""
    restore = "" if restore_path is None else osc7(restorable_path(restore_path)) + "\n"
    return f"{restore}return {int(status)}\n"
