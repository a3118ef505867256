"""Signed division, signed remainder, comparisons the ranges decide, and the selects they
pick (design section 2b; FlyDSL 0.4.2's fp8 GEMM computes its LDS addresses through
``sdiv``/``srem`` and a ``select``-based floor division of the thread id).

Each rule is checked against brute force on small bit widths, every interval and constant,
and each has a case where the bound is genuinely unknown and no claim may be made."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llnoalias.analysis.ranges.interval import Range, srange, urange
from llnoalias.analysis.ranges.transfer import (
    binop_result,
    cmp_decided,
    sdiv_interval,
    srem_interval,
    tdiv,
)
from llnoalias.ir.model import LocalRef
from llnoalias.ir.types import Type
from llnoalias.options import AnnotateOptions
from llnoalias.transform.pipeline import annotate_text
from tests.support.ranges import analyse, kernel, rng

I32 = Type("int", bits=32)
PREDS = ("eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge")


def _signed(x: int, w: int) -> int:
    x &= (1 << w) - 1
    return x - (1 << w) if x >> (w - 1) else x


def _ranges(w: int) -> list[Range]:
    """Every interval of an ``iW`` value, in both windows."""
    half = 1 << (w - 1)
    out = [Range(lo, hi) for lo in range(1 << w) for hi in range(lo, 1 << w)]
    out += [Range(lo, hi) for lo in range(-half, 0) for hi in range(lo, half)]
    return out


def _members(r: Range | str, w: int) -> list[int]:
    """The ``w``-bit patterns a range stands for (an absent one: every pattern)."""
    if not isinstance(r, Range):
        return list(range(1 << w))
    return [x for x in range(1 << w) if r.lo <= x <= r.hi or r.lo <= _signed(x, w) <= r.hi]


def _holds(r: Range, x: int, w: int) -> bool:
    """Does pattern ``x`` lie in ``r`` (either reading) and agree with its known bits?"""
    x &= (1 << w) - 1
    return (r.lo <= x <= r.hi or r.lo <= _signed(x, w) <= r.hi) and x & r.zero == 0 and x & r.one == r.one


def _llvm(op: str, x: int, c: int, w: int) -> int | None:
    """LLVM's ``sdiv``/``srem`` of two ``w``-bit patterns; None where it is undefined."""
    sx, sc = _signed(x, w), _signed(c, w)
    if sc == 0 or (sx == -(1 << (w - 1)) and sc == -1):
        return None
    q = tdiv(sx, sc)
    return (q if op == "sdiv" else sx - q * sc) & ((1 << w) - 1)


# ------------------------------------------------------------ the intervals

def test_truncating_division() -> None:
    assert [tdiv(x, 4) for x in (-9, -8, -7, -1, 0, 1, 7, 8, 9)] == [-2, -2, -1, 0, 0, 0, 1, 2, 2]
    assert [tdiv(x, -4) for x in (-9, 7)] == [2, -1]
    assert sdiv_interval(-300, 16368, 128) == Range(-2, 127)
    assert sdiv_interval(-300, 16368, -128) == Range(-127, 2)
    assert srem_interval(6208, 16368, 2048) == Range(0, 2047)
    assert srem_interval(-5, 3, 8) == Range(-5, 3)
    assert srem_interval(-100, 100, 8) == Range(-7, 7)
    assert srem_interval(-100, -1, 8) == Range(-7, 0)


