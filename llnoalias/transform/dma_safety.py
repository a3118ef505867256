"""Scopes the code generator can live with around LDS-DMA (SPEC section 4b).

LLVM 21 and later (measured: llvmlite 0.50's LLVM 22.1) decide the ``vmcnt`` wait between an
LDS-DMA write (``buffer_load ... lds``, ``global_load_lds_*``) and a later LDS access in
``SIInsertWaitcnts``. A DMA whose LDS memory operand carries ``!alias.scope`` gets a slot of
its own; a DMA without one only bumps the shared slot 0. An LDS access that carries *any*
alias metadata (``!alias.scope``, ``!noalias``, even ``!tbaa``) is checked against the slots
only, with ``MachineInstr::mayAlias``, and never against slot 0; an access with none waits
for every DMA in flight. So, in LLVM 22.1:

1. a DMA with no ``!alias.scope`` is invisible to every LDS access that carries alias
   metadata: no wait at all (``unscoped DMA``);
2. for a scoped DMA, alias analysis is asked about one lane's ``size`` bytes at the LDS
   pointer operand (not the immediate offset, not the other 63 lanes of the wave): an
   access that shares the DMA's scope but lies provably outside that small window gets no
   wait (``window``), and keeping only ``!noalias`` on it does not help (measured).

What this module does with it, per function, after the regions are known:

- (a) when some LDS-DMA of the function stays without an LDS scope (its destination was not
  traced, or it is untagged for any other reason), no LDS access of the function gets any
  LDS metadata from llnoalias: reason ``untraced LDS-DMA in the function``;
- (b) an access that shares an LDS scope with a DMA of the function keeps its metadata only
  where no sound alias analysis can tell the two apart (``keeps``); otherwise it gets no
  LDS metadata at all (neither ``!alias.scope`` nor ``!noalias``), so it waits for every
  DMA in flight;
- where the input itself is in state 1 (a DMA without ``!alias.scope`` beside LDS accesses
  that carry alias metadata), the DMA is scoped when it can be traced (even in a domain of
  one scope) and otherwise the run carries a warning with the line.

``keeps`` is true in two cases only:

- the two addresses provably overlap: both decompose (through ``getelementptr``, casts,
  ``ptrtoint``/``inttoptr`` and additions) to the same base and the same variable terms,
  and the constant parts put the access's bytes inside the DMA's one-lane window. A sound
  alias analysis can then never answer NoAlias, whatever the code generator's passes do;
- the DMA's LDS pointer is an ``inttoptr`` of an integer that is not simply a
  ``ptrtoint`` (BasicAA does not look through ``inttoptr``; it takes it as an object of its
  own), and the access's base, found the same way BasicAA finds it, is a different object
  that is neither a phi nor a select (which BasicAA recurses into) nor an ``inttoptr`` of
  the same integer (which CSE may merge into the DMA's). Probed with llvmlite's LLVM: a
  read of ``@A + 4`` through a getelementptr beside a DMA to ``inttoptr(ptrtoint @A + 8)``
  keeps its wait; to ``inttoptr(ptrtoint @A + 0)`` (folded to ``@A``) it loses it.
"""

from __future__ import annotations

from ..analysis.accesses import target_family
from ..analysis.interval import int_const
from ..analysis.ranges import FunctionRanges
from ..analysis.rootset import LDS_DOMAIN
from ..ir import operands as opparse
from ..ir.datalayout import DataLayout, layout_of
from ..ir.lazyre import lazy
from ..ir.model import ConstExpr, Function, GlobalRef, LocalRef, Module, Value
from ..ir.types import Type
from .scopes import Decision, Plan, may_overlap

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

