"""Concrete values of a function's integers and LDS pointers, one per thread (design 4b, "exact").

``check`` judges a pair of LDS accesses by the bytes each *thread* touches, not by a range over
every thread: a lane swizzle (``xor`` of the lane id) is a permutation of the lanes, and a slot
picked by a loop's stage counter is one slot per iteration. So an integer here is its value in
every thread of the work-group (thread ``t`` is lane ``t % W`` of wave ``t // W``), computed
exactly with the instruction's wrap-around; a value every thread shares is kept as one ``int``.
A pointer into LDS is its *space* (``DYN``, the dynamic LDS block every external zero-sized
``addrspace(3)`` global starts at, or a static global's name, which the module-LDS lowering
places apart from every other) and its byte offset there.

What is not known (a kernel argument, a loaded value, a work-group id, a phi that joins
different values) is an :class:`Unknown` that names the value and its line: ``check`` then
falls back on the range solver and, where that proves nothing, calls the pair *unproven*
with this value as what blocks the proof. The header phis of loops come from the caller's
*context* (``evolution``): their values in one iteration state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ... import reasons
from ...ir import operands as opparse
from ...ir.facts import LDS_ADDRSPACE
from ...ir.model import (
    AggregateConst,
    ConstExpr,
    Function,
    GlobalRef,
    Instruction,
    LocalRef,
    Module,
    Value,
)
from .gep import gep_step
from .interval import int_const

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ...ir.types import Type

#: the dynamic LDS block
DYN = "dyn"
#: the space of an LDS pointer argument (its name follows): where in LDS it points is not known
ARG_SPACE = "argument "

#: an integer in every thread: one ``int`` when all share it, else a tuple (one per thread)
Ints = int | tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Unknown:
    """A value this evaluation does not know, and why (the value and its line)."""

    why: str
    line: int = 0
    #: a phi of a join whose incoming values differ (the caller may try each of them)
    join: str = ""


@dataclass(frozen=True, slots=True)
class Ptr:
    """An LDS pointer: byte ``off`` of ``space`` in every thread."""

    space: str
    off: Ints


@dataclass(frozen=True, slots=True)
class PtrInt:
    """An integer that is an LDS address (``ptrtoint``): the space's base, not known, plus ``off``."""

    space: str
    off: Ints


Val = Ints | Ptr | PtrInt | Unknown


@dataclass(frozen=True, slots=True)
class Threads:
    """The threads evaluated: ``count`` threads of ``tid.x`` (the other ids 0), waves of ``wave`` lanes."""

    count: int
    wave: int

    @property
    def waves(self) -> int:
        return (self.count + self.wave - 1) // self.wave


def _why(value: str, what: str) -> str:
    """What blocks the evaluation of ``value``: a reason of the registry (``what``: a word or two)."""
    return reasons.NOT_EVALUATED.format(value=value, what=what)


def _mask(bits: int) -> int:
    return (1 << bits) - 1


def _signed(v: int, bits: int) -> int:
    v &= _mask(bits)
    return v - (1 << bits) if bits and v >> (bits - 1) else v


def select(c: Ints, a: Val, b: Val) -> Val | None:
    """Per thread ``a`` where bit 0 of ``c`` is set, else ``b``; an unknown one of them is the
    answer; None where they are not of one kind (integers, or pointers of one space)."""
    for x in (a, b):
        if isinstance(x, Unknown):
            return x
    if isinstance(a, (int, tuple)) and isinstance(b, (int, tuple)):
        return lift(lambda s, x, y: x if s & 1 else y, c, a, b)
    if isinstance(a, Ptr) and isinstance(b, Ptr) and a.space == b.space:
        return Ptr(a.space, lift(lambda s, x, y: x if s & 1 else y, c, a.off, b.off))
    if isinstance(a, PtrInt) and isinstance(b, PtrInt) and a.space == b.space:
        return PtrInt(a.space, lift(lambda s, x, y: x if s & 1 else y, c, a.off, b.off))
    return None