@pytest.mark.parametrize("w", [3, 4])
@pytest.mark.parametrize("op", ["sdiv", "srem"])
def test_signed_division_by_every_constant_is_sound(op: str, w: int) -> None:
    """Every interval, every constant (0, -1 and INT_MIN included), every member: the result
    of LLVM's operation lies in the computed range (or there is none); for ``sdiv`` by a
    positive constant of an interval in the signed window, the range is exact."""
    claims = 0
    for c in range(1 << w):
        cb = Range(c, c) if c < (1 << (w - 1)) else Range(_signed(c, w), _signed(c, w))
        for a in _ranges(w) + ["unknown dividend"]:
            got = binop_result(op, (), a, cb, cb, w, None)
            outs = [y for x in _members(a, w) if (y := _llvm(op, x, c, w)) is not None]
            if not isinstance(got, Range):
                continue
            claims += 1
            for y in outs:
                assert _holds(got, y, w), (op, a, _signed(c, w), y, got)
            if op == "sdiv" and 0 < _signed(c, w) and isinstance(a, Range) and a.hi < (1 << (w - 1)) and outs:
                vals = [_signed(y, w) for y in outs]
                assert (got.lo, got.hi) == (min(vals), max(vals)), (a, c, got)
    assert claims > 0


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.integers(6, 12), st.data())
def test_signed_division_on_wider_values(w: int, data: st.DataObject) -> None:
    half = 1 << (w - 1)
    lo = data.draw(st.integers(-half, half - 1))
    hi = data.draw(st.integers(lo, half - 1))
    c = data.draw(st.integers(-half, half - 1).filter(lambda v: v != 0))
    for op in ("sdiv", "srem"):
        got = binop_result(op, (), Range(lo, hi), Range(c, c), Range(c, c), w, None)
        if not isinstance(got, Range):
            assert op == "sdiv" and c == -1
            continue
        for x in range(lo, hi + 1):
            y = _llvm(op, x, c, w)
            if y is not None:
                assert _holds(got, y, w), (op, lo, hi, c, y, got)


def test_division_with_no_claim() -> None:
    """A divisor that is not a constant, zero, or -1 (INT_MIN / -1 is undefined, and -x leaves
    the window): no range. An unknown dividend still bounds a remainder and a quotient."""
    a = Range(0, 100)
    assert isinstance(binop_result("sdiv", (), a, Range(1, 8), None, 32, None), str)
    assert isinstance(binop_result("srem", (), a, Range(1, 8), None, 32, None), str)
    assert isinstance(binop_result("sdiv", (), a, Range(0, 0), Range(0, 0), 32, None), str)
    assert isinstance(binop_result("srem", (), a, Range(0, 0), Range(0, 0), 32, None), str)
    assert isinstance(binop_result("sdiv", (), a, Range(-1, -1), Range(-1, -1), 32, None), str)
    got = binop_result("srem", (), "function argument %n", Range(2048, 2048), Range(2048, 2048), 32, None)
    assert isinstance(got, Range) and (got.lo, got.hi) == (-2047, 2047)
    got = binop_result("sdiv", (), "function argument %n", Range(128, 128), Range(128, 128), 32, None)
    assert isinstance(got, Range) and (got.lo, got.hi) == (-(1 << 24), (1 << 24) - 1)


# ------------------------------------------------------------- comparisons

def _cmp(pred: str, x: int, y: int, w: int) -> int:
    if pred[0] == "s":
        x, y = _signed(x, w), _signed(y, w)
    return int({"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y,
                "ge": x >= y}[pred if pred in ("eq", "ne") else pred[1:]])


def test_comparisons_decided_only_when_every_pair_agrees() -> None:
    w = 3
    rs: list[Range | str] = [*_ranges(w), "unknown"]
    decided = 0
    for pred in PREDS:
        for a in rs:
            ma = _members(a, w)
            for b in rs:
                got = cmp_decided(pred, a, b, w)
                if got is None:
                    continue
                decided += 1
                assert isinstance(a, Range) and isinstance(b, Range)
                for x in ma:
                    for y in _members(b, w):
                        assert _cmp(pred, x, y, w) == got, (pred, a, b, x, y)
    assert decided > 1000