#: LDS-DMA intrinsics: (name pattern, index of the LDS pointer operand, index of the size operand)
_DMA = (
    (lazy(r"llvm\.amdgcn\.(raw|struct)(\.ptr)?\.buffer\.load\.(async\.)?lds"), 1, 2),
    (lazy(r"llvm\.amdgcn\.global\.load\.(async\.)?lds(\..*)?"), 1, 2),
    (lazy(r"llvm\.amdgcn\.load\.to\.lds(\..*)?"), 1, 2),
)
_AA_MD = lazy(r"!(alias\.scope|noalias|tbaa|tbaa\.struct)(?![-a-zA-Z$._0-9])")
_SCOPE_MD = lazy(r"!alias\.scope(?![-a-zA-Z$._0-9])")

#: How deep the address walks go (a longer chain is "not known": no claim is kept on it).
_DEPTH = 64

#: One access's address, summarised while its function's operands are alive (plain data,
#: shipped by workers): whether it is an LDS-DMA; the semantic decomposition (base,
#: constant, variable terms) or None; BasicAA's base (name, kind, integer operand of an
#: inttoptr); the bytes it touches at its address (a DMA: one lane's), or None.
#: Then where it is: its block, its index in the function, the index of the last full
#: ``vmcnt`` wait before it in its block (-1: none), and for a DMA the blocks a path from it
#: reaches without passing such a wait (empty when a wait follows it in its own block).
Sem = tuple[str, int, tuple[tuple[str, int], ...]]
AABase = tuple[str, str, str]
Summary = tuple[bool, "Sem | None", AABase, "int | None", int, int, int, tuple[int, ...]]


def dma_operands(name: str | None) -> tuple[int, int] | None:
    """The LDS pointer's and the size's operand indices of an LDS-DMA intrinsic, or None."""
    if not name:
        return None
    for rx, ptr_i, size_i in _DMA:
        if rx.fullmatch(name):
            return ptr_i, size_i
    return None


