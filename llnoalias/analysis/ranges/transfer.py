"""Transfer functions of the range analysis (design section 2b): integer operations.

Every operation is computed on unbounded integers and its result must fit one window
again, or it is absent (a possible wrap). ``nuw``/``nsw`` flags are ignored: they promise
poison, not the absence of a wrap. An operation that needs one interpretation (``zext``,
``udiv``, a ``getelementptr`` index, which is sign extended) takes the range to that window
first, and an interval that cannot be moved there whole becomes the window's full range.

Thread ids are bounded by the function's work-group size (``workgroup``), by ``!range``
metadata and ``range()`` return attributes on the call, else by the target's maximum.
"""

from __future__ import annotations

import re

from ... import reasons
from ...ir import operands as opparse
from ...ir.datalayout import DataLayout, layout_of
from ...ir.facts import LDS_ADDRSPACE
from ...ir.lazyre import lazy
from ...ir.lexer import BARE_NAME, canon_name, icmp_predicate, tokenize
from ...ir.model import (
    AggregateConst,
    ConstExpr,
    Function,
    GlobalRef,
    Instruction,
    LocalRef,
    Module,
    Ops,
    PlainConst,
    UndefConst,
    Value,
)
from ...ir.types import Type
from ..provenance.solver import FunctionAnalysis
from . import knownbits as kb
from .interval import (
    RANGE_BITS,
    IntResult,
    OffResult,
    Range,
    Why,
    const_range,
    fit,
    half_open,
    known,
    srange,
    too_wide,
    urange,
    width,
    with_known,
)
from .workgroup import WorkGroups, int_pair_values, work_group

MAX_DEPTH = 2000
BUDGET = 50_000

_TID_RE = lazy(r"llvm\.(?:amdgcn\.workitem\.id|nvvm\.read\.ptx\.sreg\.tid)\.([xyz])")
_RANGE_ATTR_RE = lazy(r"\brange\(\s*i(\d+)\s+(-?\d+)\s*,\s*(-?\d+)\s*\)")
_RANGE_MD_RE = lazy(r"!range\s+!(\d+)")
_INT_PAIR_RE = lazy(r"\bi(\d+)\s+(-?\d+)")
_QUOTED_RE = lazy(r'"[^"]*"')
#: what makes a value poison (or undef) where LLVM's own rules would make it wrap or fail
_POISON_RE = lazy(r"\b(?:nuw|nsw|exact|disjoint|samesign|nneg|inbounds|nusw|inrange|undef|poison)\b"
                        r"|!range\b|\brange\(")


def at_line(inst: Instruction | None) -> str:
    """`` (line N)`` for a reason, built only when a reason is returned."""
    return reasons.AT_LINE.format(line=inst.line) if inst is not None else ""



def tdiv(x: int, d: int) -> int:
    """``x / d`` rounded toward zero, as LLVM's ``sdiv`` (``d != 0``)."""
    q = abs(x) // abs(d)
    return q if (x < 0) == (d < 0) else -q


def sdiv_interval(lo: int, hi: int, d: int) -> Range:
    """Every ``x sdiv d`` for ``x`` in ``[lo, hi]`` (``d`` a constant other than 0 and -1).
    Division rounded toward zero is monotone in ``x``: non-decreasing for ``d > 0``,
    non-increasing for ``d < 0``, so the ends come from the ends, whatever their signs."""
    a, b = tdiv(lo, d), tdiv(hi, d)
    return Range(min(a, b), max(a, b))


def srem_interval(lo: int, hi: int, d: int) -> Range:
    """Every ``x srem c`` for ``x`` in ``[lo, hi]`` and ``|c| == d > 0``: the remainder has
    the dividend's sign (or is 0) and is below ``d`` in magnitude, and a dividend already
    below ``d`` in magnitude is its own remainder."""
    if lo >= 0:
        return Range(lo, hi) if hi < d else Range(0, d - 1)
    if hi <= 0:
        return Range(lo, hi) if lo > -d else Range(-(d - 1), 0)
    return Range(max(lo, -(d - 1)), min(hi, d - 1))


