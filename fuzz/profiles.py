"""Hypothesis settings profiles for the fuzz suite: ``ci`` (default) and ``deep``.

Select one with the environment: ``HYPOTHESIS_PROFILE=deep python -m pytest fuzz``.
The settings are applied per test (``fuzz_settings``) rather than loaded
globally, so running ``fuzz/`` and ``tests/`` in one session does not change
the settings of the hypothesis tests under ``tests/``.

* ``ci``: deterministic (``derandomize``: the same examples on every run, so a
  CI failure reproduces exactly and no run is flaky), no example database,
  and example counts sized so the whole suite takes about a minute on two
  shared cores. Each property states its own count, by how much one example
  costs (a refused value starts no process; a raw reader pane starts Python).
* ``deep``: random, with the example database in ``.hypothesis/`` (failures
  replay first on the next run), ``DEEP_FACTOR`` times the examples. Expect
  tens of minutes; run it before changing a sink, an encoder or the tmux
  version, and pin whatever it finds as an ``@example``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

DEEP_FACTOR = 40

_COMMON = {
    "deadline": None,
    "print_blob": True,
    "suppress_health_check": [
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
        HealthCheck.filter_too_much,
        HealthCheck.differing_executors,
    ],
}

settings.register_profile("ci", derandomize=True, database=None, **_COMMON)  # type: ignore[arg-type]
settings.register_profile("deep", derandomize=False, **_COMMON)  # type: ignore[arg-type]

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
if PROFILE not in ("ci", "deep"):
    raise RuntimeError(f"HYPOTHESIS_PROFILE must be ci or deep, not {PROFILE!r}")


def examples(ci: int) -> int:
    """The example count for a property that runs ``ci`` examples in the ci profile."""
    return ci if PROFILE == "ci" else ci * DEEP_FACTOR


def fuzz_settings(ci_examples: int) -> settings:
    """Settings for one property: the active profile with its example count."""
    return settings(settings.get_profile(PROFILE), max_examples=examples(ci_examples))