class _Walker:
    """Decomposes the addresses of one function (cached per name)."""

    def __init__(self, mod: Module, fn: Function, dl: DataLayout, ranges: FunctionRanges | None = None) -> None:
        self.mod = mod
        self.fn = fn
        self.dl = dl
        #: integer ranges (work-group bounds, masks, ...): a value whose range is {0} may
        #: fold to 0 in the code generator's simplifications too
        self.ranges = ranges
        self.sems: dict[str, Sem | None] = {}

    # ------------------------------------------------------ semantic decomposition
    def sem(self, ty: Type, v: Value, depth: int = 0) -> Sem | None:
        if depth > _DEPTH:
            return None
        c = int_const(v)
        if c is not None:
            return "", c, ()
        if isinstance(v, GlobalRef):
            return v.name, 0, ()
        if isinstance(v, ConstExpr):
            return self._sem_parts(v.opcode, v.flags, v.operands, v.dest, depth)
        if not isinstance(v, LocalRef):
            return None
        if v.name in self.sems:
            return self.sems[v.name]
        self.sems[v.name] = None  # a cycle (a phi) ends here: not known
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
            if n == 0:
                scale = self.dl.alloc_size(cur, named)
            else:
                rcur: Type | None = cur
                while rcur is not None and rcur.kind == "named":
                    rcur = named.get(rcur.name)
                if rcur is None:
                    return None
                if rcur.kind == "struct":
                    c = int_const(iv)
                    layout = self.dl.struct_layout(rcur, named)
                    if c is None or layout is None or not (0 <= c < len(rcur.fields)):
                        return None
                    const += layout[0][c]
                    cur = rcur.fields[c]
                    continue
                if rcur.kind not in ("array", "vector") or rcur.elem is None:
                    return None
                cur = rcur.elem
                scale = self.dl.alloc_size(rcur.elem, named)
            if scale is None:
                return None
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
                return self._inttoptr(v.name, ops.operands[0][1], depth)
        if k in ("phi", "select"):
            return v.name, "phi", ""
        return v.name, "other", ""

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
        walk cannot see through: ranges say the rest."""
        c = int_const(v)
        if c is not None:
            return c == 0
        if depth > _DEPTH or not isinstance(v, LocalRef):
            return False
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
            return False
        return not isinstance(r, str) and r.lo == 0 and r.hi == 0


def _value_key(v: Value) -> str:
    if isinstance(v, LocalRef | GlobalRef):
        return v.name
    return repr(v)


def _merge(a: tuple[tuple[str, int], ...], b: tuple[tuple[str, int], ...], scale: int) -> tuple[tuple[str, int], ...]:
    out: dict[str, int] = dict(a)
    for name, s in b:
        out[name] = out.get(name, 0) + s * scale
    return tuple(sorted((n, s) for n, s in out.items() if s))


#: a wait for every vector-memory operation: ``s.waitcnt(0)`` (every counter, in every
#: encoding), gfx12's ``s.wait.loadcnt(0)``, or inline assembly that waits for ``vmcnt(0)``
_KILL = lazy(r"@llvm\.amdgcn\.s\.waitcnt\(i32 0\)|@llvm\.amdgcn\.s\.wait\.loadcnt\(i16 0\)"
             r"|\basm\b[^\n]*\b(s_waitcnt vmcnt\(0\)|s_waitcnt 0\b|s_wait_loadcnt 0x0\b|s_wait_loadcnt 0\b)")
_LABEL = lazy(r"label %([-a-zA-Z$._0-9]+|\d+|\"[^\"]*\")")


class _Flow:
    """Which LDS accesses an LDS-DMA may still be in flight at: reached from the DMA by a
    path that passes no wait for every vector-memory operation (a DMA that such a wait
    retired cannot lose a wait it no longer needs)."""

    def __init__(self, mod: Module, fn: Function) -> None:
        text = mod.text
        instrs = fn.instrs
        nblocks = max(len(fn.blocks), 1)
        self.index = {id(inst): n for n, inst in enumerate(instrs)}
        self.block = [inst.block for inst in instrs]
        #: per instruction: the index of the last wait at or before it in its block
        self.last_kill: list[int] = []
        first_kill = [-1] * nblocks
        last_in_block = [-1] * nblocks
        cur_block, last = -1, -1
        for n, inst in enumerate(instrs):
            b = self.block[n]
            if b != cur_block:
                cur_block, last = b, -1
            if inst.opcode == "call" and _KILL.search(text, inst.start, inst.end):
                last = n
                if first_kill[b] < 0:
                    first_kill[b] = n
            self.last_kill.append(last)
            last_in_block[b] = n
        names = {name: i for i, name in enumerate(fn.blocks)}
        self.succ: list[list[int]] = [[] for _ in range(nblocks)]
        for b in range(nblocks):
            t = last_in_block[b]
            if t < 0:
                continue
            for m in _LABEL.finditer(text, instrs[t].start, instrs[t].end):
                target = names.get("%" + m.group(1))
                if target is not None:
                    self.succ[b].append(target)
        self.first_kill = first_kill
        self._reach: dict[int, tuple[int, ...]] = {}

    def reach_from_exit(self, b: int) -> tuple[int, ...]:
        """The blocks a path leaving block ``b`` enters before it passes a wait."""
        got = self._reach.get(b)
        if got is None:
            seen: set[int] = set()
            todo = list(self.succ[b])
            while todo:
                x = todo.pop()
                if x in seen:
                    continue
                seen.add(x)
                if self.first_kill[x] < 0:  # no wait in it: paths go on through it
                    todo.extend(self.succ[x])
            got = self._reach[b] = tuple(sorted(seen))
        return got

    def where(self, inst: object, is_dma: bool) -> tuple[int, int, int, tuple[int, ...]]:
        n = self.index[id(inst)]
        b = self.block[n]
        reach: tuple[int, ...] = ()
        if is_dma:
            # the last wait of its block (-1: none) lies before it: paths leave the block open
            ends = n + 1
            open_ = True
            while ends < len(self.block) and self.block[ends] == b:
                if self.last_kill[ends] == ends:
                    open_ = False
                    break
                ends += 1
            reach = self.reach_from_exit(b) if open_ else ()
        return b, n, self.last_kill[n], reach


def summarise(mod: Module, fn: Function, decisions: list[Decision]) -> None:
    """Give every LDS decision of ``fn`` its address summary (``Decision.dma``), while the
    function's operands are alive."""
    lds = [d for d in decisions if d.domain == LDS_DOMAIN]
    if not lds or not any(dma_operands(d.access.intrinsic) for d in lds):
        return
    fa = next((d.fa for d in lds if d.fa is not None), None)
    dl = layout_of(mod)
    ranges = FunctionRanges(mod, fn, fa, target_family(mod.triple), dl) if fa is not None else None
    w = _Walker(mod, fn, dl, ranges)
    flow = _Flow(mod, fn)
    named = mod.named_types
    for d in lds:
        acc = d.access
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
            size = None if ty is None else w.dl.store_size(ty, named)
        pos = flow.where(acc.inst, dma is not None)
        if ptr is None:
            d.dma = (dma is not None, None, ("", "unknown", ""), None, *pos)
            continue
        d.dma = (dma is not None, w.sem(ptr[0], ptr[1]), w.aa_base(ptr[1]), size, *pos)


