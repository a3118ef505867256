"""Covering regions (design section 2b, refined): how the byte ranges of one root's accesses
are split into scopes.

The chain rule (one region per group of ranges that overlap directly or through a chain)
loses everything when one access touches the whole buffer: Triton's epilogue reads
``[0, 16384)`` and chains the A tile ``[0, 8192)`` to the B tile ``[8192, 16384)``. This
module keeps such an access out of the regions instead.

The input is a list of half-open byte intervals ``[lo, hi)`` (``lo < hi``), one per access
of a root. Two intervals *overlap* when they share a byte (``a.lo < b.hi and b.lo < a.hi``;
``[0, 4)`` and ``[4, 8)`` do not).

Algorithm (deterministic, ``O(n log n)``):

1. *Chains*: the connected components of the overlap relation (sort by ``lo``, sweep).
   This is the chain rule; a root whose chains are not split below is written as before.
2. For every chain, the *candidate cuts* are the endpoints (``lo`` or ``hi``) of its
   intervals that lie strictly inside the chain's hull. A cut ``p`` is *crossed* by the
   intervals with ``lo < p < hi``; their number is ``#(lo < p) - #(hi <= p)`` (two binary
   searches). A candidate is *useful* when some interval lies wholly below it
   (``hi <= p``) and some wholly above it (``lo >= p``); only useful candidates count.
   ``m`` is the smallest crossing count of any useful candidate; the chain is cut at
   every useful candidate crossed by exactly ``m`` intervals (the cheapest places to
   split it).
3. An interval that crosses a chosen cut is *spanning*. The *regions* of the chain are
   the connected components (by overlap) of its non-spanning intervals; the spanning
   intervals are grouped the same way into *spanning groups*.
4. When that gives the chain fewer than two regions, nothing was gained: the chain stays
   one region with no spanning interval (exactly the chain rule). So spanning intervals
   appear only where they increase the number of regions.

Scopes, all under the root's domain: one per region and one per spanning group. A
non-spanning interval's own scopes are ``{its region}``. A spanning interval's own scopes
are its spanning group plus every region of its chain whose hull intersects it (a region's
hull is the union of its intervals, which are connected: the hull intersects the interval
iff one of the region's intervals does). Every interval's ``!noalias`` holds the root's
scopes that are not among its own (the writer adds the other roots' scopes as before).

Soundness. LLVM's ScopedNoAliasAA (``mayAliasInScopes``) concludes NoAlias for accesses
``x`` and ``y`` when, for some domain, *every* scope of ``x``'s ``!alias.scope`` in that
domain is in ``y``'s ``!noalias`` (or the other way round). Within one root the noalias
list of ``y`` is exactly the root's scopes not in ``own(y)``, so a claim is made only when
``own(x)`` and ``own(y)`` are disjoint. If ``x`` and ``y`` share a byte, their scope sets
share a scope:

- both non-spanning: they overlap, so they are in one component, hence one region;
- ``x`` spanning, ``y`` not: they overlap, so ``y`` is in ``x``'s chain, and ``x``
  intersects ``y``, hence the hull of ``y``'s region: ``x`` lists ``y``'s region;
- both spanning: they overlap, so they are in one spanning group and both list it.

So no claim is ever made between accesses that can touch the same byte. Accesses of the
root with no byte range keep the root's own scope, which no access of that root lists in
its ``!noalias`` (they may alias every region). Accesses of other roots hold only their
own root's scopes, which are in every noalias list of this root, as before.

Never fewer claims than the chain rule: two intervals of different chains hold scopes of
their own chains only (regions and spanning groups never cross chains), so they are still
claimed apart. That is why a spanning group is a group of overlapping spanning intervals,
not one scope for every spanning interval of the root: two epilogues over two separate
chains stay apart.

A chain is split whenever any choice of spanning intervals could split it: between two
regions of such a choice lies a useful candidate (the highest end of the lower region), and
once any useful candidate is cut, an interval wholly below the lowest cut and one wholly
above the highest cross no cut and lie in different regions. So step 4 only keeps chains
that have no useful candidate. What is not optimal is the number of claims: cutting at
every tied candidate can make more intervals spanning than a better choice would.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import accumulate

from ..plain import Record


class Cover(Record):
    """The scopes of one root's intervals. (A plain class: a dataclass costs start-up.)"""

    _FIELDS = ("scopes", "own")

    def __init__(self, scopes: list[tuple[int, int, bool]] | None = None,
                 own: list[tuple[int, ...]] | None = None) -> None:
        #: every scope: ``(lo, hi, spanning)``, the hull of its intervals; regions of one chain
        #: in ascending order, then that chain's spanning groups
        self.scopes: list[tuple[int, int, bool]] = [] if scopes is None else scopes
        #: per input interval: the indices (into ``scopes``) of its own scopes, regions first
        self.own: list[tuple[int, ...]] = [] if own is None else own


    @property
    def regions(self) -> int:
        return sum(1 for s in self.scopes if not s[2])

    def own_set(self, members: Sequence[int], scope: int) -> None:
        for i in members:
            self.own[i] = (scope,)

    @property
    def split(self) -> bool:
        """Did any chain get spanning intervals (so the result differs from the chain rule)?"""
        return any(s[2] for s in self.scopes)


