"""Integer range analysis over the values that feed LDS addresses (design section 2b).

Ranges are sound or absent. The pieces, one idea per module:

- ``interval``: the abstract domain (``Range``, ``Off``, joins and readings);
- ``workgroup``: the bound of thread ids from the function's work-group size;
- ``transfer``: integer operations and calls (``IntTransfer``);
- ``loops``: phis, selects, counted loops (``LoopRanges``);
- this module: addresses, ``Off(root, lo, hi)``: the value is the root's start plus a byte
  offset in ``[lo, hi]``, modulo ``2**P`` (``P`` the root's pointer width). Integers with the
  root's provenance (``ptrtoint``/``add``/``inttoptr`` chains) carry the same offsets, as long
  as they are at least ``P`` bits wide.
"""

from __future__ import annotations

from ... import compiled, reasons
from ...ir import operands as opparse
from ...ir.model import ConstExpr, GlobalRef, Instruction, LocalRef, PlainConst, UndefConst, Value
from ...ir.types import Type
from ..provenance.lattice import Root
from . import knownbits as kb
from .gep import gep_step
from .interval import (
    RANGE_BITS,
    IntResult,
    Off,
    OffResult,
    Range,
    const_range,
    fit,
    int_const,
    is_full,
    known,
    off_known,
    off_with_known,
    srange,
    too_wide,
    urange,
    with_known,
)
from .loops import LoopRanges
from .transfer import BUDGET, MAX_DEPTH, at_line, binop_result, cast_result
from .workgroup import WorkGroup, work_group


