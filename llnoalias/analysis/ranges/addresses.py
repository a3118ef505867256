"""Addresses as the code generator will see them, for the LDS-DMA rules (design section 4b):
``dma_operands`` (which operand of an LDS-DMA intrinsic is its LDS pointer and which its
size), ``Walker`` (an address decomposed to a base and constant and variable terms, the same
``getelementptr`` step as the range solver's (``gep.gep_step``), and the object BasicAA's
underlying-object walk stops at) and ``access_address`` (the pointer and the bytes an access
touches). ``transform/dma_addresses.summarise`` makes each decision's summary from them.
"""

from __future__ import annotations

from ...ir import operands as opparse
from ...ir.lazyre import lazy
from ...ir.lexer import ICMP_HEAD
from ...ir.model import ConstExpr, GlobalRef, LocalRef, Value
from ..memory.intrinsics import lds_dma
from .gep import gep_step
from .interval import int_const

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...ir.datalayout import DataLayout
    from ...ir.model import Function, Module
    from ...ir.types import Type
    from ..memory.accesses import Access
    from .solver import FunctionRanges

#: an equality test that GVN may propagate a 0 from: ``icmp eq``/``ne`` or a ``switch`` case 0
_ZERO_TEST = lazy(ICMP_HEAD + r"(?:eq|ne)\b|\bi\d+\s+0\s*,\s*label\b")

#: How deep the address walks go (a longer chain is "not known": no claim is kept on it).
_DEPTH = 64

#: An address decomposed (``Walker.sem``): the base's name ("" for none), a constant and
#: the variable terms (name, factor), sorted by name.
Sem = tuple[str, int, tuple[tuple[str, int], ...]]
#: Where BasicAA's underlying-object walk stops (``Walker.aa_base``): name, kind, integer operand.
AABase = tuple[str, str, str]
#: The base and variable terms of an ``inttoptr``'s integer operand (``Walker.int_sem``).
IntSem = tuple[str, tuple[tuple[str, int], ...]]


def dma_operands(name: str | None) -> tuple[int, int] | None:
    """The LDS pointer's and the size's operand indices of an LDS-DMA intrinsic whose
    waits ``SIInsertWaitcnts`` decides from the alias metadata (``counter`` ``vmcnt`` in
    ``LDS_DMA``), or None (not an LDS-DMA, or one the code generator never waits for)."""
    dma = lds_dma(name)
    if dma is None or dma.counter != "vmcnt" or dma.size is None:
        return None
    return dma.lds, dma.size


