"""The one-``findall`` fast path of the body scanner must record exactly what the
line-by-line scanner records, on odd bodies and headers, and must leave to it every body it
does not fully understand (on every fixture: the body-fast and header-fast rows of
tests/support/fast_paths.py)."""

from __future__ import annotations

import pytest

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.fileio import decode
from llnoalias.ir import parser
from llnoalias.ir.model import Module
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from tests.support.headers import parse_headers as _parse_headers
from tests.support.switches import switch_shortcut


def _shape(mod: Module) -> list[object]:
    return [(fn.name, fn.blocks, fn.block_offsets,
             [(i.name, i.opcode, i.start, i.end, i.opstart) for i in fn.instrs]) for fn in mod.functions]


def _parse(text: str, fast: bool, monkeypatch: pytest.MonkeyPatch) -> Module | str:
    with monkeypatch.context() as m:
        if not fast:
            switch_shortcut(m, "body-fast", False)
        try:
            return parse_module(SourceFile("in.ll", text))
        except LLNoaliasError as e:
            return e.format()


TRICKY = [
    # each body needs the line-by-line scanner for one line; both must agree
    "  %x = add i32 1, ; a comment after a comma\n    2\n  ret void\n",
    '  %"q x" = add i32 1, 2\n  ret void\n',
    "  %s = select i1 true, i32 1, i32 2 ; trailing\n  ret void\n",
    "  #dbg_value(i32 0, !1,\n     !DIExpression(), !2)\n  ret void\n",
    "  %t = call { i32, i32 } @g(\n      i32 1)\n  ret void\n",
    "  br label %next\n  }\nnext:\n  ret void\n",
    '"quoted label":\n  ret void\n',
    "  ret void\n  %x = add i32 1, 2\n",
    # a line for the line-by-line scanner in the middle of fast rows
    '  %a = add i32 1, 2\n  call void asm sideeffect "s_nop 0; s_nop 1", ""()\n  %b = add i32 %a, 1\n  ret void\n',
    "  switch i32 0, label %d [\n    i32 1, label %d\n  ]\nd:\n  %c = add i32 1, 2\n  ret void\n",
    "  %a = add i32 1, 2 ; note\n  %a = add i32 1, 2\n  ret void\n",
    "  %a = add i32 1, 2 ; note\n  }\n",
    "  %a = add i32 1, ; split\n      2\n  %b = add i32 %a, 1\n  %b = add i32 %a, 1\n  ret void\n",
    # redefinitions: both scanners must report the same one
    "  %bb = add i32 1, 2\n  br label %bb\nbb:\n  ret void\n",
    "bb:\n  %bb = add i32 1, 2\n  ret void\n",
    "  %x = add i32 1, 2\n  %x = add i32 3, 4\n  ret void\n",
    "  %0 = add i32 1, 2\n  ret void\n",
]


@pytest.mark.parametrize("body", TRICKY)
def test_fast_body_scan_agrees_on_odd_bodies(body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = ('target triple = "amdgcn-amd-amdhsa"\ndeclare { i32, i32 } @g(i32)\n'
            "define void @f() {\n" + body + "}\n" "define void @h() {\n  ret void\n}\n")
    fast = _parse(text, True, monkeypatch)
    slow = _parse(text, False, monkeypatch)
    if isinstance(fast, str) or isinstance(slow, str):
        assert fast == slow
    else:
        assert _shape(fast) == _shape(slow)


def test_fast_path_reads_the_common_body(monkeypatch: pytest.MonkeyPatch) -> None:
    # guard against a fast path that silently never runs
    calls: list[object] = []
    real = parser._ModuleParser._body_fast

    def spy(self: parser._ModuleParser, fn: object, i: int, def_off: int) -> int | None:
        got = real(self, fn, i, def_off)  # type: ignore[arg-type]
        calls.append(got)
        return got

    monkeypatch.setattr(parser._ModuleParser, "_body_fast", spy)
    # clang's CUDA output has inline asm whose string holds a ';' and a switch table:
    # those lines alone go to the line-by-line scanner, not their whole bodies
    for name in ("hip_gemm_O3", "cuda_smem_O3"):
        calls.clear()
        text = decode(open(f"fixtures/corpus/clang19/{name}.ll", "rb").read())
        parse_module(SourceFile("in.ll", text))
        assert calls and all(c is not None for c in calls), name


def _headers_agree(text: str, monkeypatch: pytest.MonkeyPatch) -> int:
    fast = _parse_headers(text, True, monkeypatch)
    slow = _parse_headers(text, False, monkeypatch)
    assert fast == slow
    return len(fast) if isinstance(fast, list) else 0


HEADERS = [
    "define amdgpu_kernel void @k(ptr addrspace(1) noalias nocapture noundef readonly %0, i32 noundef %1) #0",
    "define void @k(ptr addrspace(3) align 16 dereferenceable(64) %p, <4 x float> %v) local_unnamed_addr #1",
    "define ptx_kernel void @k(ptr captures(none) %p, i32 range(i32 0, 1024) %n) !dbg !7",
    "define dso_local noundef range(i32 0, 10) i32 @k(i32 %x) personality ptr @pers",
    "define void @k(ptr align(0x10) %p)",
    "define void @k(ptr 16x %p)",
    "define void @k(ptr %p, ...)",
    "define void @k(ptr noundef, i32 %1)",
    'define void @k(ptr "attr"="1" %p) "target-cpu"="gfx942"',
    "define void @k(float addrspace(3)* %p)",
    "define cc 91 void @k(ptr addrspace(1) noalias %a,\n    ptr addrspace(1) noalias %b)",
    "define void @k()",
    "define void @k(ptr %a, ptr %b,, ptr %c)",
]


@pytest.mark.parametrize("header", HEADERS)
def test_fast_header_agrees_on_odd_headers(header: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = ('target triple = "amdgcn-amd-amdhsa"\ndeclare ptr @pers()\n' + header + " {\n  ret void\n}\n")
    _headers_agree(text, monkeypatch)


def test_fast_header_reads_clang_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    real = parser._ModuleParser._header_fast

    def spy(self: parser._ModuleParser, code: str, start: int, lineno: int, off: int) -> object:
        got = real(self, code, start, lineno, off)
        calls.append(got)
        return got

    monkeypatch.setattr(parser._ModuleParser, "_header_fast", spy)
    for name in ("hip_gemm_O3", "hip_lds_dma_O3", "cuda_smem_O3"):
        calls.clear()
        parse_module(SourceFile("in.ll", decode(open(f"fixtures/corpus/clang19/{name}.ll", "rb").read())))
        assert calls and all(c is not None for c in calls), name
