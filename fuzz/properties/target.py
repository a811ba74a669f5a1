"""The target sink: ``target-exact-id`` (target / id-only).

Anything but an exact id of the parameter's kind in tmux's canonical spelling
is refused before any tmux process starts; an exact id that names nothing is
``object-not-found`` (CM-5; research/tmux-sinks.md on target resolution).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from fuzz.calls import arguments
from fuzz.cases import Case
from fuzz.harness import Harness, placeholder_ids
from fuzz.known_bugs import known_bug, tolerated
from fuzz.oracles import PREFIX, canonical_id
from fuzz.properties.base import Property, schema_refusal_names
from fuzz.schema import id_kind
from fuzz.strategies import hostile_text, id_like

ALL_IDS = "#{session_id} #{window_id} #{pane_id}"


class TargetIdOnly(Property):
    name = "target-exact-id"
    invariant = (
        "any string other than an exact id of the parameter's kind is refused and never "
        "reaches tmux; an exact id that names nothing fails; the bystander is untouched"
    )
    ci_examples = 12

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        world_ids = ["<session>", "<window>", "<pane>", "<pane2>", "<dest_session>", "<0pane>"]
        return st.one_of(
            st.sampled_from(world_ids),
            id_like(PREFIX[id_kind(case)]),
            id_like(),
            hostile_text(),
        )

    def pinned(self, case: Case) -> list[Any]:
        kind = id_kind(case)
        return [
            f"<{kind}>",  # the world's own object: the call acts on it
            f"{PREFIX[kind]}999999",  # exact, but names nothing
            f"{PREFIX[kind]}1\n",  # Python's '$' matches before a final newline
            "<0pane>",  # leading zero: known bug leading-zero-ids
            "=work:",
            "{last}",
        ]

    def check(self, h: Harness, case: Case, value: Any) -> None:
        world = h.world()
        ids = placeholder_ids(world) | {"<0pane>": "%0" + world.pane[1:]}
        value = ids.get(value, value)
        if value in h.bystander_ids or known_bug(case, value):
            return
        kind = id_kind(case)
        existing = set(h.bare("list-panes", "-a", "-F", ALL_IDS).split())
        outcome = h.call(case.spec.name, arguments(case, world, value))
        h.check_common(outcome)
        if not canonical_id(kind, value):
            h.refused(outcome)
            return
        assert not (outcome.is_error and outcome.slug == "unsafe-value"), outcome.text
        assert not schema_refusal_names(outcome, case.param.name), outcome.text
        if value not in existing and not tolerated(case, outcome):
            assert outcome.slug == "object-not-found", f"{value} names nothing: {outcome.text}"
