"""The suite's one hook, which keeps ``make check`` (``pytest -m "not slow"``) under a minute
while ``make test`` runs everything: a test parametrized over fixture files is marked
``slow`` on every module of ``fixtures/corpus/`` (real producers' output, some of 100,000
lines) and, in every other folder of ``fixtures/`` (and the tests' own data), on all but the
first file of the folder that it is run on. Tests of seconds are marked ``slow`` by hand."""

from __future__ import annotations

import os

import pytest


def _fixture_folder(value: object) -> str | None:
    """For a fixture file's path: its folder under ``fixtures/`` (``corpus`` for the
    corpus), ``data`` for the tests' own data; None for anything else."""
    if not isinstance(value, (str, os.PathLike)):
        return None
    parts = os.path.normpath(os.fspath(value)).split(os.sep)
    if not parts[-1].endswith(".ll"):
        return None
    for i, part in enumerate(parts[:-1]):
        if part == "fixtures" and i + 2 < len(parts):
            return parts[i + 1]
        if part == "data" and i > 0 and parts[i - 1] == "support":
            return "data"
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    seen: set[tuple[str, str]] = set()
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None:
            continue
        values = [v for p in callspec.params.values() for v in (p if isinstance(p, tuple) else (p,))]
        folders = [f for f in map(_fixture_folder, values) if f is not None]
        if not folders:
            continue
        first = (item.nodeid.partition("[")[0], folders[0])
        if folders[0] == "corpus" or first in seen:
            item.add_marker(pytest.mark.slow)
        seen.add(first)
