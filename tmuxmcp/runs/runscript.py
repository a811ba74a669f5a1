"""The script ``run_command`` has the pane's shell source, and the short line that starts it.

Pure: text only. What is typed into the pane is one short line,

    `` { _='the command' . /dev/shm/tmuxmcp-k3j2/r7; . "$tmuxmcp_t" && :; }``
    ``7>&1 8>&2 >/dev/null 2>&1`` (one line, shown here in two; bash and zsh:
    ``{ _='the command' tmuxmcp_status=$?; eval "$(</…/r7)"; . "$tmuxmcp_t" && :; } …``)

so a person watching sees their command first, until the confirmed redraw
replaces the line by the prompt and the command alone (Rule 6; shown, never run: the value of an
assignment to ``_`` on the ``.``, which runs no command, so the script finds
``$?`` still the last command's status, and gives it back to the command) and one
path, the script's (``run_directory.directory_base``: on Linux usually
``$XDG_RUNTIME_DIR`` or /dev/shm, else the temporary directory). Why that
path is still typed (issue 31.3), and not kept in the shell between runs under
a shorter name (a variable, an alias, a function): such a name would have to
be set by a line that types the path anyway, would live in the user's shell
between runs (exported into every program under ``set -a``), would be lost to
an ``exec`` of a new shell without tmuxmcp knowing, and would be read at the
start of the next run, before any step of tmuxmcp's, after whatever the
commands in between did to it (pointed it at a shared directory, where
another user could plant the next run's script). The status file ``t`` is
not named: the script's last step sets ``tmuxmcp_t`` to its path, after the
command has run and been released, and the typed line reads it at once; a
command can point it elsewhere only by making it readonly first
(``readonly tmuxmcp_t=…``), as it can already redefine the typed line's
``eval`` as a bash function: the typed line runs in the shell state the
command leaves, the same user's. No other process can set a shell's
variables.

What a watcher sees (issue 31.3): the typed line is replaced on the screen by
the prompt and the shown command before the command runs, wherever that is
exact: the *confirmed redraw* (Rule 6, ``redraw``). A blind redraw (the
script moving the cursor up over rows counted beforehand, probed with
``bench/probe_redraw.py``) was not landed: the script cannot read where the
cursor is, and output drawn between Enter and the script (bash's ``PS0``, a
zsh ``preexec`` printing a line, ``set -v``, a transient prompt, a typed line
taller than the pane) put the move on the wrong row, erasing that output and
leaving the typed line's start, its private path included, on the screen.
So the script waits after ``S`` for tmuxmcp, which reads the pane in one
tmux invocation and tells it to redraw only where the screen is exactly the
prompt and the typed line as the shell echoed it; anywhere else the run is
exactly as without a redraw, the typed line left on the screen. The
collection then knows where the output starts (an absolute row), instead of
finding the typed line by its text. The cost: one tmux invocation per run,
made while the shell waits (``docs/patterns.md``). The group
keeps the shell's own stdout and stderr on descriptors 7 and 8 and runs
tmuxmcp's steps with both on /dev/null, so nothing the shell prints *for
them* reaches the screen: xtrace lines (``set -x``), a bash DEBUG trap's
output, an error about a script already removed. The command alone gets the
saved descriptors back. Everything else lives in files in tmuxmcp's private
directory (mode 0700), never on the screen:

* ``c<k>``: the command itself, exactly as given, read by the script and
  evaluated (Rule 5). A command of any length up to the cap runs whole:
  nothing passes through the terminal's line discipline, whose 4,095-byte
  line limit would cut it.
* ``e<k>``: the same text and one line more, ``tmuxmcp_release=$?``, sourced
  instead of ``c`` when the shell has errexit on (Rule 3).
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
  not a marker a program could print. Released, it returns (status 0), and the
  typed line sources ``t<k>``, which tmuxmcp writes at collection: it puts
  ``#{pane_path}`` back and returns the command's status, so ``$?`` at the
  prompt is the command's (``t`` unsets ``tmuxmcp_t``, which the script set
  to its path as its last step). Until then ``t<k>`` returns the status the typed
  line kept, and the script sources it just before the command too, so the
  command's ``$?`` starts as the last command's, as when typed.
* shells that abandon a whole dot script on a syntax error in a nested one
  (dash, ash, ksh ...) source the command with ``command .``: POSIX takes the
  special-builtin error behaviour away from a builtin run by ``command``, so
  a syntax error ends the run with status 2 and the shell's own message,
  instead of never reporting. bash and zsh continue after such an error by
  themselves (and zsh's ``command`` runs external programs only).

* the shell's settings are the user's, and the script keeps working under
  them: every builtin it calls goes past a user's alias *and* function of
  that name (``\\builtin printf`` in bash and zsh, ``\\command printf``
  elsewhere; a backslash alone escapes aliases only); under errexit the
  shell ends where the command, typed, would have ended it, and nowhere else
  (Rules 3 and 4); ``set -u``, ``noclobber`` (the FIFOs are opened ``1<>``)
  and ``umask`` do not touch it.

Rules:

Rule 1: the command is never altered or re-quoted; names typed on screen
  are shell-quoted words, and no control character is typed but the final
  newline (the shown first line has its tabs as spaces and any other control
  character in caret notation: ``shown``). The one
  line ``e`` adds stands after the command's text, never inside it
  (``errexit_copy``).
Rule 2: the descriptors the script holds (7, 8 and the release FIFO's 9)
  are closed for the command, so the command's programs do not inherit
  them. A consequence: an ``exec`` that redirects the command's stdout or
  stderr (``exec >log 2>&1``) holds until the command ends, not after it
  (other descriptors it opens stay open).
Rule 3: errexit (``set -e``) behaves as if the command were typed (issue
  22.10). A ``.`` of the command alone returns the status of its last AND-OR
  list and so would end the shell where that list did not trip errexit
  (``test -f x && echo yes``); a tested ``.`` (``. c || :``) turns errexit off
  inside it in bash and zsh. So under errexit the script sources ``e``, whose
  own last line takes the status (a plain ``\\.`` in dash: its ``command .``
  ends the shell on a syntax error, which typed does not). Where that line
  could become part of the command (its text ends inside a here-document or
  after a continuing backslash: ``errexit_copy`` is None) the script runs
  nothing and reports ``X errexit``, refused with ``pane-not-ready``. zsh's
  ``ERR_RETURN`` runs as typed (issue 31.2): the command's first failure
  abandons everything the typed line runs, as it abandons a typed line, with
  the shell kept; the script evaluates the command in a ``{ } always { }``
  block whose always part still reports the status, waits for the release and
  sources ``t`` (under ERR_EXIT zsh exits without running it, as typed). The
  whole rule is
  ``REFUSALS``, ``errexit_copy``, ``refused_options`` (the script's side) and
  ``refusal`` (the caller's side), here and nowhere else.
Rule 4: nothing of tmuxmcp's own fails where errexit could see it. Every step
  of the script has status 0; the statuses it gives back (``$?`` to the
  command, and to the prompt) come from ``. t && :``, an AND-OR list, whose
  non-zero status ends no shell and runs no ERR trap; under errexit ``t`` sets
  it with ``(exit N) && :``, since dash ends the shell on a failing
  ``return`` in a dot script even when that ``.`` is tested.
Rule 5: the shell's messages about the command read as if it were typed
  (issue 22.8). A command sourced from a file is reported as that file's
  (dash ``sh: 1: /…/c1: x: not found``, zsh ``/…/c1:1: command not found:
  x``, bash's syntax errors, zsh's ``$0``), so the script reads the command
  into ``COMMAND_TEXT`` and evaluates it; in bash and zsh the typed line
  evaluates the script's text too (an ``eval`` inside a sourced file is
  reported as ``eval``'s: ``bash: eval: line 1: …``, ``(eval):1: …``), and
  what they print is then exactly what a typed line gets. dash still names
  ``eval`` (``sh: 1: eval: x: not found``), as for any evaluated text. The
  text is read before ``. t && :``, since reading it (a command
  substitution) sets ``$?``. Under allexport (``set -a``) the variable would
  be exported into every program the command starts, so the command is
  sourced from its file there, as before.

  What cannot read as typed, and why (``docs/patterns.md``, "What is not as
  typed"; issue 31.2): a shell names nothing but itself only for text it reads
  from the terminal, and the command's text is never typed (Rule 1: the line
  discipline's 4,095-byte limit, tabs to the line editor, a here-document or
  a ``#`` comment would swallow tmuxmcp's steps). So dash names the builtin
  that evaluates it (``sh: 1: eval: x: not found``; ``.`` would name the file)
  and numbers lines from the evaluated text's first (a typed line gets the
  shell's own count); bash marks traces once per ``eval`` or ``.`` between the
  prompt and the command (``+++``: the typed line's ``eval`` and the
  script's); zsh 5.9 shows no trace line of the command at all (measured; its
  trace output stays where the typed line's group sent tmuxmcp's own steps,
  /dev/null). A function would run
  it at the typed depth and without a name, but changes what the command
  means (``$1``, ``shift``, ``return``, ``local``).

Rule 6 (issue 31.3): after ``S``, once it has read the command's text (a
  run closed meanwhile removes its file), the script reads one line from the
  release FIFO ``g<k>`` (``redraw_step``; the FIFO is opened once, on
  descriptor 9, for this read and the release's): ``<up>:<column>``
  from tmuxmcp makes it move the cursor up ``up`` rows and right to
  ``column`` (the typed line's first row and column), erase to the end of
  the screen and print ``shown`` and a newline on the shell's saved stdout
  (fd 7, where the command's own output goes); any other line is no redraw.
  tmuxmcp holds the FIFO open, so the shell's open of it never blocks, and
  a dead tmuxmcp's read is an EOF (no redraw, and the command runs); a run
  closed before its answer writes its release there, which is no redraw
  either. The status ``$?`` is given back after it (``. t && :``), so the
  command still starts with the last command's status. What is printed
  holds no control character (``caret``: shown as a line editor shows one,
  ``^[``), and is the same text the typed line just showed, whose cells the
  screen check counted (``redraw`` Rule 2).

What a per-run secret protects against, and what it cannot: see
``docs/trust.md`` (a program running as the same user can read tmuxmcp's
files and write its FIFOs).
"""

