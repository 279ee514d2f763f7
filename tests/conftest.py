"""Settings every test shares: a Hypothesis profile that holds on a loaded 2-core machine, and
the check that every frame a test server sends matches the published schema.

Property tests here check rules, not speed: no deadline, no "too slow" health check,
and a modest number of examples (``HYPOTHESIS_PROFILE=thorough`` runs more).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests.frames import FrameCheck

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

# The commands the tests start see this environment's programs on the PATH, as in an activated
# virtual environment (the commands then suggest a bare `terrace …`; the one test of a run by
# path, venv not activated, sets its own PATH).
_BIN = os.path.dirname(sys.executable)
if _BIN not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _BIN + os.pathsep + os.environ.get("PATH", "")


@pytest.fixture(autouse=True)
def frames_match_the_schema(monkeypatch: pytest.MonkeyPatch) -> Iterator[FrameCheck]:
    """Every frame a server in this test sends validates against docs/protocol.schema.json
    (tests/frames.py): the test fails at its end if one does not."""
    check = FrameCheck()
    check.install(monkeypatch)
    yield check
    assert not check.failures, check.report()