class FunctionRanges(LoopRanges):
    """Demand-driven ranges for the values of one function (cached): integers
    (``int_range``) and addresses (``offset``)."""

    # ------------------------------------------------------------ addresses
    def offset(self, ty: Type, v: Value) -> OffResult:
        """The root and byte offsets of address ``v`` (a pointer, or an integer that
        carries a root's address)."""
        if self._depth == 0:
            self._before_query()
        if isinstance(v, LocalRef):
            got = self.offs.get(v.name)
            if got is not None:
                return got
            inst = self.fn.by_name.get(v.name)
            if inst is None:
                return reasons.RANGE_ARGUMENT.format(name=v.name)
            key = "o" + v.name
            saved = self._enter(key)
            if isinstance(saved, str):
                return saved
            try:
                res = self._off_inst(inst)
            finally:
                cache = self._leave(key, saved)
            if cache:
                self.offs[v.name] = res
            return res
        return self._off_other(v)

    def _off_other(self, v: Value) -> OffResult:
        """The root and byte offsets of an address that is not a local name."""
        if isinstance(v, GlobalRef):
            got = self.global_offs.get(v.name)
            if got is None:
                root = self.fa.value(v)
                got = Off(root, 0, 0) if isinstance(root, Root) else reasons.NOT_A_ROOT.format(name=v.name)
                self.global_offs[v.name] = got
            return got
        if isinstance(v, ConstExpr):
            # Triton names one constant expression (a stage's start in its shared-memory
            # block) in dozens of accesses, each with its own parsed copy
            ckey = const_key(v)
            if ckey is None:
                return self._off_constexpr(v)
            cgot = self.const_offs.get(ckey)
            if cgot is None:
                cgot = self.const_offs[ckey] = self._off_constexpr(v)
            return cgot
        return reasons.ADDRESS_NOT_TRACED.text

    def _modulus_ok(self, ty: Type) -> bool:
        """An integer holding a root's address must keep all of its pointer bits."""
        return ty.kind == "int" and ty.bits >= self.lds_bits

    def _off_constexpr(self, ce: ConstExpr) -> OffResult:
        op = ce.opcode
        if op == "getelementptr" and ce.operands and ce.dest is not None:
            return self._gep(ce.dest, ce.operands)
        if op in ("bitcast", "addrspacecast", "inttoptr", "ptrtoint", "zext", "sext", "trunc") and ce.operands:
            return self._cast_off(op, ce.operands[0], ce.dest)
        if op in ("add", "sub", "or") and len(ce.operands) == 2:
            return self._add_off(op, ce.flags, ce.operands)
        return reasons.CONSTEXPR_ON_ADDRESS.format(op=op)

    def _off_inst(self, inst: Instruction) -> OffResult:
        if self.names_vscale(inst):
            return reasons.SCALABLE_VECTOR.format(at=at_line(inst))
        ops = opparse.parse(self.mod, inst)
        k = ops.kind
        if k == "gep":
            if ops.source_type is None:
                return reasons.GEP_NOT_UNDERSTOOD.format(at=at_line(inst))
            return self._gep(ops.source_type, ops.operands)
        if k == "cast":
            return self._cast_off(ops.flags[0], ops.operands[0], ops.result_type)
        if k == "binop":
            return self._add_off(ops.flags[0], ops.flags[1:], ops.operands)
        if k == "freeze":
            why = self._may_be_poison(inst)
            return why if why is not None else self.offset(*ops.operands[0])
        if k in ("phi", "select"):
            vals = ops.incoming if k == "phi" else [ops.operands[1][1], ops.operands[2][1]]
            ty = ops.result_type
            assert ty is not None
            out: Off | None = None
            for v in vals:
                if isinstance(v, UndefConst):
                    continue
                r = self.offset(ty, v)
                if not isinstance(r, Off):
                    if reasons.ITSELF in r:
                        web = self._phi_web(inst, ty)
                        return web if web is not None else reasons.LOOP_ADVANCED_ADDRESS.format(at=at_line(inst))
                    return r
                if out is not None and out.root is not r.root:
                    return reasons.TWO_ROOTS.format(kind=k, at=at_line(inst))
                out = r if out is None else self._off_join(out, r)
            return out if out is not None else reasons.UNDEF_ONLY.format(kind=k, at=at_line(inst))
        if k == "call":
            callee = ops.callee
            name = callee.name[1:] if isinstance(callee, GlobalRef) else ""
            if (name.startswith("llvm.amdgcn.readfirstlane") or name.startswith("llvm.amdgcn.readlane")
                    or name.startswith("llvm.ssa.copy")) and ops.operands:
                return self.offset(*ops.operands[0])
            return reasons.ADDRESS_FROM_CALL.format(callee=("@" + name) if name else reasons.INDIRECT_CALLEE,
                                                     at=at_line(inst))
        return reasons.ADDRESS_COMPUTED.format(op=ops.flags[0] if ops.flags else k, at=at_line(inst))

    def _phi_web(self, inst: Instruction, ty: Type) -> Off | None:
        """The offsets of a phi (or select) that depends on itself only through phis and
        selects: a *web* of them (a pipelined loop's buffers swapped through phis, as
        FlyDSL's named bases are) can hold no value but one its members take from outside
        the web, so the join of those values' offsets holds for every member. None when the
        web is too large, or a value from outside depends on it (an address advanced
        around the loop) or has no offset."""
        by_name = self.fn.by_name
        web: set[str] = set()
        outside: list[Value] = []
        todo = [inst]
        while todo:
            cur = todo.pop()
            if cur.name is None or cur.name in web:
                continue
            web.add(cur.name)
            if len(web) > _WEB_MOST:
                return None
            ops = opparse.parse(self.mod, cur)
            vals = ops.incoming if ops.kind == "phi" else [ops.operands[1][1], ops.operands[2][1]]
            for v in vals:
                d = by_name.get(v.name) if isinstance(v, LocalRef) else None
                if d is not None and d.opcode in ("phi", "select"):
                    todo.append(d)
                elif not isinstance(v, UndefConst):
                    outside.append(v)
        out: Off | None = None
        for v in outside:
            r = self.offset(ty, v)
            if not isinstance(r, Off) or (out is not None and out.root is not r.root):
                return None
            out = r if out is None else self._off_join(out, r)
        if out is not None and self.mod.facts.dynamic_lds.isdisjoint(out.root.members):
            return None  # (for dynamic LDS only, so far: other modules' output stays as it was)
        return out

    def _off_join(self, a: Off, b: Off) -> Off:
        """Either of two offsets of one root: the hull, and the bits both share."""
        # bits known modulo 2**kw hold modulo any 2**w for the bits below min(kw, w)
        w = max(a.kw, b.kw, 32)
        k = kb.meet(off_known(a, w), off_known(b, w))
        return off_with_known(Off(a.root, min(a.lo, b.lo), max(a.hi, b.hi)), k, w)

    def _cast_off(self, cast: str, src: tuple[Type, Value], dest: Type | None) -> OffResult:
        sty, sv = src
        if cast == "bitcast" and not sty.is_pointer:
            return reasons.INT_TO_ADDRESS.text
        if dest is None or not (dest.is_pointer or dest.kind == "int"):
            return reasons.NON_SCALAR_CAST.format(cast=cast)
        r = self.offset(sty, sv)
        if not isinstance(r, Off):
            return r
        if dest.kind == "int" and not self._modulus_ok(dest):
            return reasons.NARROWING_CAST.format(cast=cast, bits=dest.bits)
        if sty.kind == "int" and not self._modulus_ok(sty):
            return reasons.WIDENED_CAST.format(cast=cast, bits=sty.bits)
        return r

    def _add_off(self, op: str, flags: tuple[str, ...], operands: list[tuple[Type, Value]]) -> OffResult:
        if op not in ("add", "sub") and not (op == "or" and "disjoint" in flags):
            return reasons.QUOTED_OP_ON_ADDRESS.format(op=op)
        (ta, va), (tb, vb) = operands
        if not self._modulus_ok(ta):
            return reasons.NARROW_ADDRESS_ARITHMETIC.format(bits=ta.bits)
        if ta.bits > RANGE_BITS:
            return too_wide(ta.bits)
        pa = self.fa.value(va)
        pb = self.fa.value(vb)
        if op != "sub" and not isinstance(pa, Root) and isinstance(pb, Root):
            va, vb, ta, tb = vb, va, tb, ta
        base = self.offset(ta, va)
        if not isinstance(base, Off):
            return base
        return add_off_result(op, base, self.int_range(tb, vb), ta.bits, tb.bits)

    def _gep(self, source: Type, operands: list[tuple[Type, Value]]) -> OffResult:
        bty, bv = operands[0]
        if not bty.is_pointer:
            return reasons.GEP_VECTOR_OF_POINTERS.text
        base = self.offset(bty, bv)
        if not isinstance(base, Off):
            return base
        return self._gep_from(base, source, operands)

    def _gep_from(self, base: Off, source: Type, operands: list[tuple[Type, Value]]) -> OffResult:
        """The offsets of a ``getelementptr`` whose base address has offsets ``base``."""
        bty = operands[0][0]
        space = bty.addrspace if bty.addrspace >= 0 else 0
        iw = self.dl.index_bits(space)
        if iw < self.dl.pointer_bits(space):
            # the offset is added to the low index-width bits only: it wraps there
            return reasons.NARROW_GEP_INDEX.format(width=iw)
        if iw > RANGE_BITS:
            return too_wide(iw)
        named = self.mod.named_types
        lo, hi = base.lo, base.hi
        w = iw  # the offset is added modulo 2**iw
        k = off_known(base, w)
        cur: Type | None = source
        for n, (ity, iv) in enumerate(operands[1:]):
            if ity.kind != "int":
                return reasons.GEP_VECTOR_INDEX.text
            step = gep_step(self.dl, named, cur, n, iv)
            if isinstance(step, str):
                return step
            field, nxt, scale = step
            if scale is None:  # a struct field: a constant offset
                lo += field
                hi += field
                k = kb.add_sub(k, kb.const(field, w), w)
                cur = nxt
                continue
            r = self.int_range(ity, iv)
            if not isinstance(r, Range):
                return reasons.GEP_INDEX_NO_RANGE.format(why=r)
            if ity.bits > iw:
                # truncated to the index width, then read as signed
                if not (-(1 << (iw - 1)) <= r.lo and r.hi < (1 << (iw - 1))):
                    return reasons.GEP_INDEX_MAY_WRAP.text
            else:
                r = srange(r, ity.bits)  # sign-extended to the index width
                if ity.bits > 8 and is_full(r, ity.bits):
                    return reasons.GEP_INDEX_NEGATIVE.text
            a, b = r.lo * scale, r.hi * scale
            lo += min(a, b)
            hi += max(a, b)
            # the index, sign extended (or truncated) to the index width, times the scale
            ki = known(r, ity.bits)
            ki = kb.trunc(ki, w) if ity.bits >= w else kb.trunc(kb.sext(ki, ity.bits, iw), w)
            k = kb.add_sub(k, kb.mul(ki, kb.const(scale, w), w), w)
            cur = nxt
        return off_with_known(Off(base.root, lo, hi), k, w)


