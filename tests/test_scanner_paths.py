"""The one-``findall`` fast path of the body scanner must record exactly what the
line-by-line scanner records, on every fixture, and must leave to it every body it
does not fully understand."""

from __future__ import annotations

import pytest
from conftest import all_fixtures, fixture_id

from llnoalias import parser
from llnoalias.diagnostics import LLNoaliasError
from llnoalias.fileio import decode
from llnoalias.model import Module
from llnoalias.parser import parse_module
from llnoalias.source import SourceFile

PATHS = all_fixtures()


def _shape(mod: Module) -> list[object]:
    return [(fn.name, fn.blocks, fn.block_offsets,
             [(i.name, i.opcode, i.start, i.end, i.opstart) for i in fn.instrs]) for fn in mod.functions]


def _parse(text: str, fast: bool, monkeypatch: pytest.MonkeyPatch) -> Module | str:
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(parser._ModuleParser, "_body_fast", lambda self, fn, i, def_off: None)
        try:
            return parse_module(SourceFile("in.ll", text))
        except LLNoaliasError as e:
            return e.format()


@pytest.mark.parametrize("path", PATHS, ids=[fixture_id(p) for p in PATHS])
def test_fast_body_scan_agrees(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = decode(open(path, "rb").read())
    fast = _parse(text, True, monkeypatch)
    slow = _parse(text, False, monkeypatch)
    if isinstance(fast, str) or isinstance(slow, str):
        assert fast == slow
        return
    assert _shape(fast) == _shape(slow)


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
