"""The compiled slice walk (llnoalias/analysis/_cslice.c) gives exactly what the Python
walk ``provenance._walk`` gives: the slice and the order its values entered,
what each reads, the post-order and the back reads, on every function of every fixture
and corpus file, from nothing solved and from half of the function solved before, and on
hand-made bodies with the cases the compiled walk hands back to Python (constant
expressions, aggregates, forwarded stack slots)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import LL_FILES, assert_pure_mode, ll_id, parse_or_none

from llnoalias.analysis.provenance import solver as provenance
from llnoalias.analysis.provenance.solver import FunctionAnalysis, ModuleAnalysis, _compiled_walk, _walk
from llnoalias.ir.model import Module
from llnoalias.options import AnnotateOptions
from llnoalias.transform.roots import find_roots

cslice = provenance._cslice
pytestmark = pytest.mark.skipif(cslice is None, reason="the compiled slice walk is not built here")



def _same_walks(mod: Module) -> int:
    """Both walks on every function of ``mod``; how many values they entered."""
    entered = 0
    for options in (AnnotateOptions(), AnnotateOptions(lds="all", args="noalias")):
        ma = ModuleAnalysis(mod, find_roots(mod, options))
        for fn in mod.functions:
            names = [i.name for i in fn.instrs if i.name is not None]
            for solved in (0, len(names) // 2):
                fa = FunctionAnalysis(ma, fn)
                if solved:
                    fa.solve(names[:solved])  # (with whichever walk is in use)
                todo = names[solved:][::-1]
                want = _walk(fa, list(todo))
                got = _compiled_walk(fa, list(todo))
                assert list(got[0].items()) == list(want[0].items()), fn.name
                assert got[1] == want[1] and list(got[1]) == list(want[1]), fn.name
                assert got[2] == want[2], fn.name
                assert got[3] == want[3], fn.name
                entered += len(got[0])
    return entered


@pytest.mark.parametrize("path", LL_FILES, ids=ll_id)
def test_compiled_and_python_walks_agree(path: Path) -> None:
    raw = path.read_bytes()
    mod = parse_or_none(raw.decode("utf-8", "surrogateescape"), str(path))
    if mod is None:
        pytest.skip("bad input on purpose: no module to walk")
    _same_walks(mod)


SLOW_CASES = """
target triple = "amdgcn-amd-amdhsa"
@lds = addrspace(3) global [64 x i32] undef
%pair = type { ptr addrspace(3), i32 }

define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  %slot = alloca ptr addrspace(3), align 8, addrspace(5)
  store ptr addrspace(3) @lds, ptr addrspace(5) %slot, align 8
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %ce = add i32 %t, ptrtoint (ptr addrspace(3) @lds to i32)
  %agg = insertvalue %pair { ptr addrspace(3) @lds, i32 0 }, i32 %ce, 1
  %f = extractvalue %pair %agg, 0
  %g = getelementptr i32, ptr addrspace(3) getelementptr (i32, ptr addrspace(3) @lds, i32 4), i32 %t
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %p = phi ptr addrspace(3) [ %f, %entry ], [ %q, %loop ]
  %c = phi i32 [ ptrtoint (ptr addrspace(3) @lds to i32), %entry ], [ %i, %loop ]
  %s = load ptr addrspace(3), ptr addrspace(5) %slot, align 8
  %q = getelementptr i32, ptr addrspace(3) %p, i32 %i
  %v = load i32, ptr addrspace(3) %q, align 4
  %w = load i32, ptr addrspace(3) %s, align 4
  %x = load i32, ptr addrspace(3) %g, align 4
  %sum = add i32 %v, %w
  %i.next = add i32 %i, 1
  %cmp = icmp ult i32 %i.next, %n
  br i1 %cmp, label %loop, label %exit

exit:
  %r = select i1 %cmp, i32 %sum, i32 %x
  store i32 %r, ptr addrspace(1) %out, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
"""


def test_cases_handed_back_to_python_agree() -> None:
    """Constant expressions among a phi's incoming values and an instruction's operands,
    an aggregate constant, a load from a forwarded stack slot, a loop: every one of them
    entered by both walks alike."""
    mod = parse_or_none(SLOW_CASES)
    assert mod is not None
    asked: list[str] = []
    original = FunctionAnalysis._slow_deps

    def spy(self: FunctionAnalysis, iops: Any) -> list[str]:
        asked.append(iops.kind)
        return original(self, iops)

    FunctionAnalysis._slow_deps = spy  # type: ignore[method-assign]
    try:
        assert _same_walks(mod) > 20
    finally:
        FunctionAnalysis._slow_deps = original  # type: ignore[method-assign]
    # the compiled walk asked for what it does not read itself: loads, a constant
    # expression in a binop, a gep and a phi, and the aggregate of insertvalue
    assert {"load", "binop", "gep", "phi", "insertvalue"} <= set(asked)


def test_pure_mode_loads_no_slice_walk() -> None:
    code = ("import sys, llnoalias.analysis.provenance.solver as p\n"
            "assert p._cslice is None and 'llnoalias.analysis._cslice' not in sys.modules\n")
    assert_pure_mode(code)


def test_cached_operands_are_taken_without_calling_parse() -> None:
    """Two functions spelled alike: once the first is parsed, the compiled walk takes the
    second's Ops from the module's cache (the objects parse would give) and calls parse
    only for what the cache lacks."""
    body = """
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %o = shl i32 %t, 2
  %a = ptrtoint ptr addrspace(3) @lds to i32
  %s = add i32 %a, %o
  %p = inttoptr i32 %s to ptr addrspace(3)
  %v = load i32, ptr addrspace(3) %p, align 4
  ret void
}
"""
    text = ('target triple = "amdgcn-amd-amdhsa"\n@lds = external addrspace(3) global [0 x i32]\n'
            + "".join(f"define amdgpu_kernel void @k{i}() {{\nentry:{body}" for i in range(2))
            + "declare i32 @llvm.amdgcn.workitem.id.x()\n")
    mod = parse_or_none(text)
    assert mod is not None
    ma = ModuleAnalysis(mod, find_roots(mod, AnnotateOptions()))
    first, second = mod.functions
    fa = FunctionAnalysis(ma, first)
    _compiled_walk(fa, ["%p"])  # parses the first function's slice into the cache
    calls: list[str] = []
    real_parse = provenance.opparse.parse

    def spy(m: Module, inst: Any) -> Any:
        calls.append(inst.name)
        return real_parse(m, inst)

    fa2 = FunctionAnalysis(ma, second)
    got = cslice.walk(["%p"], second.by_name, fa2.vals, spy, mod, provenance.LocalRef, provenance.NO_DEPS,
                      fa2._slow_deps, False, mod.ops_cache, mod.source.text)
    assert list(got[0]) == ["%p", "%s", "%o", "%t", "%a"]
    assert calls == []  # every one was in the cache
    for name in got[0]:
        inst = second.by_name[name]
        assert inst.ops is not None and inst.ops is first.by_name[name].ops
    mod.ops_cache.clear()  # nothing cached: parse is asked for each
    fa3 = FunctionAnalysis(ma, second)
    for inst in second.instrs:
        inst.ops = None
    cslice.walk(["%p"], second.by_name, fa3.vals, spy, mod, provenance.LocalRef, provenance.NO_DEPS,
                fa3._slow_deps, False, mod.ops_cache, mod.source.text)
    assert sorted(calls) == ["%a", "%o", "%p", "%s", "%t"]
