"""The script ``run_command`` has the pane's shell source, and the short line that starts it.

Pure: text only. What is typed into the pane is one short line,

    `` { _='the command' . /dev/shm/tmuxmcp-k3j2/r7; } 7>&1 8>&2 >/dev/null 2>&1``

so a person watching sees their command (shown, never run: the value of an
assignment to ``_`` on the ``.``, which runs no command, so the script finds
``$?`` still the last command's status, and gives it back to the command) and a path
(``run_directory.directory_base``: on Linux usually ``$XDG_RUNTIME_DIR`` or
/dev/shm, else the temporary directory). The group
keeps the shell's own stdout and stderr on descriptors 7 and 8 and runs
tmuxmcp's steps with both on /dev/null, so nothing the shell prints *for
them* reaches the screen: xtrace lines (``set -x``), a bash DEBUG trap's
output, an error about a script already removed. The command alone gets the
saved descriptors back. Everything else lives in files in tmuxmcp's private
directory (mode 0700), never on the screen:

* ``c<k>``: the command itself, exactly as given, sourced by the script. A
  command of any length up to the cap runs whole: nothing passes through the
  terminal's line discipline, whose 4,095-byte line limit would cut it.
* ``r<k>``: the script. It reports ``S <status>`` (started, with ``$?`` as the
  typed line found it: a status probe reads a shell's status back so, see
  ``watch`` Rule 2) and ``E <status>`` on the
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
  command's status, so ``$?`` at the prompt is the command's. Until then
  ``t<k>`` returns the status the typed line kept, and the script sources it
  just before the command too, so the command's ``$?`` starts as the last
  command's, as when typed.
* shells that abandon a whole dot script on a syntax error in a nested one
  (dash, ash, ksh ...) source the command with ``command .``: POSIX takes the
  special-builtin error behaviour away from a builtin run by ``command``, so
  a syntax error ends the run with status 2 and the shell's own message,
  instead of never reporting. bash and zsh continue after such an error by
  themselves (and zsh's ``command`` runs external programs only).

* the shell's settings are the user's, and the script keeps working under
  them: every builtin it calls goes past a user's alias *and* function of
  that name (``\\builtin printf`` in bash and zsh, ``\\command printf``
  elsewhere; a backslash alone escapes aliases only); under errexit it runs
  nothing (Rule 3); ``set -u``, ``noclobber`` (the FIFOs are opened ``1<>``)
  and ``umask`` do not touch it.

Rules:

Rule 1: the command is never altered or re-quoted; names typed on screen
  are shell-quoted words, and no control character is typed but the final
  newline (the shown first line has its tabs as spaces: ``shown``).
Rule 2: the descriptors the script holds (7, 8 and the release FIFO's 9)
  are closed for the command, so the command's programs do not inherit
  them. A consequence: an ``exec`` that redirects the command's stdout or
  stderr (``exec >log 2>&1``) holds until the command ends, not after it
  (other descriptors it opens stay open).
Rule 3: with errexit on (``set -e``; zsh: or ``ERR_RETURN``) the script
  runs nothing and reports ``X errexit`` (``X errreturn``) instead of ``S``,
  and the call is refused with ``pane-not-ready``. The whole rule is
  ``REFUSALS``, ``refused_options`` (the script's side) and ``refusal``
  (the caller's side), here and nowhere else.

What a per-run secret protects against, and what it cannot: see
``docs/trust.md`` (a program running as the same user can read tmuxmcp's
files and write its FIFOs).
"""

from __future__ import annotations

from tmuxmcp.errors import PaneNotReady
from tmuxmcp.sinks.shell import quote_word

SHELLS_WITHOUT_RECOVERY = frozenset(
    {"dash", "sh", "ash", "busybox", "ksh", "ksh93", "mksh", "oksh", "yash"}
)
"""Shells whose dot script is abandoned on a syntax error (they source with ``command .``)."""

DISPLAY_CHARS = 60