from __future__ import annotations

import re

from tmuxmcp.errors import PaneNotReady
from tmuxmcp.sinks.shell import quote_word

SHELLS_WITHOUT_RECOVERY = frozenset(
    {"dash", "sh", "ash", "busybox", "ksh", "ksh93", "mksh", "oksh", "yash"}
)
"""Shells whose dot script is abandoned on a syntax error (they source with ``command .``)."""

DISPLAY_CHARS = 40
"""How much of the command's first line the typed line shows (it is kept short: a
typed line that wraps is harder to tell from output moved over it)."""


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
    return caret(first) + (" …" if more else "")


def caret(text: str) -> str:
    """``text`` with each control character in caret notation (``^[`` for ESC, ``^?``
    for DEL, ``M-^[`` for a C1 control, as ``cat -v`` shows it), the way a shell's line
    editor shows a control character typed at its prompt: what is typed or printed to
    show the command never carries a byte the terminal would act on (``redraw`` Rule 2)."""
    out = []
    for ch in text:
        code = ord(ch)
        if code < 0x20 or code == 0x7F:
            out.append("^" + chr(code ^ 0x40))
        elif 0x80 <= code <= 0x9F:
            out.append("M-^" + chr((code - 0x80) ^ 0x40))
        else:
            out.append(ch)
    return "".join(out)


