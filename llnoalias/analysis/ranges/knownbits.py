"""Known bits of ``iW`` values, beside the intervals (design section 2b), after LLVM's
``KnownBits`` (``llvm/lib/Support/KnownBits.cpp``, ``ValueTracking``'s ``computeKnownBits``).

A fact is a pair of masks over the value's ``W``-bit pattern: ``zero`` (bits known to be
0) and ``one`` (bits known to be 1). Every value the fact describes satisfies
``v & zero == 0`` and ``v & one == one``. ``(0, 0)`` knows nothing. Every function here is a
sound over-approximation: it may know less than the exact answer, never more. Masks are
plain ``int``s, so a transfer costs a few machine operations.

Besides the transfers, ``max_le``/``min_ge`` give the largest (smallest) value within an
interval's end that the bits allow: the interval's ends tightened to the bits, as LLVM's
``ConstantRange``/``KnownBits`` interplay does (a multiple of 8 at most 8199 is at most 8192).
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms

if TYPE_CHECKING:
    from typing import NamedTuple

    class Known(NamedTuple):
        zero: int
        one: int
else:
    Known = namedtuple("Known", "zero one")


NOTHING = Known(0, 0)


def mask(w: int) -> int:
    return (1 << w) - 1


def const(c: int, w: int) -> Known:
    """The bits of the constant ``c`` (read modulo ``2**w``)."""
    m = mask(w)
    u = c & m
    return Known(~u & m, u)


def of_interval(lo: int, hi: int, w: int) -> Known:
    """What every ``w``-bit pattern in ``[lo, hi]`` shares: the bits above the highest bit
    where ``lo`` and ``hi`` differ (both ends in the unsigned reading, or both negative)."""
    return Known(*interval_masks(lo, hi, w))


def interval_masks(lo: int, hi: int, w: int) -> tuple[int, int]:
    """``of_interval`` as a plain pair of masks (the ranges' hot path builds no ``Known``
    until it returns one)."""
    if lo > hi:
        return 0, 0
    if lo < 0:
        if hi >= 0:
            return 0, 0
        lo += 1 << w
        hi += 1 << w
        if lo < 0:
            return 0, 0
    if hi >> w:
        return 0, 0
    top = ~((1 << (lo ^ hi).bit_length()) - 1) & ((1 << w) - 1)
    return ~lo & top, lo & top


def meet(a: Known, b: Known) -> Known:
    """What holds for a value that is one of two (a phi or select): the common knowledge."""
    return Known(a.zero & b.zero, a.one & b.one)


def union(a: Known, b: Known) -> Known:
    """Two facts about one value. Facts that contradict each other describe no value (dead
    code): then the first is kept, which is still sound for every value it describes."""
    z, o = a.zero | b.zero, a.one | b.one
    if z & o:
        return a
    return Known(z, o)


def is_const(k: Known, w: int) -> bool:
    return (k.zero | k.one) == mask(w)


def trailing_zeros(k: Known, w: int) -> int:
    """How many low bits are known to be 0."""
    z = ~k.zero & mask(w)
    return w if z == 0 else (z & -z).bit_length() - 1


def low_known(k: Known, w: int) -> int:
    """How many low bits are known (0 or 1)."""
    u = ~(k.zero | k.one) & mask(w)
    return w if u == 0 else (u & -u).bit_length() - 1


# -------------------------------------------------------------------- transfers
def add_sub(a: Known, b: Known, w: int, sub: bool = False) -> Known:
    """``a + b`` or ``a - b`` modulo ``2**w``: LLVM's ``KnownBits::computeForAddSub``
    (``a - b = a + ~b + 1``), which follows which carries are known."""
    m = mask(w)
    if sub:
        b = Known(b.one, b.zero)
        carry_zero, carry_one = 0, 1
    else:
        carry_zero, carry_one = 1, 0
    possible_sum_zero = ((~a.zero & m) + (~b.zero & m) + (1 - carry_zero)) & m
    possible_sum_one = (a.one + b.one + carry_one) & m
    carry_known_zero = ~(possible_sum_zero ^ a.zero ^ b.zero) & m
    carry_known_one = (possible_sum_one ^ a.one ^ b.one) & m
    known = (a.zero | a.one) & (b.zero | b.one) & (carry_known_zero | carry_known_one)
    return Known(~possible_sum_zero & known & m, possible_sum_one & known & m)


def mul(a: Known, b: Known, w: int) -> Known:
    """``a * b`` modulo ``2**w``: trailing zeros add up, and the low bits known in both
    operands give the product's low bits (they depend on nothing else)."""
    m = mask(w)
    if is_const(a, w) and is_const(b, w):
        return const(a.one * b.one, w)
    tz = min(w, trailing_zeros(a, w) + trailing_zeros(b, w))
    zero = mask(tz)
    one = 0
    k = min(low_known(a, w), low_known(b, w))
    if k:
        low = (a.one * b.one) & mask(k)
        zero |= ~low & mask(k)
        one = low
    return Known(zero & m, one & m)