def shown(command: str) -> str:
    """The part of the command a person sees typed: its first line, shortened, each
    tab shown as a space.

    The typed line is pasted without bracketed paste, so a tab in it would be the
    Tab key to the shell's line editor (bash, zsh: completion, which rewrites or
    lists around the typed line); the command's own tabs are in its file.
    """
    first = command.strip().split("\n", 1)[0]
    more = first != command.strip()
    first = first.replace("\t", " ")
    if len(first) > DISPLAY_CHARS:
        first, more = first[:DISPLAY_CHARS], True
    return first + (" …" if more else "")


PREVIOUS_STATUS = "tmuxmcp_status"
"""The variable the script keeps ``$?`` in first, the status of the shell's last command
(the typed line runs nothing before the script), so that the command starts with it, as
when typed (the script gives it back by sourcing ``t`` before the command:
``status_return``)."""

SAVED_STDOUT = 7
SAVED_STDERR = 8
"""The descriptors the typed line saves the shell's own stdout and stderr on, while
tmuxmcp's own steps run with both sent to /dev/null (see the module docstring)."""


def typed_line(command: str, script: str, *, suppress_history: bool) -> str:
    """The line typed into the pane (ending in a newline).

    The group's redirections send what the shell itself prints for tmuxmcp's
    steps (xtrace lines, a bash DEBUG trap's output, a "No such file" from a
    script already removed) to /dev/null; the command gets the saved
    descriptors back.
    """
    lead = " " if suppress_history else ""
    display = quote_word(shown(command), "command")
    return (
        f"{lead}{{ _={display} . {quote_word(script, 'script')}; }} "
        f"{SAVED_STDOUT}>&1 {SAVED_STDERR}>&2 >/dev/null 2>&1\n"
    )


def builtin_prefix(shell: str) -> str:
    """How the script calls a builtin past a user's alias or function of that name.

    ``\\builtin`` in bash and zsh (zsh's ``command`` runs external programs
    only); POSIX ``command`` elsewhere (dash and ash have no ``builtin``, and
    refuse functions named like the special builtins ``.``, ``unset``,
    ``return``). The leading backslash escapes an alias of the prefix itself.
    """
    return "\\builtin" if shell in ("bash", "zsh") else "\\command"


def osc7(value: str, builtin: str = "\\builtin") -> str:
    """The command that sets ``#{pane_path}`` to ``value`` (a safe word), written to the
    shell's saved stdout (the script's own stdout is /dev/null)."""
    word = quote_word(value, "path") if value else "''"
    return f"{builtin} printf '\\033]7;%s\\033\\\\' {word} >&{SAVED_STDOUT}"


def restorable_path(path: str) -> str:
    """``#{pane_path}`` to put back; a value with control characters is not replayed."""
    return "" if any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in path) else path


REFUSALS = {
    "errexit": (
        "pane {pane}'s shell has errexit on (set -e), so nothing was run: there, any command "
        "that ends with a non-zero status (even `test -f x && echo yes`) would exit the "
        "shell and close the pane before its status could be reported. Turn it off in the "
        "pane with send_text 'set +e' (enter true), then retry; to stop at the first "
        "failure, run the command in a child shell: sh -ec '...'"
    ),
    "errreturn": (
        "pane {pane}'s zsh has ERR_RETURN set, so nothing was run: it would make tmuxmcp's "
        "script return at the command's first non-zero status, before reporting it. Turn "
        "it off in the pane with send_text 'unsetopt err_return' (enter true), then retry"
    ),
}
"""Rule 3: what the script reports (``X <name>``) instead of ``S`` when the shell has
that option on, and so runs nothing, with the refusal the caller gets for each."""