def add_off_result(op: str, base: Off, r: IntResult, w: int, rw: int) -> OffResult:
    """The offsets of ``base + r`` (``- r`` for ``sub``) in ``iW``, ``r`` the range of an
    ``iRW`` value."""
    if not isinstance(r, Range):
        return reasons.OFFSET_NO_RANGE.format(why=r)
    k = kb.add_sub(off_known(base, w), kb.trunc(known(r, rw), w), w, sub=op == "sub")
    if op == "sub":
        return off_with_known(Off(base.root, base.lo - r.hi, base.hi - r.lo), k, w)
    return off_with_known(Off(base.root, base.lo + r.lo, base.hi + r.hi), k, w)


def const_key(ce: ConstExpr) -> tuple[object, ...] | None:
    """What a constant expression's offset depends on, when its operands are globals and
    literals of integer or pointer type (its text, in effect): equal keys, equal offsets,
    with no use of the budget or the values in progress; None for anything else."""
    key: list[object] = [ce.opcode, ce.flags, ce.indices, repr(ce.dest) if ce.dest is not None else None]
    for ty, v in ce.operands:
        if ty.kind != "int" and ty.kind != "ptr":
            return None
        if isinstance(v, GlobalRef):
            key.append((ty.kind, ty.bits, ty.addrspace, v.name))
        elif isinstance(v, PlainConst):
            key.append((ty.kind, ty.bits, ty.addrspace, "=" + v.text))
        else:
            return None
    return tuple(key)


