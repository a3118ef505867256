"""A pytest plugin for ``tests/conftest.py``'s fresh runs: each test's outcome, by node id,
written as JSON to the file ``LLNOALIAS_TEST_OUTCOMES`` names when the session ends."""

from __future__ import annotations

import json
import os

import pytest

_OUTCOMES: dict[str, tuple[str, str]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" or report.outcome != "passed":
        if report.skipped and isinstance(report.longrepr, tuple):
            text = str(report.longrepr[2])
        else:
            text = report.longreprtext
        if report.nodeid not in _OUTCOMES or _OUTCOMES[report.nodeid][0] == "passed":
            _OUTCOMES[report.nodeid] = (report.outcome, text)


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = os.environ.get("LLNOALIAS_TEST_OUTCOMES")
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(_OUTCOMES, fh)