def cmp_decided(pred: str, a: IntResult, b: IntResult, w: int) -> int | None:
    """``icmp pred a, b`` of ``iW`` values in ranges ``a`` and ``b``: 1 or 0 when every pair of
    values gives that answer, else None."""
    if not isinstance(a, Range) or not isinstance(b, Range):
        return None
    if pred in ("eq", "ne"):
        # both readings agree on equality: compare in the unsigned one
        x, y = urange(a, w), urange(b, w)
        if x.lo == x.hi == y.lo == y.hi:
            return 1 if pred == "eq" else 0
        if x.hi < y.lo or y.hi < x.lo:
            return 0 if pred == "eq" else 1
        return None
    if pred[:1] == "u":
        x, y = urange(a, w), urange(b, w)
    elif pred[:1] == "s":
        x, y = srange(a, w), srange(b, w)
    else:
        return None
    rest = pred[1:]
    if rest == "lt":
        return 1 if x.hi < y.lo else 0 if x.lo >= y.hi else None
    if rest == "le":
        return 1 if x.hi <= y.lo else 0 if x.lo > y.hi else None
    if rest == "gt":
        return 1 if x.lo > y.hi else 0 if x.hi <= y.lo else None
    if rest == "ge":
        return 1 if x.lo >= y.hi else 0 if x.hi < y.lo else None
    return None


