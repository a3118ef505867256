"""The compiled walk (``_fixpoint.walk``) enters the same slice as ``solver._walk``: the same
instructions in the same order, the same reads per value, the same post-order and the same
back edges, on every function of every fixture and corpus file, from nothing solved and from
half of the function solved (its values then read as solved, not walked)."""

from __future__ import annotations

from pathlib import Path

import pytest

from llnoalias.analysis.provenance import solver as provenance
from llnoalias.analysis.provenance.solver import FunctionAnalysis, ModuleAnalysis
from llnoalias.ir import operands as opparse
from llnoalias.ir.model import Module
from llnoalias.options import AnnotateOptions
from llnoalias.transform.roots import find_roots
from tests.support.files import LL_FILES, ll_id, parse_or_none
from tests.support.switches import twin

#: a kernel with a loop (back edges through phis), constant expressions and aggregates
#: (handed to ``_reads``), a load (no reads) and values read twice
LOOPS = """
target triple = "amdgcn-amd-amdhsa"
@lds = external addrspace(3) global [0 x i32]
%pair = type { ptr addrspace(3), i32 }

define amdgpu_kernel void @k(ptr addrspace(1) noalias %out, i32 %n, i1 %c0) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %ce = add i32 %t, ptrtoint (ptr addrspace(3) @lds to i32)
  %agg = insertvalue %pair { ptr addrspace(3) @lds, i32 0 }, i32 %ce, 1
  %f = extractvalue %pair %agg, 0
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %p = phi ptr addrspace(3) [ %f, %entry ], [ %q, %loop ]
  %m = phi ptr addrspace(3) [ @lds, %entry ], [ %sel, %loop ]
  %q = getelementptr i32, ptr addrspace(3) %p, i32 %i
  %sel = select i1 %c0, ptr addrspace(3) %m, ptr addrspace(3) %q
  %v = load i32, ptr addrspace(3) %q, align 4
  %w = load i32, ptr addrspace(3) %sel, align 4
  %sum = add i32 %v, %w
  %i.next = add i32 %i, 1
  %cmp = icmp ult i32 %i.next, %n
  br i1 %cmp, label %loop, label %exit

exit:
  %r = select i1 %cmp, i32 %sum, i32 %i
  store i32 %r, ptr addrspace(1) %out, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
"""

cfix = twin("fixpoint")
pytestmark = pytest.mark.skipif(cfix is None or not provenance._CWALK, reason="the compiled walk is not built here")


def _both(fa: FunctionAnalysis, todo: list[str]) -> tuple[object, object]:
    want = provenance._walk(fa, todo)
    got = cfix.walk(todo, fa.fn.by_name, fa.vals, fa.mod, opparse.parse,
                    lambda iops: provenance._reads(fa, iops), provenance._NO_DEPS_READS,
                    provenance._SPECIAL)
    return got, want


def _plain(walked: object) -> object:
    slice_, deps_of, order, back = walked  # type: ignore[misc]
    return list(slice_.items()), list(deps_of.items()), order, back


def _walk_all(mod: Module) -> int:
    walked = 0
    ma = ModuleAnalysis(mod, find_roots(mod, AnnotateOptions(lds="all", args="noalias")))
    for fn in mod.functions:
        names = [i.name for i in fn.instrs if i.name is not None]
        if not names:
            continue
        fa = FunctionAnalysis(ma, fn)
        got, want = _both(fa, names[::-1])
        assert _plain(got) == _plain(want), fn.name
        # the first half solved: what reads it stops there
        fa.solve(names[: len(names) // 2])
        todo = [n for n in names if n not in fa.vals]
        got, want = _both(fa, todo)
        assert _plain(got) == _plain(want), fn.name
        # each slice entry is the function's instruction itself
        assert all(got[0][n] is fn.by_name[n] for n in got[0])  # type: ignore[index]
        walked += len(want[0])  # type: ignore[index]
    return walked


@pytest.mark.parametrize("path", LL_FILES, ids=ll_id)
def test_compiled_and_python_walks_agree(path: Path) -> None:
    mod = parse_or_none(path.read_bytes().decode("utf-8", "surrogateescape"), str(path))
    if mod is None:
        pytest.skip("bad input on purpose: no module to walk")
    _walk_all(mod)


def test_loops_constant_expressions_and_aggregates() -> None:
    """A kernel with loops (back edges), constant expressions and aggregates (handed to
    ``_reads``) walks alike, and has back edges to compare."""
    mod = parse_or_none(LOOPS)
    assert mod is not None
    assert _walk_all(mod) > 3
    fn = mod.functions[0]
    fa = FunctionAnalysis(ModuleAnalysis(mod, find_roots(mod, AnnotateOptions(lds="all"))), fn)
    last = [i.name for i in fn.instrs if i.name is not None][-3:]
    got, _ = _both(fa, last)
    assert got[3]  # type: ignore[index]  # the loop's phis read values entered after them
