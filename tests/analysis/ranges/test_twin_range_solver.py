"""The compiled range queries (llnoalias/analysis/ranges/_solver.c) give exactly what the Python
methods ``FunctionRanges.offset`` and ``IntTransfer.int_range`` give: every
answer, and the caches, budget, depth and in-progress marks they leave behind, on every
function of every fixture and corpus file, asked in text order and in reverse, and with a
budget and a depth small enough to run out."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from llnoalias.analysis.memory.accesses import target_family
from llnoalias.analysis.provenance.solver import ModuleAnalysis
from llnoalias.analysis.ranges import solver as ranges
from llnoalias.analysis.ranges import transfer as range_transfer
from llnoalias.analysis.ranges.solver import FunctionRanges
from llnoalias.diagnostics import LLNoaliasError
from llnoalias.ir import operands as opparse
from llnoalias.ir.datalayout import layout_of
from llnoalias.ir.model import Function, LocalRef, Module
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.options import AnnotateOptions
from llnoalias.reasons import REASONS, Said
from llnoalias.transform.roots import find_roots
from tests.support.files import DATA, ROOT
from tests.support.run import assert_pure_mode
from tests.support.switches import twin

FILES = sorted({*ROOT.glob("fixtures/**/*.ll"), *DATA.glob("**/*.ll")})

crange = twin("range_solver")
pytestmark = pytest.mark.skipif(crange is None, reason="the compiled range queries are not built here")


class PyRanges(FunctionRanges):
    """The same analysis with the Python queries."""

    offset = ranges.PY_OFFSET
    int_range = ranges.PY_INT_RANGE


def _module(text: str, path: str = "t.ll") -> Module | None:
    try:
        return parse_module(SourceFile(path, text))
    except LLNoaliasError:
        return None


def _queries(mod: Module, fn: Function) -> list[tuple[str, Any, Any]]:
    """Every address operand (an offset query) and every integer operand and result (an
    integer query) of ``fn``, in text order."""
    out: list[tuple[str, Any, Any]] = []
    for inst in fn.instrs:
        ops = opparse.parse(mod, inst)
        pairs = list(ops.operands) if isinstance(ops.operands, list) else []
        if ops.result_type is not None and inst.name is not None:
            pairs.append((ops.result_type, LocalRef(inst.name)))
        for ty, v in pairs:
            if ty is None:
                continue
            if ty.kind == "ptr":
                out.append(("offset", ty, v))
            elif ty.kind == "int":
                out.append(("int_range", ty, v))
                out.append(("offset", ty, v))
    return out


def _state(fr: FunctionRanges) -> tuple[object, ...]:
    return (list(fr.ints.items()), list(fr.offs.items()), list(fr.const_offs.items()), fr._budget, fr._depth,
            fr._low, dict(fr._inprog), dict(fr._assume), fr._phis_solved)


def _same_answers(mod: Module) -> int:
    """Both queries on every function of ``mod``; how many were asked."""
    asked = 0
    family = target_family(mod.triple)
    dl = layout_of(mod)
    for options in (AnnotateOptions(), AnnotateOptions(lds="all", args="noalias")):
        ma = ModuleAnalysis(mod, find_roots(mod, options))
        for fn in mod.functions:
            fa = ma.function(fn)
            fa.solve(i.name for i in fn.instrs if i.name is not None)
            queries = _queries(mod, fn)
            for order in (queries, queries[::-1]):
                got, want = FunctionRanges(mod, fn, fa, family, dl), PyRanges(mod, fn, fa, family, dl)
                for what, ty, v in order:
                    a = getattr(got, what)(ty, v)
                    b = getattr(want, what)(ty, v)
                    assert a == b and type(a) is type(b), (fn.name, what, v, a, b)
                    # a reason: the same code, and a message with no fields the very object
                    assert getattr(a, "code", None) == getattr(b, "code", None), (fn.name, what, v, a, b)
                    if isinstance(a, Said) and a == REASONS[a.code].text:
                        assert a is b is REASONS[a.code].text, (fn.name, what, v, a)
                    assert _state(got) == _state(want), (fn.name, what, v)
                    asked += 1
    return asked


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_compiled_and_python_queries_agree(path: Path) -> None:
    mod = _module(path.read_bytes().decode("utf-8", "surrogateescape"), str(path))
    if mod is None:
        pytest.skip("bad input on purpose: no module to query")
    _same_answers(mod)


@contextmanager
def _limits(budget: int, depth: int) -> Iterator[None]:
    """Both queries with a smaller budget and depth."""
    assert crange is not None
    old = range_transfer.BUDGET, range_transfer.MAX_DEPTH

    def init(b: int, d: int) -> None:
        range_transfer.BUDGET, range_transfer.MAX_DEPTH = b, d
        crange.init({**ranges.CRANGE_NAMES, "BUDGET": b, "MAX_DEPTH": d})

    init(budget, depth)
    try:
        yield
    finally:
        init(*old)


CORPUS = sorted(ROOT.glob("fixtures/corpus/**/*.ll"))


@pytest.mark.slow
@pytest.mark.parametrize("budget,depth", [(3, 2000), (40, 2000), (50_000, 3), (25, 6)])
def test_queries_agree_when_the_budget_or_depth_runs_out(budget: int, depth: int) -> None:
    assert CORPUS
    asked = 0
    with _limits(budget, depth):
        for path in CORPUS[:12]:
            mod = _module(path.read_text(errors="surrogateescape"), str(path))
            if mod is not None:
                asked += _same_answers(mod)
    assert asked > 1000


LOOPS = """
target datalayout = "e-p:64:64-p3:32:32-i64:64-n32:64"
target triple = "amdgcn-amd-amdhsa"
@lds = addrspace(3) global [4096 x i8] undef
%pair = type { i32, [4 x i16] }