STATUS_FILE = "tmuxmcp_t"
"""The variable the script ends by setting to the path of ``t``, which the typed line
sources last (``. "$tmuxmcp_t" && :``) to give the command's status back, so that the
typed line names tmuxmcp's directory once (issue 31.3). It is set after the command
and its release, so the command can point it elsewhere only by making it readonly (see
the module docstring), and ``t`` unsets it."""

PREVIOUS_STATUS = "tmuxmcp_status"
"""The variable the script keeps ``$?`` in first, the status of the shell's last command
(the typed line runs nothing before the script), so that the command starts with it, as
when typed (the script gives it back by sourcing ``t`` before the command:
``status_return``)."""

SAVED_STDOUT = 7
SAVED_STDERR = 8
"""The descriptors the typed line saves the shell's own stdout and stderr on, while
tmuxmcp's own steps run with both sent to /dev/null (see the module docstring)."""


TOP_LEVEL_SHELLS = frozenset({"bash", "zsh"})
"""Shells whose typed line evaluates the script's text instead of sourcing it (Rule 5)."""


def typed_line(
    command: str, files: dict[str, str], *, shell: str = "", suppress_history: bool
) -> str:
    """The line typed into the pane (ending in a newline); ``files`` maps ``r`` and ``t``
    to the script's and the status file's paths; ``shell``: the program's base name.

    The group's redirections send what the shell itself prints for tmuxmcp's
    steps (xtrace lines, a bash DEBUG trap's output, a "No such file" from a
    script already removed) to /dev/null; the command gets the saved
    descriptors back. The status is given back last, by ``. t && :`` in the
    group (Rule 4): the script itself always ends with status 0. bash and zsh
    evaluate the script's text (Rule 5), keeping ``$?`` first: reading the file
    in a command substitution sets it.
    """
    lead = " " if suppress_history else ""
    display = quote_word(shown(command), "command")
    script = quote_word(files["r"], "script")
    if shell in TOP_LEVEL_SHELLS:
        start = f'_={display} {PREVIOUS_STATUS}=$?; eval "$(<{script})"'
    else:
        start = f"_={display} . {script}"
    return (
        f'{lead}{{ {start}; . "${STATUS_FILE}" && :; }} '
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
        "pane {pane}'s shell has errexit on (set -e) and the command's text ends inside a "
        "here-document or after a line-continuing backslash, so nothing was run: under "
        "errexit tmuxmcp reads the command's status on a line after its text (so that the "
        "shell exits exactly when it would have, had you typed the command), and such an "
        "ending would take that line into the command. End the here-document with its "
        "delimiter line (or drop the trailing backslash) and retry"
    ),
}
"""Rule 3: what the script reports (``X <name>``) instead of ``S`` when it runs nothing,
with the refusal the caller gets for each."""

