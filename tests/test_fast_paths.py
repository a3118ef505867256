"""Every shortcut of ``tests/support/fast_paths.py`` gives what its reference gives, on every
fixture it can apply to: the same output bytes and report, or the same error (the reader's
shortcuts: the same model too). The compiled twins' own tests compare them further."""

from __future__ import annotations

import pytest

from llnoalias.compiled import TWINS
from llnoalias.fileio import decode
from tests.support.fast_paths import FAST_PATHS, FastPath
from tests.support.files import all_fixtures, fixture_id


def _read(path: str) -> str:
    with open(path, "rb") as fh:
        return decode(fh.read())


def _cases() -> list[object]:
    """Every row on every fixture it applies to (``make check`` runs each on the first
    fixture of each folder: tests/conftest.py)."""
    texts = {p: _read(p) for p in all_fixtures()}
    return [pytest.param(fast, path, id=f"{fast.name}-{fixture_id(path)}")
            for fast in FAST_PATHS for path, text in texts.items() if fast.applies(text)]


@pytest.mark.parametrize("fast, path", _cases())
def test_fast_path_gives_what_its_reference_gives(fast: FastPath, path: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    why = fast.unavailable()
    if why:
        pytest.skip(why)
    text = _read(path)
    with monkeypatch.context() as m:
        fast.switch(m, True)
        got = fast.observe(text, path)
    with monkeypatch.context() as m:
        fast.switch(m, False)
        want = fast.observe(text, path)
    assert got == want, f"{fast.name} ({fast.where}) differs from {fast.equals} on {fixture_id(path)}"


def test_every_twin_is_a_fast_path() -> None:
    names = {f.name for f in FAST_PATHS}
    assert {f"compiled-{t.key}" for t in TWINS} <= names


def test_the_names_are_unique_and_each_row_says_what_it_equals() -> None:
    assert len({f.name for f in FAST_PATHS}) == len(FAST_PATHS)
    for f in FAST_PATHS:
        assert f.where and f.off and f.equals, f.name
