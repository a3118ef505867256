"""The table of shortcuts (``llnoalias/shortcuts.py``): each row is a fast-path row of
``tests/support/fast_paths.py`` by its name, each switch is read by the package where it
says and each memo is where it says, so that the table is the one place a test switches a
shortcut (``tests/support/switches.py``), and a row nothing reads fails here."""

from __future__ import annotations

import re

import pytest

from llnoalias import shortcuts
from llnoalias.shortcuts import SHORTCUTS, NoMemo, Shortcut
from tests.support.fast_paths import FAST_PATHS
from tests.support.files import ROOT
from tests.support.switches import bind_places, memo_places, switch_shortcut

#: ``shortcuts.ON["name"]``: the one spelling of a switch read
_READ = re.compile(r'shortcuts\.ON\["([a-z-]+)"\]')


def _reads() -> dict[str, set[str]]:
    """The switches the package reads, by name: the modules that read each."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / "llnoalias").rglob("*.py")):
        for name in _READ.findall(path.read_text()):
            out.setdefault(name, set()).add(path.relative_to(ROOT).as_posix())
    return out


def test_the_names_are_unique_and_each_is_a_fast_path_row() -> None:
    names = [s.name for s in SHORTCUTS]
    assert len(set(names)) == len(names)
    rows = {f.name for f in FAST_PATHS}
    assert set(names) <= rows, sorted(set(names) - rows)
    for s in SHORTCUTS:
        assert s.where and s.skips and s.default is True, s.name


def test_each_switch_is_read_and_each_read_is_a_switch() -> None:
    reads = _reads()
    switches = {s.name for s in SHORTCUTS if not s.memos and not s.binds}
    assert set(reads) == switches, (sorted(set(reads) - switches), sorted(switches - set(reads)))
    assert set(shortcuts.ON) == switches


@pytest.mark.parametrize("row", [s for s in SHORTCUTS if s.memos], ids=lambda s: s.name)
def test_each_memo_is_where_the_row_says(row: Shortcut, monkeypatch: pytest.MonkeyPatch) -> None:
    places = memo_places(row.name)
    for module, attr in places:
        assert isinstance(getattr(module, attr), dict), (module.__name__, attr)
    with monkeypatch.context() as m:
        switch_shortcut(m, row.name, False)
        assert all(isinstance(getattr(module, attr), NoMemo) for module, attr in places)
    assert not any(isinstance(getattr(module, attr), NoMemo) for module, attr in places)


@pytest.mark.parametrize("row", [s for s in SHORTCUTS if s.binds], ids=lambda s: s.name)
def test_each_binding_is_where_the_row_says(row: Shortcut, monkeypatch: pytest.MonkeyPatch) -> None:
    """A binding row's global is a function of the package now, its long way another one
    of the package; switching the row off binds the long way there, and only until the
    switch is undone."""
    places = bind_places(row.name)
    assert places and not row.memos
    held = [getattr(module, attr) for (module, attr), _ in places]
    for ((module, attr), long_way), now in zip(places, held, strict=True):
        assert callable(now) and callable(long_way) and now is not long_way, (module.__name__, attr)
        assert long_way.__module__.startswith("llnoalias."), long_way.__module__
    with monkeypatch.context() as m:
        switch_shortcut(m, row.name, False)
        assert all(getattr(module, attr) is long_way for (module, attr), long_way in places)
    assert [getattr(module, attr) for (module, attr), _ in places] == held


def test_a_row_is_read_only_and_a_no_memo_keeps_nothing() -> None:
    with pytest.raises(AttributeError):
        SHORTCUTS[0].default = False  # type: ignore[misc]
    memo = NoMemo()
    memo["a"] = 1
    assert memo.setdefault("b", 2) == 2
    memo.update(c=3)
    assert not memo and memo.get("a") is None


def test_switching_a_switch_is_undone(monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as m:
        switch_shortcut(m, "fresh-domains", False)
        assert shortcuts.ON["fresh-domains"] is False
    assert shortcuts.ON["fresh-domains"] is True


#: a fast path switched off by patching its function to decline (``lambda ...: None``): the
#: spelling this table replaced
_DECLINED = re.compile(r"setattr\([^\n]*lambda[^\n:]*:\s*None\)")


def test_no_test_switches_a_shortcut_by_patching_its_code() -> None:
    """Every shortcut is switched through its row (``switch_shortcut``), never by patching
    the function that takes it to return None."""
    found = [f"{path.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}"
             for path in sorted((ROOT / "tests").rglob("*.py"))
             for text in [path.read_text()] for m in _DECLINED.finditer(text)]
    assert not found, found