def in_flight(acc: Summary, dma: Summary) -> bool:
    """May ``dma`` still be in flight when ``acc`` runs (a path from it with no full wait)?"""
    blk_a, idx_a, kill_a = acc[4], acc[5], acc[6]
    blk_d, idx_d, reach_d = dma[4], dma[5], dma[7]
    if blk_a == blk_d and idx_a > idx_d and kill_a < idx_d:
        return True
    return kill_a < 0 and blk_a in reach_d


def keeps(acc: Summary | None, dma: Summary) -> bool:
    """May ``acc`` keep a scope it shares with ``dma`` (see the module's docstring)?"""
    if acc is None:
        return False
    sem_a, aa_a, size_a = acc[1], acc[2], acc[3]
    sem_d, aa_d, size_d = dma[1], dma[2], dma[3]
    if sem_a is not None and sem_d is not None and size_a and size_d:
        if sem_a[0] and sem_a[0] == sem_d[0] and sem_a[2] == sem_d[2]:
            c = sem_a[1] - sem_d[1]
            if c < size_d and c + size_a > 0:
                return True
    name_d, kind_d, int_d = aa_d
    name_a, kind_a, int_a = aa_a
    if kind_d != "inttoptr":
        return False
    if kind_a in ("phi", "unknown") or name_a == name_d:
        return False
    return not (kind_a == "inttoptr" and int_a == int_d)


class Guarded:
    """What the guard found for the report: warnings ``(line, col, message)``."""

    def __init__(self) -> None:
        self.warnings: list[tuple[int, int, str]] = []


def _code(d: Decision) -> str:
    inst = d.access.inst
    src = inst.function.source
    text = src.text[inst.start:inst.end] if src is not None else ""
    return text


def _short(d: Decision) -> str:
    code = " ".join(_code(d).strip().split(", !")[0].split())
    if len(code) > 90:
        code = code[:87] + "..."
    return f"line {d.access.inst.line}: `{code}`"


def _withdraw(d: Decision, reason: str, blocker: str) -> None:
    d.keys = []
    d.reason = reason
    d.blocker = blocker


UNTRACED = "untraced LDS-DMA in the function: its LDS accesses get no LDS scopes"
WINDOW = ("shares an LDS scope with an LDS-DMA that alias analysis may tell apart from it "
          "(one lane's window): no LDS scopes")


LOWERED = ("LDS-DMA into a static LDS variable, addressed directly: LLVM's module-LDS lowering "
           "replaces the alias metadata of its accesses, so the function gets no LDS scopes and the "
           "DMA no metadata at all")


