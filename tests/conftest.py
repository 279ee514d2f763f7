"""Settings every test shares: a Hypothesis profile that holds on a loaded 2-core machine.

Property tests here check rules, not speed: no deadline, no "too slow" health check,
and a modest number of examples (``HYPOTHESIS_PROFILE=thorough`` runs more).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "suite",
    deadline=None,
    max_examples=50,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough",
    deadline=None,
    max_examples=1_000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))
