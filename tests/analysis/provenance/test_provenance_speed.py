"""The provenance solver's shortcuts give what the plain worklist gives.

``FunctionAnalysis.solve`` skips the worklist where the slice has no loop and keeps only
the reads that go back in the order where it has one. ``reference_solve`` (tests/support/provenance.py) is the
plain optimistic worklist it replaces (every value queued, every change puts each user
back that is not queued); both must agree on every value and every cause, on every
fixture and on hand-written loops.
"""

from __future__ import annotations

import glob
import os
import random

import pytest

from llnoalias.analysis.provenance.blame import local_deps
from llnoalias.analysis.provenance.lattice import BOTTOM, NONE, UNKNOWN, Agg, Lat, Root, join
from llnoalias.analysis.provenance.solver import KEEP_CASTS, FunctionAnalysis, ModuleAnalysis
from llnoalias.diagnostics import LLNoaliasError
from llnoalias.ir import operands as opparse
from llnoalias.ir.model import Module, Ops
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.options import AnnotateOptions
from llnoalias.transform.roots import find_roots
from tests.support.files import DATA, ROOT
from tests.support.provenance import reference_solve

ALL_LL = sorted(glob.glob(os.path.join(ROOT, "fixtures", "**", "*.ll"), recursive=True)
                + glob.glob(os.path.join(DATA, "**", "*.ll"), recursive=True))
OPTIONS = [AnnotateOptions(), AnnotateOptions(lds="all", args="noalias")]


def _module(path: str) -> Module:
    """A fixture's module; the test is skipped for one llnoalias rejects (a bad-input fixture)."""
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8", "surrogateescape")
    try:
        return parse_module(SourceFile(path, text))
    except LLNoaliasError:
        pytest.skip("not a module llnoalias reads")




def _same(a: dict[str, Lat], b: dict[str, Lat]) -> bool:
    return a.keys() == b.keys() and all(x is y or (isinstance(x, Agg) and x == y) for x, y in
                                        ((a[k], b[k]) for k in a))


def _check_module(mod: Module, options: AnnotateOptions, reverse: bool = False) -> int:
    """Solve every function's values (asked in program order, or reversed, in two
    halves so that the second solve meets the first one's values) both ways."""
    roots = find_roots(mod, options)
    seen = 0
    for memory in (False, True):
        ma_new = ModuleAnalysis(mod, roots)
        ma_ref = ModuleAnalysis(mod, roots)
        for ma in (ma_new, ma_ref):
            # both states of memory (SPEC: loaded integer)
            ma.memory_decided = memory
            ma.memory_holds_addresses = memory
            ma.memory_reason = "a test says so"
        for fn in mod.functions:
            names = [i.name for i in fn.instrs if i.name is not None]
            if reverse:
                names.reverse()
            half = len(names) // 2
            fa_new = FunctionAnalysis(ma_new, fn)
            fa_ref = FunctionAnalysis(ma_ref, fn)
            for part in (names[half:], names[:half]):
                fa_new.solve(part)
                reference_solve(fa_ref, part)
                assert _same(fa_new.vals, fa_ref.vals), fn.name
                assert fa_new.cause == fa_ref.cause, fn.name
            assert ma_new.loaded_int_used == ma_ref.loaded_int_used
            seen += len(fa_new.vals)
            ma_new.release(fn)
            ma_ref.release(fn)
    return seen


@pytest.mark.parametrize("path", ALL_LL, ids=lambda p: os.path.relpath(p, ROOT))
def test_solve_matches_plain_worklist(path: str) -> None:
    mod = _module(path)
    for options in OPTIONS:
        _check_module(mod, options)
        _check_module(mod, options, reverse=True)


LOOPS = """
@lds_a = internal addrspace(3) global [64 x i32] undef
@lds_b = internal addrspace(3) global [64 x i32] undef

define amdgpu_kernel void @k(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b, i32 %n) {
entry:
  %slot = alloca ptr addrspace(1), addrspace(5)
  store ptr addrspace(1) %a, ptr addrspace(5) %slot
  br label %loop

loop:
  %p = phi ptr addrspace(1) [ %a, %entry ], [ %p.next, %latch ]
  %q = phi ptr addrspace(1) [ %b, %entry ], [ %p, %latch ]
  %r = phi ptr addrspace(1) [ %a, %entry ], [ %r2, %latch ]
  %l = phi ptr addrspace(3) [ @lds_a, %entry ], [ %l.next, %latch ]
  %m = phi ptr addrspace(3) [ @lds_a, %entry ], [ %m.sel, %latch ]
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %j = phi i32 [ 0, %entry ], [ %k2, %latch ]
  %k2 = phi i32 [ 0, %entry ], [ %j, %latch ]
  %s = load ptr addrspace(1), ptr addrspace(5) %slot
  %s.next = getelementptr i8, ptr addrspace(1) %s, i32 8
  store ptr addrspace(1) %s.next, ptr addrspace(5) %slot
  store i32 0, ptr addrspace(1) %s
  %p.next = getelementptr i8, ptr addrspace(1) %p, i32 4
  %r1 = getelementptr i8, ptr addrspace(1) %r, i32 %j
  %r2 = getelementptr i8, ptr addrspace(1) %r1, i32 %k2
  %l.int = ptrtoint ptr addrspace(3) %l to i32
  %l.add = add i32 %l.int, 4
  %l.next = inttoptr i32 %l.add to ptr addrspace(3)
  %m.sel = select i1 true, ptr addrspace(3) %m, ptr addrspace(3) @lds_b
  %i.next = add i32 %i, 1
  store i32 %i, ptr addrspace(1) %q
  store i32 %i, ptr addrspace(1) %r2
  store i32 %i, ptr addrspace(3) %l.next
  store i32 %i, ptr addrspace(3) %m.sel
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %latch, label %exit

latch:
  br label %loop

dead:
  %x = add i32 %y, 1
  %y = add i32 %x, %n
  %z = getelementptr i8, ptr addrspace(1) %a, i32 %x
  store i32 0, ptr addrspace(1) %z
  %w = select i1 true, ptr addrspace(1) %w2, ptr addrspace(1) %b
  %w2 = getelementptr i8, ptr addrspace(1) %w, i32 4
  store i32 0, ptr addrspace(1) %w2
  %v = phi i32 [ %v, %dead ]
  %vp = getelementptr i8, ptr addrspace(1) %a, i32 %v
  store i32 0, ptr addrspace(1) %vp
  br label %dead

exit:
  ret void
}
"""


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("options", OPTIONS, ids=["default", "all"])
def test_loops_match_plain_worklist(options: AnnotateOptions, reverse: bool) -> None:
    mod = parse_module(SourceFile("loops.ll", LOOPS))
    assert _check_module(mod, options, reverse) > 0