def components(ivs: Sequence[tuple[int, int]], idx: Sequence[int]) -> list[tuple[int, int, list[int]]]:
    """The overlap components of ``ivs[i] for i in idx``: ``(lo, hi, members)`` by ascending ``lo``."""
    # by (lo, hi), ties by index: a stable sort of the ascending indices
    order = sorted(sorted(idx), key=ivs.__getitem__)
    out: list[tuple[int, int, list[int]]] = []
    members: list[int] = []
    clo = chi = 0
    for i in order:
        lo, hi = ivs[i]
        if members and lo < chi:
            members.append(i)
            if hi > chi:
                chi = hi
        else:
            if members:
                out.append((clo, chi, members))
            clo, chi, members = lo, hi, [i]
    if members:
        out.append((clo, chi, members))
    return out


def _cuts(ivs: Sequence[tuple[int, int]], members: Sequence[int], hull: tuple[int, int],
          weights: Sequence[int] | None = None) -> list[int]:
    """The candidate cuts of one chain crossed by the fewest of its intervals, ascending;
    interval i counts ``weights[i]`` times (each once without ``weights``)."""
    los = sorted((ivs[i][0], 1 if weights is None else weights[i]) for i in members)
    his = sorted((ivs[i][1], 1 if weights is None else weights[i]) for i in members)
    lo_keys = [lo for lo, _ in los]
    hi_keys = [hi for hi, _ in his]
    # lo_below[k]: how many intervals (counted with their weights) are the first k of los
    lo_below = [0, *accumulate(w for _, w in los)]
    hi_below = [0, *accumulate(w for _, w in his)]
    n = lo_below[-1]
    cands = sorted({p for i in members for p in ivs[i] if hull[0] < p < hull[1]})
    best: list[int] = []
    least = -1
    for p in cands:
        ended = hi_below[bisect_right(hi_keys, p)]  # intervals wholly at or below p
        started = lo_below[bisect_left(lo_keys, p)]  # intervals that start below p
        if ended == 0 or started == n:
            continue  # nothing lies wholly on one side: the cut cannot separate two regions
        c = started - ended
        if least < 0 or c < least:
            least, best = c, [p]
        elif c == least:
            best.append(p)
    return best