def lift(f: Callable[..., int], *args: Ints) -> Ints:
    """``f`` applied thread by thread (once when every argument is shared)."""
    if all(isinstance(a, int) for a in args):
        return f(*args)
    n = next(len(a) for a in args if isinstance(a, tuple))
    cols = [a if isinstance(a, tuple) else (a,) * n for a in args]
    return tuple(f(*row) for row in zip(*cols, strict=True))


def at(v: Ints, t: int) -> int:
    return v if isinstance(v, int) else v[t]


def _binop(op: str, a: int, b: int, bits: int) -> int | None:
    m = _mask(bits)
    a &= m
    b &= m
    if op == "add":
        return (a + b) & m
    if op == "sub":
        return (a - b) & m
    if op == "mul":
        return (a * b) & m
    if op == "and":
        return a & b
    if op == "or":
        return a | b
    if op == "xor":
        return a ^ b
    if op == "shl":
        return (a << b) & m if b < bits else None
    if op == "lshr":
        return a >> b if b < bits else None
    if op == "ashr":
        return (_signed(a, bits) >> b) & m if b < bits else None
    if b == 0:
        return None
    if op == "udiv":
        return a // b
    if op == "urem":
        return a % b
    sa, sb = _signed(a, bits), _signed(b, bits)
    q = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
    if op == "sdiv":
        return q & m
    if op == "srem":
        return (sa - q * sb) & m
    return None


_CMP: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b, "ugt": lambda a, b: a > b, "uge": lambda a, b: a >= b,
}
_SCMP: dict[str, Callable[[int, int], bool]] = {
    "slt": lambda a, b: a < b, "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
}
_MINMAX: dict[str, tuple[bool, Callable[[int, int], int]]] = {
    "smin": (True, min), "smax": (True, max), "umin": (False, min), "umax": (False, max),
}


def _bits(ty: Type | None) -> int:
    if ty is None:
        return 64
    if ty.kind == "int" and ty.bits:
        return ty.bits
    return 64 if ty.kind != "ptr" else 32