#: the Python queries, the reference for the compiled ones
PY_OFFSET = FunctionRanges.offset
PY_INT_RANGE = FunctionRanges.int_range

#: the most phis and selects ``_phi_web`` follows
_WEB_MOST = 64

#: the compiled queries (``ranges/_solver.c``), or None: the Python methods
_crange = compiled.load("range_solver")
#: what the compiled queries use, by name
CRANGE_NAMES = {
    "LocalRef": LocalRef, "PlainConst": PlainConst, "Range": Range, "Off": Off, "Root": Root,
    "const_range": const_range, "binop_result": binop_result, "cast_result": cast_result,
    "add_off_result": add_off_result, "with_known": with_known, "parse": opparse.parse,
    "NOTHING": kb.NOTHING, "BUDGET": BUDGET, "MAX_DEPTH": MAX_DEPTH, "known": known, "add_sub": kb.add_sub,
    "mul": kb.mul, "shl": kb.shl, "at_line": at_line,
    # the reasons it gives, by their names in the registry (bound as the queries here bind
    # them: a reason with no fields as its message, ``.text``; one with fields as the reason)
    "ITSELF": reasons.ITSELF, **{name: getattr(reasons, name) for name in (
        "DEPENDS_ON_ITSELF", "TOO_DEEP", "BUDGET_EXHAUSTED", "NOT_AN_INTEGER", "GEP_INDEX_UNREAD",
        "GEP_INDEX_MAY_WRAP", "GEP_INDEX_NEGATIVE", "MAY_WRAP", "TOO_WIDE", "CONSTANT_NOT_INTEGER", "OFFSET_NO_RANGE",
        "GEP_INDEX_NO_RANGE", "RANGE_ARGUMENT", "SHIFT_NON_CONSTANT", "TRUNC_DROPS_BITS", "NARROWING_CAST",
        "WIDENED_CAST")},
}
if _crange is not None:
    _crange.init(CRANGE_NAMES)
    setattr(FunctionRanges, "offset", _crange.offset_method)  # noqa: B010 (the attribute is a method)
    setattr(FunctionRanges, "int_range", _crange.int_range_method)  # noqa: B010

__all__ = ["FunctionRanges", "Off", "Range", "WorkGroup", "add_off_result", "fit", "int_const", "srange", "urange", "work_group"]
