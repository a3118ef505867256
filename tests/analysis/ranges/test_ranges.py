"""The integer range analysis and the data layout (design section 2b): unit tests, and a
property test that brute-forces every thread id and loop value of random offset programs."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from llnoalias.analysis.ranges.solver import (
    FunctionRanges,
    Off,
    Range,
    fit,
    srange,
    urange,
    work_group,
)
from llnoalias.ir.datalayout import DataLayout
from llnoalias.ir.model import LocalRef
from llnoalias.ir.types import Type
from tests.support.offset_programs import M32, Program, programs, s32, swizzle_programs
from tests.support.ranges import I32, analyse, kernel, rng

P3 = Type("ptr", addrspace=3)










# ------------------------------------------------------------------ helpers

def test_fit_and_readings() -> None:
    assert fit(0, 10, 8) == Range(0, 10)
    assert fit(-5, 5, 8) == Range(-5, 5)
    assert fit(200, 255, 8) == Range(200, 255)  # unsigned only
    assert fit(-5, 200, 8) is None  # no single reading holds it
    assert fit(0, 256, 8) is None
    assert urange(Range(-3, -1), 8) == Range(253, 255)
    assert srange(Range(200, 255), 8) == Range(-56, -1)
    assert urange(Range(-1, 1), 8) == Range(0, 255)  # straddles: the full range
    assert urange("unknown", 4) == Range(0, 15)


# --------------------------------------------------------------- operations

def test_masks_shifts_and_remainders_bound_unknown_values() -> None:
    fr, _ = analyse(kernel("  %a = and i32 %n, 255\n  %b = urem i32 %n, 3\n  %c = lshr i32 %n, 24\n"
                           "  %d = udiv i32 %n, 65536\n  %e = and i32 %n, -16\n  %f = mul i32 %b, 4096\n"
                           "  %g = or i32 %a, 256\n  %h = xor i32 %a, %b\n"))
    assert rng(fr, "%a") == Range(0, 255)
    assert rng(fr, "%b") == Range(0, 2)
    assert rng(fr, "%c") == Range(0, 255)
    assert rng(fr, "%d") == Range(0, 65535)
    assert rng(fr, "%e") == Range(0, M32 - 15)
    assert rng(fr, "%f") == Range(0, 8192)
    assert rng(fr, "%g") == Range(256, 511)
    assert rng(fr, "%h") == Range(0, 255)


def test_wraps_give_no_range() -> None:
    fr, _ = analyse(kernel("  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
                           "  %a = mul nuw nsw i32 %t, 8388608\n"  # 1023 * 2^23 > 2^32
                           "  %b = shl nuw i32 %t, 23\n"
                           "  %c = add nuw i32 %n, 1\n"
                           "  %d = sub i32 %t, 2000\n"  # negative: a signed reading
                           "  %e = trunc i32 %t to i8\n"))
    assert isinstance(rng(fr, "%a"), str)
    assert isinstance(rng(fr, "%b"), str)
    assert isinstance(rng(fr, "%c"), str)  # nuw is no proof
    assert rng(fr, "%d") == Range(-2000, -977)
    assert isinstance(fr.int_range(Type("int", bits=8), LocalRef("%e")), str)


def test_min_max_select_and_casts() -> None:
    fr, _ = analyse(kernel("  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
                           "  %a = call i32 @llvm.umin.i32(i32 %n, i32 100)\n"
                           "  %b = call i32 @llvm.smax.i32(i32 %t, i32 5)\n"
                           "  %c = icmp ult i32 %t, 7\n"
                           "  %s = select i1 %c, i32 %a, i32 300\n"
                           "  %z = zext i1 %c to i32\n"
                           "  %q = trunc i32 %n to i16\n  %w = zext i16 %q to i32\n"
                           "  %v = sext i16 %q to i32"))
    assert rng(fr, "%a") == Range(0, 100)
    assert rng(fr, "%b") == Range(5, 1023)
    assert rng(fr, "%s") == Range(0, 300)
    assert rng(fr, "%z") == Range(0, 1)
    assert rng(fr, "%w") == Range(0, 65535)
    assert rng(fr, "%v") == Range(-32768, 32767)


# --------------------------------------------------------------------- loops

def _loop(cmp: str, step: int = 1, init: str = "0", inc_on: str = "%i.next") -> str:
    return ("  br label %loop\nloop:\n"
            f"  %i = phi i32 [ {init}, %entry ], [ %i.next, %loop ]\n"
            f"  %i.next = add nuw nsw i32 %i, {step}\n"
            f"  %c = icmp {cmp.replace('X', 'i32 ' + inc_on)}\n"
            "  br i1 %c, label %loop, label %exit\nexit:")


def test_counted_loops() -> None:
    fr, _ = analyse(kernel(_loop("ult X, 64")))
    assert rng(fr, "%i") == Range(0, 63)
    fr, _ = analyse(kernel(_loop("slt X, 10", step=3, init="1")))
    assert rng(fr, "%i") == Range(1, 9)
    fr, _ = analyse(kernel(_loop("ne X, 12", step=4)))
    assert rng(fr, "%i") == Range(0, 8)
    fr, _ = analyse(kernel(_loop("ult X, 16", inc_on="%i")))  # compare of i, not i + 1
    assert rng(fr, "%i") == Range(0, 16)
    fr, _ = analyse(kernel(_loop("ne X, 13", step=4)))  # never hits 13 exactly: wraps
    assert isinstance(rng(fr, "%i"), str)
    fr, _ = analyse(kernel(_loop("ult X, %n")))
    assert rng(fr, "%i") == Range(0, M32 - 1)  # bounded by i32's range only
    fr, _ = analyse(kernel(_loop("sgt X, 5")))  # not a bound from above
    assert isinstance(rng(fr, "%i"), str)


def test_loop_carried_remainder() -> None:
    fr, _ = analyse(kernel("  br label %loop\nloop:\n"
                           "  %s = phi i32 [ 0, %entry ], [ %s.next, %loop ]\n"
                           "  %s1 = add i32 %s, 1\n  %s.next = urem i32 %s1, 3\n"
                           "  %c = icmp ult i32 %s1, %n\n  br i1 %c, label %loop, label %exit\nexit:"))
    assert rng(fr, "%s") == Range(0, 2)


# ---------------------------------------------------------------- thread ids

def _tid_bound(text: str, dim: str = "x") -> object:
    fr, _ = analyse(text)
    return rng(fr, "%t")


def test_thread_id_bounds_from_every_source() -> None:
    call = "  %t = call i32 @llvm.amdgcn.workitem.id.x()"
    assert _tid_bound(kernel(call)) == Range(0, 1023)
    assert _tid_bound(kernel(call, '"amdgpu-flat-work-group-size"="1,256"')) == Range(0, 255)
    assert _tid_bound(kernel(call, header=" !reqd_work_group_size !0",
                             tail="!0 = !{i32 32, i32 2, i32 1}\n")) == Range(0, 31)
    assert _tid_bound(kernel(call + ", !range !0", tail="!0 = !{i32 0, i32 100}\n")) == Range(0, 99)
    assert _tid_bound(kernel("  %t = call range(i32 0, 48) i32 @llvm.amdgcn.workitem.id.x()")) == Range(0, 47)
    # a wrapped !range says nothing usable
    assert _tid_bound(kernel(call + ", !range !0", tail="!0 = !{i32 100, i32 10}\n")) == Range(0, 1023)
    nv = "nvptx64-nvidia-cuda"
    ncall = "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.z()"
    assert _tid_bound(kernel(ncall, triple=nv)) == Range(0, 63)
    assert _tid_bound(kernel(ncall, '"nvvm.maxntid"="16,4,2"', triple=nv)) == Range(0, 63)
    ncall = "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()"
    # the nvvm attributes alone: LLVM 19 ignores them, so no bound (tests/analysis/ranges/test_workgroup.py)
    assert _tid_bound(kernel(ncall, '"nvvm.maxntid"="16,4,2"', triple=nv)) == Range(0, 1023)
    assert _tid_bound(kernel(ncall, '"nvvm.reqntid"="16,4,2"', triple=nv)) == Range(0, 1023)
    ann = ('!nvvm.annotations = !{!0}\n'
           '!0 = !{ptr @k, !"kernel", i32 1, !"reqntidx", i32 8, !"reqntidy", i32 8}\n')
    assert _tid_bound(kernel(ncall, triple=nv, tail=ann)) == Range(0, 7)
    # annotations that every version reads alike: LLVM 19 from them, LLVM 20+ from the
    # attribute they are merged into
    ann = ('!nvvm.annotations = !{!0}\n'
           '!0 = !{ptr @k, !"kernel", i32 1, !"maxntidx", i32 16, !"maxntidy", i32 4, !"maxntidz", i32 2}\n')
    assert _tid_bound(kernel(ncall, '"nvvm.maxntid"="16,4,2"', triple=nv, tail=ann)) == Range(0, 127)


def test_work_group_records_its_source() -> None:
    _, mod = analyse(kernel("", '"amdgpu-flat-work-group-size"="1,64"'))
    wg = work_group(mod, mod.functions[0], "amdgpu")  # type: ignore[attr-defined]
    assert wg.bounds == [64, 64, 64]
    assert wg.sources[0] == "amdgpu-flat-work-group-size"


# ------------------------------------------------------------------ addresses

def test_offsets_through_geps_structs_and_integer_round_trips() -> None:
    body = ("  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
            "  %g = getelementptr { i8, i32, [4 x i64] }, ptr addrspace(3) @smem, i32 1, i32 2, i32 %t\n"
            "  %b = ptrtoint ptr addrspace(3) @smem to i32\n"
            "  %a = add i32 %b, 8192\n  %a2 = add i32 %a, %t\n"
            "  %p = inttoptr i32 %a2 to ptr addrspace(3)\n"
            "  %c = getelementptr i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 52160), i32 16\n"
            "  %u = and i32 %t, 3\n  %pk = getelementptr <{ i8, i32 }>, ptr addrspace(3) @smem, i32 %u, i32 1\n"
            "  %tr = ptrtoint ptr addrspace(3) @smem to i16\n  %tp = inttoptr i16 %tr to ptr addrspace(3)")
    fr, _ = analyse(kernel(body, '"amdgpu-flat-work-group-size"="1,4"'))
    g = fr.offset(P3, LocalRef("%g"))
    # { i8, i32, [4 x i64] }: i32 at 4, array at 8 (i64 aligned to 4 by LLVM's default), size 40
    assert isinstance(g, Off) and (g.lo, g.hi) == (40 + 8, 40 + 8 + 3 * 8)
    p = fr.offset(P3, LocalRef("%p"))
    assert isinstance(p, Off) and (p.lo, p.hi) == (8192, 8195)
    c = fr.offset(P3, LocalRef("%c"))
    assert isinstance(c, Off) and (c.lo, c.hi) == (52176, 52176)
    pk = fr.offset(P3, LocalRef("%pk"))
    assert isinstance(pk, Off) and (pk.lo, pk.hi) == (1, 16)  # packed: stride 5, field at 1
    assert isinstance(fr.offset(P3, LocalRef("%tp")), str)  # i16 drops address bits


def test_layout() -> None:
    dl = DataLayout("e-p:64:64-p3:32:32-i64:64-v96:128")
    i64 = Type("int", bits=64)
    i8 = Type("int", bits=8)
    st = Type("struct", fields=(i8, i64, i8))
    assert dl.alloc_size(st) == 24
    assert dl.struct_layout(st) == ([0, 8, 16], 24)
    assert dl.alloc_size(Type("struct", fields=(i8, i64, i8), packed=True)) == 10
    v3 = Type("vector", count=3, elem=Type("int", bits=32))
    assert dl.store_size(v3) == 12 and dl.alloc_size(v3) == 16
    assert dl.alloc_size(Type("array", count=5, elem=v3)) == 80
    assert dl.pointer_bits(3) == 32 and dl.pointer_bits(0) == 64 and dl.index_bits(3) == 32
    assert dl.alloc_size(Type("named", name="%T"), {"%T": Type("array", count=2, elem=i64)}) == 16
    assert dl.alloc_size(Type("named", name="%U"), {}) is None
    default = DataLayout("")
    assert default.struct_layout(st) == ([0, 4, 12], 16)  # LLVM's default i64:32:64
    amd = DataLayout("", "amdgcn-amd-amdhsa")
    assert amd.struct_layout(st) == ([0, 8, 16], 24) and amd.pointer_bits(3) == 32
    assert DataLayout("", "nvptx64-nvidia-cuda").pointer_bits(3) == 64


# ------------------------------------------------------------------ property

def _analyse_program(prog: Program) -> tuple[FunctionRanges, int]:
    fr, _ = analyse(prog.text())
    return fr, prog.n_base()


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_brute_force_values_land_in_their_ranges(prog: Program) -> None:
    fr, nb = _analyse_program(prog)
    n_vals = nb + len(prog.ops)
    ranges = [fr.int_range(I32, LocalRef(f"%v{k}")) for k in range(n_vals)]
    offs = [fr.offset(P3, LocalRef(f"%p{j}")) for j in range(len(prog.accesses))]
    for tid, i in prog.executions():
        vals = prog.evaluate(tid, i)
        if vals is None:
            continue
        check_values(prog, ranges, offs, vals, set())


def check_values(prog: Program, ranges: list[object], offs: list[object], vals: list[int],
                 poisoned: set[int]) -> None:
    """Every value of one execution lies in its range and agrees with its known bits; every
    address in its offset range and agrees with the offset's bits. Poison values (an ``or
    disjoint`` whose operands share a bit) and what they feed are left out: an access
    through poison is undefined."""
    for k, r in enumerate(ranges):
        if isinstance(r, Range) and k not in poisoned:
            u, s = vals[k], s32(vals[k])
            assert r.lo <= u <= r.hi or r.lo <= s <= r.hi, (k, r, u, s, prog.text())
            assert u & r.zero == 0 and u & r.one == r.one, (k, r, u, prog.text())
    for acc, off in zip(prog.accesses, offs, strict=True):
        if isinstance(off, Off) and acc.value not in poisoned:
            addr = prog.address(acc, vals)
            assert (addr - off.lo) % (1 << 32) <= off.hi - off.lo, (acc, off, addr, prog.text())
            m = (1 << min(off.kw, 32)) - 1
            assert addr & off.zero & m == 0 and addr & off.one & m == off.one & m, (acc, off, addr, prog.text())


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(swizzle_programs())
def test_brute_force_swizzles_land_in_their_ranges_and_bits(prog: Program) -> None:
    """Triton-like offsets (masks of the thread id, shifts, xors, ors with aligned tile
    bases, multiplications, truncations): every thread id and loop value lands in the
    computed range and has the computed known bits."""
    fr, nb = _analyse_program(prog)
    n_vals = nb + len(prog.ops)
    ranges: list[object] = [fr.int_range(I32, LocalRef(f"%v{k}")) for k in range(n_vals)]
    offs: list[object] = [fr.offset(P3, LocalRef(f"%p{j}")) for j in range(len(prog.accesses))]
    for tid, i in prog.executions():
        got = prog.evaluate_poison(tid, i)
        if got is None:
            continue
        vals, poisoned = got
        check_values(prog, ranges, offs, vals, poisoned)


def test_exact_exit_needs_a_single_back_edge() -> None:
    # Two latches stepping by 2 and 3 can step past 6: no bound from 'ne'.
    body = ("  br label %loop\nloop:\n"
            "  %i = phi i32 [ 0, %entry ], [ %a, %l1 ], [ %b, %l2 ]\n"
            "  %c0 = icmp ult i32 %n, 5\n  br i1 %c0, label %l1, label %l2\n"
            "l1:\n  %a = add i32 %i, 2\n  %c1 = icmp ne i32 %a, 6\n  br i1 %c1, label %loop, label %exit\n"
            "l2:\n  %b = add i32 %i, 3\n  %c2 = icmp ne i32 %b, 6\n  br i1 %c2, label %loop, label %exit\nexit:")
    fr, _ = analyse(kernel(body))
    assert isinstance(rng(fr, "%i"), str)
    # the same loop bounded by 'ult' on both latches is fine
    fr, _ = analyse(kernel(body.replace("icmp ne", "icmp ult")))
    assert rng(fr, "%i") == Range(0, 5)


def test_stage_counter_wrapped_by_select_is_an_inductive_invariant() -> None:
    # Triton's pipeline stage: s = (s + 1 < 3) ? s + 1 : 0
    body = ("  br label %loop\nloop:\n"
            "  %s = phi i32 [ 0, %entry ], [ %s.next, %loop ]\n"
            "  %s1 = add i32 %s, 1\n  %lt = icmp slt i32 %s1, 3\n"
            "  %s.next = select i1 %lt, i32 %s1, i32 0\n"
            "  %c = icmp ult i32 %s1, %n\n  br i1 %c, label %loop, label %exit\nexit:")
    fr, _ = analyse(kernel(body))
    assert rng(fr, "%s") == Range(0, 2)
    assert rng(fr, "%s.next") == Range(0, 2)
    # without the clamp the counter grows: no bound
    fr, _ = analyse(kernel(body.replace("i32 %s1, i32 0", "i32 %s1, i32 %s1")))
    assert isinstance(rng(fr, "%s"), str)


def test_select_narrows_by_its_condition() -> None:
    fr, _ = analyse(kernel("  %lt = icmp ult i32 %n, 100\n  %a = select i1 %lt, i32 %n, i32 7\n"
                           "  %ge = icmp sge i32 %n, 10\n  %b = select i1 %ge, i32 0, i32 %n\n"))
    assert rng(fr, "%a") == Range(0, 99)
    assert rng(fr, "%b") == Range(-(1 << 31), 9)


def bits(fr: FunctionRanges, name: str) -> tuple[int, int] | str:
    """The known bits (zero, one) of ``name``, or why it has no range."""
    r = fr.int_range(I32, LocalRef(name))
    return (r.zero, r.one) if isinstance(r, Range) else r


def test_buffer_toggled_by_xor_is_an_inductive_invariant() -> None:
    # double buffering: buf = 0, 8192, 0, ... ; the offset ors in a swizzled lane offset
    body = ("  br label %loop\nloop:\n"
            "  %buf = phi i32 [ 0, %entry ], [ %nb, %loop ]\n"
            "  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]\n"
            "  %nb = xor i32 %buf, 8192\n"
            "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
            "  %m = and i32 %t, 63\n  %o = shl i32 %m, 4\n  %sw = xor i32 %o, 48\n"
            "  %off = or i32 %buf, %sw\n"
            "  %i1 = add i32 %i, 1\n  %c = icmp ult i32 %i1, %n\n  br i1 %c, label %loop, label %exit\nexit:")
    fr, _ = analyse(kernel(body))
    assert rng(fr, "%buf") == Range(0, 8192)
    assert bits(fr, "%buf") == (M32 & ~8192, 0)
    assert rng(fr, "%sw") == Range(0, 1008)
    assert rng(fr, "%off") == Range(0, 8192 + 1008)
    assert bits(fr, "%off") == (M32 & ~(8192 | 1008), 0)
    # brute force: every value the loop reaches agrees
    r = fr.int_range(I32, LocalRef("%off"))
    assert isinstance(r, Range)
    for it in range(6):
        for t in range(1024):
            v = ((it % 2) * 8192) | (((t & 63) << 4) ^ 48)
            assert r.lo <= v <= r.hi and v & r.zero == 0 and v & r.one == r.one
    # a buffer advanced by add grows without bound: no range
    fr, _ = analyse(kernel(body.replace("%nb = xor i32 %buf, 8192", "%nb = add i32 %buf, 8192")))
    assert isinstance(rng(fr, "%buf"), str)


def test_known_bits_tighten_or_and_xor_ranges() -> None:
    fr, _ = analyse(kernel("  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
                           "  %a = shl i32 %t, 3\n  %b = and i32 %a, 8184\n  %c = xor i32 %b, 16\n"
                           "  %d = or i32 %b, 8192\n  %e = or disjoint i32 %t, 128\n  %f = mul i32 %t, 24\n"
                           "  %g = add i32 %b, 8199\n  %h = and i32 %g, -8\n",
                           '"amdgpu-flat-work-group-size"="1,1024"'))
    assert rng(fr, "%c") == Range(0, 8184)  # bits 3..12 only: below 8192, a multiple of 8
    assert rng(fr, "%d") == Range(8192, 16376)  # no bit shared with 8192: a sum
    assert rng(fr, "%e") == Range(128, 1023)  # bit 7 set, at most 10 bits
    zero, _ = bits(fr, "%f")  # type: ignore[misc]
    assert zero & 7 == 7  # 24 = 8 * 3: three trailing zeros
    assert rng(fr, "%h") == Range(8192, 16376)


def test_stage_counter_reached_from_an_address_first() -> None:
    # Triton's pipelined gfx950 matmul: the buffer pointer is a phi advanced by a gep of the
    # wrapped stage counter. A query that enters the loop at the address (not at the
    # counter's phi) once found the select in progress and read the counter as any value
    # below 2, so 'shl 13' might wrap: no range. Phis are now solved first, from outside.
    body = ("  br label %loop\nloop:\n"
            "  %s = phi i32 [ 0, %entry ], [ %sn, %loop ]\n"
            "  %p = phi ptr addrspace(3) [ @smem, %entry ], [ %q, %loop ]\n"
            "  %v = load i32, ptr addrspace(3) %p, align 4\n"
            "  %s1 = add i32 %s, 1\n  %lt = icmp slt i32 %s1, 2\n"
            "  %sn = select i1 %lt, i32 %s1, i32 0\n  %o = shl i32 %sn, 13\n"
            "  %q = getelementptr [2 x i8], ptr addrspace(3) @smem, i32 %o\n"
            "  %c = icmp ult i32 %s1, %n\n  br i1 %c, label %loop, label %exit\nexit:")
    fr, _ = analyse(kernel(body))
    off = fr.offset(P3, LocalRef("%p"))  # the address first
    assert isinstance(off, Off) and (off.lo, off.hi) == (0, 16384)
    assert rng(fr, "%sn") == Range(0, 1)


def test_constant_expressions_share_an_offset_only_when_written_alike() -> None:
    # Triton names one constant getelementptr in dozens of accesses: its offset is worked
    # out once per key; a different offset, a different global or a local operand is not
    # the same key
    from llnoalias.analysis.ranges.solver import const_key
    from llnoalias.ir.model import ConstExpr
    body = "\n".join([
        "  %a = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 64), align 4",
        "  %b = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 64), align 4",
        "  %c = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 128), align 4",
        "  %d = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem2, i32 64), align 4",
        "  %e = load i32, ptr addrspace(3) getelementptr (i32, ptr addrspace(3) @smem, i32 64), align 4",
    ])
    fr, mod = analyse(kernel(body, header="", tail="@smem2 = external addrspace(3) global [0 x i8]\n"))
    from llnoalias.ir import operands as opparse
    ces = []
    for inst in fr.fn.instrs[:5]:
        ce = opparse.parse(mod, inst).operands[0][1]  # type: ignore[arg-type]
        assert isinstance(ce, ConstExpr)
        ces.append(ce)
    keys = [const_key(ce) for ce in ces]
    assert keys[0] == keys[1]
    assert len({keys[0], keys[2], keys[3], keys[4]}) == 4
    offs = [fr.offset(P3, ce) for ce in ces]
    assert [(o.lo, o.hi) for o in offs if isinstance(o, Off)][:3] == [(64, 64), (64, 64), (128, 128)]
    assert isinstance(offs[4], Off) and (offs[4].lo, offs[4].hi) == (256, 256)
    assert len(fr.const_offs) == 4