def lowered(mod: Module, p: Plan, out: Guarded) -> None:
    """Rule (c), before ``guard``: a DMA whose LDS destination is a static (sized) variable
    addressed directly (through ``getelementptr``, casts and constant expressions, which
    LLVM's module-LDS lowering follows; not through ``inttoptr``, which it does not).

    When a kernel uses two static variables or more, the lowering scopes every access it
    finds of them, and one that already carries ``!alias.scope`` / ``!noalias`` is given
    the intersection with its own: scopes of another domain (llnoalias's, the argument
    domain's) drop out, ``!alias.scope`` goes away and an empty ``!noalias !{}`` stays
    (LLVM's own test ``lower-lds-struct-aa-merge.ll``). A DMA that llnoalias tagged, in any
    domain, so leaves the lowering unscoped, and every LDS access with metadata then misses
    it (rule (a)'s state, made by LLVM): measured with llvmlite's LLVM, a read of the DMA's
    own bytes lost its wait. So such a DMA gets no metadata from llnoalias in any domain,
    and its function's LDS accesses none in the LDS domain (an access of the same static
    variable would have its claim replaced anyway; a claim on another access can take away
    a wait that the input had only by chance).

    Where the lowering scopes the DMA and an access of the same variable that alias
    analysis may tell apart from the DMA's one-lane window, LLVM 21 and later lose the wait
    whatever llnoalias does: a warning with the access's line."""
    static = frozenset(g.name for g in mod.globals.values() if g.addrspace == 3 and not g.is_zero_sized)
    if not static:
        return
    dl = layout_of(mod)
    hit: set[int] = set()
    by_fn: dict[int, list[Decision]] = {}
    for d in p.decisions:
        by_fn.setdefault(id(d.access.inst.function), []).append(d)
    for ds in by_fn.values():
        fn = ds[0].access.inst.function
        w: _Walker | None = None
        lowered_dmas: list[Decision] = []
        seen: set[int] = set()
        for d in ds:
            idx = dma_operands(d.access.intrinsic)
            if idx is None or id(d.access.inst) in seen:
                continue
            seen.add(id(d.access.inst))
            ops = opparse.parse(mod, d.access.inst)
            if len(ops.operands) <= idx[0]:
                continue
            w = w or _Walker(mod, fn, dl)
            name, kind, _ = w.aa_base(ops.operands[idx[0]][1])
            if kind == "global" and name in static:
                lowered_dmas.append(d)
        if not lowered_dmas:
            continue
        insts = {id(d.access.inst) for d in lowered_dmas}
        hit |= insts
        blocker = _short(lowered_dmas[0])
        for d in ds:
            if d.keys and (d.domain == LDS_DOMAIN or id(d.access.inst) in insts):
                _withdraw(d, LOWERED, blocker)
        risky = _lowered_window(ds, insts)
        if risky is not None:
            m, acc = risky
            _warn(out, acc, "LDS access of a static LDS variable that the LDS-DMA at "
                  f"{_short(m)} may still be writing: LLVM's module-LDS lowering scopes both, and "
                  "LLVM 21 and later may then put no vmcnt wait between them (alias analysis "
                  "sees one lane's window of the DMA), with or without llnoalias")


def _lowered_window(ds: list[Decision], insts: set[int]) -> tuple[Decision, Decision] | None:
    """A lowered DMA of ``insts`` and an access of the same static variable, addressed
    directly too, that it may still be writing and that alias analysis may tell apart from
    its one-lane window (the LDS domain's summaries; none without LDS roots)."""
    dmas = [d for d in ds if d.domain == LDS_DOMAIN and d.dma is not None and d.dma[0]
            and id(d.access.inst) in insts]
    for m in dmas:
        assert m.dma is not None
        for d in ds:
            if d.domain != LDS_DOMAIN or d.dma is None or d.dma[0]:
                continue
            if d.dma[2][1] != "global" or d.dma[2][0] != m.dma[2][0]:
                continue
            if in_flight(d.dma, m.dma) and not keeps(d.dma, m.dma):
                return m, d
    return None


