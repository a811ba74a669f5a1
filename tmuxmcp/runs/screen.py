"""What a run reads of its pane in one tmux invocation: the frame, its path, the rows.

Pure parsing of what tmux printed (the invocations themselves are built by
the phase that needs them: ``settle``, ``type_line``, ``collect``). Several
reads share one invocation, cut apart at a separator line with a per-read
secret, so that every part describes the same instant.
"""

from __future__ import annotations

import secrets

import msgspec

from tmuxmcp.driver.records import RecordFormat
from tmuxmcp.errors import TmuxCommandFailed
from tmuxmcp.panetext.scrollback import FRAME_FIELDS, Frame
from tmuxmcp.panetext.typed_records import typed_record
from tmuxmcp.runs import pending

PATH_FRAME_FIELDS = {**FRAME_FIELDS, "path": "pane_path", **pending.INPUT_FIELDS}
"""The frame's variables plus ``#{pane_path}``, where the fence shows, and who could
have typed into the pane (``pending.Input``)."""


class PathFrame(msgspec.Struct, frozen=True, kw_only=True):
    """A frame plus ``#{pane_path}``, where the fence shows, and the pane's input."""

    frame: Frame
    path: str
    input: pending.Input


def path_frame_format() -> RecordFormat:
    """The record format of a ``PathFrame`` (a fresh section marker each time)."""
    return RecordFormat(list(PATH_FRAME_FIELDS.values()))


def frame_of(text: str, frame_format: RecordFormat) -> PathFrame:
    """The one ``PathFrame`` in ``text``; ``TmuxCommandFailed`` if there is not exactly one."""
    records = frame_format.parse(text)
    if len(records) != 1:
        raise TmuxCommandFailed("tmux returned a pane record tmuxmcp could not parse")
    raw = records[0]
    frame: Frame = typed_record(raw, FRAME_FIELDS, Frame)
    typed: pending.Input = typed_record(raw, pending.INPUT_FIELDS, pending.Input)
    return PathFrame(frame=frame, path=raw["pane_path"], input=typed)


def rows(text: str) -> list[str]:
    """The rows ``capture-pane -p`` printed (its last newline ends the last row)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def separator() -> str:
    """A fresh line to print between the reads of one invocation."""
    return f"tmuxmcp-sep-{secrets.token_hex(8)}"


def split(text: str, sep: str) -> list[str]:
    """``text`` cut at each line ``sep``."""
    return text.split(sep + "\n")
