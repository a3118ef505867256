"""The compiled ``header_line`` (llnoalias/ir/_body_reader.c) splits a header's code where
``_HEADER_RE`` splits it, and ``HeaderReader._header_line`` gives from that split the
function ``_header_fast``'s pattern gives (its pure reading, the reference), on every define
line of every fixture and on odd headers; a header it may not read is left to the pattern."""

from __future__ import annotations

from pathlib import Path

import pytest

from llnoalias.fileio import decode
from llnoalias.ir import header_reader
from llnoalias.ir.header_reader import _HEADER_RE, HeaderReader, _params
from llnoalias.ir.model import Argument, Function
from llnoalias.ir.source import SourceFile
from llnoalias.ir.types import Type, type_of
from tests.support.files import DATA, ROOT
from tests.support.switches import switch_twin, twin

FILES = sorted({*ROOT.glob("fixtures/**/*.ll"), *DATA.glob("**/*.ll")})
cscan = twin("body_reader")
needs_cscan = pytest.mark.skipif(cscan is None, reason="the compiled reader is not built here")


def _shape(fn: Function | None) -> object:
    if fn is None:
        return None
    return (fn.name, fn.line, fn.start, fn.cc, [(a.name, a.index, repr(a.type), sorted(a.attrs), a.insert_at, a.named)
                                                for a in fn.args],
            fn.header_end, fn.fn_attr_groups, fn.fn_attrs_inline, fn.is_kernel, fn.header_text, fn.own_attrs_text)


def _codes(text: str) -> list[str]:
    """The code of every one-line define of ``text`` (as ``TopLevelReader._function`` cuts it)."""
    out = []
    for raw in text.split("\n"):
        code = raw.rstrip()
        if code.startswith("define") and code.endswith("{") and ";" not in raw:
            out.append(code[:-1])
    return out