def cover(ivs: Sequence[tuple[int, int]], weights: Sequence[int] | None = None) -> Cover:
    """Regions and spanning groups of the intervals ``ivs`` of one root (see the module doc);
    interval i stands for ``weights[i]`` equal intervals (one each without ``weights``)."""
    out = Cover(own=[() for _ in ivs])
    for _, _, members in components(ivs, range(len(ivs))):
        lo_h = min(ivs[i][0] for i in members)
        hi_h = max(ivs[i][1] for i in members)
        spanning: set[int] = set()
        regions: list[tuple[int, int, list[int]]] = []
        if (len(members) if weights is None else sum(weights[i] for i in members)) > 2:
            cuts = _cuts(ivs, members, (lo_h, hi_h), weights)
            for i in members:
                lo, hi = ivs[i]
                j = bisect_right(cuts, lo)
                if j < len(cuts) and cuts[j] < hi:
                    spanning.add(i)
            regions = components(ivs, [i for i in members if i not in spanning])
        if len(regions) < 2:
            # nothing gained: the whole chain is one region (the chain rule)
            out.own_set(members, len(out.scopes))
            out.scopes.append((lo_h, hi_h, False))
            continue
        base = len(out.scopes)
        for k, (lo, hi, rm) in enumerate(regions):
            out.scopes.append((lo, hi, False))
            out.own_set(rm, base + k)
        starts = [r[0] for r in regions]
        ends = [r[1] for r in regions]  # ascending too: the hulls are disjoint
        for lo, hi, sm in components(ivs, sorted(spanning)):
            g = len(out.scopes)
            out.scopes.append((lo, hi, True))
            for i in sm:
                a, b = ivs[i]
                # the regions whose hull [rlo, rhi) meets [a, b): rlo < b and rhi > a
                hit = [base + r for r in range(bisect_right(ends, a), bisect_left(starts, b))]
                out.own[i] = (*hit, g)
    return out


def cover_distinct(ivs: Sequence[tuple[int, int]]) -> Cover:
    """``cover(ivs)``, computed once per distinct interval (equal intervals lie in the same
    chain, on the same side of every cut, so they get the same scopes; only the number of
    intervals crossing a cut depends on how often each occurs, and that is their weight).
    A module's kernels often share their LDS layout, so the intervals of one root repeat."""
    index: dict[tuple[int, int], int] = {}
    at = [index.setdefault(iv, len(index)) for iv in ivs]
    if len(index) == len(ivs):
        return cover(ivs)
    weights = [0] * len(index)
    for k in at:
        weights[k] += 1
    got = cover(list(index), weights)
    return Cover(scopes=got.scopes, own=[got.own[k] for k in at])


#: The most scopes one root gets: every access's ``!noalias`` lists the root's scopes that
#: are not its own, so n scopes cost O(n) per list and O(n^2) metadata for n regions.
MAX_SCOPES = 64


def coarsen(cv: Cover, limit: int = MAX_SCOPES) -> Cover:
    """``cv`` with at most ``limit`` scopes: runs of consecutive scopes (in ``cv.scopes``'s
    order: a chain's regions ascending, then its spanning groups) become one.

    Sound for any such merge: two intervals that share a byte share a scope in ``cv``, and
    so share the scope it is merged into; merging only ever removes claims. A merged scope
    is a region (not spanning) when any of its parts is one; its hull covers its parts.
    """
    n = len(cv.scopes)
    if n <= limit:
        return cv
    bucket = [i * limit // n for i in range(n)]
    scopes: list[tuple[int, int, bool]] = []
    for i, (lo, hi, span) in enumerate(cv.scopes):
        if bucket[i] == len(scopes):
            scopes.append((lo, hi, span))
        else:
            plo, phi, pspan = scopes[-1]
            scopes[-1] = (min(plo, lo), max(phi, hi), pspan and span)
    own = [tuple(sorted({bucket[i] for i in o})) for o in cv.own]
    return Cover(scopes=scopes, own=own)


def chain_claims(ivs: Sequence[tuple[int, int]]) -> int:
    """Pairs of intervals the chain rule claims apart (for tests and statistics)."""
    sizes = [len(m) for _, _, m in components(ivs, range(len(ivs)))]
    if len(sizes) < 2:
        return 0
    n = len(ivs)
    return (n * n - sum(s * s for s in sizes)) // 2


__all__ = ["MAX_SCOPES", "Cover", "chain_claims", "coarsen", "components", "cover", "cover_distinct"]
