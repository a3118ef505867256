"""The bytes each thread touches, per loop state, and a pair's verdict with its witness (design 4b).

For one IR function with an LDS-DMA: the threads of its work-group (``concrete.threads_of``),
its loops' states (``evolution.Evolutions``) and the conditions on the threads that run each
block (``evolution.guards``). An LDS access in a context touches, in thread ``t``, bytes
``[p_t + a, p_t + b)`` of its space (``p_t`` its pointer in that thread, ``[a, b)`` what the
access type covers); an LDS-DMA of wave ``w`` writes, in each lane ``l`` that runs it, bytes
``[M0 + imm + l * stride, ... + size)`` where ``M0`` is its LDS pointer in the wave's first lane.

:func:`compare` judges one (DMA, access) pair, the DMA in context ``cd`` and the access in
``ca``, in the same wave (the DMA still in that wave's queue) or in two waves (the DMA not
retired before a barrier between them): ``race`` with a witness (the lanes, waves, byte and
loop states), ``apart`` (no thread of either touches a byte the other does), or ``unproven``
with what blocks the proof (a value not known, a lane that may or may not run). A thread runs a
block when all its conditions hold; the same thread cannot run both arms of one branch in one
iteration (``fresh``: no back edge crossed since the DMA).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import reasons
from ..analysis.memory.accesses import find_accesses
from ..analysis.memory.intrinsics import async_lds, lds_dma
from ..analysis.ranges.concrete import (
    ARG_SPACE,
    Ptr,
    PtrInt,
    Threads,
    Unknown,
    Val,
    at,
    lift,
    threads_of,
)
from ..analysis.ranges.evolution import Evolutions, Guard, dependencies, guards, phi_labels
from ..analysis.ranges.footprints import extent
from ..analysis.ranges.interval import int_const
from ..analysis.ranges.workgroup import work_group
from ..ir import operands as opparse
from ..ir.facts import reaches_lds
from ..ir.model import Function, GlobalRef, LocalRef, Module, Value
from .tiles import Descriptors, Tile, decode, word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..analysis.ranges.concrete import Evaluator
    from ..ir.model import TypedValue
    from ..ir.types import Type

#: a thread's standing in a block: None (does not run it), or the conditions not known
#: (empty: it runs it)
Standing = frozenset[tuple[str, bool]] | None
#: the lanes a witness names at most per pair before giving up on finding a definite one
_SCAN = 1 << 16
#: (integer kernel arguments assumed, a join phi's incoming value chosen) of an evaluation
Variant = tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]
#: the values a witness may assume every integer kernel argument has, tried in turn
ASSUMED = (4096, 65536, 256, 192, 160, 128, 64, 1, 0)
#: the mark of a condition every thread shares (see ``FunctionExact.standing``)
UNIFORM = "~"
#: between a condition of a thread's own and the thread whose value it is (``%c@17``)
AT = "@"
_NAME = r"(%[-a-zA-Z$._0-9]+|%\"[^\"]*\")"
_TRUNC_I1 = re.compile(r"trunc i\d+ " + _NAME + r" to i1\b")
_LSHR = re.compile(r"lshr (?:exact )?i\d+ " + _NAME + r", " + _NAME)
_BALLOT = re.compile(r"@llvm\.amdgcn\.ballot\.i(\d+)\(i1 " + _NAME + r"\)")
#: calls whose value every thread of a work-group shares
_UNIFORM_CALLS = ("workgroup.id", "readfirstlane", "s.getpc", "dispatch.ptr", "kernarg.segment.ptr",
                  "implicitarg.ptr", "llvm.smin", "llvm.smax", "llvm.umin", "llvm.umax", "llvm.abs")
#: join phis whose incoming values are tried one by one, at most
_JOINS = 3


@dataclass(frozen=True, slots=True)
class Site:
    """One IR access of LDS: its pointer, what it covers at it, and for a DMA its lanes."""

    line: int
    block: int
    ptr_type: Type
    ptr: Value
    #: bytes [a, b) at the pointer (an access), or the lane's size (a DMA)
    ext: tuple[int, int] | None
    dma: bool = False
    imm: int = 0
    size: int = 0
    stride: int = 0
    #: a tensor operation's descriptor groups (``check.tiles``); empty for every other site
    tdm: tuple[TypedValue, ...] = ()
    #: the site reads LDS asynchronously (a store from LDS), it does not write it
    reads: bool = False
    #: a per-lane asynchronous copy (gfx1250's ``global.load.async.to.lds.bN``): each lane writes
    #: ``size`` bytes at its own LDS pointer, not the wave's first lane's
    lane: bool = False


@dataclass(frozen=True, slots=True)
class Bytes:
    """What one site touches in one context: per thread ``[lo, hi)`` of ``space`` (DMA: ``lo`` is
    the wave's LDS pointer, the same in every lane, before the immediate offset) and whether the
    thread runs it."""

    space: str
    lo: tuple[int, ...]
    hi: tuple[int, ...]
    standing: tuple[Standing, ...]
    #: a DMA whose pointer differs within a wave: its base is not known
    uniform: bool = True


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: str  # race, apart, unproven
    witness: dict[str, object] | None = None
    why: str = ""
    line: int = 0
    #: the phi of a join whose incoming values differ, where that is what blocks the proof
    join: str = ""


APART = Verdict("apart")


def _pow2_ceil(n: int) -> int:
    p = 1
    while p < n:
        p <<= 1
    return p


class FunctionExact:
    """One function's exact footprints (see the module's docstring); None-like when its
    threads are not known (``ok`` is False: every pair is judged by ranges alone)."""

    def __init__(self, mod: Module, fn: Function, wave: int) -> None:
        self.mod = mod
        self.fn = fn
        self.sites: dict[int, Site] = {}
        self.why_not = ""
        wg = work_group(mod, fn, mod.facts.family)
        th = threads_of(fn, mod.text[fn.start:fn.instrs[-1].end] if fn.instrs else "", wg.bounds, wave)
        self.threads: Threads | None = th
        if th is None:
            self.why_not = "the work-group's size is not known in one dimension"
        self._find_sites()
        self.descriptors = Descriptors(mod, fn)
        roots = [s.ptr.name for s in self.sites.values() if isinstance(s.ptr, LocalRef)]
        roots += [v.name for s in self.sites.values() for _, v in s.tdm if isinstance(v, LocalRef)]
        self.guards = guards(fn, mod)
        conds = [g.cond for gs in self.guards for g in gs if g.cond]
        self.evol = Evolutions(mod, fn, th or Threads(1, wave), dependencies(mod, fn, roots + conds)
                               if th is not None else set(), dependencies(mod, fn, roots),
                               every_lane=lambda inst: not self.guards[inst.block] if inst.block < len(self.guards)
                               else False)
        self._bytes: dict[tuple[int, tuple[int, ...], Variant], Bytes | Unknown] = {}
        self._uniforms: dict[str, bool] = {}
        #: ``compare``'s verdicts, by its arguments (the waits' loosest counts judge again)
        self.verdicts: dict[tuple[object, ...], Verdict] = {}

    def _find_sites(self) -> None:
        mod, fn = self.mod, self.fn
        family = mod.facts.family
        dl = mod.facts.layout
        for inst in fn.instrs:
            if inst.opcode != "call" or "lds" not in mod.text[inst.opstart:inst.end]:
                continue
            ops = opparse.parse(mod, inst)
            callee = ops.callee.name.lstrip("@") if isinstance(ops.callee, GlobalRef) else ""
            arow = async_lds(callee)
            if arow is not None and arow.locate == "descriptor" and len(ops.operands) >= 3:
                groups = tuple(ops.operands[:-1])
                self.sites[inst.line] = Site(inst.line, inst.block, groups[0][0], groups[0][1], None, True,
                                             tdm=groups, reads=arow.lds == "r")
        for acc in find_accesses(mod, fn):
            inst = acc.inst
            row = lds_dma(acc.intrinsic)
            lds = [p for p in acc.pointers if p.type.addrspace < 0 or reaches_lds(family, p.type.addrspace)]
            if row is not None:
                p = next((q for q in acc.pointers if q.index == row.lds), None)
                if p is None:
                    continue
                args = opparse.parse(mod, inst).operands
                if row.per_lane:
                    size = row.lane_bytes(acc.intrinsic or "", None)
                    imm = int_const(args[row.offset][1]) if len(args) > row.offset else None
                    # the immediate offset is read only where it is 0 (where a non-zero one lands,
                    # in LDS or in global memory, was not checked)
                    if size and imm == 0:
                        self.sites[inst.line] = Site(inst.line, inst.block, p.type, p.value, (0, size), True, 0,
                                                     size, size, lane=True)
                    continue
                if len(args) <= max(row.offset, row.size if row.size is not None else 0):
                    continue
                size = row.lane_bytes(acc.intrinsic or "", int_const(args[row.size][1]) if row.size is not None
                                      else None)
                imm = int_const(args[row.offset][1])
                if size is None or imm is None or size <= 0:
                    continue
                self.sites[inst.line] = Site(inst.line, inst.block, p.type, p.value, None, True, imm, size,
                                             _pow2_ceil(max(size, 4)))
                continue
            if len(lds) != 1:
                continue
            ext = extent(mod, None, dl, acc, lds[0])
            self.sites[inst.line] = Site(inst.line, inst.block, lds[0].type, lds[0].value,
                                         None if isinstance(ext, str) else ext)

    # ---------------------------------------------------------------- bytes
    def standing(self, block: int, ctx: tuple[int, ...], variant: Variant = ((), ())) -> tuple[Standing, ...] | Unknown:
        th = self.threads
        assert th is not None
        gs: tuple[Guard, ...] = self.guards[block] if block < len(self.guards) else ()
        ev = self.evol.evaluator(ctx, *variant)
        out: list[set[tuple[str, bool]] | None] = [set() for _ in range(th.count)]
        for g in gs:
            if g.cond is None:
                for s in out:
                    if s is not None:
                        s.add(("a branch not read", g.holds))
                continue
            v = ev.value(None, LocalRef(g.cond))
            if isinstance(v, Unknown) or not isinstance(v, (int, tuple)):
                if self._uniform(g.cond):
                    # a condition every thread shares holds wherever a wave's path runs the block:
                    # kept only to tell that one wave cannot run both arms in one iteration
                    lit = (UNIFORM + g.cond, g.holds)
                    for s in out:
                        if s is not None:
                            s.add(lit)
                    continue
                # a condition of each thread's own: named with the thread whose value it is
                # (a ballot's bit that holds: the predicate of the lane the bit names)
                whose = self._ballot_bit(ev, g.cond) if g.holds else None
                name = g.cond if whose is None else whose[0]
                for t in range(th.count):
                    s = out[t]
                    if s is not None:
                        s.add((f"{name}{AT}{t if whose is None else whose[1][t]}", g.holds))
                continue
            for t in range(th.count):
                s = out[t]
                if s is not None and bool(at(v, t) & 1) != g.holds:
                    out[t] = None
        return tuple(None if s is None else frozenset(s) for s in out)

    def _ballot_bit(self, ev: Evaluator, cond: str) -> tuple[str, list[int]] | None:
        """``cond`` as bit ``i`` of ``ballot(P)`` (``trunc (lshr (ballot P), i) to i1``, Triton's
        lane-swizzled DMA predicate) with ``i`` known in every thread: ``P`` and, per thread, the
        thread whose ``P`` that bit is (its wave's lane ``i``). A set bit says ``P`` holds in that
        lane; a clear one says nothing (the lane may not have run the ballot). None otherwise."""
        th = self.threads
        assert th is not None
        fn, text = self.fn, self.mod.text

        def code(name: str, opcode: str) -> str | None:
            inst = fn.by_name.get(name)
            return None if inst is None or inst.opcode != opcode else text[inst.opstart:inst.end]

        m = _TRUNC_I1.match(code(cond, "trunc") or "")
        shifted = _LSHR.match(code(m.group(1), "lshr") or "") if m else None
        ballot = _BALLOT.search(code(shifted.group(1), "call") or "") if shifted else None
        if shifted is None or ballot is None or int(ballot.group(1)) != th.wave:
            return None
        idx = ev.value(None, LocalRef(shifted.group(2)))
        if isinstance(idx, Unknown) or not isinstance(idx, (int, tuple)):
            return None
        whose: list[int] = []
        for t in range(th.count):
            i = at(idx, t)
            if not 0 <= i < th.wave:
                return None
            whose.append(t - t % th.wave + i)
        return ballot.group(2), whose

    def _uniform(self, cond: str) -> bool:
        """Whether every thread of the work-group has the same ``cond``: it reads no thread id,
        no loaded value and no call but of the few that give every thread one value."""
        got = self._uniforms.get(cond)
        if got is None:
            got = True
            for name in dependencies(self.mod, self.fn, [cond]):
                inst = self.fn.by_name.get(name)
                if inst is None:
                    continue
                if inst.opcode in ("load", "atomicrmw", "cmpxchg"):
                    got = False
                elif inst.opcode == "call":
                    text = self.mod.text[inst.opstart:inst.end]
                    if not any(k in text for k in _UNIFORM_CALLS):
                        got = False
                if not got:
                    break
            self._uniforms[cond] = got
        return got

    def bytes(self, line: int, ctx: tuple[int, ...], variant: Variant = ((), ())) -> Bytes | Unknown:
        """What the site at ``line`` touches in context ``ctx`` (see ``Bytes``)."""
        key = (line, ctx, variant)
        got = self._bytes.get(key)
        if got is None:
            got = self._bytes[key] = self._make_bytes(line, ctx, variant)
        return got

    def assumed_args(self, value: int) -> tuple[tuple[str, int], ...]:
        """Every integer kernel argument at ``value`` (a witness's assumption)."""
        return tuple((a.name, value) for a in self.fn.args if a.type.kind == "int")

    def _make_bytes(self, line: int, ctx: tuple[int, ...], variant: Variant) -> Bytes | Unknown:
        site = self.sites.get(line)
        th = self.threads
        if site is None:
            return Unknown("an LDS access whose address this check does not read", line)
        if th is None:
            return Unknown(self.why_not, self.fn.line)
        v = self.evol.evaluator(ctx, *variant).value(site.ptr_type, site.ptr)
        if isinstance(v, Unknown):
            return v
        if not isinstance(v, Ptr):
            return Unknown("a pointer not traced to an LDS variable", line)
        stand = self.standing(site.block, ctx, variant)
        if isinstance(stand, Unknown):
            return stand
        offs = [at(v.off, t) for t in range(th.count)]
        if site.dma and site.lane:
            return Bytes(v.space, tuple(o for o in offs), tuple(o + site.size for o in offs), stand, False)
        if site.dma:
            base: list[int] = []
            uniform = True
            for w in range(th.waves):
                lanes = range(w * th.wave, min((w + 1) * th.wave, th.count))
                run = [t for t in lanes if stand[t] is not None]
                vals = {offs[t] for t in run}
                if len(vals) > 1:
                    uniform = False
                b = offs[run[0]] if run else offs[lanes[0]]
                base.extend([b] * len(lanes))
            lo = tuple(base)
            return Bytes(v.space, lo, lo, stand, uniform)
        a, b = site.ext if site.ext is not None else (0, 0)
        if site.ext is None:
            return Unknown("the bytes the access covers are not known", line)
        return Bytes(v.space, tuple(o + a for o in offs), tuple(o + b for o in offs), stand)

    def describe(self, ctx: tuple[int, ...]) -> list[dict[str, object]]:
        return self.evol.describe(ctx)


def _models(site: Site, base: int) -> list[tuple[int, int]]:
    """Where lane ``l`` of a DMA at ``base`` may write, as (start, step) of ``start + l * step``:
    its immediate offset added to the LDS address or not, lanes ``size`` or ``stride`` apart (the
    same models where the offset is 0 and the size a power of two of 4 bytes or more)."""
    return sorted({(c, m) for c in (base, base + site.imm) for m in (site.size, site.stride)})


def _lane_range(site: Site, lo: int, hi: int, base: int, lanes: int) -> list[int]:
    """The lanes of a DMA at ``base`` whose bytes may meet ``[lo, hi)`` in some model."""
    got: set[int] = set()
    for c, m in _models(site, base):
        first = max(0, (lo - site.size - c) // m + 1)
        last = min(lanes - 1, (hi - 1 - c) // m)
        got.update(range(first, last + 1))
    return sorted(got)


def _lane_bytes(site: Site, base: int, lane: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """(core, hull) bytes of one lane: the core is written in every model, the hull in some."""
    starts = [c + lane * m for c, m in _models(site, base)]
    return (max(starts), min(starts) + site.size), (min(starts), max(starts) + site.size)


def compare(fx: FunctionExact, dma_line: int, cd: tuple[int, ...], acc_line: int, ca: tuple[int, ...],
            *, same_wave: bool, other_waves: bool, fresh: bool) -> Verdict:
    """The verdict of one pair (see the module's docstring). Where it is unproven for a phi of a
    join, each of its incoming values is tried: apart for all is apart, a race for all is a race.
    Where a witness needs the integer kernel arguments (a bound on the lanes that run a DMA), it
    is looked for with each argument at one of ``ASSUMED`` and names that assumption."""
    key = (dma_line, cd, acc_line, ca, same_wave, other_waves, fresh)
    memo = fx.verdicts.get(key)
    if memo is None:
        memo = fx.verdicts[key] = _compare_all(fx, dma_line, cd, acc_line, ca, same_wave=same_wave,
                                               other_waves=other_waves, fresh=fresh)
    return memo


def _compare_all(fx: FunctionExact, dma_line: int, cd: tuple[int, ...], acc_line: int, ca: tuple[int, ...],
                 *, same_wave: bool, other_waves: bool, fresh: bool) -> Verdict:
    kw = {"same_wave": same_wave, "other_waves": other_waves, "fresh": fresh}
    got = _compare(fx, dma_line, cd, acc_line, ca, ((), ()), **kw)
    if got.kind != "unproven":
        return got
    if got.join:
        got = _alternatives(fx, dma_line, cd, acc_line, ca, (), got, **kw)
        if got.kind != "unproven":
            return got
    for value in ASSUMED:
        args = fx.assumed_args(value)
        if not args:
            break
        trial = _compare(fx, dma_line, cd, acc_line, ca, (args, ()), **kw)
        if trial.kind == "unproven" and trial.join:
            trial = _alternatives(fx, dma_line, cd, acc_line, ca, args, trial, **kw)
        if trial.kind == "race" and trial.witness is not None:
            w = dict(trial.witness)
            w["assumes"] = {name: v for name, v in args}
            return Verdict("race", w)
    return got


def _feasible(fx: FunctionExact, label: str, ctx: tuple[int, ...], args: tuple[tuple[str, int], ...]) -> bool:
    """Whether the block ``label`` may run with the integer arguments at ``args``: no condition
    on it that every thread shares is false then."""
    try:
        block = fx.fn.blocks.index(label)
    except ValueError:
        return True
    ev = fx.evol.evaluator(ctx, args)
    for g in fx.guards[block] if block < len(fx.guards) else ():
        if g.cond is None:
            continue
        v = ev.value(None, LocalRef(g.cond))
        if isinstance(v, int) and bool(v & 1) != g.holds:
            return False
    return True


def _alternatives(fx: FunctionExact, dma_line: int, cd: tuple[int, ...], acc_line: int, ca: tuple[int, ...],
                  args: tuple[tuple[str, int], ...], got: Verdict, **kw: bool) -> Verdict:
    """The pair judged once per way into the joins whose phis block the proof: a join's phis all
    take the value of one predecessor (phis of one block agree on it), each predecessor in turn,
    at most ``_JOINS`` joins deep. Apart every way is apart, a race every way is a race."""
    leaves: list[Verdict] = []

    def explore(choose: dict[str, int], fixed: dict[int, str], v: Verdict, depth: int) -> None:
        if len(leaves) >= 4 * _JOINS * _JOINS:
            leaves.append(v if v.kind == "unproven" else Verdict("unproven", why=got.why, line=got.line))
            return
        inst = fx.fn.by_name.get(v.join) if v.kind == "unproven" and v.join else None
        if inst is None or depth >= _JOINS or v.join in choose:
            leaves.append(v)
            return
        labels = phi_labels(fx.mod.text[inst.opstart:inst.end])
        block = inst.block
        picks = [fixed[block]] if block in fixed else list(dict.fromkeys(labels))
        for label in picks:
            if label not in labels:
                leaves.append(v)
                continue
            if args and not _feasible(fx, label, ca, args):
                continue  # with these arguments no thread comes this way
            nxt = dict(choose)
            nxt[v.join] = labels.index(label)
            # the other phis of the block this way takes: the same predecessor
            nfixed = dict(fixed)
            nfixed[block] = label
            variant = (args, tuple(sorted(nxt.items())))
            explore(nxt, nfixed, _compare(fx, dma_line, cd, acc_line, ca, variant, **kw), depth + 1)

    explore({}, {}, got, 0)
    if leaves and all(v.kind == "apart" for v in leaves):
        return APART
    if leaves and all(v.kind == "race" for v in leaves):
        return leaves[0]
    return next((v for v in leaves if v.kind == "unproven"), got)


def _compare(fx: FunctionExact, dma_line: int, cd: tuple[int, ...], acc_line: int, ca: tuple[int, ...],
             variant: Variant, *, same_wave: bool, other_waves: bool, fresh: bool) -> Verdict:
    th = fx.threads
    dsite = fx.sites.get(dma_line)
    if dsite is not None and dsite.tdm:
        return _compare_tile(fx, dsite, cd, acc_line, ca, variant, same_wave=same_wave, other_waves=other_waves,
                             fresh=fresh)
    d = fx.bytes(dma_line, cd, variant)
    a = fx.bytes(acc_line, ca, variant)
    for x in (d, a):
        if isinstance(x, Unknown):
            return Verdict("unproven", why=x.why, line=x.line, join=x.join)
    assert isinstance(d, Bytes) and isinstance(a, Bytes) and th is not None and dsite is not None
    if dsite.lane:
        return _compare_lanes(fx, d, a, cd, ca, acc_line, same_wave=same_wave, other_waves=other_waves, fresh=fresh)
    if d.space != a.space:
        if d.space.startswith(ARG_SPACE) or a.space.startswith(ARG_SPACE):
            return Verdict("unproven", why=reasons.NOT_EVALUATED.format(
                value=(d.space if d.space.startswith(ARG_SPACE) else a.space)[len(ARG_SPACE):],
                what="argument pointer"))
        return APART  # two LDS variables the lowering places apart, or one and the dynamic block
    span = th.wave * dsite.stride + dsite.size + max(dsite.imm, 0)
    before = min(dsite.imm, 0)
    dlo, dhi = min(d.lo) + before, max(d.lo) + span
    if not (min(a.lo) < dhi and dlo < max(a.hi)):
        return APART
    maybe: Verdict | None = None
    scanned = 0
    for t in range(th.count):
        st = a.standing[t]
        if st is None:
            continue
        lo, hi = a.lo[t], a.hi[t]
        wt = t // th.wave
        waves = ([wt] if same_wave else []) + ([w for w in range(th.waves) if w != wt] if other_waves else [])
        for w in waves:
            first = w * th.wave
            base = d.lo[first] if first < th.count else d.lo[0]
            if not (lo < base + span and base + before < hi):
                continue
            if not d.uniform:
                maybe = maybe or Verdict("unproven", why="an LDS-DMA whose LDS pointer differs between the lanes "
                                         "of a wave (its base is the first running lane's)", line=dma_line)
                continue
            for lane in _lane_range(dsite, lo, hi, base, th.wave):
                td = first + lane
                if td >= th.count:
                    break
                sd = d.standing[td]
                if sd is None:
                    continue
                scanned += 1
                core, hull = _lane_bytes(dsite, base, lane)
                if not (lo < hull[1] and hull[0] < hi):
                    continue
                if fresh and td // th.wave == wt and any((c, not h) in sd for c, h in st):
                    continue  # one thread's (one wave's, for a shared condition) both arms in one iteration
                exact = lo < core[1] and core[0] < hi
                open_st = {c for c, _ in st if not c.startswith(UNIFORM)}
                open_sd = {c for c, _ in sd if not c.startswith(UNIFORM)}
                if exact and not open_st and not open_sd:
                    byte = max(lo, core[0])
                    return Verdict("race", {
                        "lane": t % th.wave, "wave": wt, "thread": t, "byte": byte,
                        "dma_lane": lane, "dma_wave": w, "between_waves": w != wt,
                        "dma_state": fx.describe(cd), "access_state": fx.describe(ca)})
                if maybe is None:
                    conds = sorted({c.split(AT, 1)[0] for c in open_st | open_sd})
                    why = (f"whether lanes run it depends on {', '.join(conds)}" if conds else
                           "the lanes' bytes meet only where the DMA's lane size is not a power of two")
                    maybe = Verdict("unproven", why=why, line=acc_line)
                if scanned > _SCAN:
                    return maybe
    return maybe or APART


def _compare_lanes(fx: FunctionExact, d: Bytes, a: Bytes, cd: tuple[int, ...], ca: tuple[int, ...], acc_line: int,
                   *, same_wave: bool, other_waves: bool, fresh: bool) -> Verdict:
    """``_compare`` for a per-lane asynchronous copy: each running lane writes its own bytes; a race
    where a thread of the access meets a byte a running lane of the copy (this wave, or another)
    writes, with no condition open on either side."""
    th = fx.threads
    assert th is not None
    if d.space != a.space:
        if d.space.startswith(ARG_SPACE) or a.space.startswith(ARG_SPACE):
            return Verdict("unproven", why=reasons.NOT_EVALUATED.format(
                value=(d.space if d.space.startswith(ARG_SPACE) else a.space)[len(ARG_SPACE):],
                what="argument pointer"))
        return APART
    if not (min(a.lo) < max(d.hi) and min(d.lo) < max(a.hi)):
        return APART
    maybe: Verdict | None = None
    for t in range(th.count):
        st = a.standing[t]
        if st is None:
            continue
        lo, hi = a.lo[t], a.hi[t]
        wt = t // th.wave
        waves = ([wt] if same_wave else []) + ([w for w in range(th.waves) if w != wt] if other_waves else [])
        for w in waves:
            for td in range(w * th.wave, min((w + 1) * th.wave, th.count)):
                sd = d.standing[td]
                if sd is None or not (lo < d.hi[td] and d.lo[td] < hi):
                    continue
                if fresh and w == wt and any((c, not h) in sd for c, h in st if td == t or c.startswith(UNIFORM)):
                    continue  # one thread (one wave, for a shared condition): both arms in one iteration
                open_st = {c for c, _ in st if not c.startswith(UNIFORM)}
                open_sd = {c for c, _ in sd if not c.startswith(UNIFORM)}
                if not open_st and not open_sd:
                    return Verdict("race", {
                        "lane": t % th.wave, "wave": wt, "thread": t, "byte": max(lo, d.lo[td]),
                        "dma_lane": td % th.wave, "dma_wave": w, "between_waves": w != wt,
                        "dma_state": fx.describe(cd), "access_state": fx.describe(ca)})
                if maybe is None:
                    maybe = Verdict("unproven", why="whether lanes run it depends on "
                                    f"{', '.join(sorted(open_st | open_sd))}", line=acc_line)
    return maybe or APART


#: the descriptor fields a tile is read from, (group, word, first bit, bits): the predicate and
#: the modes of group 0 word 0, the LDS address; group 1 word 0 below the multicast mask's end
#: (element size, modes, padding), tile dimension 0 (word 3's high half) and word 4 (tile
#: dimensions 1 and 2). Only these bits are read: the rest of word 3 is half a tensor dimension,
#: often a kernel argument
_FIELDS = ((0, 0, 0, 1), (0, 0, 30, 2), (0, 1, 0, 32), (1, 0, 16, 16), (1, 3, 16, 16), (1, 4, 0, 32))


def tiles_of(fx: FunctionExact, site: Site, ctx: tuple[int, ...], variant: Variant
             ) -> list[tuple[str, int, Tile] | None] | Unknown:
    """Per wave: the space, LDS address and tile of a tensor operation's descriptor in that wave's
    first lane that runs it (None: the wave does not run it, or its predicate is off)."""
    th = fx.threads
    if th is None:
        return Unknown(fx.why_not, fx.fn.line)
    stand = fx.standing(site.block, ctx, variant)
    if isinstance(stand, Unknown):
        return stand
    ev = fx.evol.evaluator(ctx, *variant)
    g0, g1 = site.tdm[0], site.tdm[1]
    words: dict[tuple[int, int], Val] = {}
    for gi, k, lo, width in _FIELDS:
        grp = g0 if gi == 0 else g1
        eb = 32 * k
        v = fx.descriptors.bits(ev, grp, eb + lo, width) if width < 32 else fx.descriptors.element(ev, grp, k)
        if isinstance(v, Unknown):
            return v
        if width < 32:
            if not isinstance(v, (int, tuple)):
                return Unknown("a tensor descriptor field that is an address", site.line)
            old = words.get((gi, k), 0)
            if not isinstance(old, (int, tuple)):
                return Unknown("a tensor descriptor field that is an address", site.line)
            v = lift(lambda x, y, s=lo: x | (y << s), old, v)
        words[(gi, k)] = v
    rest_zero = True
    for grp in site.tdm[2:]:
        n = grp[0].count or 0
        for k in range(n):
            v = fx.descriptors.element(ev, grp, k)
            if v != 0:
                rest_zero = False
    addr = words[(0, 1)]
    if not isinstance(addr, PtrInt):
        return Unknown("a tensor descriptor whose LDS address is not traced to an LDS variable", site.line)
    out: list[tuple[str, int, Tile] | None] = []
    for w in range(th.waves):
        lanes = range(w * th.wave, min((w + 1) * th.wave, th.count))
        run = [t for t in lanes if stand[t] is not None]
        if not run:
            out.append(None)
            continue
        t = run[0]
        vals = []
        for gi, n in ((0, 4), (1, 8)):
            row = []
            for k in range(n):
                v = words.get((gi, k), 0)
                if isinstance(v, PtrInt):
                    row.append(at(v.off, t) & 0xFFFFFFFF)
                elif isinstance(v, (int, tuple)):
                    row.append(word(v, t))
                else:
                    return Unknown("a tensor descriptor word that is an address", site.line)
            vals.append(row)
        tile = decode(vals[0], vals[1], rest_zero)
        if isinstance(tile, str):
            return Unknown(tile, site.line)
        out.append(None if tile is None else (addr.space, at(addr.off, t), tile))
    return out


def _compare_tile(fx: FunctionExact, dsite: Site, cd: tuple[int, ...], acc_line: int, ca: tuple[int, ...],
                  variant: Variant, *, same_wave: bool, other_waves: bool, fresh: bool) -> Verdict:
    """``_compare`` for a tensor operation: each wave that runs it touches its tile from its LDS
    address; a race where some thread of the access meets a byte the tile writes (reads, for a
    store from LDS), with no condition open on either side."""
    th = fx.threads
    tiles = tiles_of(fx, dsite, cd, variant)
    a = fx.bytes(acc_line, ca, variant)
    for x in (tiles, a):
        if isinstance(x, Unknown):
            return Verdict("unproven", why=x.why, line=x.line, join=x.join)
    assert isinstance(a, Bytes) and isinstance(tiles, list) and th is not None
    dstand = fx.standing(dsite.block, cd, variant)
    assert not isinstance(dstand, Unknown)
    maybe: Verdict | None = None
    for t in range(th.count):
        st = a.standing[t]
        if st is None:
            continue
        lo, hi = a.lo[t], a.hi[t]
        wt = t // th.wave
        waves = ([wt] if same_wave else []) + ([w for w in range(th.waves) if w != wt] if other_waves else [])
        for w in waves:
            got = tiles[w] if w < len(tiles) else None
            if got is None:
                continue
            space, base, tile = got
            if space != a.space:
                if space.startswith(ARG_SPACE) or a.space.startswith(ARG_SPACE):
                    maybe = maybe or Verdict("unproven", why=reasons.NOT_EVALUATED.format(
                        value=(space if space.startswith(ARG_SPACE) else a.space)[len(ARG_SPACE):],
                        what="argument pointer"))
                continue
            if not (lo < base + tile.span and base < hi):
                continue
            byte = tile.written(lo - base, hi - base)
            if byte is None:
                continue  # only padding between them
            lanes = [s for s in dstand[w * th.wave:(w + 1) * th.wave] if s is not None]
            sd = next((s for s in lanes if not {c for c, _ in s if not c.startswith(UNIFORM)}), None)
            if fresh and w == wt and sd is not None and any((c, not h) in sd for c, h in st if c.startswith(UNIFORM)):
                continue  # one wave: both arms of a shared condition in one iteration
            open_st = {c for c, _ in st if not c.startswith(UNIFORM)}
            if sd is not None and not open_st:
                return Verdict("race", {
                    "lane": t % th.wave, "wave": wt, "thread": t, "byte": base + byte,
                    "dma_lane": 0, "dma_wave": w, "between_waves": w != wt,
                    "tile": {"lds": base, "elem": tile.elem, "dims": list(tile.dims), "pad_interval": tile.interval,
                             "pad_amount": tile.amount},
                    "dma_state": fx.describe(cd), "access_state": fx.describe(ca)})
            if maybe is None:
                conds = sorted({c.split(AT, 1)[0] for c in open_st | {c for s in lanes for c, _ in s
                                                                      if not c.startswith(UNIFORM)}})
                maybe = Verdict("unproven", why=f"whether the wave runs it depends on {', '.join(conds)}",
                                line=acc_line)
    return maybe or APART


__all__ = ["APART", "Bytes", "FunctionExact", "Site", "Verdict", "compare", "tiles_of"]