STATUS_LINE = "tmuxmcp_release=$?"
"""The line the errexit copy ``e<k>`` of the command ends with (Rule 3)."""

_HEREDOC = re.compile(r"(?<![<0-9])[0-9]*<<(?!<)(-?)[ \t]*((?:[^\s;&|<>()\\]|\\.)+)")
"""A here-document operator and its delimiter word (quotes and escapes in it kept)."""


def errexit_copy(command: str) -> str | None:
    """The text the script sources under errexit (Rule 3): the command and then
    ``STATUS_LINE``, or None where that line could become part of the command.

    Under errexit the script cannot source the command alone: the ``.`` would return
    the status of the command's last AND-OR list and end the shell whenever it is
    non-zero, even where that list did not trip errexit (``test -f x && echo yes``,
    which a person can type); tested for it (``. c || :``), bash and zsh turn errexit
    off inside it. A last line of its own that takes the status keeps both right. It
    is unsafe where the command's text ends inside a here-document (the line would
    be its last line of data) or after a backslash that continues the line; both are
    found conservatively here (a ``<<`` in quotes or arithmetic counts as an open
    here-document unless its word stands alone on a later line), and only cost a
    refusal, under errexit alone.
    """
    text = command if command.endswith("\n") else command + "\n"
    lines = text.split("\n")[:-1]
    last = lines[-1] if lines else ""
    if (len(last) - len(last.rstrip("\\"))) % 2 == 1:
        return None
    index = 0
    while index < len(lines):
        delimiters = [
            (strip == "-", _unquoted(word)) for strip, word in _HEREDOC.findall(lines[index])
        ]
        index += 1
        for strip_tabs, word in delimiters:
            while index < len(lines) and (
                (lines[index].lstrip("\t") if strip_tabs else lines[index]) != word
            ):
                index += 1
            if index >= len(lines):
                return None
            index += 1
    return f"{text}{STATUS_LINE}\n"


