"""Every shortcut of ``tests/support/fast_paths.py`` gives what its reference gives: the same
output bytes and report, or the same error (the reader's shortcuts: the same model too), and
the run shows it took the shortcut (the row's ``spy`` counts more with it than without), so
no comparison is of a run with itself. The compiled twins' own tests compare them further.

Each row is compared on a few fixtures, not on every one: the shortcuts are about spellings
and shapes (a header, a body, a memo's second hit, a domain, a worker's group), and these
cover each of them, where it fires, beside the fixtures and corpus modules the other tests
sweep (every fixture annotated, FileCheck'd, read in both modes, split between workers).
``REPRESENTATIVE``: a HIP module of LDS and arguments (clang), LDS regions, an LDS-DMA
kernel, a Triton module (LLVM 22 syntax, many phis), a module of many kernels spelled alike
(the memos' and shapes' second hits) and an NVPTX module; a row whose shortcut has nothing
to do on some of them (workers on a module of one function, the LDS-DMA alias scan) names
its own in ``FastPath.fixtures``. A fixture where a row's spy counts nothing fails the test:
pick another.
"""

from __future__ import annotations

import os

import pytest

from llnoalias.compiled import TWINS
from llnoalias.fileio import decode
from tests.support.fast_paths import FAST_PATHS, REPRESENTATIVE, FastPath
from tests.support.files import FIXTURES


def _read(path: str) -> str:
    with open(path, "rb") as fh:
        return decode(fh.read())


def _cases() -> list[object]:
    return [pytest.param(fast, name, id=f"{fast.name}-{name}", marks=[pytest.mark.forks] if fast.forks else [])
            for fast in FAST_PATHS for name in (fast.fixtures or REPRESENTATIVE)]


@pytest.mark.parametrize("fast, name", _cases())
def test_fast_path_gives_what_its_reference_gives(fast: FastPath, name: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    why = fast.unavailable()
    if why:
        pytest.skip(why)
    path = os.path.join(FIXTURES, name)
    text = _read(path)
    with monkeypatch.context() as m:
        fast.switch(m, True)
        took = fast.spy(m)
        got = fast.observe(text, path)
        took_fast = took()
    with monkeypatch.context() as m:
        fast.switch(m, False)
        took = fast.spy(m)
        want = fast.observe(text, path)
        took_reference = took()
    assert took_fast > took_reference, (
        f"{fast.name} ({fast.where}): the shortcut did nothing on {name} (spy: {took_fast} with it, "
        f"{took_reference} without): the comparison would test nothing")
    assert got == want, f"{fast.name} ({fast.where}) differs from {fast.equals} on {name}"


def test_every_twin_is_a_fast_path() -> None:
    names = {f.name for f in FAST_PATHS}
    assert {f"compiled-{t.key}" for t in TWINS} <= names


def test_the_names_are_unique_and_each_row_says_what_it_equals() -> None:
    assert len({f.name for f in FAST_PATHS}) == len(FAST_PATHS)
    for f in FAST_PATHS:
        assert f.where and f.off and f.equals, f.name


def test_each_rows_fixtures_exist() -> None:
    for f in FAST_PATHS:
        for name in f.fixtures or REPRESENTATIVE:
            assert os.path.isfile(os.path.join(FIXTURES, name)), (f.name, name)
