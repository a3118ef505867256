"""The provenance solver (design section 2).

For each function, the values that feed memory accesses are solved to a fixpoint by an
optimistic worklist: every value starts at ``BOTTOM`` and only climbs, so a pointer that a
loop carries and advances with ``getelementptr`` keeps its root. Solving is demand
driven: only the backward slice of the values asked for is parsed and evaluated.

When a value becomes ``UNKNOWN`` here (not because an operand already was), the reason is
recorded, so ``--stats`` and ``explain`` can say why an access was left untagged.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ... import compiled, reasons
from ...ir import operands as opparse
from ...ir.lazyre import lazy
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
    UnknownValue,
    Value,
)
from ...ir.types import Type
from ..memory.intrinsics import (
    LaneIntrinsic,
    is_intrinsic,
    lane_intrinsic,
    lane_safe,
    may_store_operands,
    memory_intrinsic,
    pass_through,
)
from ..memory.loads import Slots, inst_text, runtime_pointer, unread_initializer
from .blame import NO_DEPS, Blame, local_deps
from .fixpoint import fixpoint, one_pass
from .lattice import BOTTOM, NONE, UNKNOWN, Agg, Lat, Root, has_provenance, join
from .rootset import RootSet

#: ``llvm.amdgcn.make.buffer.rsrc``: the provenance of its base pointer, whatever the rest
_RSRC_RE = lazy(r"llvm\.amdgcn\.make\.buffer\.rsrc(\..*)?")

KEEP_CASTS = {"ptrtoint", "inttoptr", "addrspacecast", "zext", "sext", "trunc", "ptrtoaddr"}

#: the compiled fixpoint and transfer of the common kinds (``_fixpoint.c``), or None:
#: ``fixpoint.fixpoint`` and ``fixpoint.one_pass``, in Python
_cfix = compiled.load("fixpoint")
if _cfix is not None:
    _cfix.init(BOTTOM, NONE, UNKNOWN, join, KEEP_CASTS, LocalRef, PlainConst, UndefConst, GlobalRef, Agg)
#: whether the compiled module has ``walk``: ``_walk`` step for step (else the Python function)
_CWALK = hasattr(_cfix, "walk")
#: the operands ``_walk`` hands to ``_reads`` (the general case)
_SPECIAL = (ConstExpr, AggregateConst)
#: ``NO_DEPS`` for the compiled walk: each kind, with whether ``_walk`` asks ``_reads`` what it reads
_NO_DEPS_READS = {kind: kind == "load" for kind in NO_DEPS}
#: how many times a function's stores are looked at again as stack slots fill with
#: addresses (a chain of slots longer than this makes every loaded integer unknown)
MAX_SLOT_ROUNDS = 16
GENERIC_OPS = {"fneg", "extractelement", "insertelement", "shufflevector", "fadd", "fsub", "fmul", "fdiv",
               "frem", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "xor", "or",
               "icmp", "fcmp", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp"}


class ModuleAnalysis:
    """Provenance for a whole module under one choice of roots."""

    def __init__(self, mod: Module, roots: RootSet) -> None:
        self.mod = mod
        self.roots = roots
        self.functions: dict[str, FunctionAnalysis] = {}
        #: Can an integer loaded from memory carry an address? (SPEC: loaded integer)
        #: Assumed not until ``settle`` has looked, which it only does when some result
        #: relied on a loaded integer being a plain value.
        self.memory_holds_addresses = False
        self.memory_reason = ""
        self.memory_decided = False
        self.loaded_int_used = False
        #: per function: private stack slots (``memory.Slots``) that some store
        #: writes an address into -> that store; only loads from them see the address
        self.slots_with_addresses: dict[str, dict[str, Instruction]] = {}
        self._slots: dict[str, Slots] = {}

    def settle(self) -> bool:
        """Decide whether memory may hold addresses, if any result so far assumed it does
        not. True when it may: every result computed so far is void and must be redone."""
        if self.memory_decided or not self.loaded_int_used:
            return False
        self._decide_memory()
        self.memory_decided = True
        return self.memory_holds_addresses or bool(self.slots_with_addresses)

    def release(self, fn: Function, keep_slots: bool = False) -> None:
        """Forget ``fn``'s provenance and parsed operands (they are parsed again if needed),
        and its stack slots unless ``keep_slots`` (the store scan looks at it again)."""
        self.functions.pop(fn.name, None)
        if not keep_slots:
            self._slots.pop(fn.name, None)
        for inst in fn.instrs:
            inst.ops = None

    def function(self, fn: Function) -> FunctionAnalysis:
        fa = self.functions.get(fn.name)
        if fa is None:
            fa = FunctionAnalysis(self, fn)
            self.functions[fn.name] = fa
        return fa

    def _decide_memory(self) -> None:
        """Optimistically (loaded integers carry nothing) look for a store of an address."""
        for g in self.mod.globals.values():
            if g.initializer_refs_globals and g.kind == "variable" and not unread_initializer(self.mod, g):
                self.memory_holds_addresses = True
                self.memory_reason = reasons.ADDRESS_IN_INITIALIZER.format(name=g.name, line=g.line)
                break
        # A store into a private slot taints that slot only; loads from it become unknown,
        # and what they read may be stored elsewhere. Slots are private to their function
        # and values reach other functions only through memory or calls (whose results and
        # parameters are unknown), so each function is scanned again until nothing changes.
        if not self.memory_holds_addresses:
            for fn in self.mod.functions:
                for _ in range(MAX_SLOT_ROUNDS):
                    if not self._scan_stores(fn) or self.memory_holds_addresses:
                        break
                else:
                    self.memory_holds_addresses = True
                    self.memory_reason = reasons.SLOT_CHAIN_TOO_LONG.format(function=fn.name,
                                                                            rounds=MAX_SLOT_ROUNDS)
                if self.memory_holds_addresses:
                    break
        if self.memory_holds_addresses or self.slots_with_addresses:
            # Results computed under the optimistic assumption are void.
            self.functions.clear()

    def _scan_stores(self, fn: Function) -> bool:
        """One look at every store of ``fn``; True when a private slot was newly found to
        hold an address (then loads from it are unknown, and the scan must run again)."""
        grew = False
        fa = self.function(fn)
        stored: list[tuple[Instruction, Value]] = []
        for inst in fn.instrs:
            op = inst.opcode
            if op == "store" or op == "atomicrmw" or op == "cmpxchg":
                ops = opparse.parse(self.mod, inst)
                if ops.kind == "unparsed":
                    self.memory_holds_addresses = True
                    self.memory_reason = reasons.UNREADABLE_STORE.format(line=inst.line, code=inst_text(self.mod, inst))
                    self.release(fn, keep_slots=True)
                    return False
                idx = {"store": 0, "atomicrmw": 1, "cmpxchg": 2}[ops.kind]
                stored.append((inst, ops.operands[idx][1]))
            elif op == "call":
                ops = opparse.parse(self.mod, inst)
                if ops.kind == "unparsed":
                    continue
                stored.extend((inst, v) for v in self._values_a_call_may_store(ops))
        fa.solve(v.name for _, v in stored if isinstance(v, LocalRef))
        slots = self.slots_with_addresses.get(fn.name, {})
        for inst, v in stored:
            if not has_provenance(fa.value(v)):
                continue
            slot = self._private_slot_of_store(fn, inst)
            if slot is not None:
                if slot not in slots:
                    slots[slot] = inst
                    self.slots_with_addresses[fn.name] = slots
                    grew = True
                continue
            self.memory_holds_addresses = True
            self.memory_reason = reasons.ADDRESS_STORED.format(function=fn.name, line=inst.line,
                                                               code=inst_text(self.mod, inst))
            break
        self.release(fn, keep_slots=True)
        return grew

    def slots(self, fn: Function) -> Slots:
        """``fn``'s stack slots (found once per function and kept)."""
        got = self._slots.get(fn.name)
        if got is None:
            got = self._slots[fn.name] = Slots(self.mod, fn)
        return got

    def _private_slot_of_store(self, fn: Function, inst: Instruction) -> str | None:
        """The private ``alloca`` a plain store writes into, or None."""
        ops = opparse.parse(self.mod, inst)
        if ops.kind != "store" or ops.volatile:
            return None
        slots = self.slots(fn)
        slot = slots.slot_of(ops.operands[1][1])
        if slot is None or not slots.private(slot):
            return None
        return slot

    def _values_a_call_may_store(self, ops: Ops) -> list[Value]:
        """Operands a call may write to memory: the data of stores and atomics done by
        intrinsics, and everything passed to a function whose body is not in the module."""
        callee = ops.callee
        name = callee.name[1:] if isinstance(callee, GlobalRef) else ""
        if name and is_intrinsic(name):
            entry = memory_intrinsic(name)
            if entry is not None:
                # a row of the table writes its ``data`` operands (a buffer store's value,
                # memset's byte, stmatrix's registers); a load stores nothing, and a copy
                # (memcpy, LDS-DMA, cp.async) only moves what memory held: an address there
                # was written by a store looked at here, an initializer, or into a stack
                # slot that the copy makes escape (``memory.Slots``)
                return [v for i, (_, v) in enumerate(ops.operands) if i in entry.data]
            if may_store_operands(name):
                return [v for ty, v in ops.operands if not ty.is_pointer]
            return []
        if name and ("@" + name) in self.mod.functions_by_name:
            return []  # its own stores are looked at where they are
        return [v for _, v in ops.operands]


