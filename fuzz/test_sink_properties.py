"""Every parameter of every tool, fuzzed by the property of its declared sink.

The parameters come from the capability definition (``fuzz.cases.cases``),
so a new parameter is fuzzed as soon as it is declared, and fails here if its
(sink, encoding) pair has no property. Each case runs one hypothesis test with
the property's pinned examples first.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given

from fuzz.cases import Case, cases
from fuzz.harness import Harness
from fuzz.known_bugs import known_bug
from fuzz.profiles import fuzz_settings
from fuzz.properties import PROPERTIES


@pytest.mark.parametrize("case", cases(), ids=str)
def test_parameter_property(fuzz_harness: Harness, case: Case) -> None:
    prop = PROPERTIES[case.key]

    def body(value: Any) -> None:
        if known_bug(case, value) is None:  # pinned in test_fixed_bugs.py until fixed
            prop.check(fuzz_harness, case, value)

    test = given(value=prop.values(case))(body)
    for pinned in prop.pinned(case):
        test = example(value=pinned)(test)
    fuzz_settings(prop.ci_examples)(test)()
