"""Known bits (design section 2b, ``llnoalias.analysis.knownbits``) against brute force:
every transfer function, on every fact of a small width and every value each fact allows,
gives a fact that every concrete result satisfies; the exact ones (``and``/``or``/``xor``,
shifts, casts, LLVM's ``computeForAddSub``) give exactly what brute force knows; tightening
an interval's ends gives exactly the smallest and largest value the bits allow."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llnoalias.analysis.ranges import knownbits as kb
from llnoalias.analysis.ranges.interval import Range, join, known, with_known
from llnoalias.analysis.ranges.knownbits import Known


def facts(w: int) -> Iterator[Known]:
    """Every consistent fact of width ``w``: each bit known 0, known 1 or unknown."""
    for states in itertools.product((0, 1, 2), repeat=w):
        zero = sum(1 << i for i, s in enumerate(states) if s == 0)
        one = sum(1 << i for i, s in enumerate(states) if s == 1)
        yield Known(zero, one)


def members(k: Known, w: int) -> list[int]:
    return [v for v in range(1 << w) if v & k.zero == 0 and v & k.one == k.one]


def exact(values: set[int], w: int) -> Known:
    """What brute force knows of a set of values: the bits they all share."""
    m = kb.mask(w)
    one, zero = m, m
    for v in values:
        one &= v
        zero &= ~v & m
    return Known(zero, one)


def holds(k: Known, v: int) -> bool:
    return v & k.zero == 0 and v & k.one == k.one


def sext(v: int, w: int) -> int:
    return v - (1 << w) if v >> (w - 1) else v


BINARY: dict[str, tuple[Callable[[Known, Known, int], Known], Callable[[int, int, int], int], bool]] = {
    # name: (transfer, concrete operation, exact)
    "add": (lambda a, b, w: kb.add_sub(a, b, w), lambda x, y, w: (x + y) & kb.mask(w), True),
    "sub": (lambda a, b, w: kb.add_sub(a, b, w, sub=True), lambda x, y, w: (x - y) & kb.mask(w), True),
    "mul": (kb.mul, lambda x, y, w: (x * y) & kb.mask(w), False),
    "and": (lambda a, b, w: kb.and_(a, b), lambda x, y, w: x & y, True),
    "or": (lambda a, b, w: kb.or_(a, b), lambda x, y, w: x | y, True),
    "xor": (lambda a, b, w: kb.xor(a, b), lambda x, y, w: x ^ y, True),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_transfers_on_every_3_bit_fact(name: str) -> None:
    transfer, concrete, is_exact = BINARY[name]
    w = 3
    for a, b in itertools.product(facts(w), repeat=2):
        got = transfer(a, b, w)
        assert got.zero & got.one == 0
        results = {concrete(x, y, w) for x in members(a, w) for y in members(b, w)}
        for r in results:
            assert holds(got, r), (name, a, b, got, r)
        if is_exact:
            assert got == exact(results, w), (name, a, b, got, exact(results, w))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(BINARY)), st.integers(0, 63), st.integers(0, 63), st.integers(0, 63),
       st.integers(0, 63))
def test_binary_transfers_on_random_6_bit_facts(name: str, z1: int, o1: int, z2: int, o2: int) -> None:
    w = 6
    a, b = Known(z1 & ~o1, o1), Known(z2 & ~o2, o2)
    transfer, concrete, is_exact = BINARY[name]
    got = transfer(a, b, w)
    results = {concrete(x, y, w) for x in members(a, w) for y in members(b, w)}
    assert all(holds(got, r) for r in results), (name, a, b, got)
    if is_exact:
        assert got == exact(results, w)


def test_mul_keeps_trailing_zeros_and_low_bits() -> None:
    w = 8
    x8 = kb.shl(kb.NOTHING, 3, w)  # a multiple of 8
    assert kb.trailing_zeros(kb.mul(x8, kb.const(12, w), w), w) == 5
    odd = Known(0, 1)  # low bit 1
    assert kb.mul(odd, odd, w).one & 1 == 1


def test_shifts_and_casts_on_every_4_bit_fact() -> None:
    w = 4
    for a in facts(w):
        vals = members(a, w)
        for c in range(w):
            for name, transfer, op in (
                    ("shl", kb.shl, lambda v, c=c: (v << c) & 15),
                    ("lshr", kb.lshr, lambda v, c=c: v >> c),
                    ("ashr", kb.ashr, lambda v, c=c: (sext(v, 4) >> c) & 15)):
                got = transfer(a, c, w)
                results = {op(v) for v in vals}
                assert got == exact(results, w), (name, a, c, got)
        for nw in (5, 8):
            assert kb.zext(a, w, nw) == exact(set(vals), nw)
            assert kb.sext(a, w, nw) == exact({sext(v, w) & kb.mask(nw) for v in vals}, nw)
        assert kb.trunc(a, 2) == exact({v & 3 for v in vals}, 2)
        assert kb.of_interval(min(vals), max(vals), w).zero & a.one == 0


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.integers(0, 63), st.integers(0, 63), st.integers(0, 63), st.integers(0, 63))
def test_tighten_gives_the_extreme_values_the_bits_allow(lo: int, hi: int, z: int, o: int) -> None:
    w = 6
    k = Known(z & ~o, o)
    lo, hi = min(lo, hi), max(lo, hi)
    allowed = [v for v in range(lo, hi + 1) if holds(k, v)]
    got = kb.tighten(lo, hi, k, w)
    if not allowed:
        assert got is None
    else:
        assert got == (min(allowed), max(allowed))
    # the same in the signed reading
    sgot = kb.tighten(lo - 64, hi - 64, k, w)
    assert sgot == (None if not allowed else (min(allowed) - 64, max(allowed) - 64))


def test_of_interval_keeps_the_common_high_bits() -> None:
    assert kb.of_interval(8192, 8192 + 255, 32) == Known(kb.mask(32) & ~(8192 | 255), 8192)
    assert kb.of_interval(0, 255, 32) == Known(kb.mask(32) & ~255, 0)
    assert kb.of_interval(-1, 1, 8) == kb.NOTHING  # straddles the readings
    assert kb.of_interval(-4, -1, 8) == Known(0, 0xFC)


def test_ranges_carry_and_tighten_to_their_bits() -> None:
    w = 32
    # a multiple of 8 at most 8199 is at most 8192 (the Triton tile)
    r = with_known(Range(0, 8199), kb.shl(kb.NOTHING, 3, w), w)
    assert (r.lo, r.hi) == (0, 8192)
    assert known(r, w).zero & 7 == 7
    # a phi of 0 and 8192 keeps every bit but bit 13
    j = join(Range(0, 0), Range(8192, 8192), w)
    assert isinstance(j, Range) and (j.lo, j.hi) == (0, 8192)
    assert known(j, w) == Known(kb.mask(w) & ~8192, 0)
    # dead code (no value agrees): the range is kept
    assert with_known(Range(1, 7), Known(kb.mask(w), 0), w) == Range(1, 7)


def _max_le_by_bits(hi: int, k: Known, w: int) -> int | None:
    """``max_le`` one bit at a time, from the top: the definition the closed form follows."""
    best: int | None = None
    for i in range(w - 1, -1, -1):
        bit = 1 << i
        if hi & bit:
            if not k.one & bit:
                best = (hi & ~kb.mask(i + 1)) | (~k.zero & kb.mask(i))
            if k.zero & bit:
                return best
        elif k.one & bit:
            return best
    return hi


def _min_ge_by_bits(lo: int, k: Known, w: int) -> int | None:
    best: int | None = None
    for i in range(w - 1, -1, -1):
        bit = 1 << i
        if not lo & bit:
            if not k.zero & bit:
                best = (lo & ~kb.mask(i + 1)) | bit | (k.one & kb.mask(i))
            if k.one & bit:
                return best
        elif k.zero & bit:
            return best
    return lo


def test_interval_ends_match_the_bit_by_bit_search_on_every_small_fact() -> None:
    # every fact of width 5, contradictory ones too, and every end
    w = 5
    for z, o, v in itertools.product(range(32), range(32), range(32)):
        k = Known(z, o)
        assert kb.max_le(v, k, w) == _max_le_by_bits(v, k, w), (z, o, v)
        assert kb.min_ge(v, k, w) == _min_ge_by_bits(v, k, w), (z, o, v)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(st.sampled_from([8, 16, 32, 64, 128]), st.data())
def test_interval_ends_match_the_bit_by_bit_search_on_wide_facts(w: int, data: st.DataObject) -> None:
    bits = st.integers(0, (1 << w) - 1)
    z = data.draw(bits)
    o = data.draw(bits) & ~z
    v = data.draw(bits)
    k = Known(z, o)
    assert kb.max_le(v, k, w) == _max_le_by_bits(v, k, w)
    assert kb.min_ge(v, k, w) == _min_ge_by_bits(v, k, w)


@pytest.mark.slow
@settings(max_examples=800, deadline=None)
@given(st.sampled_from([1, 3, 8, 16, 32, 64]), st.data())
def test_with_known_leaves_its_own_output_as_it_is(w: int, data: st.DataObject) -> None:
    # int_range skips with_known on a range that already carries bits: that is only the
    # same answer if with_known is idempotent on what it returns (and on the other
    # reading of it, which urange/srange give with the same bits)
    from llnoalias.analysis.ranges.interval import srange, urange
    lo = data.draw(st.integers(-(1 << (w - 1)), (1 << w) - 1))
    hi = data.draw(st.integers(lo, (1 << w) - 1))
    z = data.draw(st.integers(0, (1 << w) - 1))
    o = data.draw(st.integers(0, (1 << w) - 1)) & ~z
    out = with_known(Range(lo, hi), Known(z, o), w)
    for r in (out, urange(out, w), srange(out, w)):
        if r.zero or r.one:  # (a range with no bits, as dead code leaves it, is redone)
            assert tuple(with_known(r, kb.NOTHING, w)) == tuple(r)
