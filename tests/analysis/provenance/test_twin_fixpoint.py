"""The compiled fixpoint and transfer (llnoalias/analysis/provenance/_fixpoint.c) give exactly what the
Python solver gives: the same value for every name of every slice, in the same
order, and the same causes, on every function of every fixture and corpus file under two
option sets, from nothing solved and from half of the function solved before; and on a
hand-made kernel with every case the compiled transfer hands to Python (constant
expressions, aggregate values, freeze of undef, loads, calls, an unknown kind), with a
count of how often it did."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from llnoalias.analysis.provenance.lattice import NONE, UNKNOWN, Agg
from llnoalias.analysis.provenance.solver import FunctionAnalysis, ModuleAnalysis
from llnoalias.ir.model import Module
from llnoalias.options import AnnotateOptions
from llnoalias.transform.roots import find_roots
from tests.support.files import LL_FILES, ll_id, parse_or_none
from tests.support.run import assert_pure_mode
from tests.support.switches import switch_twin, twin

cfix = twin("fixpoint")
pytestmark = pytest.mark.skipif(cfix is None, reason="the compiled fixpoint is not built here")



def _plain(vals: dict[str, Any]) -> list[tuple[str, Any]]:
    """The values in order; a root or sentinel as itself (compared by identity below),
    an aggregate by its fields."""
    return [(k, ("agg", v.default, sorted(v.fields.items(), key=lambda kv: kv[0])) if isinstance(v, Agg) else v)
            for k, v in vals.items()]


def _same(a: list[tuple[str, Any]], b: list[tuple[str, Any]]) -> bool:
    if [k for k, _ in a] != [k for k, _ in b]:
        return False
    for (_, x), (_, y) in zip(a, b, strict=True):
        if isinstance(x, tuple) or isinstance(y, tuple):
            if x != y:
                return False
        elif x is not y:
            return False
    return True


def _solve_both(mod: Module, monkeypatch: pytest.MonkeyPatch) -> int:
    """Both solvers on every function of ``mod``; how many values they solved."""
    solved = 0
    for options in (AnnotateOptions(), AnnotateOptions(lds="all", args="noalias")):
        ma = ModuleAnalysis(mod, find_roots(mod, options))
        for fn in mod.functions:
            names = [i.name for i in fn.instrs if i.name is not None]
            for first in (0, len(names) // 2):
                runs = []
                for compiled in (True, False):
                    switch_twin(monkeypatch, "fixpoint", cfix if compiled else None)
                    fa = FunctionAnalysis(ma, fn)
                    if first:
                        fa.solve(names[:first])
                    fa.solve(names[first:][::-1])
                    runs.append((_plain(fa.vals), dict(fa.cause)))
                (got, got_cause), (want, want_cause) = runs
                assert _same(got, want), fn.name
                assert got_cause == want_cause, fn.name
                solved += len(got)
    switch_twin(monkeypatch, "fixpoint", cfix)
    return solved


@pytest.mark.parametrize("path", LL_FILES, ids=ll_id)
def test_compiled_and_python_solvers_agree(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    raw = path.read_bytes()
    mod = parse_or_none(raw.decode("utf-8", "surrogateescape"), str(path))
    if mod is None:
        pytest.skip("bad input on purpose: no module to solve")
    _solve_both(mod, monkeypatch)


HANDED_BACK = """
target triple = "amdgcn-amd-amdhsa"
@lds = external addrspace(3) global [0 x i32]
@lds2 = addrspace(3) global [16 x i32] undef
@other = addrspace(1) global i32 0
%pair = type { ptr addrspace(3), i32 }

