"""``panetext.typed_records``: tmux's strings read as a record Struct's field types.

The readers are derived once per record type; these tests pin the conversion
rules (bool, int, int | None, str) that every toolset relies on.
"""

from __future__ import annotations

import msgspec
import pytest

from tmuxmcp.panes.records import PANE_FIELDS, PaneInfo
from tmuxmcp.panetext import typed_records
from tmuxmcp.panetext.typed_records import typed_record


class Sample(msgspec.Struct, frozen=True, kw_only=True):
    flag: bool
    count: int
    pid: int | None
    name: str


FIELDS = {"flag": "f_var", "count": "c_var", "pid": "p_var", "name": "n_var"}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (("1", "42", "7", "x"), Sample(flag=True, count=42, pid=7, name="x")),
        (("0", "-3", "", ""), Sample(flag=False, count=-3, pid=None, name="")),
        (("", "", "-1", "1"), Sample(flag=False, count=0, pid=None, name="1")),
        (("true", "4x", "x", " a b "), Sample(flag=False, count=0, pid=None, name=" a b ")),
    ],
)
def test_strings_become_the_field_types(raw: tuple[str, ...], expected: Sample) -> None:
    values = dict(zip(FIELDS.values(), raw, strict=True))
    assert typed_record(values, FIELDS, Sample) == expected


def test_readers_are_derived_once_per_record_type() -> None:
    assert typed_records._readers(Sample) is typed_records._readers(Sample)
    assert set(typed_records._readers(PaneInfo)) == set(PANE_FIELDS)


def test_a_pane_record_reads_every_field() -> None:
    raw = dict.fromkeys(PANE_FIELDS.values(), "1")
    raw["pane_title"] = "t"
    pane = typed_record(raw, PANE_FIELDS, PaneInfo)
    assert isinstance(pane, PaneInfo)
    assert pane.title == "t"
    assert pane.pid == 1
    assert pane.dead is True
    assert pane.width == 1