def binop_range(op: str, flags: tuple[str, ...], a: IntResult, b: IntResult, cb: Range | None,
            w: int, inst: Instruction | None) -> IntResult:
    """The interval of ``a op b`` (``cb``: ``b`` when it is a constant)."""
    if op == "add" or (op == "or" and "disjoint" in flags):
        if not isinstance(a, Range):
            return a
        if not isinstance(b, Range):
            return b
        return fit(a.lo + b.lo, a.hi + b.hi, w) or reasons.MAY_WRAP.format(op=op, at=at_line(inst))
    if op == "sub":
        if not isinstance(a, Range):
            return a
        if not isinstance(b, Range):
            return b
        return fit(a.lo - b.hi, a.hi - b.lo, w) or reasons.MAY_WRAP.format(op=op, at=at_line(inst))
    if op == "mul":
        if not isinstance(a, Range):
            return a
        if not isinstance(b, Range):
            return b
        prods = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
        return fit(min(prods), max(prods), w) or reasons.MAY_WRAP.format(op=op, at=at_line(inst))
    if op == "shl":
        if cb is None or not (0 <= cb.lo < w):
            return reasons.SHIFT_NON_CONSTANT.format(op="shl", at=at_line(inst))
        if not isinstance(a, Range):
            return a
        return fit(a.lo << cb.lo, a.hi << cb.lo, w) or reasons.MAY_WRAP.format(op=op, at=at_line(inst))
    if op == "lshr":
        if cb is None or not (0 <= cb.lo < w):
            return reasons.SHIFT_NON_CONSTANT.format(op="lshr", at=at_line(inst))
        u = urange(a, w)
        return Range(u.lo >> cb.lo, u.hi >> cb.lo)
    if op == "ashr":
        if cb is None or not (0 <= cb.lo < w):
            return reasons.SHIFT_NON_CONSTANT.format(op="ashr", at=at_line(inst))
        s = srange(a, w)
        return Range(s.lo >> cb.lo, s.hi >> cb.lo)
    if op == "udiv":
        if cb is None:
            return reasons.DIVISION_NON_CONSTANT.format(op="udiv", at=at_line(inst))
        d = urange(cb, w).lo
        if d <= 0:
            return reasons.DIVISION_BY_ZERO.format(op="udiv", at=at_line(inst))
        u = urange(a, w)
        return Range(u.lo // d, u.hi // d)
    if op == "urem":
        if cb is None:
            return reasons.DIVISION_NON_CONSTANT.format(op="urem", at=at_line(inst))
        d = urange(cb, w).lo
        if d <= 0:
            return reasons.DIVISION_BY_ZERO.format(op="urem", at=at_line(inst))
        u = urange(a, w)
        if u.hi < d:
            return u
        return Range(0, d - 1)
    if op == "srem":
        if cb is None:
            return reasons.DIVISION_NON_CONSTANT.format(op="srem", at=at_line(inst))
        d = abs(srange(cb, w).lo)
        if d == 0:
            return reasons.DIVISION_BY_ZERO.format(op="srem", at=at_line(inst))
        # an unknown dividend reads as the whole signed window: |a srem d| < d still holds
        s = srange(a, w)
        return srem_interval(s.lo, s.hi, d)
    if op == "sdiv":
        if cb is None:
            return reasons.DIVISION_NON_CONSTANT.format(op="sdiv", at=at_line(inst))
        d = srange(cb, w).lo
        if d == 0:
            return reasons.DIVISION_BY_ZERO.format(op="sdiv", at=at_line(inst))
        if d == -1:
            # INT_MIN / -1 is undefined, and -a leaves the window for a = INT_MIN
            return reasons.SDIV_MINUS_ONE.format(at=at_line(inst))
        s = srange(a, w)
        return sdiv_interval(s.lo, s.hi, d)
    if op == "and":
        if cb is not None:
            c = urange(cb, w).lo
            sc = srange(cb, w).lo
            u = urange(a, w)
            if sc < 0 and ((-sc) & (-sc - 1)) == 0:
                # a mask that clears the low bits: monotone on the unsigned reading
                return Range(u.lo & c, u.hi & c)
            return Range(0, min(u.hi, c))
        ua, ub = urange(a, w), urange(b, w)
        return Range(0, min(ua.hi, ub.hi))
    if op in ("or", "xor"):
        ua, ub = urange(a, w), urange(b, w)
        top = (1 << max(ua.hi, ub.hi).bit_length()) - 1
        if op == "or":
            return Range(max(ua.lo, ub.lo), min(top, ua.hi + ub.hi))
        return Range(0, top)
    return reasons.NOT_FOLLOWED.format(op=op, at=at_line(inst))


def known_binop(op: str, a: kb.Known, b: kb.Known, cb: Range | None, w: int) -> kb.Known | None:
    """The known bits of ``a op b`` in ``iW`` (``cb``: ``b`` when it is a constant); None
    for an operation whose bits are not followed."""
    c = None
    if cb is not None and cb.lo == cb.hi:
        c = cb.lo & kb.mask(w)
    if op == "add":
        return kb.add_sub(a, b, w)
    if op == "sub":
        return kb.add_sub(a, b, w, sub=True)
    if op == "mul":
        return kb.mul(a, b, w)
    if op == "and":
        return kb.and_(a, b)
    if op == "or":
        return kb.or_(a, b)
    if op == "xor":
        return kb.xor(a, b)
    if c is None or (c >= w and op in ("shl", "lshr", "ashr")):
        return None
    if op == "shl":
        return kb.shl(a, c, w)
    if op == "lshr":
        return kb.lshr(a, c, w)
    if op == "ashr":
        return kb.ashr(a, c, w)
    if op in ("udiv", "urem") and c > 0 and c & (c - 1) == 0:
        t = c.bit_length() - 1
        return kb.lshr(a, t, w) if op == "udiv" else kb.and_(a, kb.const(c - 1, w))
    if op in ("sdiv", "srem") and 0 < c < (1 << (w - 1)) and c & (c - 1) == 0 and a.zero >> (w - 1) & 1:
        # a dividend whose sign bit is known clear: the unsigned operation, bit for bit
        t = c.bit_length() - 1
        return kb.lshr(a, t, w) if op == "sdiv" else kb.and_(a, kb.const(c - 1, w))
    return None


def binop_result(op: str, flags: tuple[str, ...], a: IntResult, b: IntResult, cb: Range | None, w: int,
                 inst: Instruction | None) -> IntResult:
    """The range of ``a op b`` from its operands' ranges (``cb``: ``b`` when it is a constant)."""
    if op in ("or", "xor"):
        for r in (a, b):
            if isinstance(r, str) and reasons.ITSELF in r:
                # a loop value being solved: let its phi find an invariant (a buffer
                # toggled by 'xor %buf, 8192' stays in {0, 8192}) rather than read it
                # as any value
                return r
    res = binop_range(op, flags, a, b, cb, w, inst)
    if not isinstance(res, Range):
        return res
    ka, kb_ = known(a, w), known(b, w)
    if op in ("or", "xor") and kb.disjoint(ka, kb_, w):
        # no bit set in both: the same value as their sum, which cannot wrap
        ua, ub = urange(a, w), urange(b, w)
        got = fit(ua.lo + ub.lo, ua.hi + ub.hi, w)
        if got is not None and got.lo >= 0 and res.lo >= 0 and max(res.lo, got.lo) <= min(res.hi, got.hi):
            res = Range(max(res.lo, got.lo), min(res.hi, got.hi))
    k = known_binop(op, ka, kb_, cb, w)
    return with_known(res, k, w) if k is not None else res


def cast_result(cast: str, r: IntResult, sw: int, w: int, inst: Instruction | None) -> IntResult:
    """The range of ``zext``/``sext``/``trunc`` from ``iSW`` to ``iW`` of a value in ``r``."""
    if cast == "zext":
        return with_known(urange(r, sw), kb.zext(known(r, sw), sw, w), w)
    if cast == "sext":
        return with_known(srange(r, sw), kb.sext(known(r, sw), sw, w), w)
    if not isinstance(r, Range):
        return r
    got = fit(r.lo, r.hi, w)
    if got is None:
        return reasons.TRUNC_DROPS_BITS.format(cast="trunc", at=at_line(inst))
    return with_known(Range(got.lo, got.hi), kb.trunc(known(r, sw), w), w)


class IntTransfer:
    """The transfer functions of the range analysis: the range of an integer from its
    operands' ranges, one instruction kind at a time (cached per function). Phis and
    selects, which need the loop driver, come from ``loops.LoopRanges``."""

    def __init__(self, mod: Module, fn: Function, fa: FunctionAnalysis, family: str,
                 layout: DataLayout | None = None, work_groups: WorkGroups | None = None) -> None:
        self.mod = mod
        #: the work-group bounds read in the module (``workgroup.work_group``), or None
        self.work_groups = work_groups
        self.fn = fn
        self.fa = fa
        self.family = family
        self.dl = layout or layout_of(mod)
        self.ints: dict[str, IntResult] = {}
        self.offs: dict[str, OffResult] = {}
        #: offsets of constant expressions over globals and literals (``ranges.const_key``)
        self.const_offs: dict[tuple[object, ...], OffResult] = {}
        #: offsets of globals by name: every access of a shared-memory tile names its
        #: global, and what the global is (a root or not) is fixed for the module
        self.global_offs: dict[str, OffResult] = {}
        self._inprog: dict[str, int] = {}
        self._low = 1 << 30
        self._depth = 0
        self._budget = BUDGET
        self._decl_ranges: dict[str, Range | None] = {}
        #: loop phis being solved: the range assumed for them while their loop is evaluated
        self._assume: dict[str, Range] = {}
        self._phis_solved = False
        #: the width of an LDS pointer, which every integer holding an address must keep
        self.lds_bits = self.dl.pointer_bits(LDS_ADDRSPACE)
        #: does "vscale" occur in the function's text at all (else no instruction of it
        #: names a scalable vector type: one search per function, not one per value)
        instrs = fn.instrs
        self.vscale = bool(instrs) and mod.text.find("vscale", fn.start, instrs[-1].end) >= 0

    def names_vscale(self, inst: Instruction) -> bool:
        """Does ``inst``'s text name ``vscale`` (a scalable vector type may be in it)?"""
        return self.vscale and self.mod.text.find("vscale", inst.start, inst.end) >= 0

    # ------------------------------------------------------------- plumbing
    def _before_query(self) -> None:
        """Called before each query from outside (depth 0): a fresh budget."""
        self._budget = BUDGET

    def _enter(self, key: str) -> int | Why:
        if key in self._inprog:
            self._low = min(self._low, self._inprog[key])
            return reasons.DEPENDS_ON_ITSELF.text
        if self._depth >= MAX_DEPTH:
            return reasons.TOO_DEEP.text
        self._budget -= 1
        if self._budget < 0:
            return reasons.BUDGET_EXHAUSTED.text
        self._depth += 1
        self._inprog[key] = self._depth
        saved = self._low
        self._low = 1 << 30
        return saved

    def _leave(self, key: str, saved: int) -> bool:
        """Returns whether the result may be cached (it used no value still in progress)."""
        depth = self._inprog.pop(key)
        self._depth -= 1
        ok = self._low >= depth
        self._low = min(saved, self._low) if not ok else saved
        return ok

    # ------------------------------------------------------------ integers
    def int_range(self, ty: Type, v: Value) -> IntResult:
        """The range of integer operand ``v`` of type ``ty`` (which must carry no address)."""
        w = width(ty)
        if w <= 0:
            return reasons.NOT_AN_INTEGER.text
        if w > RANGE_BITS:
            return too_wide(w)
        if self._depth == 0:
            self._before_query()
        if isinstance(v, LocalRef):
            got = self.ints.get(v.name)
            if got is not None:
                return got
            inst = self.fn.by_name.get(v.name)
            if inst is None:
                return self._arg_range(v.name)
            key = "i" + v.name
            assumed = self._assume.get(key)
            if assumed is not None and key in self._inprog:
                self._low = min(self._low, self._inprog[key])
                return assumed
            saved = self._enter(key)
            if isinstance(saved, str):
                return saved
            try:
                res = self._int_inst(inst, w)
                if isinstance(res, Range) and not (res.zero or res.one):
                    # a range with known bits came from with_known, which its own
                    # output leaves as it is
                    res = with_known(res, kb.NOTHING, w)
            finally:
                cache = self._leave(key, saved)
            if cache:
                self.ints[v.name] = res
            return res
        if isinstance(v, PlainConst):
            r = const_range(v, w)
            return r if r is not None else reasons.CONSTANT_NOT_INTEGER.format(value=v.text)
        return self._int_other(v, w)

    def _int_other(self, v: Value, w: int) -> IntResult:
        """The range of a value that is neither a local name nor a plain constant."""
        if isinstance(v, UndefConst):
            return reasons.UNDEF_VALUE.format(value=v.text)
        if isinstance(v, ConstExpr):
            return self._int_constexpr(v, w)
        if isinstance(v, AggregateConst) and v.kind == "splat" and v.elems:
            return self.int_range(v.elems[0][0], v.elems[0][1])
        return reasons.VALUE_NOT_INTEGER.text

    def _arg_range(self, name: str) -> Why:
        return reasons.FUNCTION_ARGUMENT.format(name=name)

    def _int_constexpr(self, ce: ConstExpr, w: int) -> IntResult:
        ops = Ops("binop" if ce.opcode not in ("zext", "sext", "trunc") else "cast")
        if ce.opcode in ("zext", "sext", "trunc") and ce.operands and ce.dest is not None:
            ops.flags = (ce.opcode,)
            ops.operands = list(ce.operands)
            ops.result_type = ce.dest
            return self._int_ops(ops, w, None)
        if len(ce.operands) == 2 and ce.opcode in opparse.BINARY_OPS:
            ops.flags = (ce.opcode, *ce.flags)
            ops.operands = list(ce.operands)
            ops.result_type = ce.operands[0][0]
            return self._int_ops(ops, w, None)
        return reasons.CONSTANT_EXPRESSION.format(op=ce.opcode)

    def _int_inst(self, inst: Instruction, w: int) -> IntResult:
        ops = opparse.parse(self.mod, inst)
        return self._int_ops(ops, w, inst)

    def _int_ops(self, ops: Ops, w: int, inst: Instruction | None) -> IntResult:
        k = ops.kind
        if k == "binop":
            return self._binop(ops, w, inst)
        if k == "cast":
            cast = ops.flags[0]
            sty, sv = ops.operands[0]
            sw = width(sty)
            if cast in ("zext", "sext", "trunc") and sw > 0:
                return cast_result(cast, self.int_range(sty, sv), sw, w, inst)
            return reasons.OP_RESULT.format(kind=cast, at=at_line(inst))
        if k == "cmp":
            return self._cmp(ops, inst)
        if k == "freeze":
            ty, v = ops.operands[0]
            why = self._may_be_poison(inst)
            return why if why is not None else self.int_range(ty, v)
        if k == "select":
            return self._select(ops, w)
        if k == "phi" and inst is not None:
            return self._phi(inst, ops, w)
        if k == "call" and inst is not None:
            return self._call(inst, ops, w)
        if k == "load":
            return reasons.VALUE_LOADED.format(at=at_line(inst))
        if k in ("atomicrmw", "cmpxchg", "extractvalue"):
            return reasons.OP_RESULT.format(kind=k, at=at_line(inst))
        if k == "unparsed":
            return reasons.NOT_UNDERSTOOD.format(at=at_line(inst))
        return reasons.NOT_FOLLOWED.format(op=ops.flags[0] if ops.flags else k, at=at_line(inst))

    def _binop(self, ops: Ops, w: int, inst: Instruction | None) -> IntResult:
        op = ops.flags[0]
        (ta, va), (tb, vb) = ops.operands
        ca = const_range(va, w)
        cb = const_range(vb, w)
        if op in ("add", "mul", "and", "or", "xor", "umin") and ca is not None and cb is None:
            # commutative: the constant second
            va, vb, ca, cb = vb, va, cb, ca
        a = ca if ca is not None else self.int_range(ta, va)
        b = cb if cb is not None else self.int_range(tb, vb)
        return binop_result(op, ops.flags, a, b, cb, w, inst)

    def _cmp(self, ops: Ops, inst: Instruction | None) -> Range:
        """An ``icmp`` whose answer the operands' ranges decide is that constant (``icmp slt
        %tid, 0`` is false); any other comparison is 0 or 1."""
        if inst is None or inst.opcode != "icmp" or len(ops.operands) != 2:
            return Range(0, 1)
        (ty, va), (_, vb) = ops.operands
        cw = width(ty)
        if cw <= 0 or cw > RANGE_BITS:
            return Range(0, 1)  # pointers and vectors are not followed
        pred = icmp_predicate(self.mod.text, inst.start, inst.end)
        if pred is None:
            return Range(0, 1)
        a = self.int_range(ty, va)
        b = self.int_range(ty, vb)
        got = cmp_decided(pred, a, b, cw)
        return Range(0, 1) if got is None else Range(got, got)

    def _may_be_poison(self, freeze: Instruction | None) -> Why | None:
        """Why the value ``freeze`` freezes may be poison or undef, or None when it cannot.

        Ranges lean on facts whose violation gives poison, not undefined behaviour
        (``!range``, ``range()``, ``or disjoint``, ``icmp samesign``, ``exact``, ...), and
        phis and selects skip ``undef``: an access through poison is undefined, so those
        ranges hold wherever an access is defined. ``freeze`` turns poison into an arbitrary
        value, so its range is the operand's only when no such fact is on the way."""
        if freeze is None:
            return reasons.FREEZE_IN_CONSTEXPR.text
        todo = [freeze]
        seen: set[str] = set()
        while todo:
            inst = todo.pop()
            raw = self.mod.text[inst.start:inst.end]
            text = _QUOTED_RE.sub('""', raw)
            m = _POISON_RE.search(text)
            if m:
                return reasons.FREEZE_POISON.format(what=m.group(), line=inst.line)
            if inst.opcode == "call":
                cm = re.search(r"@(" + BARE_NAME + r")\s*\(", text)
                if cm and self._decl_range(cm.group(1)) is not None:
                    return reasons.FREEZE_POISON_RANGE.format(name=cm.group(1), line=inst.line)
            for t in tokenize(raw):
                if t.kind == "local" and inst.name is not None and canon_name(t.text) == inst.name:
                    continue
                if t.kind != "local" or t.text in seen:
                    continue
                seen.add(t.text)
                dep = self.fn.by_name.get(canon_name(t.text))
                if dep is not None:
                    if len(seen) > 1000:
                        return reasons.FREEZE_TOO_LARGE.text
                    todo.append(dep)
        return None

    # ---------------------------------------------------------------- calls
    def _call(self, inst: Instruction, ops: Ops, w: int) -> IntResult:
        callee = ops.callee
        name = callee.name[1:] if isinstance(callee, GlobalRef) else ""
        text = self.mod.text[inst.start:inst.end]
        known = self._call_annotations(text, name, w)
        m = _TID_RE.fullmatch(name) if name else None
        if m:
            dim = "xyz".index(m.group(1))
            wg = work_group(self.mod, self.fn, self.family, self.work_groups)
            bound = wg.bounds[dim]
            r: IntResult = Range(0, bound - 1) if bound is not None else reasons.THREAD_ID_UNBOUNDED.text
            if known is not None:
                r = known if not isinstance(r, Range) else Range(max(r.lo, known.lo), min(r.hi, known.hi))
                if r.lo > r.hi:
                    r = known
            return r
        if known is not None:
            return known
        base = name.split(".")
        if len(base) >= 2 and base[0] == "llvm" and base[1] in ("umin", "umax", "smin", "smax") \
                and len(ops.operands) == 2:
            (ta, va), (tb, vb) = ops.operands
            a = self.int_range(ta, va)
            b = self.int_range(tb, vb)
            fn = base[1]
            if fn in ("umin", "umax"):
                ua, ub = urange(a, w), urange(b, w)
                if fn == "umin":
                    return Range(min(ua.lo, ub.lo), min(ua.hi, ub.hi))
                return Range(max(ua.lo, ub.lo), max(ua.hi, ub.hi))
            sa, sb = srange(a, w), srange(b, w)
            if fn == "smin":
                return Range(min(sa.lo, sb.lo), min(sa.hi, sb.hi))
            return Range(max(sa.lo, sb.lo), max(sa.hi, sb.hi))
        if name.startswith("llvm.amdgcn.readfirstlane") or name.startswith("llvm.amdgcn.readlane") \
                or name.startswith("llvm.ssa.copy") or name.startswith("llvm.expect"):
            if ops.operands:
                return self.int_range(ops.operands[0][0], ops.operands[0][1])
        return reasons.CALL_RESULT.format(callee=("@" + name) if name else reasons.INDIRECT_CALLEE, at=at_line(inst))

    def _call_annotations(self, text: str, name: str, w: int) -> Range | None:
        """``range(iW a, b)`` on the call's return and ``!range`` metadata (and the declaration's
        ``range()``): every source LLVM itself trusts. Their intersection, or None."""
        out: Range | None = None
        cut = text.find("@" + name + "(") if name else -1
        # quoted text (a result name, a string attribute) is not an attribute of the call
        head = _QUOTED_RE.sub('""', text[:cut]) if cut >= 0 else ""
        found: list[Range] = []
        for m in _RANGE_ATTR_RE.finditer(head):
            r = half_open(int(m.group(2)), int(m.group(3)), int(m.group(1)))
            if r is not None:
                found.append(r)
        m2 = _RANGE_MD_RE.search(_QUOTED_RE.sub('""', text))
        if m2:
            node = self.mod.metadata_text(int(m2.group(1))) or ""
            vals = [int(x) for x in int_pair_values(node)]
            if vals and len(vals) % 2 == 0:
                pieces = [half_open(vals[i], vals[i + 1], w) for i in range(0, len(vals), 2)]
                if all(p is not None for p in pieces):
                    found.append(Range(min(p.lo for p in pieces if p), max(p.hi for p in pieces if p)))
        if name:
            d = self._decl_range(name)
            if d is not None:
                found.append(d)
        for r in found:
            if r.hi >= (1 << w):
                continue
            out = r if out is None else Range(max(out.lo, r.lo), min(out.hi, r.hi))
        if out is not None and out.lo > out.hi:
            return None
        return out

    def _decl_range(self, name: str) -> Range | None:
        if name in self._decl_ranges:
            return self._decl_ranges[name]
        got: Range | None = None
        decl = self.mod.declarations.get("@" + name)
        if decl is not None:
            line = self.mod.source.line_text(decl.line)
            cut = line.find("@" + name)
            m = _RANGE_ATTR_RE.search(_QUOTED_RE.sub('""', line[:cut]) if cut >= 0 else "")
            if m:
                got = half_open(int(m.group(2)), int(m.group(3)), int(m.group(1)))
        self._decl_ranges[name] = got
        return got

    # ----------------------------------------------------------------- phis

    # the loop driver's part (``loops.LoopRanges``)
    def _select(self, ops: Ops, w: int) -> IntResult:
        raise NotImplementedError

    def _phi(self, inst: Instruction, ops: Ops, w: int) -> IntResult:
        raise NotImplementedError


__all__ = ["BUDGET", "MAX_DEPTH", "IntTransfer", "binop_result", "cast_result", "cmp_decided", "sdiv_interval",
           "srem_interval", "tdiv"]
