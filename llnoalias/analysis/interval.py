"""The abstract domain of the range analysis: intervals of ``iW`` values (SPEC section 2b).

A ``Range(lo, hi)`` (inclusive) of an ``iW`` value means: the value, read in at least one
of its two interpretations, lies in ``[lo, hi]``, and the interval fits that
interpretation's window: unsigned ``[0, 2**W)`` or signed ``[-2**(W-1), 2**(W-1))``. An
absent range is a string: the reason. ``Off(root, lo, hi)`` is an address: the root's start
plus a byte offset in ``[lo, hi]``.
"""

from __future__ import annotations

from typing import NamedTuple

from ..ir.model import PlainConst, Value
from ..ir.types import Type
from .lattice import Root


class Range(NamedTuple):
    lo: int
    hi: int


class Off(NamedTuple):
    """An address: ``root`` plus a byte offset in ``[lo, hi]``."""

    root: Root
    lo: int
    hi: int


#: an absent range: why
Why = str
IntResult = Range | Why
OffResult = Off | Why

def fit(lo: int, hi: int, w: int) -> Range | None:
    """``[lo, hi]`` as a range of an ``iW`` value, or None when it fits no window."""
    if lo > hi or w <= 0:
        return None
    if 0 <= lo and hi < (1 << w):
        return Range(lo, hi)
    half = 1 << (w - 1)
    if -half <= lo and hi < half:
        return Range(lo, hi)
    return None


def urange(r: IntResult, w: int) -> Range:
    """The unsigned reading of ``r`` (the full unsigned range when unknown or split)."""
    if isinstance(r, Range):
        if r.lo >= 0:
            return r
        if r.hi < 0:
            return Range(r.lo + (1 << w), r.hi + (1 << w))
    return Range(0, (1 << w) - 1)


def srange(r: IntResult, w: int) -> Range:
    """The signed reading of ``r`` (the full signed range when unknown or split)."""
    half = 1 << (w - 1)
    if isinstance(r, Range):
        if r.hi < half:
            return r
        if r.lo >= half:
            return Range(r.lo - (1 << w), r.hi - (1 << w))
    return Range(-half, half - 1)


def is_full(r: Range, w: int) -> bool:
    return (r.lo <= 0 and r.hi >= (1 << w) - 1) or (r.lo <= -(1 << (w - 1)) and r.hi >= (1 << (w - 1)) - 1)


def join(a: IntResult, b: IntResult, w: int) -> IntResult:
    if not isinstance(a, Range):
        return a
    if not isinstance(b, Range):
        return b
    got = fit(min(a.lo, b.lo), max(a.hi, b.hi), w)
    if got is not None:
        return got
    # one negative, one large unsigned: try both readings
    ua, ub = urange(a, w), urange(b, w)
    if not is_full(ua, w) and not is_full(ub, w):
        return Range(min(ua.lo, ub.lo), max(ua.hi, ub.hi))
    return "join of ranges that fit no single reading"


def int_const(v: Value) -> int | None:
    if isinstance(v, PlainConst):
        t = v.text
        if t == "true":
            return 1
        if t == "false" or t == "zeroinitializer" or t == "null":
            return 0
        if t and (t[0].isdigit() or (t[0] in "+-" and t[1:].isdigit())):
            try:
                return int(t)
            except ValueError:
                return None
    return None


def const_range(v: Value, w: int) -> Range | None:
    c = int_const(v)
    if c is None:
        return None
    if w == 1 and c == -1:
        return Range(1, 1)
    return fit(c, c, w)


def width(ty: Type | None) -> int:
    """The bit width of an integer type, 0 for anything else."""
    return ty.bits if ty is not None and ty.kind == "int" else 0


def half_open(lo: int, hi: int, w: int) -> Range | None:
    """``[lo, hi)`` as LLVM's ConstantRange writes it, when it does not wrap."""
    mask = (1 << w) - 1
    ulo, uhi = lo & mask, hi & mask
    if ulo < uhi:
        return Range(ulo, uhi - 1)
    return None


__all__ = ["IntResult", "Off", "OffResult", "Range", "Why", "const_range", "fit", "half_open", "int_const",
           "is_full", "join", "srange", "urange", "width"]