define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %n, i64 %wide) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %a = ptrtoint ptr addrspace(3) @lds to i32
  %a16 = ptrtoint ptr addrspace(3) @lds to i16
  %b = inttoptr i16 %a16 to ptr addrspace(3)
  %lo = trunc i32 %t to i8
  %z = zext i8 %lo to i32
  %s = sext i8 %lo to i64
  %tr = trunc i64 %wide to i32
  %bc = bitcast i32 %t to float
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %buf = phi i32 [ 0, %entry ], [ %buf.next, %loop ]
  %p = phi ptr addrspace(3) [ @lds, %entry ], [ %p.next, %loop ]
  %x = shl i32 %i, 4
  %o = add i32 %x, %buf
  %ai = add i32 %a, %o
  %si = sub i32 %ai, 16
  %di = or disjoint i32 %a, 3
  %ni = or i32 %a, 3
  %xi = xor i32 %a, 3
  %q = inttoptr i32 %ai to ptr addrspace(3)
  %q2 = inttoptr i32 %si to ptr addrspace(3)
  %q3 = inttoptr i32 %di to ptr addrspace(3)
  %q4 = inttoptr i32 %ni to ptr addrspace(3)
  %g = getelementptr %pair, ptr addrspace(3) @lds, i32 %z, i32 1, i32 %lo
  %g2 = getelementptr i8, ptr addrspace(3) %q, i64 %s
  %g3 = getelementptr <4 x i32>, ptr addrspace(3) @lds, i32 %t
  %p.next = getelementptr i8, ptr addrspace(3) %p, i32 4
  %v = load i32, ptr addrspace(3) %q, align 4
  %w = load i32, ptr addrspace(3) %g, align 4
  %u = load i32, ptr addrspace(3) %b, align 4
  %r = load i32, ptr addrspace(3) %p, align 4
  %m = mul i32 %i, %n
  %c = icmp ult i32 %i, 8
  %sel = select i1 %c, i32 %i, i32 0
  %f = freeze i32 %sel
  %buf.next = xor i32 %buf, 1024
  %i.next = add i32 %i, 1
  %cmp = icmp ult i32 %i.next, 16
  br i1 %cmp, label %loop, label %exit