def _unquoted(word: str) -> str:
    """A here-document's delimiter word with its quotes and backslashes removed."""
    return re.sub(r"\\(.)|['\"]", lambda m: m.group(1) or "", word)


def refused_options(
    shell: str, builtin: str, status_fifo: str, *, errexit_copy: bool
) -> tuple[str, str]:
    """Rule 3, the script's side: the text that opens and closes the script's body so
    that, where it cannot run the command, it reports ``X <option>`` on
    ``status_fifo`` (a quoted word) and runs nothing: under errexit when the command
    has no ``errexit_copy`` (zsh's ERR_RETURN is no longer refused: ``script``).

    The status the typed line kept stays set: ``t``, sourced last, gives it back.
    """

    def refuse(option: str) -> str:
        return f"{builtin} printf 'X {option}\\n' 1<>{status_fifo}"

    if errexit_copy:
        return "", ""
    if shell == "zsh":
        return f"if [[ -o errexit ]]; then {refuse('errexit')}\nelse ", "fi\n"
    return f"case $- in\n*e*) {refuse('errexit')} ;;\n*) ", ";;\nesac\n"


def refusal(option: str, pane: str) -> PaneNotReady:
    """Rule 3, the caller's side: the error for a run the script refused under ``option``."""
    return PaneNotReady(REFUSALS[option].format(pane=pane))


REDRAW = "tmuxmcp_redraw"
"""The variable the script reads tmuxmcp's answer into after ``S`` (Rule 6)."""


def redraw_step(shown_text: str, builtin: str) -> str:
    """Rule 6: the script's wait for tmuxmcp's word after ``S``, and the redraw it makes
    when told ``<up>:<column>``: up to the typed line's first row, right to its column,
    erase to the end of the screen, print ``shown_text`` (``shown``: no control
    character) and a newline, on the shell's saved stdout. Any other answer, an EOF
    from a dead tmuxmcp, or the release's ``go`` of a run closed early, is no redraw.
    The answer is read from the release FIFO on descriptor 9 (opened once, for this
    read and the release's), which tmuxmcp holds open, so the read ends when
    tmuxmcp is gone; ``read`` takes one line, byte by byte from a FIFO, so the
    release stays in it."""
    out = f">&{SAVED_STDOUT}"
    var = f"${{{REDRAW}"
    return (
        f"{builtin} read -r {REDRAW} <&9 || :\n"
        f"case {var}-}} in\n"
        "*[!0-9:]*|:*|*:|*:*:*|'') ;;\n"
        f"*) {builtin} printf '\\033[%dA\\r' \"{var}%%:*}}\" {out}\n"
        f"  case {var}#*:}} in\n  0) ;;\n"
        f"  *) {builtin} printf '\\033[%dC' \"{var}#*:}}\" {out} ;;\n  esac\n"
        f"  {builtin} printf '\\033[J%s\\n' {quote_word(shown_text, 'shown')} {out} ;;\n"
        "esac\n"
        # Gone before the command runs: under allexport it would be exported.
        f"{builtin} unset {REDRAW}\n"
    )