def test_comparisons_left_open() -> None:
    assert cmp_decided("slt", Range(-1, 3), Range(0, 0), 32) is None
    assert cmp_decided("ult", Range(0, 10), Range(5, 5), 32) is None
    assert cmp_decided("eq", Range(0, 1), Range(1, 1), 32) is None
    assert cmp_decided("slt", "function argument %n", Range(0, 0), 32) is None
    # 255 is -1 read as signed: an interval straddling the signed window decides nothing
    assert cmp_decided("slt", Range(200, 255), Range(0, 0), 8) == 1
    assert cmp_decided("ult", Range(200, 255), Range(0, 0), 8) == 0
    assert cmp_decided("slt", Range(100, 200), Range(0, 0), 8) is None


# ------------------------------------------------------------ in a kernel

#: FlyDSL 0.4.2's fp8 GEMM (fp8_gemm_4wave_dynshared_gfx950_k512.ll, lines 17-33, 114-122 and
#: one LDS read of lines 669-686), renamed: the wave index floordiv(tid, 64), its parity, and
#: a swizzled address 65536 + [0, 16384) in the one dynamic buffer
FLYDSL = """\
  %t = call range(i32 0, 256) i32 @llvm.amdgcn.workitem.id.x()
  %t64 = sext i32 %t to i64
  %ti = trunc i64 %t64 to i32
  %lane = srem i32 %ti, 64
  %q = sdiv i32 %ti, 64
  %m = mul i32 %q, 64
  %ne = icmp ne i32 %ti, %m
  %neg = icmp slt i32 %ti, 0
  %ng = icmp ne i1 %neg, false
  %fix = and i1 %ne, %ng
  %qm = add i32 %q, -1
  %wave = select i1 %fix, i32 %qm, i32 %q
  %par = srem i32 %wave, 2
  %lq = srem i32 %lane, 16
  %a0 = mul i32 %par, 64
  %a1 = add i32 %a0, 48
  %a2 = add i32 %a1, %lq
  %a3 = mul i32 %a2, 128
  %x = add i32 %a3, 112
  %r = srem i32 %x, 2048
  %s = ashr i32 %r, 8
  %s4 = shl i32 %s, 4
  %sw = xor i32 %x, %s4
  %d = sdiv i32 %sw, 128
  %dm = mul i32 %d, 128
  %dne = icmp ne i32 %sw, %dm
  %dneg = icmp slt i32 %sw, 0
  %dng = icmp ne i1 %dneg, false
  %dfix = and i1 %dne, %dng
  %dq = add i32 %d, -1
  %row = select i1 %dfix, i32 %dq, i32 %d
  %col = srem i32 %sw, 128
  %rb = mul i32 %row, 128
  %off = add i32 %rb, %col
  %p = getelementptr i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 65536), i32 %off
  %v = load <16 x i8>, ptr addrspace(3) %p, align 1
  %p0 = getelementptr i8, ptr addrspace(3) @smem, i32 %off
  store <16 x i8> %v, ptr addrspace(3) %p0, align 1
"""