class Walker:
    """Decomposes the addresses of one function (cached per name)."""

    def __init__(self, mod: Module, fn: Function, dl: DataLayout, ranges: FunctionRanges | None = None) -> None:
        self.mod = mod
        self.fn = fn
        self.dl = dl
        #: integer ranges (work-group bounds, masks, ...): a value whose range is {0} may
        #: fold to 0 in the code generator's simplifications too
        self.ranges = ranges
        self.sems: dict[str, Sem | None] = {}
        #: per ``inttoptr`` instruction ``aa_base`` stopped at: its integer operand's
        #: decomposition, base and variable terms (None: not known); ``int_sem`` reads it
        self.int_sems: dict[str, IntSem | None] = {}
        #: ``_may_be_zero`` of a local name: (answer, how deep below it the walk went);
        #: the answer holds at any depth the walk's limit leaves that much room under
        self._zero: dict[str, tuple[bool, int]] = {}
        #: the deepest depth a ``_may_be_zero`` walk reached so far
        self._deepest = 0
        #: how often a walk was cut short (the depth limit, a RecursionError): an answer
        #: whose walk was is not kept
        self._cuts = 0
        #: the local names an ``icmp eq``/``ne`` compares with 0 or a ``switch`` has a case 0
        #: for (made on first use): the code generator's GVN puts 0 for them where the test said so
        self._tested: set[str] | None = None

    # ------------------------------------------------------ semantic decomposition
    def sem(self, ty: Type, v: Value, depth: int = 0) -> Sem | None:
        if depth > _DEPTH:
            return None
        if not isinstance(v, LocalRef):  # (a local name is no constant: its cache first)
            c = int_const(v)
            if c is not None:
                return "", c, ()
            if isinstance(v, GlobalRef):
                return v.name, 0, ()
            if isinstance(v, ConstExpr):
                return self._sem_parts(v.opcode, v.flags, v.operands, v.dest, depth)
            return None
        sems = self.sems
        if v.name in sems:
            return sems[v.name]
        sems[v.name] = None  # a cycle (a phi) ends here: not known
        inst = self.fn.by_name.get(v.name)
        got: Sem | None
        if inst is None:  # an argument
            got = (v.name, 0, ()) if ty.is_pointer else ("", 0, ((v.name, 1),))
        else:
            ops = opparse.parse(self.mod, inst)
            k = ops.kind
            if k == "gep":
                got = self._sem_parts("getelementptr", ops.flags, ops.operands, ops.source_type, depth)
            elif k == "cast":
                got = self._sem_parts(ops.flags[0], (), ops.operands, ops.result_type, depth)
            elif k == "binop":
                got = self._sem_parts(ops.flags[0], ops.flags[1:], ops.operands, None, depth)
            else:
                got = None
            if got is None:
                # a value not followed (a loaded pointer, a phi, a call, a shift) is itself:
                # a base of its own when a pointer, else a variable term
                got = (v.name, 0, ()) if ty.is_pointer else ("", 0, ((v.name, 1),))
        self.sems[v.name] = got
        return got

    def _sem_parts(self, op: str, flags: Sequence[str], operands: list[tuple[Type, Value]],
                   ty: Type | None, depth: int) -> Sem | None:
        if op == "getelementptr":
            if ty is None or not operands:
                return None
            base = self.sem(operands[0][0], operands[0][1], depth + 1)
            if base is None or not base[0]:
                return None
            return self._gep(base, ty, operands[1:], depth)
        if op in ("bitcast", "addrspacecast", "inttoptr", "ptrtoint") and operands:
            return self.sem(operands[0][0], operands[0][1], depth + 1)
        if (op == "add" or (op == "or" and "disjoint" in flags)) and len(operands) == 2:
            a = self.sem(operands[0][0], operands[0][1], depth + 1)
            b = self.sem(operands[1][0], operands[1][1], depth + 1)
            if a is None or b is None or (a[0] and b[0]):
                return None
            return a[0] or b[0], a[1] + b[1], _merge(a[2], b[2], 1)
        return None

    def _gep(self, base: Sem, source: Type, indices: list[tuple[Type, Value]], depth: int) -> Sem | None:
        named = self.mod.named_types
        name, const, terms = base
        cur: Type | None = source
        for n, (ity, iv) in enumerate(indices):
            if cur is None or ity.kind != "int":
                return None
            step = gep_step(self.dl, named, cur, n, iv)
            if isinstance(step, str):
                return None
            field, cur, scale = step
            if scale is None:  # a struct field: a constant offset
                const += field
                continue
            idx = self.sem(ity, iv, depth + 1)
            if idx is None or idx[0]:
                return None
            const += idx[1] * scale
            terms = _merge(terms, idx[2], scale)
        return name, const, terms

    # ------------------------------------------------------ BasicAA's base
    def aa_base(self, v: Value, depth: int = 0) -> AABase:
        """The object BasicAA's underlying-object walk stops at: ``(name, kind, intop)``,
        kind ``global``, ``inttoptr`` (``intop``: its integer operand), ``phi`` (phis
        and selects: BasicAA recurses into them), ``other`` or ``unknown``."""
        if depth > _DEPTH:
            return "", "unknown", ""
        if isinstance(v, GlobalRef):
            return v.name, "global", ""
        if isinstance(v, ConstExpr):
            if v.opcode in ("getelementptr", "bitcast", "addrspacecast") and v.operands:
                return self.aa_base(v.operands[0][1], depth + 1)
            if v.opcode == "inttoptr" and v.operands:
                return self._inttoptr("", v.operands[0][1], depth)
            return "", "unknown", ""
        if not isinstance(v, LocalRef):
            return "", "unknown", ""
        inst = self.fn.by_name.get(v.name)
        if inst is None:
            return v.name, "other", ""
        ops = opparse.parse(self.mod, inst)
        k = ops.kind
        if k == "gep" and ops.operands:
            return self.aa_base(ops.operands[0][1], depth + 1)
        if k == "cast" and ops.operands:
            if ops.flags[0] in ("bitcast", "addrspacecast"):
                return self.aa_base(ops.operands[0][1], depth + 1)
            if ops.flags[0] == "inttoptr":
                got = self._inttoptr(v.name, ops.operands[0][1], depth)
                if got[1] == "inttoptr" and v.name not in self.int_sems:
                    sem = self.sem(ops.operands[0][0], ops.operands[0][1], depth + 1)
                    self.int_sems[v.name] = None if sem is None else (sem[0], sem[2])
                return got
        if k in ("phi", "select"):
            return v.name, "phi", ""
        return v.name, "other", ""

    def int_sem(self, base: AABase) -> IntSem | None:
        """For an ``inttoptr`` base of ``aa_base``: the base and variable terms of its
        integer operand's decomposition, whatever the constant (None: not known, or no
        ``inttoptr``). Two integers with equal ones may be one value to the code generator
        (CSE merges equal expressions): ``keeps`` compares these, never the names."""
        if base[1] != "inttoptr":
            return None
        return self.int_sems.get(base[0])

    def _inttoptr(self, name: str, iv: Value, depth: int) -> AABase:
        """``inttoptr iv``: folded to its pointer when ``iv`` simplifies to ``ptrtoint p``
        (the code generator's EarlyCSE simplifies each instruction: ``add x, 0`` is ``x``,
        ``inttoptr (ptrtoint p)`` is ``p``); else an object of its own."""
        p = self._ptrtoint_of(iv, depth)
        if p is not None:
            return self.aa_base(p, depth + 1)
        if not name:  # a constant expression: not an instruction CSE could tell apart
            return "", "unknown", ""
        return name, "inttoptr", _value_key(iv)

    def _ptrtoint_of(self, iv: Value, depth: int) -> Value | None:
        """The pointer ``p`` when integer ``iv`` may simplify, instruction by instruction,
        to ``ptrtoint p`` (an operand of an ``add``/``or``/``xor``/``sub`` that may
        simplify to 0 drops out); else None."""
        if depth > _DEPTH:
            return None
        if isinstance(iv, ConstExpr):
            if iv.opcode == "ptrtoint" and iv.operands:
                return iv.operands[0][1]
            return None
        if not isinstance(iv, LocalRef):
            return None
        inst = self.fn.by_name.get(iv.name)
        if inst is None:
            return None
        ops = opparse.parse(self.mod, inst)
        if ops.kind == "cast" and ops.flags[0] == "ptrtoint" and ops.operands:
            return ops.operands[0][1]
        if ops.kind == "cast" and ops.flags[0] in ("zext", "sext", "trunc", "bitcast") and ops.operands:
            return self._ptrtoint_of(ops.operands[0][1], depth + 1)
        if ops.kind in ("phi", "select") or (ops.kind == "freeze" and ops.operands):
            vals = (ops.incoming if ops.kind == "phi" else
                    [ops.operands[0][1]] if ops.kind == "freeze" else [ops.operands[1][1], ops.operands[2][1]])
            got = [self._ptrtoint_of(v, depth + 1) for v in vals]
            if got and all(g is not None for g in got) and len({_value_key(g) for g in got if g is not None}) == 1:
                return got[0]
            return None
        if ops.kind == "binop" and ops.flags[0] in ("add", "or", "xor", "sub") and len(ops.operands) == 2:
            (ta, a), (tb, b) = ops.operands
            if self._may_be_zero(tb, b, depth + 1):
                left = self._ptrtoint_of(a, depth + 1)
                if left is not None:
                    return left
            if ops.flags[0] != "sub" and self._may_be_zero(ta, a, depth + 1):
                return self._ptrtoint_of(b, depth + 1)
        return None

    def _may_be_zero(self, ty: Type, v: Value, depth: int) -> bool:
        """May integer ``v`` simplify to the constant 0 (a constant, an instruction that
        folds to 0, or a value whose range is {0})? Unknown counts as no only for what the
        walk cannot see through: ranges say the rest.

        Kept per name: the walk below a name is the same wherever it starts, as long as
        the depth limit does not cut it (the ranges keep each answer they gave), so an
        answer found ``h`` levels deep is reused at any depth with ``h`` levels of room."""
        c = int_const(v)
        if c is not None:
            return c == 0
        if not isinstance(v, LocalRef):
            return False
        if depth > _DEPTH:
            self._cuts += 1
            return False
        got = self._zero.get(v.name)
        if got is not None and depth + got[1] <= _DEPTH:
            if depth + got[1] > self._deepest:
                self._deepest = depth + got[1]
            return got[0]
        outer, cuts = self._deepest, self._cuts
        self._deepest = depth
        answer = self._zero_walk(ty, v, depth)
        if self._cuts == cuts:
            self._zero[v.name] = (answer, self._deepest - depth)
        if outer > self._deepest:
            self._deepest = outer
        return answer

    def _tested_names(self) -> set[str]:
        """``_tested``: an ``icmp eq``/``ne`` of a local name against 0, or a ``switch``
        on it with a case 0. GVN propagates the equality into the blocks the test dominates,
        where an address ``inttoptr(ptrtoint p + x)`` then folds to ``p`` (measured with
        llvmlite's LLVM: a branch on ``%x == 0`` took a read's wait away)."""
        got = self._tested
        if got is None:
            got = self._tested = set()
            text = self.mod.text
            for inst in self.fn.instrs:
                if inst.opcode not in ("icmp", "switch"):
                    continue
                if not _ZERO_TEST.search(text, inst.start, inst.end):
                    continue
                ops = opparse.parse(self.mod, inst).operands
                if inst.opcode == "switch":
                    if ops and isinstance(ops[0][1], LocalRef):
                        got.add(ops[0][1].name)
                    continue
                if len(ops) != 2:
                    continue
                for (_, a), (_, b) in ((ops[0], ops[1]), (ops[1], ops[0])):
                    if isinstance(a, LocalRef) and int_const(b) == 0:
                        got.add(a.name)
        return got

    def _zero_walk(self, ty: Type, v: LocalRef, depth: int) -> bool:
        """``_may_be_zero`` of a local name, walked."""
        if v.name in self._tested_names():
            return True
        inst = self.fn.by_name.get(v.name)
        if inst is not None:
            ops = opparse.parse(self.mod, inst)
            if ops.kind == "binop" and len(ops.operands) == 2:
                op = ops.flags[0]
                (ta, a), (tb, b) = ops.operands
                same = _value_key(a) == _value_key(b)
                if op in ("sub", "xor") and same:
                    return True
                if op in ("and", "mul") and (self._may_be_zero(ta, a, depth + 1) or self._may_be_zero(tb, b, depth + 1)):
                    return True
                if op in ("shl", "lshr", "ashr", "udiv", "sdiv", "urem", "srem") and self._may_be_zero(ta, a, depth + 1):
                    return True
                if op in ("add", "or", "xor", "sub") and self._may_be_zero(ta, a, depth + 1) \
                        and self._may_be_zero(tb, b, depth + 1):
                    return True
            if ops.kind == "cast" and ops.flags[0] in ("zext", "sext", "trunc") and ops.operands:
                if self._may_be_zero(ops.operands[0][0], ops.operands[0][1], depth + 1):
                    return True
        if self.ranges is None:
            return False
        try:
            r = self.ranges.int_range(ty, v)
        except RecursionError:
            self._cuts += 1
            return False
        return not isinstance(r, str) and r.lo == 0 and r.hi == 0


