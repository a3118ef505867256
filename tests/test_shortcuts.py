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
from tests.support.switches import memo_places, switch_shortcut

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
    switches = {s.name for s in SHORTCUTS if not s.memos}
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