def guard(p: Plan) -> list[Decision]:
    """Rules (a) and (b) over the plan, before ``finish``. Returns the DMAs of functions
    whose input is already in the unsafe state (to ``rescue`` after ``finish``)."""
    by_fn: dict[int, list[Decision]] = {}
    for d in p.decisions:
        if d.domain == LDS_DOMAIN and d.dma is not None:
            by_fn.setdefault(id(d.access.inst.function), []).append(d)
    unsafe_in: list[Decision] = []
    for ds in by_fn.values():
        dmas = [d for d in ds if d.dma is not None and d.dma[0]]
        if not dmas:
            continue
        if any(_AA_MD.search(_code(d)) for d in ds if d.dma is not None and not d.dma[0]):
            unsafe_in.extend(d for d in dmas if not _SCOPE_MD.search(_code(d)))
        bare = [d for d in dmas if not d.keys]
        if bare:
            blocker = _short(bare[0])
            for d in ds:
                if d.keys:
                    _withdraw(d, UNTRACED, blocker)
            continue
        # DMAs with equal scopes share one slot, and SIInsertWaitcnts asks alias analysis
        # about the slot's first DMA only: when any DMA of a group may be in flight, the
        # access must keep its claim against every DMA of the group
        groups: dict[tuple[int, ...], tuple[Sequence[object], list[Decision]]] = {}
        for d in dmas:
            groups.setdefault(tuple([id(k) for k in d.keys]), (d.keys, []))[1].append(d)
        for d in ds:
            if not d.keys or d.dma is None or d.dma[0]:
                continue
            for keys, members in groups.values():
                if not any(may_overlap(k, kd) for k in d.keys for kd in keys):  # type: ignore[arg-type]
                    continue
                if not any(m.dma is not None and in_flight(d.dma, m.dma) for m in members):
                    continue
                bad = next((m for m in members if m.dma is not None and not keeps(d.dma, m.dma)), None)
                if bad is not None:
                    _withdraw(d, WINDOW, _short(bad))
                    break
    return unsafe_in


def _why(d: Decision) -> str:
    if not d.reason or "not explained" in d.reason:
        return "its LDS destination is not traced"
    return d.reason


def rescue(p: Plan, unsafe_in: list[Decision], out: Guarded) -> None:
    """After ``finish``: a DMA of an input already in the unsafe state gets its root's
    scope when it was traced (also in a domain of one scope); else a warning, one per
    function (at its first such DMA)."""
    left: dict[int, list[Decision]] = {}
    for d in unsafe_in:
        if d.keys:
            continue
        if d.roots and len(d.roots) == 1 and d.reason.startswith("single scope"):
            keys = p.domain_keys.setdefault(d.domain, [])
            if d.roots[0] not in keys:
                keys.append(d.roots[0])
            d.keys = list(d.roots)
            d.reason = d.blocker = ""
            continue
        left.setdefault(id(d.access.inst.function), []).append(d)
    for ds in left.values():
        d = ds[0]
        more = f" (and {len(ds) - 1} more LDS-DMA like it in {d.access.inst.function.name})" if len(ds) > 1 else ""
        _warn(out, d, "LDS-DMA without !alias.scope in a function whose LDS accesses carry alias metadata "
              "(!alias.scope, !noalias or !tbaa): LLVM 21 and later put no vmcnt wait between them; "
              f"llnoalias cannot scope it ({_why(d)}){more}")


def residual(p: Plan, out: Guarded) -> None:
    """After ``rescue``: warn where the input's own metadata keeps an access in the unsafe
    shape that llnoalias cannot undo (it adds metadata, never removes it). An LDS access
    that carries the producer's ``!alias.scope``/``!noalias``/``!tbaa`` is checked by
    ``SIInsertWaitcnts`` against every scoped LDS-DMA through alias analysis, which may tell
    it apart from the DMA's one-lane window although another lane writes its bytes (rule
    (b) of the module's docstring); llnoalias withholds its own scopes from such an access,
    but the producer's stay. One warning per function, at the first such access."""
    by_fn: dict[int, list[Decision]] = {}
    for d in p.decisions:
        if d.domain == LDS_DOMAIN and d.dma is not None:
            by_fn.setdefault(id(d.access.inst.function), []).append(d)
    for ds in by_fn.values():
        dmas = [d for d in ds if d.dma is not None and d.dma[0] and d.keys]
        if not dmas:
            continue
        risky: list[tuple[Decision, Decision]] = []
        for d in ds:
            if d.dma is None or d.dma[0] or not _AA_MD.search(_code(d)):
                continue
            roots = {id(r) for r in d.roots}
            for m in dmas:
                if roots and not roots & {id(r) for r in m.roots}:
                    continue  # another buffer: the scopes tell them apart, rightly
                if m.dma is not None and in_flight(d.dma, m.dma) and not keeps(d.dma, m.dma):
                    risky.append((d, m))
                    break
        if risky:
            d, m = risky[0]
            more = (f" (and {len(risky) - 1} more LDS access like it in {d.access.inst.function.name})"
                    if len(risky) > 1 else "")
            _warn(out, d, "LDS access with the input's own alias metadata (!alias.scope, !noalias or "
                  f"!tbaa) that alias analysis may tell apart from the LDS-DMA at {_short(m)} by one "
                  "lane's window although other lanes write its bytes: LLVM 21 and later may put no "
                  f"vmcnt wait between them, and llnoalias does not remove metadata{more}")