def script(
    *, files: dict[str, str], fence: str, shell: str, errexit_copy: bool, shown_text: str = ""
) -> str:
    """The script the pane's shell runs (``shell``: the program's base name): sourced, or
    in bash and zsh evaluated by the typed line (Rule 5).

    ``files`` maps ``c``, ``e``, ``s``, ``g``, ``t`` to their paths; ``errexit_copy``:
    whether ``e`` was written (``errexit_copy`` above); ``shown_text``: what a redraw
    prints (``shown``, Rule 6).
    """
    q = {key: quote_word(path, key) for key, path in files.items()}
    b = builtin_prefix(shell)
    recovers = shell not in SHELLS_WITHOUT_RECOVERY
    redirect = f"1>&{SAVED_STDOUT} 2>&{SAVED_STDERR} {SAVED_STDOUT}>&- {SAVED_STDERR}>&- 9<&-"
    # bash and zsh read a file in a command substitution themselves; elsewhere `cat`
    # from the standard PATH (`command -p`), whatever the pane's PATH is now.
    read = "<" if shell in TOP_LEVEL_SHELLS else "\\command -p cat "

    def by_errexit(plain: str, errexit: str) -> str:
        # Rule 3: under errexit the command's copy e, which takes its own status
        # on its last line; dash's `command .` / `command eval` would end the
        # shell on a syntax error there, where the same error typed does not.
        if not errexit_copy:
            return plain
        return f"case $- in\n*e*) {errexit} ;;\n*) {plain} ;;\nesac"

    # Rule 5: the command is evaluated from a variable, read before `. t && :`,
    # which gives `$?` back (a command substitution sets it). Should the read
    # fail, the variable holds the command that sources the file instead: the
    # command runs all the same, only its messages name the file.
    def load_from(key: str, dot: str) -> str:
        return f"{COMMAND_TEXT}=$({read}{q[key]}) || {COMMAND_TEXT}='{dot} '{q[key]}"

    # Where a builtin's error would abandon the whole script, `command` keeps it
    # going (dash); under errexit that `command` would end the shell instead.
    guarded = b if recovers else "\\command"
    bare = f"{b} " if recovers else "\\"
    load = by_errexit(load_from("c", f"{guarded} ."), load_from("e", f"{bare}."))
    evaluate = by_errexit(
        f'{guarded} eval "${COMMAND_TEXT}" {redirect}', f'{bare}eval "${COMMAND_TEXT}" {redirect}'
    )
    # Sourced instead under allexport, which would export the variable into every
    # program the command starts.
    sourced = "*a*"
    source = by_errexit(f"{guarded} . {q['c']} {redirect}", f"{bare}. {q['e']} {redirect}")

    # The command gets the shell's own stdout and stderr back and none of the
    # script's descriptors (7, 8, 9). The fence is drawn before the status is
    # reported, so that by the time tmuxmcp reads the status the fence is
    # already in the terminal's output and its first read of the pane finds it.
    # The status is kept meanwhile in the variable the release read sets anyway
    # (unset at the end; under errexit, e sets it). Where it cannot run the
    # command, the script runs nothing (Rule 3).
    # `. t && :` gives `$?` back to the command (the status the typed line kept:
    # t returns it until the run is collected), and unsets the variable that kept
    # it; in an AND-OR list, a non-zero status there runs no ERR trap of the user's
    # and ends no shell under errexit.
    test, end = refused_options(shell, b, q["s"], errexit_copy=errexit_copy)
    keep = "" if shell in TOP_LEVEL_SHELLS else f"{PREVIOUS_STATUS}=$?\n"
    give_back = f"{b} . {q['t']} && :\n"
    # The typed line gives the status back with `. "$tmuxmcp_t" && :` (Rule 4).
    point = f"{STATUS_FILE}={q['t']}\n"
    run = f"case $- in\n{sourced}) {source} ;;\n*) {evaluate} ;;\nesac\n"
    after = (
        "tmuxmcp_release=${tmuxmcp_release:-$?}\n"
        f"{osc7(fence, b)}\n"
        f"{b} printf 'E %d\\n' \"$tmuxmcp_release\" 1<>{q['s']}\n"
        # `|| :`: a release by a dead tmuxmcp is an EOF (status 1), which must not
        # end a shell whose command turned errexit on.
        f"{b} read tmuxmcp_release <&9 || :\n"
    )
    cleanup = f"{b} unset tmuxmcp_release {COMMAND_TEXT}\n"
    # Rule 6: the command's text is read first (a tmuxmcp that ends while the
    # script waits for its word removes the file), then the redraw's answer, and
    # `$?` given back last, all with the release FIFO open on 9, once.
    before = (
        f"case $- in\n{sourced}) ;;\n*) {load} ;;\nesac\n{redraw_step(shown_text, b)}{give_back}"
    )
    if shell == "zsh":
        # Rule 3: under ERR_RETURN the command's first failure returns from
        # everything the typed line runs, as it abandons a typed line; so do a
        # `return` at the prompt, an error and a SIGINT. The `always` block still
        # reports the status, waits for the release and gives the path back (`t`:
        # the typed line's own `. "$tmuxmcp_t"` is abandoned with the rest; where
        # nothing unwinds it runs too, and `t` is sourced twice, to the same
        # effect). `$?` after the block is the command's: an always block keeps
        # its try block's status. Under ERR_EXIT zsh exits without running it.
        block = f"{{ {before}{{ {run}}} always {{\n{after}{cleanup}{give_back}}} }} 9<{q['g']}\n"
    else:
        block = f"{{ {before}{run}{after}}} 9<{q['g']}\n{cleanup}"
    return (
        f"{keep}"
        f"{test}{b} printf 'S %d\\n' \"${PREVIOUS_STATUS}\" 1<>{q['s']}\n"
        f"{b} unset tmuxmcp_release\n"
        f"{block}"
        f"{end}"
        f"{point}"
    )