class FunctionAnalysis(Blame):
    def __init__(self, ma: ModuleAnalysis, fn: Function) -> None:
        self.ma = ma
        self.mod = ma.mod
        self.fn = fn
        self.vals: dict[str, Lat] = {}
        self.cause: dict[str, str] = {}
        kernel = fn.is_kernel
        # (the kernel's roots looked up once, not per argument: this runs per function)
        ka = ma.roots.kernels.get(fn.name) if kernel else None
        kroots = ka.roots if ka is not None else None
        for arg in fn.args:
            if arg.type.is_pointer:
                root = kroots.get(arg.index) if kroots is not None else None
                if root is not None:
                    self.vals[arg.name] = root
                else:
                    self.vals[arg.name] = UNKNOWN
                    self.cause[arg.name] = (
                        reasons.KERNEL_ARGUMENT_NOT_ROOT.format(name=arg.name) if kernel
                        else reasons.NON_KERNEL_POINTER_ARGUMENT.format(name=arg.name))
            elif arg.type.kind in ("int", "float") or (arg.type.kind == "vector" and not arg.type.contains_pointer()):
                if kernel or arg.type.kind == "float":
                    self.vals[arg.name] = NONE
                else:
                    self.vals[arg.name] = UNKNOWN
                    self.cause[arg.name] = reasons.NON_KERNEL_INTEGER_ARGUMENT.format(name=arg.name)
            elif kernel and arg.type.kind in ("struct", "array", "named"):
                # an aggregate kernel argument is plain data the runtime passed, field by
                # field: none where no pointer is, and a pointer field is not a root
                got = _aggregate_argument(arg.type, self.mod.named_types)
                self.vals[arg.name] = got
                if got is not NONE:
                    self.cause[arg.name] = reasons.AGGREGATE_ARGUMENT_FIELD.format(name=arg.name)
            else:
                self.vals[arg.name] = UNKNOWN
                self.cause[arg.name] = reasons.AGGREGATE_ARGUMENT.format(name=arg.name)

    # ----------------------------------------------------------- values
    def value(self, v: Value) -> Lat:
        """The provenance of an operand (its slice must have been solved)."""
        if isinstance(v, LocalRef):
            return self.vals.get(v.name, UNKNOWN)
        return self._const(v, self.vals)

    def _const(self, v: Value, env: dict[str, Lat]) -> Lat:
        if isinstance(v, LocalRef):
            got = env.get(v.name)
            if got is None:
                got = self.vals.get(v.name, UNKNOWN)
            return got
        if isinstance(v, PlainConst):
            return NONE
        if isinstance(v, UndefConst):
            return BOTTOM
        if isinstance(v, GlobalRef):
            root = self.ma.roots.lds.get(v.name)
            return root if root is not None else UNKNOWN
        if isinstance(v, ConstExpr):
            return self._constexpr(v, env)
        if isinstance(v, AggregateConst):
            if v.kind in ("struct", "array"):
                fields = {i: self._const(ev, env) for i, (_, ev) in enumerate(v.elems)}
                return Agg(NONE, fields)
            return self._generic([self._const(ev, env) for _, ev in v.elems])
        return UNKNOWN  # UnknownValue and anything else

    def _constexpr(self, ce: ConstExpr, env: dict[str, Lat]) -> Lat:
        vals = [self._const(v, env) for _, v in ce.operands]
        op = ce.opcode
        if op == "getelementptr":
            return self._gep(vals) if vals else UNKNOWN
        if op in KEEP_CASTS or (op == "bitcast" and ce.operands and ce.operands[0][0].is_pointer):
            return vals[0] if vals else UNKNOWN
        if op in ("add", "or") and len(vals) == 2:
            if op == "or" and "disjoint" not in ce.flags:
                return self._generic(vals)
            return self._add(vals[0], vals[1])
        if op == "sub" and len(vals) == 2:
            return self._generic(vals)
        if op == "select" and len(vals) == 3:
            return join(vals[1], vals[2])
        if op == "extractvalue" and vals:
            a = vals[0]
            return a.get(ce.indices) if isinstance(a, Agg) else (UNKNOWN if isinstance(a, Root) else a)
        return self._generic(vals)

    # ------------------------------------------------------- transfer
    @staticmethod
    def _generic(vals: list[Lat]) -> Lat:
        out: Lat = NONE
        for v in vals:
            if v is BOTTOM:
                return BOTTOM
            if v is not NONE:
                out = UNKNOWN
        return out

    @staticmethod
    def _add(a: Lat, b: Lat) -> Lat:
        if a is BOTTOM or b is BOTTOM:
            return BOTTOM
        if a is NONE:
            return b if not isinstance(b, Agg) else UNKNOWN
        if b is NONE:
            return a if not isinstance(a, Agg) else UNKNOWN
        return UNKNOWN

    def _gep(self, vals: list[Lat]) -> Lat:
        base = vals[0]
        for idx in vals[1:]:
            if idx is BOTTOM:
                return BOTTOM
            if idx is not NONE:
                return UNKNOWN
        if isinstance(base, Agg):
            return UNKNOWN
        return base

    def _memory_result(self, inst: Instruction, ops: Ops, env: dict[str, Lat]) -> tuple[Lat, str]:
        """What a load (or an atomic) reads, and why when that is unknown."""
        ty = ops.result_type
        ma = self.ma
        if ops.kind == "load" and ops.operands:
            fwd = ma.slots(self.fn).forwarded(ops.operands[0][1])
            if fwd is not None:
                # a private slot read and written whole: the join of what its stores
                # write (memory.Slots); before any store it holds nothing defined
                fslot, stores = fwd
                out: Lat = BOTTOM
                for _, v in stores:
                    out = join(out, self._const(v, env))
                if out is not UNKNOWN:
                    return out, ""
                lines = ", ".join(str(st.line) for st, _ in stores[:6]) + (", ..." if len(stores) > 6 else "")
                return out, reasons.SLOT_MIXED_STORES.format(slot=fslot, lines=lines)
        what = reasons.ATOMIC_RESULT.text if ops.kind != "load" else reasons.LOADED_INTEGER
        if ty is None or ty.contains_pointer(self.mod.named_types):
            return UNKNOWN, (reasons.LOADED_POINTER.text if ops.kind == "load" else what)
        if ops.kind == "load" and ops.operands:
            addr = ops.operands[0][1]
            if runtime_pointer(self.mod, self.fn, addr) is not None:
                # memory the runtime filled before the kernel started (memory.py)
                return NONE, ""
            slots = ma.slots_with_addresses.get(self.fn.name)
            if slots:
                slot = ma.slots(self.fn).slot_of(addr)
                store = slots.get(slot) if slot is not None else None
                if store is not None:
                    return UNKNOWN, reasons.SLOT_HOLDS_ADDRESS.format(slot=slot, line=store.line,
                                                                       code=inst_text(self.mod, store))
        return self._read_from_memory(ty, what)

    def _read_from_memory(self, ty: Type | None, what: str) -> tuple[Lat, str]:
        """A value read from memory that is not a private slot's or the runtime's: unknown
        when it may be a pointer or memory may hold addresses; else none, on the
        assumption ``ModuleAnalysis.settle`` checks afterwards."""
        ma = self.ma
        if ty is None or ty.contains_pointer(self.mod.named_types):
            return UNKNOWN, (what if what != reasons.LOADED_INTEGER else reasons.LOADED_POINTER.text)
        if ma.memory_holds_addresses:
            return UNKNOWN, reasons.MEMORY_HOLDS_ADDRESSES.format(what=what, memory=ma.memory_reason)
        if not ma.memory_decided:
            ma.loaded_int_used = True
        return NONE, ""

    def transfer(self, inst: Instruction, ops: Ops, env: dict[str, Lat]) -> tuple[Lat, str]:
        """The instruction's value and, when it makes UNKNOWN itself, why (the reason is
        only read for an UNKNOWN value, and may be left empty for any other)."""
        k = ops.kind
        ev = self._const
        if k == "gep":
            vals = [ev(v, env) for _, v in ops.operands]
            out = self._gep(vals)
            return out, reasons.GEP_ADDRESS_INDEX.text
        if k == "cast":
            cast = ops.flags[0]
            src_ty, src = ops.operands[0]
            a = ev(src, env)
            if cast in KEEP_CASTS or (cast == "bitcast" and src_ty.is_pointer):
                return a, ""
            out = self._generic([a])
            return out, (reasons.CAST_OF_ADDRESS.format(cast=cast) if out is UNKNOWN else "")
        if k == "binop":
            op = ops.flags[0]
            a = ev(ops.operands[0][1], env)
            b = ev(ops.operands[1][1], env)
            if op == "add" or (op == "or" and "disjoint" in ops.flags):
                out = self._add(a, b)
                return out, (reasons.ADD_OF_ADDRESSES.format(op=op) if out is UNKNOWN else "")
            out = self._generic([a, b])
            if out is not UNKNOWN:
                return out, ""
            if op == "or":
                return out, reasons.OR_WITHOUT_DISJOINT.text
            if op == "sub":
                return out, reasons.SUB_ON_ADDRESS.text
            return out, reasons.OP_ON_ADDRESS.format(op=op)
        if k == "cmp":
            return self._generic([ev(v, env) for _, v in ops.operands]), reasons.ADDRESS_COMPARE.text
        if k in ("phi", "select"):
            incoming = ops.incoming if k == "phi" else [ops.operands[1][1], ops.operands[2][1]]
            out = BOTTOM
            for v in incoming:
                out = join(out, ev(v, env))
            if out is not UNKNOWN:
                return out, ""
            return out, reasons.JOIN_OF_BUFFERS.format(op=k)
        if k == "freeze":
            src = ops.operands[0][1]
            if isinstance(src, UndefConst):
                # freeze undef is some fixed value, not undef: a raw integer, not ignorable
                return (NONE if not ops.operands[0][0].contains_pointer(self.mod.named_types) else UNKNOWN), \
                    reasons.FREEZE_UNDEF.text
            return ev(src, env), ""
        if k == "extractvalue":
            src = ops.operands[0][1]
            a = ev(src, env)
            if isinstance(a, Agg):
                why = self.cause.get(src.name, "") if isinstance(src, LocalRef) and src.name not in self.fn.by_name \
                    else ""
                return a.get(ops.indices), why or reasons.AGGREGATE_FIELD.text
            return (UNKNOWN if isinstance(a, Root) else a), reasons.AGGREGATE.text
        if k == "insertvalue":
            a = ev(ops.operands[0][1], env)
            b = ev(ops.operands[1][1], env)
            if a is UNKNOWN or isinstance(a, Root):
                base = Agg(UNKNOWN, {})
            elif isinstance(a, Agg):
                base = a
            else:
                base = Agg(a, {})
            return base.set(ops.indices, b), reasons.AGGREGATE.text
        if k in ("load", "atomicrmw", "cmpxchg"):
            return self._memory_result(inst, ops, env)
        if k == "call":
            return self._call(ops, env)
        if k == "alloca":
            return UNKNOWN, reasons.ALLOCA.text
        if k == "other":
            op = ops.flags[0] if ops.flags else ""
            if op in GENERIC_OPS:
                return self._generic([ev(v, env) for _, v in ops.operands]), reasons.OP_ON_ADDRESS.format(op=op)
            return UNKNOWN, reasons.UNTRACED_OPCODE.format(op=op)
        return UNKNOWN, reasons.UNPARSED_INSTRUCTION.text

    def _call(self, ops: Ops, env: dict[str, Lat]) -> tuple[Lat, str]:
        callee = ops.callee
        ret = ops.result_type
        name = callee.name[1:] if isinstance(callee, GlobalRef) else ""
        args = [self._const(v, env) for _, v in ops.operands]
        lane = lane_intrinsic(name) if name else None
        if lane is not None:
            return self._lane(name, lane, ops, args)
        if name and args and _RSRC_RE.fullmatch(name):
            # a buffer resource addresses memory from its base pointer only: stride,
            # num_records and flags are not addresses (design section 2)
            return args[0], ""
        if name and pass_through(name) and args:
            rest = self._generic(args[1:])
            if rest is BOTTOM:
                return BOTTOM, ""
            if rest is not NONE:
                return UNKNOWN, reasons.OPERAND_CARRIES_ADDRESS.format(name=name)
            return args[0], ""
        if ret is None or ret.kind == "void":
            return NONE, ""
        if isinstance(callee, UnknownValue) and callee.text == "asm":
            return UNKNOWN, reasons.INLINE_ASM.text
        if name and memory_intrinsic(name) is not None:
            # a memory intrinsic's result (a buffer load, ds.read.tr, ldmatrix) is what it
            # read from memory: the loaded-value rule, not its operands' provenance
            return self._read_from_memory(ret, reasons.READ_BY_INTRINSIC.format(name=name))
        if ret.contains_pointer(self.mod.named_types):
            return UNKNOWN, reasons.RETURNED_POINTER.format(callee=name or reasons.INDIRECT_CALLEE)
        is_decl = bool(name) and (is_intrinsic(name) or (
            ("@" + name) in self.mod.declarations and ("@" + name) not in self.mod.functions_by_name))
        if not is_decl:
            return UNKNOWN, reasons.CALL_RESULT.format(callee=("@" + name) if name else reasons.INDIRECT_CALLEE, at="")
        out = self._generic(args)
        return out, reasons.INTRINSIC_ON_ADDRESS.format(name=name)

    def _lane(self, name: str, lane: LaneIntrinsic, ops: Ops, args: list[Lat]) -> tuple[Lat, str]:
        """A lane intrinsic (``intrinsics.LANE_INTRINSICS``): the join of its data operands
        where it cannot hand back a value that no lane held; else like any intrinsic (none
        when every operand is none: 0, or a copy of a plain value, is plain)."""
        consts = [v.text if isinstance(v, PlainConst) else None for _, v in ops.operands]
        if lane_safe(lane, consts) and all(i < len(args) for i in lane.data):
            rest = self._generic([a for i, a in enumerate(args) if i not in lane.data])
            if rest is BOTTOM:
                return BOTTOM, ""
            if rest is not NONE:
                return UNKNOWN, reasons.LANE_CONTROL_ADDRESS.format(name=name)
            out: Lat = BOTTOM
            for i in lane.data:
                out = join(out, args[i])
            if out is UNKNOWN:
                return out, reasons.JOIN_OF_BUFFERS.format(op=name)
            return out, ""
        out = self._generic(args)
        return out, reasons.LANE_MAY_INVENT.format(name=name)

    # --------------------------------------------------------- solving
    def solve(self, names: Iterable[str]) -> None:
        """Solve the backward slice of ``names`` to a fixpoint."""
        vals = self.vals
        by_name = self.fn.by_name
        todo = [n for n in names if n not in vals and n in by_name]
        if not todo:
            return
        if _cfix is not None and _CWALK:
            mod = self.mod
            slice_, deps_of, order, back = _cfix.walk(todo, by_name, vals, mod, opparse.parse,
                                                      lambda iops: _reads(self, iops), _NO_DEPS_READS, _SPECIAL,
                                                      mod.source.text, mod.ops_cache)
        else:
            slice_, deps_of, order, back = _walk(self, todo)
        transfer = self.transfer
        env: dict[str, Lat]
        if _cfix is not None:
            lds = self.ma.roots.lds
            env = (_cfix.one_pass(transfer, slice_, order, vals, lds) if not back
                   else _cfix.fixpoint(transfer, slice_, deps_of, order, back, vals, lds))
        elif not back:
            env = one_pass(transfer, slice_, order)
        else:
            env = fixpoint(transfer, slice_, deps_of, order, back)
        vals.update(env)
        self.note_causes(env, slice_)


