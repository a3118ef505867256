"""Regions (design section 2b): one LDS root split by byte ranges.

For every tagged access of an LDS root, the bytes it can touch, relative to the root's
start, are computed from its address (``ranges.FunctionRanges.offset``) widened by what
the access touches (its type's store size, a memcpy's length, an LDS-DMA's 64 lanes).
The regions of a root are chosen by ``cover`` (which states the rule and why it is
sound): accesses whose ranges overlap, directly or through a chain, form one region,
except that an access crossing the cheapest cuts of its chain is kept out of the regions
as a *spanning* access when that splits the chain into two regions or more; it then
holds the scope of every region it meets and its spanning group's. An access with no
range keeps the root's scope (which may alias every region of the root). A root with a
single region is left as it was.

Ranges are module-wide facts (byte offsets inside one object), so the regions of a root
are formed over every function of the module.
"""

from __future__ import annotations

import sys

from .. import reasons
from ..analysis.memory.accesses import reaches_lds
from ..analysis.provenance.lattice import Root
from ..analysis.provenance.rootset import LDS_DOMAIN
from ..analysis.ranges.analyses import FunctionAnalyses
from ..analysis.ranges.footprints import ADDRESS_LIMIT, extent
from ..analysis.ranges.solver import FunctionRanges, Off
from ..ir.model import Function
from .cover import coarsen, cover_distinct
from .scopes import Decision, Plan, Region, Rewrites, ScopeKey


class RegionSplitter:
    """Measures the byte ranges of tagged LDS accesses, one function at a time (so a
    function's analysis can be released once it has been measured)."""

    def __init__(self, analyses: FunctionAnalyses, keep_notes: bool = True) -> None:
        self.mod = analyses.mod
        #: where each function's ranges come from (and are released with the function)
        self.analyses = analyses
        #: keep why an access has no range (for reports); else one shared note
        self.keep_notes = keep_notes
        self.family = analyses.family
        self.dl = analyses.layout

    def function_ranges(self, d: Decision) -> FunctionRanges:
        """The ranges of ``d``'s function (the analysis cache's: measured before the
        function is released, over the provenance its decisions were made with)."""
        return self.analyses.ranges(d.access.inst.function)

    def byte_range(self, d: Decision, root: Root, fr: FunctionRanges | None = None) -> tuple[int, int] | str:
        """The bytes of ``root`` that ``d``'s access can touch, or why that is not known
        (``fr``: its function's ranges, when the caller has them)."""
        if fr is None:
            fr = self.function_ranges(d)
        inst = d.access.inst
        if fr.vscale and fr.names_vscale(inst):
            return reasons.SCALABLE_VECTOR.format(at="")
        # offsets are taken modulo the LDS pointer's width: past it they wrap onto the start
        limit = ADDRESS_LIMIT if fr.lds_bits >= 32 else 1 << fr.lds_bits
        lo: int | None = None
        hi: int | None = None
        family = self.family
        for p in d.access.pointers:
            space = p.type.addrspace
            if not (space < 0 or reaches_lds(family, space)):
                continue
            off = fr.offset(p.type, p.value)
            if not isinstance(off, Off):
                return off
            if off.root is not root:
                return reasons.ANOTHER_ROOT.text
            ext = extent(self.mod, fr, self.dl, d.access, p)
            if isinstance(ext, str):
                return ext
            a, b = off.lo + ext[0], off.hi + ext[1]
            if a < 0 or b > limit:
                return reasons.OUTSIDE_BUFFER.format(lo=a, hi=b)
            lo = a if lo is None else min(lo, a)
            hi = b if hi is None else max(hi, b)
        if lo is None or hi is None:
            return reasons.NO_POINTER.text
        return lo, hi

    def measure(self, decisions: list[Decision]) -> list[Decision]:
        """Every tagged single-root LDS decision of ``decisions`` with its byte range, or the
        reason it has none: a new list where some decision was measured (the others shared),
        else ``decisions``, which are left as they were."""
        out: list[Decision] | None = None
        old = sys.getrecursionlimit()
        if old < 20000:
            sys.setrecursionlimit(20000)
        try:
            fn: Function | None = None
            fr: FunctionRanges | None = None
            # the note made for each reason met (by the reason object, kept beside it): the
            # accesses of one address chain fail with one object (the solver's caches)
            notes: dict[int, tuple[str, str]] = {}
            for i, d in enumerate(decisions):
                keys = d.keys
                if d.domain != LDS_DOMAIN or not keys:
                    continue
                roots = d.roots
                # keys that are the decision's roots are roots (the usual case: no walk)
                if keys is not roots and not all(isinstance(k, Root) for k in keys):
                    continue
                if out is None:
                    out = list(decisions)
                if len(roots) != 1:
                    out[i] = d.measured(reasons.SEVERAL_ROOTS.text, d.byte_range)
                    continue
                # the decisions of one function come together: its ranges are found once
                at = d.access.inst.function
                if at is not fn or fr is None:
                    fr = self.function_ranges(d)
                    fn = at
                got = self.byte_range(d, roots[0], fr)
                if isinstance(got, str):
                    if not self.keep_notes:
                        out[i] = d.measured(reasons.NO_RANGE.text, d.byte_range)
                        continue
                    seen = notes.get(id(got))
                    if seen is None or seen[0] is not got:
                        seen = notes[id(got)] = (got, reasons.NO_RANGE_BECAUSE.format(why=got))
                    out[i] = d.measured(seen[1], d.byte_range)
                else:
                    out[i] = d.measured(d.range_note, got)
        finally:
            sys.setrecursionlimit(old)
        return decisions if out is None else out


