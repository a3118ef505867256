"""``_header_fast`` reads a header whose text but for its name it has read before from its
memo (``_SHAPES_SEEN``): the function must be the one the full reading gives, and a name the
pattern would not take must not come from the memo."""

from __future__ import annotations

import pytest

from llnoalias.ir import header_reader
from llnoalias.ir.header_reader import HeaderReader
from llnoalias.ir.model import Function
from llnoalias.ir.source import SourceFile
from tests.support.switches import switch_twin

_HEADERS = [
    "define amdgpu_kernel void @k{}(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b) ",
    "define void addrspace(1) @f{}(i32 %x, ptr nocapture readonly %p) #0 ",
    "define internal fastcc i32 @g.{}() local_unnamed_addr #1 ",
]


def _shape(fn: Function) -> tuple[object, ...]:
    return (fn.name, fn.line, fn.start, fn.cc, [(a.name, a.index, str(a.type), sorted(a.attrs), a.insert_at)
                                                for a in fn.args],
            fn.header_end, fn.fn_attr_groups, fn.fn_attrs_inline, fn.is_kernel, fn.header_text, fn.own_attrs_text)


@pytest.mark.parametrize("header", _HEADERS)
def test_memo_gives_what_the_full_reading_gives(header: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # (the memo of the whole text is what is tested here: the compiled split, which reads
    # such a header before it, is held to the pattern by test_parse_header_line)
    switch_twin(monkeypatch, "body_reader", None, only=("llnoalias.ir.header_reader",))
    monkeypatch.setattr(header_reader, "_SHAPES_SEEN", {})
    reader = HeaderReader(SourceFile("m.ll", ""))
    first = reader._header_fast(header.format(1), 10, 2, 10)
    assert first is not None and len(header_reader._SHAPES_SEEN) == 1
    for name in ("2", "22222", "x_y"):
        code = header.format(name)
        got = reader._header_fast(code, 40, 7, 40)
        monkeypatch.setattr(header_reader, "_SHAPES_SEEN", {})
        want = reader._header_fast(code, 40, 7, 40)
        assert got is not None and want is not None
        assert _shape(got) == _shape(want)
        assert got.name.endswith(name)


def test_a_name_the_pattern_refuses_is_not_read_from_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    switch_twin(monkeypatch, "body_reader", None, only=("llnoalias.ir.header_reader",))
    monkeypatch.setattr(header_reader, "_SHAPES_SEEN", {})
    reader = HeaderReader(SourceFile("m.ll", ""))
    header = _HEADERS[0]
    assert reader._header_fast(header.format(1), 0, 1, 0) is not None
    # a quoted name, or one that starts with a digit: the pattern refuses them (the
    # tokenizer reads them), and so must the memo
    assert reader._header_fast(header.replace("@k{}", '@"k 1"'), 0, 1, 0) is None
    assert reader._header_fast(header.replace("@k{}", "@1k"), 0, 1, 0) is None