def inert(files: dict[str, str], shell: str) -> str:
    """The script a run's line finds once the run is disarmed (the shell had not read
    the line): it runs nothing and gives back the status the typed line kept, as the
    script itself would have (Rule 4), so a line read late leaves ``$?`` as it was."""
    keep = "" if shell in TOP_LEVEL_SHELLS else f"{PREVIOUS_STATUS}=$?\n"
    return f"{keep}{STATUS_FILE}={quote_word(files['t'], 't')}\n"


COMMAND_TEXT = "tmuxmcp_command"
"""The variable the script reads the command's text into, to evaluate it (Rule 5)."""


def status_return(status: int | None, restore_path: str | None, shell: str) -> str:
    """The file ``t``: it makes ``$?`` the command's status (Rule 4), and puts
    ``#{pane_path}`` back. Written when the run is collected; until then (``status``
    None) it unsets ``PREVIOUS_STATUS`` and returns the status that kept: the script
    sources it for that just before the command; the typed line sources it last, and
    finds it so when the script ran nothing (the status the typed line kept comes
    back) or was released by a dead tmuxmcp (the variable unset: 0). Both versions
    unset ``STATUS_FILE``, the variable the typed line found ``t``'s path in.

    Under errexit the status is set with ``(exit N) && :`` rather than ``return N``:
    dash ends the shell on a non-zero ``return`` in a dot script there, even one
    whose ``.`` is tested; an AND-OR list's status ends none.
    """
    b = builtin_prefix(shell)
    if status is None:
        # Expanded before eval runs it: the helper variable is gone before the
        # command starts, and `return` inside eval returns from this file.
        keep = f"${{{PREVIOUS_STATUS}:-0}}"
        unset = f"{b} unset {PREVIOUS_STATUS} {STATUS_FILE}"
        return (
            "case $- in\n"
            f'*e*) {b} eval "{unset}; ({b} exit {keep}) && :" && : ;;\n'
            f'*) {b} eval "{unset}; {b} return {keep}" ;;\n'
            "esac\n"
        )
    restore = "" if restore_path is None else osc7(restorable_path(restore_path), b) + "\n"
    code = int(status)
    return (
        f"{b} unset {STATUS_FILE}\n{restore}"
        f"case $- in\n*e*) ({b} exit {code}) && : ;;\n*) {b} return {code} ;;\nesac\n"
    )