def _aggregate_argument(ty: Type, named: dict[str, Type], depth: int = 0) -> Lat:
    """Per-field provenance of a kernel argument of type ``ty``: none where no pointer can
    be, unknown for a pointer (a field is not a root), fields of structs and arrays apart."""
    if ty.kind == "named":
        inner = named.get(ty.name)
        if inner is None or depth > 32:
            return UNKNOWN
        return _aggregate_argument(inner, named, depth + 1)
    if not ty.contains_pointer(named):
        return NONE
    if ty.kind == "struct" and depth <= 32:
        return Agg(NONE, {i: _aggregate_argument(f, named, depth + 1) for i, f in enumerate(ty.fields)})
    if ty.kind == "array" and ty.elem is not None and depth <= 32:
        return Agg(_aggregate_argument(ty.elem, named, depth + 1), {})
    return UNKNOWN


def _reads(fa: FunctionAnalysis, iops: Ops) -> list[str]:
    """What an instruction reads, in general (``_walk`` asks for it where its common
    case does not fit): the local names among its operands not solved before, last first;
    none for a kind in ``NO_DEPS``, but what a load of a forwarded stack slot reads is what
    the slot's stores write."""
    vals = fa.vals
    if iops.kind != "phi" and iops.kind in NO_DEPS:
        if iops.kind == "load" and iops.operands:
            fwd = fa.ma.slots(fa.fn).forwarded(iops.operands[0][1])
            if fwd is not None:
                return [v.name for _, v in fwd[1] if isinstance(v, LocalRef) and v.name not in vals]
        return []
    return [dep for dep in local_deps(iops) if dep not in vals]