define amdgpu_kernel void @k(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %in, i32 %n, i1 %c0) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %ce = add i32 %t, ptrtoint (ptr addrspace(3) @lds to i32)
  %agg = insertvalue %pair { ptr addrspace(3) @lds, i32 0 }, i32 %ce, 1
  %f = extractvalue %pair %agg, 0
  %agg2 = insertvalue %pair %agg, ptr addrspace(3) @lds2, 0
  %fz = freeze i32 undef
  %fz2 = freeze i32 %t
  %bc = bitcast ptr addrspace(3) @lds2 to ptr addrspace(3)
  %bcv = bitcast <2 x i16> <i16 1, i16 2> to i32
  %g = getelementptr i32, ptr addrspace(3) getelementptr (i32, ptr addrspace(3) @lds, i32 4), i32 %t
  %a2 = ptrtoint ptr addrspace(3) @lds2 to i32
  %dj = or disjoint i32 %a2, 4
  %nd = or i32 %a2, 4
  %both = add i32 %a2, %ce
  %ld = load i32, ptr addrspace(1) %in, align 4
  %gl = ptrtoint ptr addrspace(1) @other to i64
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %p = phi ptr addrspace(3) [ %f, %entry ], [ %q, %loop ]
  %m = phi ptr addrspace(3) [ @lds, %entry ], [ %sel, %loop ]
  %u = phi i32 [ undef, %entry ], [ %dj, %loop ]
  %ag = phi %pair [ %agg, %entry ], [ %agg2, %loop ]
  %q = getelementptr i32, ptr addrspace(3) %p, i32 %i
  %sel = select i1 %c0, ptr addrspace(3) %m, ptr addrspace(3) %bc
  %cmp0 = icmp eq ptr addrspace(3) %q, %m
  %v = load i32, ptr addrspace(3) %q, align 4
  %w = load i32, ptr addrspace(3) %sel, align 4
  %x = load i32, ptr addrspace(3) %g, align 4
  %fld = extractvalue %pair %ag, 0
  %y = load i32, ptr addrspace(3) %fld, align 4
  %sum = add i32 %v, %w
  %i.next = add i32 %i, 1
  %cmp = icmp ult i32 %i.next, %n
  br i1 %cmp, label %loop, label %exit

exit:
  %r = select i1 %cmp, i32 %sum, i32 %x
  %fn = fneg float 1.0
  store i32 %r, ptr addrspace(1) %out, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
"""


def test_cases_handed_back_to_python_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every kind the compiled transfer does itself and every case it hands back, alike
    in both solvers; the Python transfer is asked only for those."""
    mod = parse_or_none(HANDED_BACK)
    assert mod is not None
    asked: list[str] = []
    original = FunctionAnalysis.transfer
    original_causes = FunctionAnalysis.note_causes
    explaining: list[bool] = []

    def spy(self: FunctionAnalysis, inst: Any, ops: Any, env: Any) -> Any:
        if not explaining:  # the solver's calls, not note_causes' (it asks why a value is unknown)
            asked.append(inst.name)
        return original(self, inst, ops, env)

    def causes(self: FunctionAnalysis, env: Any, slice_: Any) -> None:
        explaining.append(True)
        try:
            original_causes(self, env, slice_)
        finally:
            explaining.pop()

    monkeypatch.setattr(FunctionAnalysis, "transfer", spy)
    monkeypatch.setattr(FunctionAnalysis, "note_causes", causes)
    assert _solve_both(mod, monkeypatch) > 40
    switch_twin(monkeypatch, "fixpoint", cfix)
    asked.clear()
    # (--lds all: @lds2 is static, so that @lds and @lds2 are two buffers, as dynamic LDS
    # variables are not: one root, design section 1)
    ma = ModuleAnalysis(mod, find_roots(mod, AnnotateOptions(lds="all")))
    fa = FunctionAnalysis(ma, mod.functions[0])
    fa.solve([i.name for i in mod.functions[0].instrs if i.name is not None][::-1])
    handed = set(asked)
    # the answers the compiled transfer gives itself, the no-claim ones first: an or without
    # disjoint, an add of two addresses, a phi of two buffers, a select of them, a cast and
    # a comparison of an address are unknown; a disjoint or keeps its buffer
    vals = fa.vals
    for name in ("%nd", "%both", "%m", "%sel", "%cmp0", "%gl"):
        assert vals[name] is UNKNOWN, name
    lds2 = ma.roots.lds["@lds2"]
    assert vals["%dj"] is lds2 and vals["%a2"] is lds2 and vals["%bc"] is lds2
    assert vals["%fz2"] is NONE and vals["%i"] is NONE and vals["%u"] is lds2
    # constant expressions (a vector constant too), aggregates, freeze of undef, loads,
    # calls and other kinds
    assert handed == {"%ce", "%agg", "%f", "%agg2", "%fz", "%bcv", "%g", "%ld", "%t", "%ag", "%fld", "%fn",
                      "%v", "%w", "%x", "%y"}
    # and none of the plain cases: casts, binops, phis, selects, comparisons, freeze, gep
    assert not handed & {"%fz2", "%bc", "%a2", "%dj", "%nd", "%both", "%gl", "%i", "%p", "%m", "%u",
                         "%q", "%sel", "%cmp0", "%sum", "%i.next", "%cmp", "%r"}


def test_pure_mode_loads_no_compiled_fixpoint() -> None:
    code = ("import sys, llnoalias.analysis.provenance.solver as p\n"
            "assert p._cfix is None and 'llnoalias.analysis.provenance._fixpoint' not in sys.modules\n")
    assert_pure_mode(code)
