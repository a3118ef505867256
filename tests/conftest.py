"""The suite's hooks.

``slow``: ``make check`` (``pytest -m "not slow"``) stays under a minute while ``make test``
runs everything: a test parametrized over fixture files is marked ``slow`` on every module
of ``fixtures/corpus/`` (real producers' output, some of 100,000 lines) and, in every other
folder of ``fixtures/`` (and the tests' own data), on all but the first file of the folder
that it is run on. Tests of seconds are marked ``slow`` by hand.

``forks``: a test of worker processes (``transform.workers``) needs a process that may fork:
``workers.can_fork()`` refuses while another thread runs, and a pytest-xdist worker runs
execnet's. Under xdist such a test is not run in the worker (where it would fork nothing
and compare a run with itself): the first one of its file that a worker meets runs every
``forks`` test of that file in one fresh pytest process without xdist, and each test takes
its outcome from there (passed, skipped with its reason, or failed with its report). The
marker also puts them in one ``xdist_group``, so that ``--dist loadgroup`` (``make test``)
sends them to one worker and each file's fresh run is made once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

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
    _group_forks(items)
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


#: what a fresh run gave each ``forks`` test this process met, by node id
_FRESH: dict[str, tuple[str, str]] = {}


def _xdist_worker() -> bool:
    return bool(os.environ.get("PYTEST_XDIST_WORKER"))


def _group_forks(items: list[pytest.Item]) -> None:
    if not items or not items[0].config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if item.get_closest_marker("forks") is not None:
            item.add_marker(pytest.mark.xdist_group("forks"))


def _fresh_run(item: pytest.Item) -> None:
    """Run every ``forks`` test of ``item``'s file in a fresh pytest process (no xdist) and
    keep their outcomes in ``_FRESH``."""
    path = item.nodeid.partition("::")[0]
    ids = [i.nodeid for i in item.session.items
           if i.nodeid.partition("::")[0] == path and i.get_closest_marker("forks") is not None]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST_XDIST") and k not in ("PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST")}
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "outcomes.json")
        env["LLNOALIAS_TEST_OUTCOMES"] = out
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                               "-p", "tests.support.outcomes", "-o", "addopts=--strict-markers", *ids],
                              cwd=str(item.config.rootpath), env=env, capture_output=True, text=True)
        got: dict[str, list[str]] = {}
        if os.path.exists(out):
            with open(out, encoding="utf-8") as fh:
                got = json.load(fh)
    for nodeid in ids:
        outcome = got.get(nodeid)
        if outcome is None:
            _FRESH[nodeid] = ("failed", f"the fresh run did not run it (exit {done.returncode}):\n"
                                        f"{done.stdout[-4000:]}{done.stderr[-4000:]}")
        else:
            _FRESH[nodeid] = (outcome[0], outcome[1])


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if not _xdist_worker() or pyfuncitem.get_closest_marker("forks") is None:
        return None
    if pyfuncitem.nodeid not in _FRESH:
        _fresh_run(pyfuncitem)
    outcome, text = _FRESH[pyfuncitem.nodeid]
    if outcome == "skipped":
        pytest.skip(text)
    if outcome != "passed":
        pytest.fail(f"in a fresh pytest process (forks):\n{text}", pytrace=False)
    return True