exit:
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
"""


def test_hand_made_cases_agree() -> None:
    """Loops (a counter, a toggled buffer, an address advanced by a phi), every cast the
    compiled queries take and several they hand back, a narrow ptrtoint, sub and or on an
    address, a struct getelementptr, select and freeze: both queries alike."""
    mod = _module(LOOPS)
    assert mod is not None
    assert _same_answers(mod) > 200


GEPS = """
target datalayout = "e-p:64:64-p3:32:32-p7:160:256:256:32-i16:32-i64:64-n32:64"
target triple = "amdgcn-amd-amdhsa"
@lds = addrspace(3) global [4096 x i8] undef
@buf = addrspace(7) global [64 x i32] undef
%pair = type { i32, [4 x i16] }

define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %n, i64 %wide, i16 %h, i8 %b, i128 %big) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %t16 = trunc i32 %t to i16
  %t7 = and i32 %t, 7
  %t8 = trunc i32 %t7 to i8
  %t64 = zext i32 %t to i64
  %neg = sub i64 0, %t64
  %far = shl i64 %t64, 22
  %hx = xor i16 %t16, %h
  %bx = xor i8 %t8, %b
  %nx = xor i32 %t, %n
  %t5 = urem i32 %t, 6
  %hi4 = mul i32 %t5, 16
  %lo2 = and i32 %t, 3
  %xd = xor i32 %hi4, %lo2
  %t20 = add i32 %t, 20
  %am = and i32 %t20, -16
  %om = or i32 %t20, %lo2
  %t3 = and i16 %t16, 7
  %n16 = sub i16 -8, %t3
  %g22 = getelementptr half, ptr addrspace(3) @lds, i16 %n16
  %g23 = getelementptr half, ptr addrspace(3) @lds, i16 -8
  %g0 = getelementptr i8, ptr addrspace(3) @lds, i32 %t
  %g1 = getelementptr float, ptr addrspace(3) %g0, i64 %t64
  %g2 = getelementptr i32, ptr addrspace(3) @lds, i64 %far
  %g3 = getelementptr i16, ptr addrspace(3) @lds, i16 %t16
  %g4 = getelementptr i16, ptr addrspace(3) @lds, i16 %hx
  %g5 = getelementptr i8, ptr addrspace(3) @lds, i8 %bx
  %g6 = getelementptr [4 x [8 x float]], ptr addrspace(3) @lds, i32 0, i32 %t8, i32 3
  %g7 = getelementptr <4 x i32>, ptr addrspace(3) @lds, i32 1, i32 %t8
  %g8 = getelementptr [2 x %pair], ptr addrspace(3) @lds, i32 0, i32 1, i32 1, i32 2
  %g9 = getelementptr [2 x [2 x [2 x [2 x [2 x [2 x [2 x [2 x i8]]]]]]]], ptr addrspace(3) @lds, i32 0, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1
  %g10 = getelementptr [72057594037927936 x i8], ptr addrspace(3) @lds, i32 0
  %g11 = getelementptr i8, ptr addrspace(3) @lds, i32 %nx
  %g12 = getelementptr i32, ptr addrspace(7) @buf, i32 %t
  %g13 = getelementptr ptr, ptr addrspace(3) @lds, i8 %t8
  %g14 = getelementptr half, ptr addrspace(3) @lds, i64 %neg
  %g15 = getelementptr i1, ptr addrspace(3) @lds, i64 -1
  %g16 = getelementptr bfloat, ptr addrspace(3) @lds, i128 %big
  %g17 = getelementptr %pair, ptr addrspace(3) @lds, i32 %t8
  %g18 = getelementptr i16, ptr addrspace(3) %g17, <2 x i32> <i32 0, i32 1>
  %g19 = getelementptr [4 x i8], ptr addrspace(3) @lds, i32 %t8, i32 %n
  %g20 = getelementptr i8, ptr addrspace(3) @lds, i64 %t64, i32 5
  %g21 = getelementptr i8, ptr addrspace(3) @lds, i32 %n
  %s1 = lshr i32 %t, 3
  %s2 = ashr i32 %n, 31
  %s3 = shl i32 %t, %n
  %s4 = lshr i32 %t, 40
  %s5 = ashr i16 %t16, 2
  %s6 = shl i64 %t64, 60
  %a1 = and i32 %t, -16
  %a2 = and i32 %t, 1000
  %a3 = and i32 %n, %t
  %o1 = or i32 %t, %n
  %o2 = or i32 %s1, 4096
  %o3 = or disjoint i32 %a1, 7
  %x1 = xor i32 %n, %t
  %x2 = xor i32 %a1, 15
  %m1 = mul i64 %wide, %wide
  %m2 = mul i64 %t64, 4294967296
  %m3 = mul i32 %t, -3
  %u1 = udiv i32 %t, 8
  %u2 = urem i32 %n, 6
  %w1 = add i128 %big, 1
  %w2 = lshr i128 %big, 3
  %c1 = zext i32 %n to i64
  %c2 = sext i16 %h to i32
  %c3 = trunc i64 %wide to i8
  %c4 = trunc i64 %t64 to i16
  %c5 = sext i32 %m3 to i64
  %c6 = zext i16 %s5 to i64
  %c7 = trunc i128 %big to i32
  %c8 = zext i64 %t64 to i128
  %v = load i32, ptr addrspace(3) %g6, align 4
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}