def _walk(fa: FunctionAnalysis, todo: list[str]) -> tuple[dict[str, Instruction], dict[str, list[str]], list[str],
                                                         list[tuple[int, str, str]]]:
    """Enter the backward slice of ``todo`` depth first (parsing what it reads): its
    instructions, what each reads (the local names not solved before), the slice in
    post-order, and the reads that go back in that order (loops: through phis or
    forwarded slots), each as (place of the user in the slice, user, value read)."""
    by_name = fa.fn.by_name
    vals = fa.vals
    mod, parse = fa.mod, opparse.parse
    slice_: dict[str, Instruction] = {}
    deps_of: dict[str, list[str]] = {}
    # post-order: every value after the values it reads, loops aside, so that the
    # worklist meets most values once
    order: list[str] = []
    back: list[tuple[int, str, str]] = []
    onstack: dict[str, int] = {}  # the values on the walk's stack -> their place in the slice
    stack: list[tuple[str, Iterator[str]]] = []
    for top in todo:
        if top in slice_:
            continue
        n = top
        while True:
            # enter n: note what it reads
            inst = by_name[n]
            onstack[n] = len(slice_)
            slice_[n] = inst
            iops = inst.ops
            if iops is None:
                iops = parse(mod, inst)
            kind = iops.kind
            deps: list[str] = []
            if kind == "phi":
                for v in reversed(iops.incoming):
                    if type(v) is LocalRef:
                        if v.name not in vals:
                            deps.append(v.name)
                    elif isinstance(v, (ConstExpr, AggregateConst)):
                        deps = _reads(fa, iops)
                        break
            elif kind not in NO_DEPS:
                # local_deps, filtered, without its lists in the common case (no
                # constant expression or aggregate among the operands)
                for _, v in reversed(iops.operands):
                    if type(v) is LocalRef:
                        if v.name not in vals:
                            deps.append(v.name)
                    elif isinstance(v, (ConstExpr, AggregateConst)):
                        deps = _reads(fa, iops)
                        break
            elif kind == "load":
                deps = _reads(fa, iops)  # a forwarded slot: the load reads what its stores write
            deps_of[n] = deps
            rest = iter(deps)
            # go down to the first value it reads not entered yet, or leave it and
            # go on with the value that read it
            while True:
                for dep in rest:
                    if dep not in slice_:
                        if dep in by_name:
                            break
                    elif dep in onstack:
                        back.append((onstack[n], n, dep))
                else:
                    del onstack[n]
                    order.append(n)
                    if not stack:
                        break
                    n, rest = stack.pop()
                    continue
                stack.append((n, rest))
                n = dep
                break
            if not stack and n not in onstack:
                break
    return slice_, deps_of, order, back