def merge_regions(plan: Plan) -> Plan:
    """Form each root's regions from the measured ranges of all its accesses (``cover``);
    a root with one region keeps its own scope. Each access of a root with regions claims
    its region(s) instead of the root: the new plan (``plan`` itself when no root has
    regions; it is left as it was)."""
    claims = Rewrites(plan)
    #: each root's measured decisions, with their positions in the plan
    per_root: dict[int, tuple[Root, list[tuple[int, Decision]]]] = {}
    for i, d in enumerate(plan.decisions):
        if d.byte_range is None or not d.keys:
            continue
        root = d.roots[0]
        per_root.setdefault(id(root), (root, []))[1].append((i, d))
    for root, ranged in per_root.values():
        cv = coarsen(cover_distinct([d.byte_range for _, d in ranged if d.byte_range is not None]))
        if cv.regions < 2:
            continue
        # one key object per scope: the writer finds a key's id by the object
        keys = [Region(root, lo, hi, span) for lo, hi, span in cv.scopes]
        # one list per distinct set of scopes, shared by its accesses (keys are rebound,
        # never changed in place)
        lists: dict[tuple[int, ...], list[ScopeKey]] = {}
        for (at, d), own in zip(ranged, cv.own, strict=True):
            got = lists.get(own)
            if got is None:
                got = lists[own] = [keys[i] for i in own]
            claims.rebind(d, got, at=at)
    return claims.plan()


def range_note(d: Decision) -> str:
    """What ``--stats``, explain and remarks say of a decision's byte range."""
    if d.byte_range is None:
        return d.range_note
    lo, hi = d.byte_range
    regions = [k for k in d.keys if isinstance(k, Region) and not k.spanning]
    if any(isinstance(k, Region) and k.spanning for k in d.keys):
        if not regions:
            return f"bytes [{lo}, {hi}) spanning, meets no region"
        root = regions[0].root.name
        spans = ", ".join(f"[{k.lo},{k.hi})" for k in regions[:4])
        if len(regions) > 4:
            spans += f", ... ({len(regions)} regions)"
        return f"bytes [{lo}, {hi}) spans regions {spans} of {root}"
    if regions:
        return f"bytes [{lo}, {hi}) in region {regions[0].name}"
    return f"bytes [{lo}, {hi}): the root's only region"


__all__ = ["RegionSplitter", "merge_regions", "range_note"]
