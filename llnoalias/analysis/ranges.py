"""Integer range analysis over the values that feed LDS addresses (SPEC section 2b).

Ranges are sound or absent. A ``Range(lo, hi)`` (inclusive) of an ``iW`` value means: the
value, read in at least one of its two interpretations, lies in ``[lo, hi]``, and the
interval fits that interpretation's window: unsigned ``[0, 2**W)`` or signed
``[-2**(W-1), 2**(W-1))``. Every operation is computed on unbounded integers and its
result must fit one window again, or it is absent (a possible wrap). ``nuw``/``nsw`` flags
are ignored: they promise poison, not the absence of a wrap. An operation that needs one
interpretation (``zext``, ``udiv``, a ``getelementptr`` index, which is sign extended)
takes the range to that window first, and an interval that cannot be moved there whole
becomes the window's full range.

An absent range is a string: the reason, for ``--stats`` and ``explain``.

Addresses are ``Off(root, lo, hi)``: the value is the root's start plus a byte offset in
``[lo, hi]``, modulo ``2**P`` (``P`` the root's pointer width). Integers with the root's
provenance (``ptrtoint``/``add``/``inttoptr`` chains) carry the same offsets, as long as
they are at least ``P`` bits wide.

Thread ids are bounded by the function's work-group size (``amdgpu-flat-work-group-size``,
``!reqd_work_group_size``, ``"nvvm.maxntid"``/``"nvvm.reqntid"``, ``!nvvm.annotations``),
by ``!range`` metadata and ``range()`` return attributes on the call, else by the target's
maximum. Loop phis: the join of their incoming values, a value computed through the phi
itself reading it as unknown; counted loops (an increment by a positive constant guarded
by the back edge's compare) get the compare's bound.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import NamedTuple

from ..ir import operands as opparse
from ..ir.datalayout import DataLayout, layout_of
from ..ir.lexer import canon_name, tokenize
from ..ir.model import (
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
from ..ir.types import Type
from .lattice import Root
from .provenance import FunctionAnalysis


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

#: per-dimension maximum of the thread id count, by target family
TARGET_MAX = {"amdgpu": (1024, 1024, 1024), "nvptx": (1024, 1024, 64)}
MAX_DEPTH = 2000
BUDGET = 50_000

_TID_RE = re.compile(r"llvm\.(?:amdgcn\.workitem\.id|nvvm\.read\.ptx\.sreg\.tid)\.([xyz])")
_RANGE_ATTR_RE = re.compile(r"\brange\(\s*i(\d+)\s+(-?\d+)\s*,\s*(-?\d+)\s*\)")
_RANGE_MD_RE = re.compile(r"!range\s+!(\d+)")
_INT_PAIR_RE = re.compile(r"\bi(\d+)\s+(-?\d+)")
_QUOTED_RE = re.compile(r'"[^"]*"')
#: what makes a value poison (or undef) where LLVM's own rules would make it wrap or fail
_POISON_RE = re.compile(r"\b(?:nuw|nsw|exact|disjoint|samesign|nneg|inbounds|nusw|inrange|undef|poison)\b"
                        r"|!range\b|\brange\(")


# ------------------------------------------------------------------ interval helpers

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


def _width(ty: Type | None) -> int:
    return ty.bits if ty is not None and ty.kind == "int" else 0


# ------------------------------------------------------------- work-group bounds

class WorkGroup:
    """Exclusive upper bounds of ``tid.x/y/z`` for one function, with where they came from."""

    def __init__(self, bounds: list[int | None], sources: list[str]) -> None:
        self.bounds = bounds
        self.sources = sources


def _attr_texts(mod: Module, fn: Function, own: str) -> str:
    parts = [own]
    for g in fn.fn_attr_groups:
        parts.append(mod.attribute_group_text(g))
    return "\n".join(parts)


def _ints_of(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", text)]


def work_group(mod: Module, fn: Function, family: str) -> WorkGroup:
    cached = getattr(fn, "_llnoalias_wg", None)
    if isinstance(cached, WorkGroup):
        return cached
    tmax = TARGET_MAX.get(family)
    bounds: list[int | None] = list(tmax) if tmax else [None, None, None]
    sources = [f"{family} maximum"] * 3 if tmax else ["no bound"] * 3

    def cap(dim: int, n: int, src: str) -> None:
        if n <= 0:
            return
        cur = bounds[dim]
        if cur is None or n < cur:
            bounds[dim] = n
            sources[dim] = src

    own = fn.own_attrs_text
    text = _attr_texts(mod, fn, own)
    m = re.search(r'"amdgpu-flat-work-group-size"\s*=\s*"\s*(\d+)\s*,\s*(\d+)\s*"', text)
    if m:
        for d in range(3):
            cap(d, int(m.group(2)), "amdgpu-flat-work-group-size")
    m = re.search(r"!reqd_work_group_size\s+!(\d+)", own)
    if m:
        node = mod.metadata_text(int(m.group(1))) or ""
        vals = [int(x) for x in _INT_PAIR_RE_VALUES(node)]
        if len(vals) == 3:
            for d in range(3):
                cap(d, vals[d], "reqd_work_group_size")
    for key, exact in (("nvvm.maxntid", False), ("nvvm.reqntid", True)):
        m = re.search(r'"' + re.escape(key) + r'"\s*=\s*"([^"]*)"', text)
        if m:
            vals = [v for v in _ints_of(m.group(1)) if v > 0][:3]
            if vals:
                _nv_bounds(vals, exact, key, cap)
    _nvvm_annotations(mod, fn, cap)
    wg = WorkGroup(bounds, sources)
    try:
        fn._llnoalias_wg = wg  # type: ignore[attr-defined]
    except AttributeError:
        pass
    return wg


def _INT_PAIR_RE_VALUES(node: str) -> list[str]:  # noqa: N802 - small helper
    body = node[node.find("!{"):] if "!{" in node else node
    return [m.group(2) for m in _INT_PAIR_RE.finditer(body)]


def _nv_bounds(vals: list[int], exact: bool, src: str, cap: Callable[[int, int, str], None]) -> None:
    """PTX ``.maxntid``/``.reqntid``: the block holds at most the product of the given
    extents (missing ones are 1); ``.reqntid`` also fixes each given dimension."""
    total = 1
    for v in vals:
        total *= v
    for d in range(3):
        if exact and d < len(vals):
            cap(d, vals[d], src)
        cap(d, total, src)


def _nvvm_thread_bounds(mod: Module) -> dict[str, dict[str, dict[str, int]]]:
    """``maxntid``/``reqntid`` extents by kernel name, read from ``!nvvm.annotations``
    once per module (a module lists every kernel there)."""
    if mod.nvvm_thread_bounds is not None:
        return mod.nvvm_thread_bounds
    out: dict[str, dict[str, dict[str, int]]] = {}
    mod.nvvm_thread_bounds = out
    span = mod.named_metadata.get("nvvm.annotations")
    if span is None:
        return out
    text = mod.text[span[0]:span[1]]
    for mid_s in re.findall(r"!(\d+)", text[text.find("=") + 1:]):
        node = mod.metadata_text(int(mid_s))
        if node is None or ("maxntid" not in node and "reqntid" not in node):
            continue
        toks = [t for t in tokenize(node[node.find("!{"):] if "!{" in node else node)]
        fname = next((canon_name(t.text) for t in toks if t.kind == "global"), None)
        if fname is None:
            continue
        found = out.setdefault(fname, {"maxntid": {}, "reqntid": {}})
        for i, t in enumerate(toks):
            if t.kind == "mdstring":
                key = t.text[2:-1]
                km = re.fullmatch(r"(maxntid|reqntid)([xyz])", key)
                if km is None:
                    continue
                for t2 in toks[i + 1:i + 4]:
                    if t2.kind == "int":
                        found[km.group(1)][km.group(2)] = int(t2.text)
                        break
    return out


def _nvvm_annotations(mod: Module, fn: Function, cap: Callable[[int, int, str], None]) -> None:
    found = _nvvm_thread_bounds(mod).get(fn.name)
    if found is None:
        return
    for kind, dims in found.items():
        if not dims:
            continue
        vals = [dims.get(d, 1) for d in "xyz"]
        if any(v <= 0 for v in vals):
            continue
        total = vals[0] * vals[1] * vals[2]
        for d, dname in enumerate("xyz"):
            if kind == "reqntid" and dname in dims:
                cap(d, vals[d], "!nvvm.annotations reqntid")
            cap(d, total, f"!nvvm.annotations {kind}")


# ------------------------------------------------------------------ the analysis

def _at(inst: Instruction | None) -> str:
    """`` (line N)`` for a reason, built only when a reason is returned."""
    return f" (line {inst.line})" if inst is not None else ""


class FunctionRanges:
    """Demand-driven ranges for the values of one function (cached)."""

    def __init__(self, mod: Module, fn: Function, fa: FunctionAnalysis, family: str,
                 layout: DataLayout | None = None) -> None:
        self.mod = mod
        self.fn = fn
        self.fa = fa
        self.family = family
        self.dl = layout or layout_of(mod)
        self.ints: dict[str, IntResult] = {}
        self.offs: dict[str, OffResult] = {}
        self._inprog: dict[str, int] = {}
        self._low = 1 << 30
        self._depth = 0
        self._budget = BUDGET
        self._decl_ranges: dict[str, Range | None] = {}
        #: loop phis being solved: the range assumed for them while their loop is evaluated
        self._assume: dict[str, Range] = {}

    # ------------------------------------------------------------- plumbing
    def _enter(self, key: str) -> int | Why:
        if key in self._inprog:
            self._low = min(self._low, self._inprog[key])
            return "value depends on itself through a loop"
        if self._depth >= MAX_DEPTH:
            return "expression too deep"
        self._budget -= 1
        if self._budget < 0:
            return "range analysis budget exhausted"
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
        w = _width(ty)
        if w <= 0:
            return "not an integer"
        if self._depth == 0:
            self._budget = BUDGET
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
            finally:
                cache = self._leave(key, saved)
            if cache:
                self.ints[v.name] = res
            return res
        if isinstance(v, PlainConst):
            r = const_range(v, w)
            return r if r is not None else f"constant {v.text} not read as an integer"
        if isinstance(v, UndefConst):
            return f"{v.text} value"
        if isinstance(v, ConstExpr):
            return self._int_constexpr(v, w)
        if isinstance(v, AggregateConst) and v.kind == "splat" and v.elems:
            return self.int_range(v.elems[0][0], v.elems[0][1])
        return "value not read as an integer"

    def _arg_range(self, name: str) -> Why:
        return f"function argument {name}"

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
        return f"constant expression '{ce.opcode}'"

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
            sw = _width(sty)
            if cast in ("zext", "sext", "trunc") and sw > 0:
                r = self.int_range(sty, sv)
                if cast == "zext":
                    return urange(r, sw)
                if cast == "sext":
                    return srange(r, sw)
                if not isinstance(r, Range):
                    return r
                got = fit(r.lo, r.hi, w)
                return got if got is not None else f"trunc may drop bits{_at(inst)}"
            return f"{cast} result{_at(inst)}"
        if k == "cmp":
            return Range(0, 1)
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
            return f"value loaded from memory{_at(inst)}"
        if k in ("atomicrmw", "cmpxchg", "extractvalue"):
            return f"{k} result{_at(inst)}"
        if k == "unparsed":
            return f"instruction not understood{_at(inst)}"
        return f"'{ops.flags[0] if ops.flags else k}' not followed by the range analysis{_at(inst)}"

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
        if op == "add" or (op == "or" and "disjoint" in ops.flags):
            if not isinstance(a, Range):
                return a
            if not isinstance(b, Range):
                return b
            return fit(a.lo + b.lo, a.hi + b.hi, w) or f"{op} may wrap around{_at(inst)}"
        if op == "sub":
            if not isinstance(a, Range):
                return a
            if not isinstance(b, Range):
                return b
            return fit(a.lo - b.hi, a.hi - b.lo, w) or f"{op} may wrap around{_at(inst)}"
        if op == "mul":
            if not isinstance(a, Range):
                return a
            if not isinstance(b, Range):
                return b
            prods = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
            return fit(min(prods), max(prods), w) or f"{op} may wrap around{_at(inst)}"
        if op == "shl":
            if cb is None or not (0 <= cb.lo < w):
                return f"shl by a non-constant amount{_at(inst)}"
            if not isinstance(a, Range):
                return a
            return fit(a.lo << cb.lo, a.hi << cb.lo, w) or f"{op} may wrap around{_at(inst)}"
        if op == "lshr":
            if cb is None or not (0 <= cb.lo < w):
                return f"lshr by a non-constant amount{_at(inst)}"
            u = urange(a, w)
            return Range(u.lo >> cb.lo, u.hi >> cb.lo)
        if op == "ashr":
            if cb is None or not (0 <= cb.lo < w):
                return f"ashr by a non-constant amount{_at(inst)}"
            s = srange(a, w)
            return Range(s.lo >> cb.lo, s.hi >> cb.lo)
        if op == "udiv":
            if cb is None:
                return f"udiv by a non-constant{_at(inst)}"
            d = urange(cb, w).lo
            if d <= 0:
                return f"udiv by zero{_at(inst)}"
            u = urange(a, w)
            return Range(u.lo // d, u.hi // d)
        if op == "urem":
            if cb is None:
                return f"urem by a non-constant{_at(inst)}"
            d = urange(cb, w).lo
            if d <= 0:
                return f"urem by zero{_at(inst)}"
            u = urange(a, w)
            if u.hi < d:
                return u
            return Range(0, d - 1)
        if op == "srem":
            if cb is None or not isinstance(a, Range):
                return f"srem{_at(inst)}"
            d = abs(srange(cb, w).lo)
            s = srange(a, w)
            if d == 0 or s.lo < 0:
                return f"srem of a value that may be negative{_at(inst)}"
            return Range(s.lo, s.hi) if s.hi < d else Range(0, d - 1)
        if op == "sdiv":
            if cb is None:
                return f"sdiv by a non-constant{_at(inst)}"
            d = srange(cb, w).lo
            s = srange(a, w)
            if d <= 0 or s.lo < 0:
                return f"sdiv of a value that may be negative{_at(inst)}"
            return Range(s.lo // d, s.hi // d)
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
        return f"'{op}' not followed by the range analysis{_at(inst)}"

    def _may_be_poison(self, freeze: Instruction | None) -> Why | None:
        """Why the value ``freeze`` freezes may be poison or undef, or None when it cannot.

        Ranges lean on facts whose violation gives poison, not undefined behaviour
        (``!range``, ``range()``, ``or disjoint``, ``icmp samesign``, ``exact``, ...), and
        phis and selects skip ``undef``: an access through poison is undefined, so those
        ranges hold wherever an access is defined. ``freeze`` turns poison into an arbitrary
        value, so its range is the operand's only when no such fact is on the way."""
        if freeze is None:
            return "freeze in a constant expression"
        todo = [freeze]
        seen: set[str] = set()
        while todo:
            inst = todo.pop()
            raw = self.mod.text[inst.start:inst.end]
            text = _QUOTED_RE.sub('""', raw)
            m = _POISON_RE.search(text)
            if m:
                return f"freeze of a value that may be poison ('{m.group()}', line {inst.line})"
            if inst.opcode == "call":
                cm = re.search(r"@([-a-zA-Z$._0-9]+)\s*\(", text)
                if cm and self._decl_range(cm.group(1)) is not None:
                    return f"freeze of a value that may be poison (range() of @{cm.group(1)}, line {inst.line})"
            for t in tokenize(raw):
                if t.kind == "local" and inst.name is not None and canon_name(t.text) == inst.name:
                    continue
                if t.kind != "local" or t.text in seen:
                    continue
                seen.add(t.text)
                dep = self.fn.by_name.get(canon_name(t.text))
                if dep is not None:
                    if len(seen) > 1000:
                        return "freeze of a value computed by too many instructions to check"
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
            wg = work_group(self.mod, self.fn, self.family)
            bound = wg.bounds[dim]
            r: IntResult = Range(0, bound - 1) if bound is not None else "thread id with no known bound"
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
        return f"result of a call to {('@' + name) if name else 'an indirect callee'}{_at(inst)}"

    def _call_annotations(self, text: str, name: str, w: int) -> Range | None:
        """``range(iW a, b)`` on the call's return and ``!range`` metadata (and the declaration's
        ``range()``): every source LLVM itself trusts. Their intersection, or None."""
        out: Range | None = None
        cut = text.find("@" + name + "(") if name else -1
        # quoted text (a result name, a string attribute) is not an attribute of the call
        head = _QUOTED_RE.sub('""', text[:cut]) if cut >= 0 else ""
        found: list[Range] = []
        for m in _RANGE_ATTR_RE.finditer(head):
            r = _half_open(int(m.group(2)), int(m.group(3)), int(m.group(1)))
            if r is not None:
                found.append(r)
        m2 = _RANGE_MD_RE.search(_QUOTED_RE.sub('""', text))
        if m2:
            node = self.mod.metadata_text(int(m2.group(1))) or ""
            vals = [int(x) for x in _INT_PAIR_RE_VALUES(node)]
            if vals and len(vals) % 2 == 0:
                pieces = [_half_open(vals[i], vals[i + 1], w) for i in range(0, len(vals), 2)]
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
                got = _half_open(int(m.group(2)), int(m.group(3)), int(m.group(1)))
        self._decl_ranges[name] = got
        return got

    # ----------------------------------------------------------------- phis
    def _select(self, ops: Ops, w: int) -> IntResult:
        """The join of both arms, each narrowed by what the condition says when it is chosen
        (``select (icmp slt x, 2), x, 0``: the first arm is below 2)."""
        cond = ops.operands[0][1]
        arms: list[IntResult] = []
        for pos, holds in ((1, True), (2, False)):
            ty, v = ops.operands[pos]
            r = self.int_range(ty, v)
            if isinstance(r, str) and "itself" in r:
                return r  # inside a loop being solved: let the phi iterate
            narrowed = self._narrow(r, v, cond, holds, w)
            if narrowed is None:
                continue  # this arm is never chosen
            arms.append(narrowed)
        if not arms:
            return "select with no possible value"
        out = arms[0]
        for r in arms[1:]:
            out = join(out, r, w)
        return out

    def _narrow(self, r: IntResult, v: Value, cond: Value, holds: bool, w: int) -> IntResult | None:
        """``r`` (the range of ``v``) where ``cond`` is ``holds``; None when that cannot be."""
        if not isinstance(cond, LocalRef):
            return r
        cmp = self.fn.by_name.get(cond.name)
        if cmp is None or cmp.opcode != "icmp":
            return r
        ops = opparse.parse(self.mod, cmp)
        pm = re.search(r"\bicmp\s+(?:samesign\s+)?([a-z]+)", self.mod.text[cmp.start:cmp.end])
        if ops.kind != "cmp" or pm is None or _width(ops.operands[0][0]) != w:
            return r
        pred = pm.group(1)
        (ty, a), (_, b) = ops.operands
        if not _same(a, v):
            if not _same(b, v):
                return r
            a, b = b, a
            pred = _SWAP.get(pred, "")
        if not holds:
            pred = _NEGATE.get(pred, "")
        other = self.int_range(ty, b)
        if pred in ("ult", "ule", "ugt", "uge"):
            x, o = urange(r, w), urange(other, w)
            lo, hi = x.lo, x.hi
            if pred == "ult":
                hi = min(hi, o.hi - 1)
            elif pred == "ule":
                hi = min(hi, o.hi)
            elif pred == "ugt":
                lo = max(lo, o.lo + 1)
            else:
                lo = max(lo, o.lo)
        elif pred in ("slt", "sle", "sgt", "sge"):
            x, o = srange(r, w), srange(other, w)
            lo, hi = x.lo, x.hi
            if pred == "slt":
                hi = min(hi, o.hi - 1)
            elif pred == "sle":
                hi = min(hi, o.hi)
            elif pred == "sgt":
                lo = max(lo, o.lo + 1)
            else:
                lo = max(lo, o.lo)
        elif pred == "eq" and isinstance(other, Range):
            return other
        else:
            return r
        if lo > hi:
            return None
        return Range(lo, hi)

    def _phi(self, inst: Instruction, ops: Ops, w: int) -> IntResult:
        counted = self._counted_loop(inst, ops, w)
        if isinstance(counted, Range):
            return counted
        ty = ops.result_type
        assert ty is not None
        vals = [v for v in ops.incoming if not isinstance(v, UndefConst)]
        if not vals:
            return "phi of undef values only"
        out: IntResult | None = None
        cyclic = False
        for v in vals:
            r = self.int_range(ty, v)
            if isinstance(r, str) and "itself" in r:
                cyclic = True
                continue
            out = r if out is None else join(out, r, w)
            if not isinstance(out, Range):
                return out
        if not cyclic:
            return out if out is not None else "phi of undef values only"
        if not isinstance(out, Range) or inst.name is None:
            return f"loop phi with no bound (line {inst.line})"
        # An inductive invariant: assume the phi in R, evaluate the loop's values under that
        # assumption; when every incoming value lands in R again, R holds on every iteration.
        key = "i" + inst.name
        assumed: Range = out
        try:
            for _ in range(4):
                self._assume[key] = assumed
                nxt: IntResult = assumed
                for v in vals:
                    r = self.int_range(ty, v)
                    nxt = join(nxt, r, w)
                    if not isinstance(nxt, Range):
                        return f"loop phi with no bound (line {inst.line})"
                if not isinstance(nxt, Range):
                    break
                if nxt == assumed:
                    return assumed
                assumed = nxt
        finally:
            self._assume.pop(key, None)
        return f"loop phi with no bound (line {inst.line})"

    def _phi_labels(self, inst: Instruction) -> list[str] | None:
        toks = tokenize(self.mod.text[inst.start:inst.end])
        labels: list[str] = []
        depth = 0
        last_local: str | None = None
        for t in toks:
            if t.text == "[":
                depth += 1
                last_local = None
            elif t.text == "]":
                depth -= 1
                if last_local is None:
                    return None
                labels.append(canon_name(last_local))
            elif depth == 1 and t.kind == "local":
                last_local = t.text
            elif t.kind == "metadata" and depth == 0:
                break
        return labels

    def _terminator(self, label: str) -> Instruction | None:
        """The last instruction of block ``label`` (instructions are in text order)."""
        fn = self.fn
        try:
            idx = fn.blocks.index(label)
        except ValueError:
            return None
        offsets = fn.block_offsets
        nxt = offsets[idx + 1] if idx + 1 < len(offsets) else len(self.mod.text) + 1
        k = bisect.bisect_left(fn.instrs, nxt, key=lambda i: i.start) - 1
        if k < 0 or fn.instrs[k].block != idx:
            return None
        return fn.instrs[k]

    def _counted_loop(self, inst: Instruction, ops: Ops, w: int) -> IntResult | None:
        """``i = phi [init, ...], [i + c, latch]`` whose back edge is taken only while a
        compare of ``i + c`` (or ``i``) against a bound holds. The bound is an invariant:
        every value the phi receives is an initial value or passed the compare."""
        labels = self._phi_labels(inst)
        if labels is None or len(labels) != len(ops.incoming) or inst.name is None:
            return None
        ty = ops.result_type
        assert ty is not None
        me = inst.name
        header = self.fn.blocks[inst.block] if inst.block < len(self.fn.blocks) else None
        inits: list[Range] = []
        backs: list[tuple[int, str, int, str]] = []  # (step, latch label, compared is next?, next name)
        for v, label in zip(ops.incoming, labels, strict=True):
            if isinstance(v, UndefConst):
                continue
            step = self._step_of(v, me, w)
            if step is None:
                r = self.int_range(ty, v)
                if not isinstance(r, Range):
                    return None
                inits.append(r)
            else:
                assert isinstance(v, LocalRef)
                backs.append((step, label, 0, v.name))
        if not backs or not inits or header is None:
            return None
        sign = None
        los: list[int] = []
        his: list[int] = []
        for step, label, _, nxt in backs:
            cond = self._back_edge_condition(label, header)
            if cond is None:
                return None
            pred, lhs, rhs = cond
            if isinstance(rhs, LocalRef) and rhs.name in (nxt, me) and not (
                    isinstance(lhs, LocalRef) and lhs.name in (nxt, me)):
                lhs, rhs = rhs, lhs
                pred = _SWAP.get(pred, "")
            if not isinstance(lhs, LocalRef) or lhs.name not in (nxt, me):
                return None
            compared_next = lhs.name == nxt
            bound_r = self.int_range(ty, rhs)
            if pred in ("ult", "ule", "slt", "sle"):
                signed = pred[0] == "s"
                if sign is not None and sign != signed:
                    return None
                sign = signed
                b = srange(bound_r, w) if signed else urange(bound_r, w)
                top = b.hi - 1 if pred.endswith("lt") else b.hi
                his.append(top if compared_next else top + step)
            elif pred == "ne":
                # exact counting: every init equal, the bound a constant reached exactly, and
                # this the loop's only back edge (another could step past the bound)
                if not isinstance(bound_r, Range) or len(backs) != 1:
                    return None
                bound = bound_r
                if bound.lo != bound.hi or any(r.lo != r.hi for r in inits):
                    return None
                start = inits[0].lo
                if any(r.lo != start for r in inits) or bound.lo <= start or (bound.lo - start) % step:
                    return None
                top = bound.lo - step if compared_next else bound.lo
                his.append(top)
                los.append(start)
            else:
                return None
        lo = min(r.lo for r in inits)
        hi = max([r.hi for r in inits] + his)
        if sign is None:
            # only 'ne' exits: the values run from the start up to the bound, no wrap
            return fit(lo, hi, w)
        init_ok = all((r.lo >= 0 and r.hi < (1 << w)) if not sign else (r.hi < (1 << (w - 1))) for r in inits)
        limit = (1 << (w - 1)) if sign else (1 << w)
        # the increment of any value up to the bound must not wrap
        if not init_ok or lo < (-(1 << (w - 1)) if sign else 0) or \
                max(hi, *his) + max(s for s, _, _, _ in backs) >= limit:
            return None
        return fit(lo, hi, w)

    def _step_of(self, v: Value, me: str, w: int) -> int | None:
        """``c`` when ``v`` is ``add me, c`` with a constant ``c > 0``."""
        if not isinstance(v, LocalRef):
            return None
        inst = self.fn.by_name.get(v.name)
        if inst is None or inst.opcode not in ("add", "or"):
            return None
        ops = opparse.parse(self.mod, inst)
        if ops.kind != "binop" or ops.flags[0] != "add":
            return None
        (_, a), (_, b) = ops.operands
        if isinstance(b, LocalRef) and b.name == me:
            a, b = b, a
        if not (isinstance(a, LocalRef) and a.name == me):
            return None
        c = const_range(b, w)
        if c is None or c.lo <= 0:
            return None
        return c.lo

    def _back_edge_condition(self, latch: str, header: str) -> tuple[str, Value, Value] | None:
        """(pred, lhs, rhs) such that the edge latch -> header is taken only when it holds."""
        term = self._terminator(latch)
        if term is None or term.opcode != "br":
            return None
        m = re.match(r"\s*br\s+i1\s+(%[-a-zA-Z$._0-9]+|%\"[^\"]*\")\s*,\s*label\s+(%[-a-zA-Z$._0-9]+|%\"[^\"]*\")"
                     r"\s*,\s*label\s+(%[-a-zA-Z$._0-9]+|%\"[^\"]*\")",
                     self.mod.text[term.start:term.end])
        if m is None:
            return None
        cond, t_label, f_label = (canon_name(m.group(i)) for i in (1, 2, 3))
        if t_label == f_label:
            return None
        if t_label == header:
            negate = False
        elif f_label == header:
            negate = True
        else:
            return None
        cmp = self.fn.by_name.get(cond)
        if cmp is None or cmp.opcode != "icmp":
            return None
        text = self.mod.text[cmp.start:cmp.end]
        pm = re.search(r"\bicmp\s+(?:samesign\s+)?([a-z]+)", text)
        ops = opparse.parse(self.mod, cmp)
        if pm is None or ops.kind != "cmp" or ops.operands[0][0].kind != "int":
            return None
        pred = pm.group(1)
        if negate:
            pred = _NEGATE.get(pred, "")
        return pred, ops.operands[0][1], ops.operands[1][1]

    # ------------------------------------------------------------ addresses
    def offset(self, ty: Type, v: Value) -> OffResult:
        """The root and byte offsets of address ``v`` (a pointer, or an integer that
        carries a root's address)."""
        if self._depth == 0:
            self._budget = BUDGET
        if isinstance(v, LocalRef):
            got = self.offs.get(v.name)
            if got is not None:
                return got
            inst = self.fn.by_name.get(v.name)
            if inst is None:
                return f"argument {v.name}"
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
        if isinstance(v, GlobalRef):
            root = self.fa.value(v)
            if isinstance(root, Root):
                return Off(root, 0, 0)
            return f"{v.name} is not a root"
        if isinstance(v, ConstExpr):
            return self._off_constexpr(v)
        return "address not traced to a root"

    def _modulus_ok(self, ty: Type) -> bool:
        """An integer holding a root's address must keep all of its pointer bits."""
        return ty.kind == "int" and ty.bits >= self.dl.pointer_bits(3)

    def _off_constexpr(self, ce: ConstExpr) -> OffResult:
        op = ce.opcode
        if op == "getelementptr" and ce.operands and ce.dest is not None:
            return self._gep(ce.dest, ce.operands)
        if op in ("bitcast", "addrspacecast", "inttoptr", "ptrtoint", "zext", "sext", "trunc") and ce.operands:
            return self._cast_off(op, ce.operands[0], ce.dest)
        if op in ("add", "sub", "or") and len(ce.operands) == 2:
            return self._add_off(op, ce.flags, ce.operands)
        return f"constant expression '{op}' on an address"

    def _off_inst(self, inst: Instruction) -> OffResult:
        if "vscale" in self.mod.text[inst.start:inst.end]:
            return "scalable vector type: its size is not known" + _at(inst)
        ops = opparse.parse(self.mod, inst)
        k = ops.kind
        if k == "gep":
            if ops.source_type is None:
                return "getelementptr not understood" + _at(inst)
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
                    if "itself" in r:
                        return f"address advanced around a loop by a phi{_at(inst)}"
                    return r
                if out is not None and out.root is not r.root:
                    return f"{k} of two roots{_at(inst)}"
                out = r if out is None else Off(r.root, min(out.lo, r.lo), max(out.hi, r.hi))
            return out if out is not None else f"{k} of undef values only{_at(inst)}"
        if k == "call":
            callee = ops.callee
            name = callee.name[1:] if isinstance(callee, GlobalRef) else ""
            if (name.startswith("llvm.amdgcn.readfirstlane") or name.startswith("llvm.amdgcn.readlane")
                    or name.startswith("llvm.ssa.copy")) and ops.operands:
                return self.offset(*ops.operands[0])
            return f"address returned by a call to {('@' + name) if name else 'an indirect callee'}{_at(inst)}"
        return f"address computed by '{ops.flags[0] if ops.flags else k}'{_at(inst)}"

    def _cast_off(self, cast: str, src: tuple[Type, Value], dest: Type | None) -> OffResult:
        sty, sv = src
        if cast == "bitcast" and not sty.is_pointer:
            return "bitcast of an integer to an address"
        if dest is None or not (dest.is_pointer or dest.kind == "int"):
            return f"{cast} to a non-scalar type"
        r = self.offset(sty, sv)
        if not isinstance(r, Off):
            return r
        if dest.kind == "int" and not self._modulus_ok(dest):
            return f"{cast} to i{dest.bits} drops address bits"
        if sty.kind == "int" and not self._modulus_ok(sty):
            return f"{cast} from i{sty.bits} lost address bits"
        return r

    def _add_off(self, op: str, flags: tuple[str, ...], operands: list[tuple[Type, Value]]) -> OffResult:
        if op not in ("add", "sub") and not (op == "or" and "disjoint" in flags):
            return f"'{op}' on an address"
        (ta, va), (tb, vb) = operands
        if not self._modulus_ok(ta):
            return f"address arithmetic in i{ta.bits} drops address bits"
        pa = self.fa.value(va)
        pb = self.fa.value(vb)
        if op != "sub" and not isinstance(pa, Root) and isinstance(pb, Root):
            va, vb, ta, tb = vb, va, tb, ta
        base = self.offset(ta, va)
        if not isinstance(base, Off):
            return base
        r = self.int_range(tb, vb)
        if not isinstance(r, Range):
            return f"offset with no range: {r}"
        if op == "sub":
            return Off(base.root, base.lo - r.hi, base.hi - r.lo)
        return Off(base.root, base.lo + r.lo, base.hi + r.hi)

    def _gep(self, source: Type, operands: list[tuple[Type, Value]]) -> OffResult:
        bty, bv = operands[0]
        if not bty.is_pointer:
            return "getelementptr on a vector of pointers"
        base = self.offset(bty, bv)
        if not isinstance(base, Off):
            return base
        space = bty.addrspace if bty.addrspace >= 0 else 0
        iw = self.dl.index_bits(space)
        if iw < self.dl.pointer_bits(space):
            # the offset is added to the low index-width bits only: it wraps there
            return f"getelementptr index width ({iw}) narrower than the pointer"
        named = self.mod.named_types
        lo, hi = base.lo, base.hi
        cur: Type | None = source
        for n, (ity, iv) in enumerate(operands[1:]):
            if ity.kind != "int":
                return "getelementptr with a vector index"
            if cur is None:
                return "getelementptr through a type llnoalias cannot lay out"
            if n == 0:
                scale = self.dl.alloc_size(cur, named)
                nxt: Type | None = cur
            else:
                rcur: Type | None = cur
                while rcur is not None and rcur.kind == "named":
                    rcur = named.get(rcur.name)
                if rcur is None:
                    return "getelementptr through an unknown named type"
                if rcur.kind == "struct":
                    c = int_const(iv)
                    layout = self.dl.struct_layout(rcur, named)
                    if c is None or layout is None or not (0 <= c < len(rcur.fields)):
                        return "getelementptr into a struct not laid out"
                    lo += layout[0][c]
                    hi += layout[0][c]
                    cur = rcur.fields[c]
                    continue
                if rcur.kind in ("array", "vector") and rcur.elem is not None:
                    nxt = rcur.elem
                    scale = self.dl.alloc_size(rcur.elem, named)
                else:
                    return "getelementptr into a non-aggregate type"
            if scale is None:
                return "getelementptr over a type with no known size"
            r = self.int_range(ity, iv)
            if not isinstance(r, Range):
                return f"getelementptr index with no range: {r}"
            if ity.bits > iw:
                # truncated to the index width, then read as signed
                if not (-(1 << (iw - 1)) <= r.lo and r.hi < (1 << (iw - 1))):
                    return "getelementptr index truncated to the index width may wrap"
            else:
                r = srange(r, ity.bits)  # sign-extended to the index width
                if ity.bits > 8 and is_full(r, ity.bits):
                    return "getelementptr index may be negative once sign-extended"
            a, b = r.lo * scale, r.hi * scale
            lo += min(a, b)
            hi += max(a, b)
            cur = nxt
        return Off(base.root, lo, hi)


def _same(a: Value, b: Value) -> bool:
    if isinstance(a, LocalRef) and isinstance(b, LocalRef):
        return a.name == b.name
    ca, cb = int_const(a), int_const(b)
    return ca is not None and ca == cb


def _half_open(lo: int, hi: int, w: int) -> Range | None:
    """``[lo, hi)`` as LLVM's ConstantRange writes it, when it does not wrap."""
    mask = (1 << w) - 1
    ulo, uhi = lo & mask, hi & mask
    if ulo < uhi:
        return Range(ulo, uhi - 1)
    return None


_SWAP = {"ult": "ugt", "ugt": "ult", "ule": "uge", "uge": "ule", "slt": "sgt", "sgt": "slt", "sle": "sge",
         "sge": "sle", "eq": "eq", "ne": "ne"}
_NEGATE = {"ult": "uge", "uge": "ult", "ule": "ugt", "ugt": "ule", "slt": "sge", "sge": "slt", "sle": "sgt",
           "sgt": "sle", "eq": "ne", "ne": "eq"}


__all__ = ["FunctionRanges", "Off", "Range", "WorkGroup", "fit", "srange", "urange", "work_group"]