def _warn(out: Guarded, d: Decision, message: str) -> None:
    code = _code(d)
    out.warnings.append((d.access.inst.line, len(code) - len(code.lstrip()) + 1, message))


_DMA_TEXT = lazy(r"@llvm\.amdgcn\.[\w.]*(load\.lds|load\.to\.lds|load\.async\.lds)")


def static_lds(mod: Module, p: Plan, out: Guarded) -> None:
    """Warn where LLVM's module-LDS lowering will put the input in the unsafe state itself:
    an LDS-DMA through an address it cannot see through (an ``inttoptr``), left without
    !alias.scope, in a function that accesses two static (sized) LDS variables directly,
    whose accesses the lowering scopes. Probed with llvmlite's LLVM: no vmcnt wait between
    such a DMA and a read of its bytes (llc-19 waits); ``--lds all`` scopes the DMA."""
    if not _DMA_TEXT.search(mod.text):
        return
    static = {g.name for g in mod.globals.values() if g.addrspace == 3 and not g.is_zero_sized}
    if len(static) < 2:
        return
    scoped = {id(d.access.inst) for d in p.decisions if d.domain == LDS_DOMAIN and d.keys}
    from ..analysis.accesses import find_accesses

    dl = layout_of(mod)
    for fn in mod.functions:
        if fn.body_pending or not fn.instrs:
            continue
        accs = find_accesses(mod, fn)
        dmas = [a for a in accs if dma_operands(a.intrinsic) and id(a.inst) not in scoped
                and not _SCOPE_MD.search(mod.text[a.inst.start:a.inst.end])]
        if not dmas:
            continue
        w = _Walker(mod, fn, dl)
        seen: set[str] = set()
        for a in accs:
            if a.kind in ("load", "store", "atomicrmw", "cmpxchg") and a.pointers:
                name, kind, _ = w.aa_base(a.pointers[0].value)
                if kind == "global" and name in static:
                    seen.add(name)
        if len(seen) < 2:
            continue
        hidden = []
        for a in dmas:
            ops = opparse.parse(mod, a.inst)
            idx = dma_operands(a.intrinsic)
            if idx is None or len(ops.operands) <= idx[0]:
                continue
            if w.aa_base(ops.operands[idx[0]][1])[1] != "global":
                hidden.append(a)
        if hidden:
            first = Decision(hidden[0], None, LDS_DOMAIN)
            more = f" (and {len(hidden) - 1} more in {fn.name})" if len(hidden) > 1 else ""
            _warn(out, first, "LDS-DMA through an integer address beside accesses of static LDS variables: "
                  "LLVM's module-LDS lowering scopes those accesses and not this DMA, and LLVM 21 and later "
                  f"then put no vmcnt wait between them; --lds all lets llnoalias scope the DMA{more}")


__all__ = ["LOWERED", "UNTRACED", "WINDOW", "Guarded", "dma_operands", "guard", "in_flight", "keeps", "lowered", "rescue", "residual",
           "static_lds", "summarise"]