def _agree(codes: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """Each code read by ``_header_line`` (after the pattern has read it once, so that its
    parts are known) is what the pattern reads; returns how many it read."""
    assert cscan is not None
    reader = HeaderReader(SourceFile("m.ll", ""))
    read = 0
    for code in codes:
        with monkeypatch.context() as m:
            switch_twin(m, "body_reader", None, only=("llnoalias.ir.header_reader",))
            m.setattr(header_reader, "_SHAPES_SEEN", {})
            want = reader._header_fast(code, 7, 3, 7)  # (and its parts are now known)
        got = reader._header_line(code, 7, 3, 7)
        if got is not None:
            read += 1
            assert _shape(got) == _shape(want), code
        split = cscan.header_line(code)
        m2 = _HEADER_RE.match(code)
        if split is not None and m2 is not None:
            at, lp, close, params = split
            assert (at, lp, close) == (m2.start("name") - 1, m2.end("name"), m2.end("args"))
            want_params = _params(m2.group("args"))
            if want_params is not None:
                assert [(name, a) for _, name, a in params] == [(p[0], p[3]) for p in want_params]
    return read


@needs_cscan
@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_header_line_reads_what_the_pattern_reads(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _agree(_codes(decode(path.read_bytes())), monkeypatch)


@needs_cscan
def test_header_line_reads_the_corpus_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    codes = [c for name in ("hip_gemm_O3", "hip_lds_dma_O3", "cuda_smem_O3")
             for c in _codes(decode((ROOT / f"fixtures/corpus/clang19/{name}.ll").read_bytes()))]
    assert codes and _agree(codes, monkeypatch) == len(codes)


_ODD = [
    "define amdgpu_kernel void @k(ptr addrspace(1) noalias nocapture noundef readonly %0, i32 noundef %1) #0 ",
    "define void @k(ptr addrspace(3) align 16 dereferenceable(64) %p, <4 x float> %v) local_unnamed_addr #1",
    "define ptx_kernel void @k(ptr captures(none) %p, i32 range(i32 0, 1024) %n) !dbg !7",
    "define void addrspace(1) @f(i32 %x, ptr nocapture readonly %p) #0 ",
    "define internal fastcc i32 @g.1() local_unnamed_addr #1 ",
    "define void @k(ptr align(0x10) %p)", "define void @k(ptr 16x %p)", "define void @k(ptr %p, ...)",
    "define void @k(ptr %a, ptr %b,, ptr %c)", "define void @k(ptr %a,)", "define void @k(,ptr %a)",
    "define void @k(ptr %a %b)", "define void @k(ptr %)", "define void @k(%a)", "define void @k(ptr %a ,ptr %b)",
    "define void @k(ptr\n %a,\n\tptr %b\n)", "define void @k(ptr %a\r)", "define void @k( \t )", "define void @k()",
    "define void @k(\x0c)", "define void @k(\x1c)", "define void @k(ptr byval(%T) %a)",
    "define void @k(ptr ((1)) %a)", "define void @k(ptr (1 %a)", "define void @k(ptr 1) %a)",
    "define void @k(ptr %a) (", "define void @k(ptr %a) #0 ;", 'define void @k(ptr %a) "x"', "define void @1k(ptr %a)",
    "define void @(ptr %a)", "define void @k.$-_(ptr %a-b.c$_9)", "define void @k (ptr %a)", "define void k(ptr %a)",
    "define void @k(ptr %a", "define @a@b(ptr %a)", "define void @k(i32 %a) #0 #1 nounwind",
    "define void @k(ptr %\u00e9)", "define void @k\u00e9(ptr %a)", "define void @k(ptr \u00e9 %a)",
    "define void @k(i32 %0, i32 %5, i32 %2)", "define void @k(<4 x i32> noundef %v, half %h, double %d)",
]


@needs_cscan
def test_header_line_on_odd_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _agree(_ODD, monkeypatch) > 10


@needs_cscan
def test_header_line_leaves_what_it_does_not_split() -> None:
    assert cscan is not None
    for code in ("define void @k(ptr %a", 'define void @k(ptr %a) "x"', "define void @k(ptr ((1)) %a)",
                 "define void @1k(ptr %a)", "define void @k(ptr %a,)", "define void @k(\x1c)", "define void @k(%a)",
                 "define void @k(ptr %a) ("):
        assert cscan.header_line(code) is None, code
    assert cscan.header_line("define void @k(ptr %a, i32 %b) #0") == (
        12, 14, 29, [("ptr ", "%a", 4), (" i32 ", "%b", 12)])


@needs_cscan
def test_a_part_the_pattern_has_not_read_goes_to_the_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    """The split reads no word of a header: its parts must be texts the pattern read before."""
    reader = HeaderReader(SourceFile("m.ll", ""))
    code = "define amdgpu_kernel void @k(ptr addrspace(1) noalias %a) #0 "
    assert reader._header_fast(code, 0, 1, 0) is not None
    assert reader._header_line(code, 0, 1, 0) is not None
    for memo in ("_PRE_SEEN", "_PIECES_SEEN", "_TAIL_SEEN"):
        with monkeypatch.context() as m:
            m.setattr(header_reader, memo, {})
            assert reader._header_line(code, 0, 1, 0) is None, memo


@needs_cscan
def test_header_line_makes_the_arguments_from_the_pieces() -> None:
    assert cscan is not None
    code = "define void @k(ptr addrspace(1) noalias %a, i32 %b) #0"
    ptr: tuple[Type, set[str]] = (type_of("ptr addrspace(1)"), {"noalias"})
    i32: tuple[Type, set[str]] = (type_of("i32"), set())
    got = cscan.header_line(code, {"ptr addrspace(1) noalias ": ptr, " i32 ": i32}, Argument, 100)
    assert got is not None
    at, lp, close, args = got
    assert (at, lp, close) == (12, 14, 50)
    assert args == [Argument("%a", 0, ptr[0], ptr[1], 100 + 40), Argument("%b", 1, i32[0], i32[1], 100 + 48)]
    assert args[0].attrs is ptr[1]  # (shared, as _params shares them)
    assert cscan.header_line(code, {"ptr addrspace(1) noalias ": ptr}, Argument, 100) is None
    with pytest.raises(TypeError):
        cscan.header_line(code, {})
