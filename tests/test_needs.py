"""tests/needs.py: a missing tool skips a test on a workstation and fails it under CI."""

from __future__ import annotations

import pytest

from tests.needs import missing


def test_a_missing_tool_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no widget"):
        missing("no widget")


def test_a_missing_tool_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no widget; CI=true, so this fails instead of skipping"):
        missing("no widget")