def refused_options(shell: str, builtin: str, status_fifo: str) -> tuple[str, str]:
    """Rule 3, the script's side: the text that opens and closes the script's body so
    that, with one of ``REFUSALS`` on, it reports ``X <option>`` on ``status_fifo`` (a
    quoted word) and runs nothing.

    With errexit on (``set -e``), the status of the script's ``.`` of the command
    would end the shell whenever the command's status is non-zero, even where the
    command itself did not trip errexit (``test -f x && echo yes``); zsh's
    ERR_RETURN would make the script return at the command's failing status,
    before it reports.
    """

    def refuse(option: str) -> str:
        return (
            f"{builtin} printf 'X {option}\\n' 1<>{status_fifo}; {builtin} unset {PREVIOUS_STATUS}"
        )

    if shell == "zsh":
        opening = (
            f"if [[ -o errexit ]]; then {refuse('errexit')}\n"
            f"elif [[ -o errreturn ]]; then {refuse('errreturn')}\n"
            "else "
        )
        return opening, "fi\n"
    return f"case $- in\n*e*) {refuse('errexit')} ;;\n*) ", ";;\nesac\n"


def refusal(option: str, pane: str) -> PaneNotReady:
    """Rule 3, the caller's side: the error for a run the script refused under ``option``."""
    return PaneNotReady(REFUSALS[option].format(pane=pane))


def script(*, files: dict[str, str], fence: str, shell: str) -> str:
    """The script sourced by the pane's shell (``shell``: the program's base name).

    ``files`` maps ``c``, ``s``, ``g``, ``t`` to their paths.
    """
    q = {key: quote_word(path, key) for key, path in files.items()}
    b = builtin_prefix(shell)
    dot = "\\command ." if shell in SHELLS_WITHOUT_RECOVERY else f"{b} ."

    # The command gets the shell's own stdout and stderr back and none of the
    # script's descriptors (7, 8, 9). The fence is drawn before the status is
    # reported, so that by the time tmuxmcp reads the status the fence is
    # already in the terminal's output and its first read of the pane finds it.
    # The status is kept meanwhile in the variable the release read sets anyway
    # (unset at the end). Under an option it refuses, the script runs nothing
    # (Rule 3).
    # `. t && :` gives `$?` back to the command (the status the typed line kept:
    # t returns it until the run is collected), and unsets the variable that kept
    # it; in an AND-OR list, a non-zero status there runs no ERR trap of the user's.
    test, end = refused_options(shell, b, q["s"])
    return (
        f"{PREVIOUS_STATUS}=$?\n"
        f"{test}{b} printf 'S %d\\n' \"${PREVIOUS_STATUS}\" 1<>{q['s']}\n"
        f"{b} . {q['t']} && :\n"
        f"{{ {dot} {q['c']} 1>&{SAVED_STDOUT} 2>&{SAVED_STDERR} "
        f"{SAVED_STDOUT}>&- {SAVED_STDERR}>&- 9<&-\n"
        "tmuxmcp_release=$?\n"
        f"{osc7(fence, b)}\n"
        f"{b} printf 'E %d\\n' \"$tmuxmcp_release\" 1<>{q['s']}\n"
        # `|| :`: a release by a dead tmuxmcp is an EOF (status 1), which must not
        # end a shell whose command turned errexit on.
        f"{b} read tmuxmcp_release <&9 || :\n"
        f"}} 9<{q['g']}\n"
        f"{b} unset tmuxmcp_release\n"
        f"{b} . {q['t']}\n"
        f"{end}"
    )


def status_return(status: int | None, restore_path: str | None, shell: str) -> str:
    """The file ``t`` the script sources last: it puts ``#{pane_path}`` back and makes
    ``$?`` the command's status. Written when the run is collected; until then
    (``status`` None) it unsets ``PREVIOUS_STATUS`` and returns the status that kept:
    the script sources it for that just before the command; a script released by a
    dead tmuxmcp finds it again at its end, with the variable unset, and returns 0."""
    b = builtin_prefix(shell)
    if status is None:
        # Expanded before eval runs it: the helper variable is gone before the
        # command starts, and `return` inside eval returns from this file.
        keep = f"${{{PREVIOUS_STATUS}:-0}}"
        return f'{b} eval "{b} unset {PREVIOUS_STATUS}; {b} return {keep}"\n'
    restore = "" if restore_path is None else osc7(restorable_path(restore_path), b) + "\n"
    return f"{restore}{b} return {int(status)}\n"
