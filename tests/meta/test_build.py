"""The compiled parts were built where they can be: a CI run (``CI`` set) on a machine with a
C compiler and the Python headers fails when one of the C extensions did not build, since the
optional build (``setup.py``: ``optional=True``) would otherwise fall back to pure Python in
silence, and the suite would pass while testing only one of the twins. ``.ci/run`` runs the
suite a second time with ``LLNOALIAS_PURE=1``, so both modes are tested."""

from __future__ import annotations

import os
import shutil
import sysconfig
from pathlib import Path

import pytest

from llnoalias.compiled import TWINS, load


def _can_build() -> str:
    """Why the extensions need not be there, or '' when they must."""
    if os.environ.get("LLNOALIAS_PURE"):
        return "LLNOALIAS_PURE is set: the pure-Python run"
    if not os.environ.get("CI"):
        return "not a CI run (CI is unset): a missing build is the user's note in --version"
    if not any(shutil.which(cc) for cc in (os.environ.get("CC", "cc"), "gcc", "clang")):
        return "no C compiler on PATH"
    include = sysconfig.get_paths().get("include", "")
    if not include or not (Path(include) / "Python.h").is_file():
        return "no Python headers (Python.h)"
    return ""


def test_every_extension_built_where_it_can_be() -> None:
    why = _can_build()
    if why:
        pytest.skip(why)
    missing = [t.module for t in TWINS if load(t.key) is None]
    assert not missing, f"C extensions that did not build: {', '.join(missing)} (see the install log)"


def test_pure_mode_loads_no_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    """LLNOALIAS_PURE=1 is what the second CI run relies on: with it set, no extension loads."""
    monkeypatch.setenv("LLNOALIAS_PURE", "1")
    assert [t.key for t in TWINS if load(t.key) is not None] == []
