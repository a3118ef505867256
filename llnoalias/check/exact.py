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

from dataclasses import dataclass

from ..analysis.memory.accesses import find_accesses
from ..analysis.memory.intrinsics import async_lds, lds_dma
from ..analysis.ranges.concrete import (
    Ptr,
    Threads,
    Unknown,
    at,
    threads_of,
)
from ..analysis.ranges.evolution import Evolutions, Guard, dependencies, guards
from ..analysis.ranges.footprints import extent
from ..analysis.ranges.interval import int_const
from ..analysis.ranges.workgroup import work_group
from ..ir import operands as opparse
from ..ir.facts import reaches_lds
from ..ir.model import Function, GlobalRef, Instruction, LocalRef, Module, Value
from .tiles import Descriptors

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..analysis.ranges.concrete import Evaluator
    from ..ir.model import Ops, TypedValue
    from ..ir.types import Type

#: a thread's standing in a block: None (does not run it), or the conditions not known
#: (empty: it runs it)
Standing = frozenset[tuple[str, bool]] | None
#: (integer kernel arguments assumed, a join phi's incoming value chosen) of an evaluation
Variant = tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]
#: the mark of a condition every thread shares (see ``FunctionExact.standing``)
UNIFORM = "~"
#: between a condition of a thread's own and the thread whose value it is (``%c@17``)
AT = "@"
#: the callee of a ballot, before its width (``@llvm.amdgcn.ballot.i64``)
_BALLOT = "@llvm.amdgcn.ballot.i"


def _int(ty: Type | None, bits: int | None = None) -> bool:
    """Is ``ty`` an integer type (of ``bits`` bits, where given)?"""
    return ty is not None and ty.kind == "int" and (bits is None or ty.bits == bits)


#: words of the callees whose value every thread of a work-group shares (given shared operands)
_UNIFORM_CALLS = ("workgroup.id", "readfirstlane", "s.getpc", "dispatch.ptr", "kernarg.segment.ptr",
                  "implicitarg.ptr", "llvm.smin", "llvm.smax", "llvm.umin", "llvm.umax", "llvm.abs")


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
        got = self._ballot_of(cond)
        if got is None or got[0] != th.wave:
            return None
        _, pred, index = got
        idx = ev.value(None, LocalRef(index))
        if isinstance(idx, Unknown) or not isinstance(idx, (int, tuple)):
            return None
        whose: list[int] = []
        for t in range(th.count):
            i = at(idx, t)
            if not 0 <= i < th.wave:
                return None
            whose.append(t - t % th.wave + i)
        return pred, whose

    def _ballot_of(self, cond: str) -> tuple[int, str, str] | None:
        """The parts of ``cond = trunc iN (lshr iN (ballot.iW P), I) to i1``, read from the
        instructions' parsed operands: the ballot's width ``W``, the name of ``P`` and of
        ``I`` (each a named value of the function). None for any other ``cond``."""
        mod, fn = self.mod, self.fn

        def ops_of(name: str, opcode: str) -> Ops | None:
            inst = fn.by_name.get(name)
            return None if inst is None or inst.opcode != opcode else opparse.parse(mod, inst)

        trunc = ops_of(cond, "trunc")
        if (trunc is None or trunc.kind != "cast" or len(trunc.operands) != 1 or not _int(trunc.result_type, 1)
                or not _int(trunc.operands[0][0])):
            return None
        shifted = trunc.operands[0][1]
        lshr = ops_of(shifted.name, "lshr") if isinstance(shifted, LocalRef) else None
        if (lshr is None or lshr.kind != "binop" or not set(lshr.flags[1:]) <= {"exact"}
                or len(lshr.operands) != 2 or not _int(lshr.operands[0][0])):
            return None
        (_, ballot), (_, index) = lshr.operands
        call = ops_of(ballot.name, "call") if isinstance(ballot, LocalRef) else None
        if call is None or call.kind != "call" or not isinstance(index, LocalRef):
            return None
        callee = call.callee.name if isinstance(call.callee, GlobalRef) else ""
        width = callee[len(_BALLOT):]
        if not (callee.startswith(_BALLOT) and width.isascii() and width.isdigit()) or len(call.operands) != 1:
            return None
        pty, pred = call.operands[0]
        if not _int(pty, 1) or not isinstance(pred, LocalRef):
            return None
        return int(width), pred.name, index.name

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
                if inst.opcode == "load":
                    got = self._shared_load(inst)
                elif inst.opcode in ("atomicrmw", "cmpxchg"):
                    got = False
                elif inst.opcode == "call":
                    # (the callee's name, as the model read it: not a word anywhere in the call)
                    callee = opparse.parse(self.mod, inst).callee
                    name = callee.name if isinstance(callee, GlobalRef) else ""
                    if not any(k in name for k in _UNIFORM_CALLS):
                        got = False
                if not got:
                    break
            self._uniforms[cond] = got
        return got

    def _shared_load(self, inst: Instruction) -> bool:
        """Whether every thread that runs ``inst``, a load whose address is itself judged by
        ``_uniform``, reads one value: a plain (not atomic, not volatile) load of global or
        constant memory in the entry block. The entry block runs once per thread, every thread
        in the same interval between barriers; a write that gave two of them different values
        would race with one of the reads, which the memory model leaves undefined (so only a
        program that races on global memory, which this check does not judge, could tell).
        LDS is never taken so: a race there is what this check looks for (MoE kernels test the
        expert bounds, loaded from global memory at the start, around the whole body)."""
        if inst.block != 0:
            return False
        ops = opparse.parse(self.mod, inst)
        if ops.kind != "load" or ops.volatile or ops.ordering is not None or len(ops.operands) != 1:
            return False
        pty = ops.operands[0][0]
        return pty is not None and pty.kind == "ptr" and pty.addrspace in (1, 4)

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


__all__ = ["APART", "AT", "UNIFORM", "Bytes", "FunctionExact", "Site", "Variant", "Verdict"]