define amdgpu_kernel void @k2(i32 %n) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %g = getelementptr i16, ptr addrspace(3) @lds, i32 %t
  %h = getelementptr [3 x i16], ptr addrspace(3) @lds, i32 %t, i32 2
  store i16 0, ptr addrspace(3) %h, align 2
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
"""


@pytest.mark.parametrize("layout", ["p3:32:32", "p3:32:32:32:16"])
def test_hand_made_geps_and_arithmetic_agree(layout: str) -> None:
    """Every getelementptr shape the compiled queries take or hand back: an index wider
    and narrower than the index width, one that may be negative, nested arrays, a vector,
    a named struct inside an array, nine indices, a scale past 2**56, a pointer whose
    index width is narrower than it, a vector index, a type whose size the layout changes
    (i16 aligned to 4), one cached size read by a second function; and every integer
    operation and cast the compiled queries compute or hand back: both queries alike. With
    LDS indices of 16 bits, every LDS getelementptr is one that Python answers."""
    mod = _module(GEPS.replace("p3:32:32", layout))
    assert mod is not None
    assert _same_answers(mod) > 300


def test_pure_mode_loads_no_range_queries() -> None:
    code = ("import sys, llnoalias.analysis.ranges.solver as r\n"
            "assert r._crange is None and 'llnoalias.analysis.ranges._solver' not in sys.modules\n"
            "assert r.FunctionRanges.offset is r.PY_OFFSET\n")
    assert_pure_mode(code)


ODD_CONSTANTS = ["0", "7", "-1", "+5", "-", "+", "", "true", "false", "null", "zeroinitializer", "undef", "1_000",
                 "0x10", "٣", "-٣", "12abc", "340282366920938463463374607431768211456", "-9223372036854775809",
                 "18446744073709551615", "255", "256", "-128", "-129", "1.5", "poison"]


@pytest.mark.parametrize("bits", [1, 8, 16, 32, 64, 65, 128])
def test_constants_read_alike(bits: int) -> None:
    """A plain constant's range, compiled and in Python, for texts that are integers, that
    look like them, and that do not fit the type or 128 bits."""
    from llnoalias.ir.model import PlainConst
    from llnoalias.ir.types import Type

    mod = _module(LOOPS)
    assert mod is not None
    ma = ModuleAnalysis(mod, find_roots(mod, AnnotateOptions()))
    fn = mod.functions[0]
    fa = ma.function(fn)
    args = (mod, fn, fa, target_family(mod.triple), layout_of(mod))
    got, want = FunctionRanges(*args), PyRanges(*args)
    ty = Type("int", bits=bits)
    for text in ODD_CONSTANTS:
        a, b = got.int_range(ty, PlainConst(text)), want.int_range(ty, PlainConst(text))
        assert a == b and type(a) is type(b), (text, a, b)