def test_flydsl_floor_division_of_the_thread_id() -> None:
    fr, _ = analyse(kernel(FLYDSL, '"amdgpu-flat-work-group-size"="256,256"'))
    assert rng(fr, "%lane") == Range(0, 63)
    assert rng(fr, "%q") == Range(0, 3)
    # icmp slt %ti, 0 is false for every thread: the select keeps its second arm only
    assert rng(fr, "%neg") == Range(0, 0) and rng(fr, "%fix") == Range(0, 0)
    assert rng(fr, "%wave") == Range(0, 3)
    assert rng(fr, "%par") == Range(0, 1)
    assert rng(fr, "%x") == Range(6256, 16368)
    # %x ends in 112 modulo 128 (known bits), and so does its remainder by 2048
    assert rng(fr, "%r") == Range(112, 2032)
    assert rng(fr, "%sw") == Range(0, 16368)
    assert rng(fr, "%row") == Range(0, 127)
    # a non-negative dividend's srem/sdiv by 2**k keep their known bits: the offset is a
    # multiple of 16, so the 16-byte read ends at 16384, inside its 16 KiB sub-buffer
    assert rng(fr, "%col") == Range(0, 112)
    assert rng(fr, "%off") == Range(0, 16368)
    off = fr.int_range(I32, LocalRef("%off"))
    assert isinstance(off, Range) and off.zero & 15 == 15
    # brute force: every thread's values lie in their ranges
    for t in range(256):
        lane, wave = t % 64, t // 64
        x = ((wave % 2) * 64 + 48 + lane % 16) * 128 + 112
        sw = x ^ (((x % 2048) >> 8) << 4)
        assert 112 <= x % 2048 <= 2032 and 0 <= sw <= 16368
        assert 0 <= (sw // 128) * 128 + sw % 128 <= 16368


def test_flydsl_read_gets_a_byte_range() -> None:
    """The read at 65536 + [0, 16384) and the store at [0, 16400) are told apart."""
    out = annotate_text(kernel(FLYDSL, '"amdgpu-flat-work-group-size"="256,256"'), AnnotateOptions()).text
    load = next(line for line in out.splitlines() if "%v = load" in line)
    store = next(line for line in out.splitlines() if "store <16 x i8> %v" in line)
    assert "!alias.scope" in load and "!noalias" in load
    assert "!alias.scope" in store and "!noalias" in store


def test_a_sign_the_ranges_cannot_decide_keeps_both_arms() -> None:
    """``%n`` may be negative: the floor division's fix-up may happen, the select is the join of
    both arms, and the offset, which may be negative, gives the access no byte range."""
    body = ("  %q = sdiv i32 %n, 64\n  %m = mul i32 %q, 64\n  %ne = icmp ne i32 %n, %m\n"
            "  %neg = icmp slt i32 %n, 0\n  %fix = and i1 %ne, %neg\n  %qm = add i32 %q, -1\n"
            "  %f = select i1 %fix, i32 %qm, i32 %q\n  %e = and i32 %n, 7\n  %s = select i1 %neg, i32 %e, i32 9\n"
            "  %p = getelementptr i8, ptr addrspace(3) @smem, i32 %f\n  store i8 0, ptr addrspace(3) %p, align 1\n"
            "  %p2 = getelementptr i8, ptr addrspace(3) @smem, i32 65536\n  store i8 1, ptr addrspace(3) %p2, align 1\n")
    fr, _ = analyse(kernel(body))
    assert rng(fr, "%neg") == Range(0, 1)
    assert rng(fr, "%f") == Range(-(1 << 25) - 1, (1 << 25) - 1)
    assert rng(fr, "%s") == Range(0, 9)
    out = annotate_text(kernel(body), AnnotateOptions()).text
    st_f = next(line for line in out.splitlines() if "store i8 0" in line)
    assert "!noalias" not in st_f  # unknown bytes: it may alias everything of @smem


def test_decided_comparison_in_a_select_and_a_zext() -> None:
    body = ("  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  %c = icmp ugt i32 %t, 300\n"
            "  %s = select i1 %c, i32 %n, i32 4\n  %z = zext i1 %c to i32\n"
            "  %e = icmp eq i32 %t, 1000\n  %s2 = select i1 %e, i32 %n, i32 8\n"
            "  %u = icmp ult i32 %t, 100\n  %s3 = select i1 %u, i32 1, i32 2\n")
    fr, _ = analyse(kernel(body, '"amdgpu-flat-work-group-size"="1,256"'))
    assert rng(fr, "%c") == Range(0, 0)
    assert rng(fr, "%s") == Range(4, 4)  # the unknown %n is never chosen
    assert rng(fr, "%z") == Range(0, 0)
    assert rng(fr, "%s2") == Range(8, 8)
    assert rng(fr, "%s3") == Range(1, 2)  # thread ids below and above 100: both arms
    assert isinstance(fr.int_range(I32, LocalRef("%n")), str)


def test_unsigned_readings_of_a_comparison() -> None:
    assert urange(Range(-1, -1), 8) == Range(255, 255)
    assert srange(Range(255, 255), 8) == Range(-1, -1)
    assert cmp_decided("eq", Range(-1, -1), Range(255, 255), 8) == 1