class Evaluator:
    """Values of one function's instructions in every thread, for one assignment of its loops'
    header phis (``phis``: name -> value). Memoized: make one per context."""

    def __init__(self, mod: Module, fn: Function, threads: Threads, phis: dict[str, Val],
                 is_header_phi: Callable[[str], bool], *, args: dict[str, int] | None = None,
                 choose: dict[str, int] | None = None,
                 every_lane: Callable[[Instruction], bool] | None = None) -> None:
        """``args``: values assumed for integer kernel arguments (for a witness); ``choose``: for
        phis of joins, the incoming value to take; ``every_lane``: whether every lane of the
        work-group runs an instruction (then a ``ballot`` or ``ds.bpermute`` there reads them all)."""
        self.mod = mod
        self.every_lane = every_lane
        self.args = args or {}
        self.choose = choose or {}
        self.fn = fn
        self.threads = threads
        self.phis = phis
        self.is_header_phi = is_header_phi
        self.dl = mod.facts.layout
        self.memo: dict[str, Val] = {}
        self._args = {a.name for a in fn.args}
        self._lds_args = {a.name for a in fn.args if a.type.kind == "ptr" and a.type.addrspace == LDS_ADDRSPACE}
        self._tid: tuple[int, ...] = tuple(range(threads.count))

    # -------------------------------------------------------------- values
    def value(self, ty: Type | None, v: Value) -> Val:
        if isinstance(v, LocalRef):
            got = self.memo.get(v.name)
            if got is None:
                self.memo[v.name] = Unknown(_why(v.name, "cycle"))
                got = self.memo[v.name] = self._local(v.name)
            return got
        if isinstance(v, GlobalRef):
            return self._global(v.name)
        if isinstance(v, ConstExpr):
            return self._constexpr(v)
        if isinstance(v, AggregateConst):
            return Unknown(_why("a constant", "aggregate"))
        c = int_const(v)
        if c is not None:
            return c & _mask(_bits(ty)) if ty is not None and ty.kind == "int" else c
        return Unknown(_why(str(getattr(v, "text", v)), "constant"))

    def _global(self, name: str) -> Val:
        facts = self.mod.facts
        if name in facts.dynamic_lds:
            return Ptr(DYN, 0)
        if name in facts.static_lds:
            return Ptr(name, 0)
        return Unknown(_why(name, "not LDS"))

    def _local(self, name: str) -> Val:
        if name in self.phis:
            return self.phis[name]
        if name in self._args:
            if name in self.args:
                return self.args[name]
            if name in self._lds_args:
                # an LDS pointer argument: a base of its own, not known, the same for every thread
                return Ptr(ARG_SPACE + name, 0)
            return Unknown(_why(name, "kernel argument"))
        inst = self.fn.by_name.get(name)
        if inst is None:
            return Unknown(_why(name, "undefined"))
        if inst.opcode == "phi" and self.is_header_phi(name):
            return Unknown(_why(name, "loop value"), inst.line)
        return self._inst(inst)

    def _unknown(self, inst: Instruction, what: str = "") -> Unknown:
        return Unknown(_why(str(inst.name), what or inst.opcode), inst.line)

    def _inst(self, inst: Instruction) -> Val:
        ops = opparse.parse(self.mod, inst)
        k = ops.kind
        if k == "binop":
            return self._binop(inst, ops.flags, ops.operands)
        if k == "cast":
            return self._cast(ops.flags[0], ops.operands[0], ops.result_type)
        if k == "gep":
            return self._gep(ops.source_type, ops.operands)
        if k == "freeze":
            return self.value(*ops.operands[0])
        if k == "cmp":
            return self._cmp(inst, ops.operands)
        if k == "select":
            return self._select(inst, ops.operands)
        if k == "phi":
            pick = self.choose.get(str(inst.name))
            if pick is not None and pick < len(ops.incoming):
                return self.value(ops.result_type, ops.incoming[pick])
            vals = [self.value(ops.result_type, v) for v in ops.incoming]
            first = vals[0] if vals else Unknown(_why("a phi", "empty"))
            if all(v == first for v in vals[1:]):
                return first
            return Unknown(_why(str(inst.name), "join"), inst.line,
                           join=str(inst.name))
        if k == "call":
            return self._call(inst, ops)
        if k == "load":
            return self._unknown(inst, "loaded value")
        return self._unknown(inst)

    def _binop(self, inst: Instruction, flags: tuple[str, ...], operands: list[tuple[Type, Value]]) -> Val:
        return self._binop_values(flags[0], flags, operands, str(inst.name), inst.line)

    def _binop_values(self, op: str, flags: tuple[str, ...], operands: list[tuple[Type, Value]], name: str,
                      line: int) -> Val:
        ty = operands[0][0]
        if ty.kind != "int":
            return Unknown(_why(name, f"{ty.kind} {op}"), line)
        bits = ty.bits or 64
        a, b = self.value(*operands[0]), self.value(*operands[1])
        if isinstance(a, Unknown):
            return a
        if isinstance(b, Unknown):
            return b
        if isinstance(a, PtrInt) or isinstance(b, PtrInt):
            # an LDS address plus an integer: only what keeps the base's bits untouched
            adds = op == "add" or (op == "or" and "disjoint" in flags)
            if adds and isinstance(a, PtrInt) and not isinstance(b, (PtrInt, Ptr)):
                return PtrInt(a.space, lift(lambda x, y: x + y, a.off, b))
            if adds and isinstance(b, PtrInt) and not isinstance(a, (PtrInt, Ptr)):
                return PtrInt(b.space, lift(lambda x, y: x + y, b.off, a))
            if op == "sub" and isinstance(a, PtrInt) and not isinstance(b, (PtrInt, Ptr)):
                return PtrInt(a.space, lift(lambda x, y: x - y, a.off, b))
            if op == "sub" and isinstance(a, PtrInt) and isinstance(b, PtrInt) and a.space == b.space:
                return lift(lambda x, y: (x - y) & _mask(bits), a.off, b.off)
            return Unknown(_why(name, f"address {op}"), line)
        if isinstance(a, Ptr) or isinstance(b, Ptr):
            return Unknown(_why(name, f"pointer {op}"), line)
        bad = False

        def f(x: int, y: int) -> int:
            nonlocal bad
            r = _binop(op, x, y, bits)
            if r is None:
                bad = True
                return 0
            return r

        out = lift(f, a, b)
        return Unknown(_why(name, f"{op} overflow"), line) if bad else out

    def _cast(self, cast: str, src: tuple[Type, Value], dest: Type | None) -> Val:
        v = self.value(*src)
        if isinstance(v, Unknown):
            return v
        sbits, dbits = _bits(src[0]), _bits(dest)
        if cast in ("bitcast", "addrspacecast"):
            if isinstance(v, Ptr) and dest is not None and dest.kind == "ptr" and dest.addrspace not in (
                    LDS_ADDRSPACE, 0):
                return Unknown(_why("a pointer", "addrspacecast"))
            return v
        if cast == "ptrtoint":
            return PtrInt(v.space, v.off) if isinstance(v, Ptr) else Unknown(_why("a pointer", "not LDS"))
        if cast == "inttoptr":
            if isinstance(v, PtrInt):
                return Ptr(v.space, v.off)
            return Unknown(_why("an integer", "not LDS"))
        if isinstance(v, (Ptr, PtrInt)):
            if cast in ("zext", "sext", "trunc") and isinstance(v, PtrInt) and dbits >= 32:
                return v
            return Unknown(_why("an address", cast))
        if cast == "zext":
            return lift(lambda x: x & _mask(sbits), v)
        if cast == "sext":
            return lift(lambda x: _signed(x, sbits) & _mask(dbits), v)
        if cast == "trunc":
            return lift(lambda x: x & _mask(dbits), v)
        return Unknown(_why("a value", cast))

    def _gep(self, source: Type | None, operands: list[tuple[Type, Value]]) -> Val:
        base = self.value(*operands[0])
        if isinstance(base, Unknown):
            return base
        if not isinstance(base, Ptr):
            return Unknown(_why("a getelementptr", "not LDS"))
        off: Ints = base.off
        cur = source
        named = self.mod.named_types
        for n, (ity, iv) in enumerate(operands[1:]):
            step = gep_step(self.dl, named, cur, n, iv)
            if isinstance(step, str):
                return Unknown(step)
            const, cur, scale = step
            if scale is None:
                off = lift(lambda x, c=const: x + c, off)
                continue
            idx = self.value(ity, iv)
            if not isinstance(idx, (int, tuple)):
                return idx if isinstance(idx, Unknown) else Unknown(_why("an index", "pointer"))
            ib = _bits(ity)
            off = lift(lambda x, i, s=scale, b=ib: x + _signed(i, b) * s, off, idx)
        return Ptr(base.space, off)

    def _cmp(self, inst: Instruction, operands: list[tuple[Type, Value]]) -> Val:
        text = self.mod.text[inst.opstart:inst.end].split()
        if not text or text[0] != "icmp" or len(text) < 2:
            return self._unknown(inst, "fcmp")
        pred = text[1]
        ty = operands[0][0]
        bits = _bits(ty)
        a, b = self.value(*operands[0]), self.value(*operands[1])
        for x in (a, b):
            if isinstance(x, Unknown):
                return x
        if not isinstance(a, (int, tuple)) or not isinstance(b, (int, tuple)):
            if isinstance(a, (Ptr, PtrInt)) and isinstance(b, (Ptr, PtrInt)) and type(a) is type(b) \
                    and a.space == b.space:
                a, b = a.off, b.off
            else:
                return self._unknown(inst, "address icmp")
        if pred in _CMP:
            fn = _CMP[pred]
            return lift(lambda x, y: int(fn(x & _mask(bits), y & _mask(bits))), a, b)
        if pred in _SCMP:
            sf = _SCMP[pred]
            return lift(lambda x, y: int(sf(_signed(x, bits), _signed(y, bits))), a, b)
        return self._unknown(inst, f"icmp {pred}")

    def _select(self, inst: Instruction, operands: list[tuple[Type, Value]]) -> Val:
        c = self.value(*operands[0])
        a, b = self.value(*operands[1]), self.value(*operands[2])
        if isinstance(c, Unknown):
            return c
        if not isinstance(c, (int, tuple)):
            return self._unknown(inst)
        if isinstance(c, int):
            return a if c & 1 else b
        got = select(c, a, b)
        return self._unknown(inst, "spaces select") if got is None else got

    def _call(self, inst: Instruction, ops: opparse.Ops) -> Val:
        callee = ops.callee
        name = callee.name.lstrip("@") if isinstance(callee, GlobalRef) else ""
        args = ops.operands
        th = self.threads
        if name in ("llvm.amdgcn.workitem.id.x", "llvm.nvvm.read.ptx.sreg.tid.x"):
            return self._tid
        if name in ("llvm.amdgcn.workitem.id.y", "llvm.amdgcn.workitem.id.z"):
            return 0  # ``Threads`` evaluates one-dimensional work-groups only (see ``threads_of``)
        if name == "llvm.amdgcn.wave.id":
            return tuple(t // th.wave for t in range(th.count))  # gfx1250: the wave's index in the group
        if name.startswith("llvm.amdgcn.readfirstlane") and args:
            v = self.value(*args[0])
            if isinstance(v, (int, Unknown)):
                return v
            vals = v if isinstance(v, tuple) else v.off
            if isinstance(vals, int):
                return v
            firsts = tuple(vals[(t // th.wave) * th.wave] for t in range(th.count))
            if isinstance(v, tuple):
                return firsts
            return Ptr(v.space, firsts) if isinstance(v, Ptr) else PtrInt(v.space, firsts)
        if name.startswith("llvm.amdgcn.ballot.") and len(args) == 1:
            return self._ballot(inst, args[0])
        if name == "llvm.amdgcn.ds.bpermute" and len(args) == 2:
            return self._bpermute(inst, args[0], args[1])
        if name.startswith("llvm.amdgcn.mbcnt.") and len(args) == 2:
            mask, acc = self.value(*args[0]), self.value(*args[1])
            if isinstance(mask, Unknown) or isinstance(acc, Unknown):
                return mask if isinstance(mask, Unknown) else acc
            if not isinstance(mask, (int, tuple)) or not isinstance(acc, (int, tuple)):
                return self._unknown(inst)
            hi = name.startswith("llvm.amdgcn.mbcnt.hi")

            def count(t: int, m: int, a: int) -> int:
                lane = t % th.wave
                below = (lane - 32) if hi else lane
                bits = m & ((1 << max(min(below, 32), 0)) - 1) if below > 0 else 0
                return (a + bin(bits).count("1")) & 0xFFFFFFFF

            return lift(count, self._tid, mask, acc)
        if name.startswith(("llvm.fshl.", "llvm.fshr.")) and len(args) == 3:
            return self._funnel(inst, name.startswith("llvm.fshl."), args)
        key = name.split(".")[1] if name.count(".") >= 2 else ""
        if name.startswith("llvm.") and key in _MINMAX and len(args) == 2:
            return self._minmax(inst, key, args)
        return self._unknown(inst, f"call @{name}" if name else "indirect call")

    def _lanes_all_run(self, inst: Instruction) -> bool:
        return self.every_lane is not None and self.every_lane(inst)

    def _ballot(self, inst: Instruction, arg: tuple[Type, Value]) -> Val:
        """The mask of the wave's lanes whose condition holds (every lane running it)."""
        c = self.value(*arg)
        if isinstance(c, Unknown):
            return c
        if not isinstance(c, (int, tuple)) or not self._lanes_all_run(inst):
            return self._unknown(inst, "ballot lanes")
        th = self.threads
        masks: list[int] = []
        for w in range(th.waves):
            m = 0
            for t in range(w * th.wave, min((w + 1) * th.wave, th.count)):
                if at(c, t) & 1:
                    m |= 1 << (t - w * th.wave)
            masks.append(m)
        return tuple(masks[t // th.wave] for t in range(th.count))

    def _bpermute(self, inst: Instruction, addr: tuple[Type, Value], data: tuple[Type, Value]) -> Val:
        """Each lane reads ``data`` of the wave's lane ``addr / 4`` (every lane running it)."""
        a, d = self.value(*addr), self.value(*data)
        for x in (a, d):
            if isinstance(x, Unknown):
                return x
        if not isinstance(a, (int, tuple)) or not isinstance(d, (int, tuple)) or not self._lanes_all_run(inst):
            return self._unknown(inst, "bpermute lanes")
        th = self.threads
        out = []
        for t in range(th.count):
            first = (t // th.wave) * th.wave
            src = first + (at(a, t) >> 2) % th.wave
            out.append(at(d, src) if src < th.count else 0)
        return tuple(out)

    def _funnel(self, inst: Instruction, left: bool, args: list[tuple[Type, Value]]) -> Val:
        """``llvm.fshl``/``llvm.fshr``: the two operands end to end, shifted by the third modulo the
        width (Triton's gfx1250 descriptors pack 48-bit fields with them)."""
        vals = [self.value(*a) for a in args]
        for x in vals:
            if isinstance(x, Unknown):
                return x
            if not isinstance(x, (int, tuple)):
                return self._unknown(inst)
        bits = _bits(args[0][0])
        m = _mask(bits)

        def f(a: int, b: int, c: int) -> int:
            c %= bits
            both = ((a & m) << bits) | (b & m)
            return ((both << c) >> bits) & m if left else (both >> c) & m

        a, b, c = vals
        assert isinstance(a, (int, tuple)) and isinstance(b, (int, tuple)) and isinstance(c, (int, tuple))
        return lift(f, a, b, c)

    def _minmax(self, inst: Instruction, key: str, args: list[tuple[Type, Value]]) -> Val:
        signed, pick = _MINMAX[key]
        a, b = self.value(*args[0]), self.value(*args[1])
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            return a if isinstance(a, Unknown) else b
        if not isinstance(a, (int, tuple)) or not isinstance(b, (int, tuple)):
            return self._unknown(inst)
        bits = _bits(args[0][0])
        m = _mask(bits)
        if signed:
            return lift(lambda x, y: pick(_signed(x, bits), _signed(y, bits)) & m, a, b)
        return lift(lambda x, y: pick(x & m, y & m), a, b)

    def _constexpr(self, ce: ConstExpr) -> Val:
        if ce.opcode == "getelementptr":
            return self._gep(ce.dest, ce.operands)
        if ce.opcode in ("bitcast", "addrspacecast", "ptrtoint", "inttoptr", "zext", "sext", "trunc") and ce.operands:
            return self._cast(ce.opcode, ce.operands[0], ce.dest)
        if ce.opcode in ("add", "sub", "or") and len(ce.operands) == 2:
            return self._binop_values(ce.opcode, ce.flags, ce.operands, f"a constant {ce.opcode}", 0)
        return Unknown(_why("a constant", ce.opcode))


def threads_of(fn: Function, text: str, bounds: list[int | None], wave: int) -> Threads | None:
    """The threads to evaluate ``fn`` in: a one-dimensional work-group of ``bounds[0]`` threads
    (the function reads no ``y``/``z`` id, or their bounds are 1); None otherwise."""
    x = bounds[0] if bounds else None
    if x is None or x <= 0:
        return None
    uses_yz = "workitem.id.y" in text or "workitem.id.z" in text
    if uses_yz and any(b != 1 for b in bounds[1:]):
        return None
    return Threads(x, wave)


__all__ = ["ARG_SPACE", "DYN", "Evaluator", "Ints", "Ptr", "PtrInt", "Threads", "Unknown", "Val", "at", "lift", "select", "threads_of"]