def test_loops_values() -> None:
    mod = parse_module(SourceFile("loops.ll", LOOPS))
    roots = find_roots(mod, OPTIONS[1])
    ma = ModuleAnalysis(mod, roots)
    fn = mod.functions[0]
    fa = ma.function(fn)
    fa.solve(["%q", "%p.next", "%r2", "%l.next", "%m.sel", "%z", "%w2", "%vp", "%s"])

    def root(name: str) -> str:
        v = fa.vals[name]
        return v.name if isinstance(v, Root) else repr(v)

    assert root("%p.next") == root("%r2") == root("%s") == "a"
    assert fa.vals["%q"] is UNKNOWN and "phi joins" in fa.cause["%q"]
    assert fa.vals["%j"] is NONE
    assert root("%l.next") == "lds_a"
    assert fa.vals["%m.sel"] is UNKNOWN
    # a cycle without a phi, only in a block nobody reaches: never anything
    assert fa.vals["%z"] is BOTTOM and fa.vals["%x"] is BOTTOM
    assert root("%w2") == "b"
    assert fa.vals["%vp"] is BOTTOM


def _reference_transfer(fa: FunctionAnalysis, ops: Ops, env: dict[str, Lat]) -> tuple[Lat, str]:
    """``transfer`` of a getelementptr, a cast or a binop as it was before its operands
    were read in place."""
    k = ops.kind
    ev = fa._const
    if k == "gep":
        vals = [ev(v, env) for _, v in ops.operands]
        return fa._gep(vals), "getelementptr with an index that carries an address"
    if k == "cast":
        cast = ops.flags[0]
        src_ty, src = ops.operands[0]
        a = ev(src, env)
        if cast in KEEP_CASTS or (cast == "bitcast" and src_ty.is_pointer):
            return a, ""
        out = fa._generic([a])
        return out, (f"{cast} of an address" if out is UNKNOWN else "")
    assert k == "binop"
    op = ops.flags[0]
    a = ev(ops.operands[0][1], env)
    b = ev(ops.operands[1][1], env)
    if op == "add" or (op == "or" and "disjoint" in ops.flags):
        out = fa._add(a, b)
        return out, (f"{op} of two values that both carry an address" if out is UNKNOWN else "")
    out = fa._generic([a, b])
    if out is not UNKNOWN:
        return out, ""
    if op == "or":
        return out, "or without 'disjoint' on an address"
    if op == "sub":
        return out, "sub on an address"
    return out, f"{op} on an address"


@pytest.mark.parametrize("path", ALL_LL, ids=lambda p: os.path.relpath(p, ROOT))
def test_transfer_matches_reference(path: str) -> None:
    """Every getelementptr, cast and binop of the fixtures, under many assignments of
    lattice values to the names they read (some left to ``vals``, some missing): the
    transfer gives what the rules as written before its operands were read in place give
    (a pin: the reference is the same rules, so this fails only when one copy changes),
    and it is monotone, which the optimistic worklist's soundness rests on: raising the
    operands' values (joining them with others) never lowers the result."""
    mod = _module(path)
    roots = find_roots(mod, OPTIONS[1])
    ma = ModuleAnalysis(mod, roots)
    r1, r2 = Root("d", "x", "arg"), Root("d", "y", "arg")
    palette: list[Lat] = [BOTTOM, NONE, UNKNOWN, r1, r2, Agg(NONE, {0: r1}), Agg(UNKNOWN, {})]
    rng = random.Random(path)
    for fn in mod.functions:
        fa = FunctionAnalysis(ma, fn)
        for inst in fn.instrs:
            ops = opparse.parse(mod, inst)
            if ops.kind not in ("gep", "cast", "binop"):
                continue
            names = local_deps(ops)
            for _ in range(12):
                env = {n: rng.choice(palette) for n in names if rng.random() < 0.8}
                fa.vals = {n: rng.choice(palette) for n in names if rng.random() < 0.5}
                got = fa.transfer(inst, ops, env)
                want = _reference_transfer(fa, ops, env)
                assert got[0] is want[0] or (isinstance(got[0], Agg) and got[0] == want[0]), inst.line
                if want[0] is UNKNOWN:
                    assert got[1] == want[1], inst.line
                # (a name in neither env nor vals reads as unknown)
                higher = {n: join(env[n] if n in env else fa.vals.get(n, UNKNOWN), rng.choice(palette))
                          for n in names}
                above = fa.transfer(inst, ops, higher)[0]
                joined = join(got[0], above)
                assert joined is above or (isinstance(above, Agg) and joined == above), inst.line
        ma.release(fn)