def _value_key(v: Value) -> str:
    if isinstance(v, LocalRef | GlobalRef):
        return v.name
    return repr(v)


def _merge(a: tuple[tuple[str, int], ...], b: tuple[tuple[str, int], ...], scale: int) -> tuple[tuple[str, int], ...]:
    """The terms of ``a + scale * b``, sorted by name, none with factor 0. Every term tuple
    is made here or has at most one term with factor 1, so ``a`` and ``b`` are such
    already: with one of them empty the sum is the other as it is."""
    if not b:
        return a
    if not a and scale == 1:
        return b
    out: dict[str, int] = dict(a)
    for name, s in b:
        out[name] = out.get(name, 0) + s * scale
    return tuple(sorted((n, s) for n, s in out.items() if s))


def access_address(mod: Module, acc: Access, dl: DataLayout) -> tuple[bool, tuple[Type, Value] | None, int | None]:
    """Whether ``acc`` is an LDS-DMA the code generator waits for (``dma_operands``), the
    pointer it writes (a DMA: its LDS pointer) or reads through, and the bytes it touches
    there (a DMA: one lane's; None: not known); no pointer for another kind of access."""
    dma = dma_operands(acc.intrinsic)
    ops = opparse.parse(mod, acc.inst)
    size: int | None = None
    ptr: tuple[Type, Value] | None = None
    if dma is not None:
        if len(ops.operands) > dma[1]:
            ptr = ops.operands[dma[0]]
            size = int_const(ops.operands[dma[1]][1])
    elif acc.kind in ("load", "store", "atomicrmw", "cmpxchg") and acc.pointers:
        p = acc.pointers[0]
        ptr = (p.type, p.value)
        ty = ops.result_type if acc.kind == "load" else (
            ops.operands[0][0] if acc.kind == "store" and ops.operands else
            ops.operands[1][0] if len(ops.operands) > 1 else None)
        size = None if ty is None else dl.store_size(ty, mod.named_types)
    return dma is not None, ptr, size


def dma_lds_pointer(mod: Module, acc: Access) -> Value | None:
    """The LDS pointer operand of an LDS-DMA ``acc`` (``dma_operands``), or None when it is
    no such DMA or lacks the operand."""
    idx = dma_operands(acc.intrinsic)
    if idx is None:
        return None
    ops = opparse.parse(mod, acc.inst)
    if len(ops.operands) <= idx[0]:
        return None
    return ops.operands[idx[0]][1]


__all__ = ["AABase", "IntSem", "Sem", "Walker", "access_address", "dma_lds_pointer", "dma_operands"]
