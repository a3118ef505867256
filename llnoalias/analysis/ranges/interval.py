"""The abstract domain of the range analysis: intervals of ``iW`` values (design section 2b).

A ``Range(lo, hi)`` (inclusive) of an ``iW`` value means: the value, read in at least one
of its two interpretations, lies in ``[lo, hi]``, and the interval fits that
interpretation's window: unsigned ``[0, 2**W)`` or signed ``[-2**(W-1), 2**(W-1))``. An
absent range is a string: the reason. ``Off(root, lo, hi)`` is an address: the root's start
plus a byte offset in ``[lo, hi]``.
"""

from __future__ import annotations

from collections import namedtuple

from ... import reasons
from ...ir.model import PlainConst, Value
from ...ir.types import Type
from ..provenance.lattice import Root
from . import knownbits as kb
from .knownbits import Known

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms


if TYPE_CHECKING:
    from typing import NamedTuple

    class Range(NamedTuple):
        """``[lo, hi]``, and the value's known bits (``knownbits``): ``zero``/``one`` masks of its
        ``W``-bit pattern (``0, 0``: nothing known beyond the interval)."""

        lo: int
        hi: int
        zero: int = 0
        one: int = 0


    class Off(NamedTuple):
        """An address: ``root`` plus a byte offset in ``[lo, hi]``; the offset's bits below
        ``kw`` agree with the masks ``zero``/``one`` (``kw == 0``: nothing known)."""

        root: Root
        lo: int
        hi: int
        zero: int = 0
        one: int = 0
        kw: int = 0
else:
    Range = namedtuple("Range", "lo hi zero one", defaults=(0, 0))
    Off = namedtuple("Off", "root lo hi zero one kw", defaults=(0, 0, 0))
    Range.__doc__ = "``[lo, hi]`` and the value's known bits ``zero``/``one``."
    Off.__doc__ = "An address: ``root`` plus a byte offset in ``[lo, hi]`` and its known bits."


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
            return Range(r.lo + (1 << w), r.hi + (1 << w), r.zero, r.one)
    return Range(0, (1 << w) - 1)


def srange(r: IntResult, w: int) -> Range:
    """The signed reading of ``r`` (the full signed range when unknown or split)."""
    half = 1 << (w - 1)
    if isinstance(r, Range):
        if r.hi < half:
            return r
        if r.lo >= half:
            return Range(r.lo - (1 << w), r.hi - (1 << w), r.zero, r.one)
    return Range(-half, half - 1)


def is_full(r: Range, w: int) -> bool:
    return (r.lo <= 0 and r.hi >= (1 << w) - 1) or (r.lo <= -(1 << (w - 1)) and r.hi >= (1 << (w - 1)) - 1)


def join(a: IntResult, b: IntResult, w: int) -> IntResult:
    if not isinstance(a, Range):
        return a
    if not isinstance(b, Range):
        return b
    k = kb.meet(known(a, w), known(b, w))
    got = fit(min(a.lo, b.lo), max(a.hi, b.hi), w)
    if got is not None:
        return with_known(got, k, w)
    # one negative, one large unsigned: try both readings
    ua, ub = urange(a, w), urange(b, w)
    if not is_full(ua, w) and not is_full(ub, w):
        return with_known(Range(min(ua.lo, ub.lo), max(ua.hi, ub.hi)), k, w)
    return reasons.JOIN_UNREADABLE.text


def known(r: IntResult, w: int) -> Known:
    """All that is known of the bits of an ``iW`` value: its masks and what its interval
    implies (nothing for an absent range)."""
    if not isinstance(r, Range) or w <= 0:
        return kb.NOTHING
    m = (1 << w) - 1
    z, o = r.zero & m, r.one & m
    iz, io = kb.interval_masks(r.lo, r.hi, w)
    if (z | iz) & (o | io):  # kb.union keeps the first fact of two that contradict
        return Known(z, o)
    return Known(z | iz, o | io)


def with_known(r: Range, k: Known, w: int) -> Range:
    """``r`` with the bits ``k`` added, its ends tightened to them (a multiple of 8 at most
    8199 is at most 8192). When the bits and the interval admit no value (dead code), ``r``
    is kept as it was."""
    m = (1 << w) - 1
    # k = union(k, r's masks), full = union(k, what the interval implies)
    z, o = k.zero & m, k.one & m
    rz, ro = r.zero & m, r.one & m
    if not (z | rz) & (o | ro):
        z, o = z | rz, o | ro
    lo, hi = r.lo, r.hi
    iz, io = kb.interval_masks(lo, hi, w)
    if not (z | iz) & (o | io):
        z, o = z | iz, o | io
    if (z | o) & ~(iz | io):
        got = kb.tighten(lo, hi, Known(z, o), w)
        if got is None:
            return r
        lo, hi = got
        iz, io = kb.interval_masks(lo, hi, w)
        if not (z | iz) & (o | io):
            z, o = z | iz, o | io
    return Range(lo, hi, z, o)


def off_known(o: Off, w: int) -> Known:
    """What is known of the bits of ``o``'s offset modulo ``2**w``."""
    z, n = _off_bits(o, w)
    return Known(z, n)


def _off_bits(o: Off, w: int) -> tuple[int, int]:
    """``off_known`` as a plain pair."""
    km = (1 << min(o.kw, w)) - 1
    z, n = o.zero & km, o.one & km
    lo, hi = o.lo, o.hi
    if 0 <= lo and hi < (1 << w):
        iz, io = kb.interval_masks(lo, hi, w)
        if not (z | iz) & (n | io):
            z, n = z | iz, n | io
    return z, n


def off_with_known(o: Off, k: Known, w: int) -> Off:
    """``o`` with the bits ``k`` of its offset modulo ``2**w``, its ends tightened to them
    where the offsets lie in ``[0, 2**w)``."""
    m = (1 << w) - 1
    z, n = k.zero & m, k.one & m
    oz, on = _off_bits(o, w)
    if not (z | oz) & (n | on):
        z, n = z | oz, n | on
    lo, hi = o.lo, o.hi
    if 0 <= lo and hi <= m:
        got = kb.tighten(lo, hi, Known(z, n), w)
        if got is not None:
            lo, hi = got
    return Off(o.root, lo, hi, z, n, w)


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


#: the widest integer (and index width) the range analysis computes in: a wider one (LLVM
#: allows i8388608) has no range, so that no input makes one operation cost megabits
RANGE_BITS = 1024


def too_wide(w: int) -> str:
    """The reason an ``iW`` value wider than ``RANGE_BITS`` has no range."""
    return reasons.TOO_WIDE.format(width=w, limit=RANGE_BITS)


def half_open(lo: int, hi: int, w: int) -> Range | None:
    """``[lo, hi)`` as LLVM's ConstantRange writes it, when it does not wrap."""
    mask = (1 << w) - 1
    ulo, uhi = lo & mask, hi & mask
    if ulo < uhi:
        return Range(ulo, uhi - 1)
    return None


__all__ = ["IntResult", "Known", "Off", "OffResult", "Range", "Why", "const_range", "fit", "half_open",
           "int_const", "is_full", "join", "known", "off_known", "off_with_known", "srange", "urange", "width",
           "with_known"]