def shl(a: Known, c: int, w: int) -> Known:
    m = mask(w)
    return Known(((a.zero << c) | mask(c)) & m, (a.one << c) & m)


def lshr(a: Known, c: int, w: int) -> Known:
    m = mask(w)
    return Known((a.zero >> c) | (~(m >> c) & m), a.one >> c)


def ashr(a: Known, c: int, w: int) -> Known:
    m = mask(w)
    sign = 1 << (w - 1)
    high = ~(m >> c) & m
    zero, one = a.zero >> c, a.one >> c
    if a.zero & sign:
        zero |= high
    elif a.one & sign:
        one |= high
    return Known(zero, one)


def and_(a: Known, b: Known) -> Known:
    return Known(a.zero | b.zero, a.one & b.one)


def or_(a: Known, b: Known) -> Known:
    return Known(a.zero & b.zero, a.one | b.one)


def xor(a: Known, b: Known) -> Known:
    return Known((a.zero & b.zero) | (a.one & b.one), (a.zero & b.one) | (a.one & b.zero))


def disjoint(a: Known, b: Known, w: int) -> bool:
    """Whether no bit can be 1 in both: then ``a | b == a ^ b == a + b``."""
    return (~a.zero & ~b.zero & mask(w)) == 0


def zext(a: Known, sw: int, w: int) -> Known:
    return Known((a.zero & mask(sw)) | (mask(w) & ~mask(sw)), a.one & mask(sw))


def sext(a: Known, sw: int, w: int) -> Known:
    high = mask(w) & ~mask(sw)
    sign = 1 << (sw - 1)
    zero, one = a.zero & mask(sw), a.one & mask(sw)
    if zero & sign:
        zero |= high
    elif one & sign:
        one |= high
    return Known(zero, one)


def trunc(a: Known, w: int) -> Known:
    return Known(a.zero & mask(w), a.one & mask(w))


# ------------------------------------------------------------ interval ends
def max_le(hi: int, k: Known, w: int) -> int | None:
    """The largest ``v <= hi`` (``0 <= hi < 2**w``) whose bits agree with ``k``, or None.

    ``v`` keeps ``hi``'s bits above some bit ``i`` where ``hi`` has a 1 that may be 0, puts
    0 there and every bit not known zero below it. ``i`` must be at or above the highest
    bit where ``hi`` disagrees with ``k``; the lowest such ``i`` gives the largest ``v``."""
    m = (1 << w) - 1
    zero, one = k.zero, k.one
    conflict = ((hi & zero) | (~hi & one)) & m
    if not conflict:
        return hi
    at_or_above = m & ~((1 << (conflict.bit_length() - 1)) - 1)
    cands = hi & ~one & at_or_above
    if not cands:
        return None
    low = cands & -cands  # bit i
    return (hi & ~((low << 1) - 1)) | (~zero & (low - 1))


def min_ge(lo: int, k: Known, w: int) -> int | None:
    """The smallest ``v >= lo`` (``0 <= lo < 2**w``) whose bits agree with ``k``, or None:
    ``max_le`` mirrored (a 0 of ``lo`` that may be 1 becomes 1, the known ones below it)."""
    m = (1 << w) - 1
    zero, one = k.zero, k.one
    conflict = ((lo & zero) | (~lo & one)) & m
    if not conflict:
        return lo
    at_or_above = m & ~((1 << (conflict.bit_length() - 1)) - 1)
    cands = ~lo & ~zero & at_or_above
    if not cands:
        return None
    low = cands & -cands
    return (lo & ~((low << 1) - 1)) | low | (one & (low - 1))


def tighten(lo: int, hi: int, k: Known, w: int) -> tuple[int, int] | None:
    """``[lo, hi]`` (one reading of a ``w``-bit value) shrunk to values whose bits agree with
    ``k``; None when none does (the value cannot exist) or the interval straddles the
    signed and unsigned readings."""
    shift = 0
    if lo < 0:
        if hi >= 0:
            return lo, hi
        shift = 1 << w
    ulo, uhi = lo + shift, hi + shift
    if ulo < 0 or uhi >> w:
        return lo, hi
    nlo = min_ge(ulo, k, w)
    nhi = max_le(uhi, k, w)
    if nlo is None or nhi is None or nlo > nhi:
        return None
    return nlo - shift, nhi - shift


def bounds(k: Known, w: int) -> tuple[int, int]:
    """The unsigned interval the bits alone allow."""
    return k.one, ~k.zero & mask(w)


__all__ = ["NOTHING", "Known", "add_sub", "and_", "ashr", "bounds", "const", "disjoint", "interval_masks",
           "is_const", "low_known", "lshr", "mask", "max_le", "meet", "min_ge", "mul", "of_interval", "or_", "sext",
           "shl", "tighten", "trailing_zeros", "trunc", "union", "xor", "zext"]
