"""``MetadataWriter.domain_scopes`` writes a domain new to the module in one step
(the ``fresh-domains`` shortcut): the lines, ids and the writer's tables must be what making one
scope at a time gives, also beside domains found again in the input and after other
nodes took ids."""

from __future__ import annotations

import pytest

from llnoalias.ir.editor import Editor
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.transform.metadata import MetadataWriter
from tests.support.switches import switch_shortcut

AGAIN = ('define void @f() {\n  ret void\n}\n!7 = distinct !{!7, !"llnoalias.args.f"}\n'
         '!8 = distinct !{!8, !7, !"a"}\n')

CALLS: list[tuple[str, list[str]]] = [
    ("llnoalias.args.f", ["a", "b"]),  # found again in AGAIN: "a" reused, "b" new
    ("llnoalias.args.g", ["x"]),
    ("llnoalias.args.g", ["x", "y"]),  # a second call: the domain is known now
    ("llnoalias.args.h", ["p", "p"]),  # a name twice: one scope
    ("llnoalias.args.i", []),
    ("llnoalias.args.q\"x", ["a\\5Cb", "c"]),
    ("llnoalias.lds", ["l0", "l1", "l2", "l3"]),
]


def _run(text: str, fresh: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[object, ...]:
    switch_shortcut(monkeypatch, "fresh-domains", fresh)
    mod = parse_module(SourceFile("t.ll", text))
    ed = Editor(mod.source)
    w = MetadataWriter(mod, ed)
    w.empty_node()  # an id taken before the scopes
    got = [w.domain_scopes(dom, names) for dom, names in CALLS]
    got.append([w.scope("llnoalias.args.g", "z"), w.scope("llnoalias.args.j", "k")])
    w.flush()
    return got, ed.render(), dict(w.domains), dict(w.scopes), w.next_id


@pytest.mark.parametrize("text", ["define void @f() {\n  ret void\n}\n", AGAIN])
def test_fresh_domains_are_the_long_way(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _run(text, True, monkeypatch)
    slow = _run(text, False, monkeypatch)
    assert fast == slow
    assert fast[1].count("distinct") > text.count("distinct")  # lines were written
