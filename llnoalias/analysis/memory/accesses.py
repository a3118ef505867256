"""Memory accesses (design section 3): which instructions can be tagged, their pointer
operands, and the address-space rules that say which memory a pointer can reach."""

from __future__ import annotations

from ... import reasons
from ...ir import operands as opparse

# the family and address-space readings live with the module's facts (ir/facts.py); kept
# importable from here, where the analysis always read them
from ...ir.facts import code_family as code_family
from ...ir.facts import code_family_reason as code_family_reason
from ...ir.facts import reaches_global as reaches_global
from ...ir.facts import reaches_lds as reaches_lds
from ...ir.facts import target_family as target_family
from ...ir.lazyre import lazy
from ...ir.lexer import BARE_NAME
from ...ir.model import Function, GlobalRef, Instruction, Module, Ops, PlainConst, Value
from ...ir.types import Type
from ...plain import Record
from .intrinsics import MemIntrinsic, memory_intrinsic

ORDERED = {"acquire", "release", "acq_rel", "seq_cst", "unknown"}
_CALLEE_RE = lazy(r"@(llvm\." + BARE_NAME + r")\s*\(")


# Plain classes, not dataclasses: decorating one costs about 1 ms at every start.


class PointerOperand(Record):
    __slots__ = ("index", "type", "value", "effect")
    _FIELDS = __slots__

    def __init__(self, index: int, type: Type, value: Value, effect: str) -> None:
        self.index = index
        self.type = type
        self.value = value
        self.effect = effect  # r, w, rw



#: what an access's operand lists become once its function is done (shared; never mutated)
RELEASED: list = []


class Access(Record):
    __slots__ = ("inst", "kind", "pointers", "opaque", "intrinsic", "blocked")
    _FIELDS = __slots__

    def __init__(self, inst: Instruction, kind: str, pointers: list[PointerOperand] | None = None,
                 opaque: list[Value] | None = None, intrinsic: str | None = None,
                 blocked: str | None = None) -> None:
        self.inst = inst
        self.kind = kind  # load store atomicrmw cmpxchg call
        self.pointers: list[PointerOperand] = [] if pointers is None else pointers
        #: non-pointer operands that address global memory (an old <4 x i32> buffer resource)
        self.opaque: list[Value] = [] if opaque is None else opaque
        self.intrinsic = intrinsic
        #: why the access can never be tagged (volatile, ordered atomic, not understood)
        self.blocked = blocked


    def release(self) -> None:
        """Drop the operands (parsed values) once the access's function is done."""
        self.pointers = RELEASED
        self.opaque = RELEASED


#: the attachment that makes a load invariant
INVARIANT_LOAD = "!invariant.load"


def module_family(mod: Module) -> str:
    """The target family of ``mod`` (``ir.facts``' ``AMDGPU``, ``NVPTX`` or ``OTHER``): its
    triple's, or, for a module without a triple llnoalias knows (FlyDSL writes none), the one
    its code can only be compiled for (``code_family``). One of the module's facts."""
    return mod.facts.family


def _is_true(v: Value) -> bool | None:
    if isinstance(v, PlainConst):
        if v.text in ("true",):
            return True
        if v.text in ("false",):
            return False
        try:
            return int(v.text, 0) != 0
        except ValueError:
            return None
    return None


def _aux_volatile(v: Value) -> bool:
    if isinstance(v, PlainConst):
        try:
            return bool(int(v.text, 0) & 0x80000000) or int(v.text, 0) < 0
        except ValueError:
            return True
    return True


def callee_name(mod: Module, inst: Instruction) -> str | None:
    """The intrinsic a call names, found without parsing the whole call."""
    m = _CALLEE_RE.search(mod.text, inst.start, inst.end)
    return m.group(1) if m else None


def find_accesses(mod: Module, fn: Function) -> list[Access]:
    out: list[Access] = []
    parse = opparse.parse
    for inst in fn.instrs:
        op = inst.opcode
        entry: MemIntrinsic | None = None
        if op == "load" or op == "store" or op == "atomicrmw" or op == "cmpxchg":
            name: str | None = None
        elif op == "call":
            name = callee_name(mod, inst)
            if name is None:
                continue
            entry = memory_intrinsic(name)
            if entry is None:
                continue
        else:
            continue
        ops = inst.ops
        if ops is None:
            ops = parse(mod, inst)
        # an instruction spelled as one seen before shares its parsed operands (``parse``'s
        # cache by text): its access is that one's, but for the instruction
        got = _SEEN.get(id(ops))
        if got is None or got[0] is not ops or got[1] != op or got[2] != name:
            acc = (_memory_access(mod, inst, ops) if entry is None or name is None
                   else _intrinsic_access(mod, inst, entry, name))
            if len(_SEEN) >= SEEN_LIMIT:
                _SEEN.clear()
            got = _SEEN[id(ops)] = (ops, op, name, acc if acc is None else
                                    (acc.kind, tuple(acc.pointers), tuple(acc.opaque), acc.blocked))
            if acc is not None:
                out.append(acc)
            continue
        shape = got[3]
        if shape is not None:
            out.append(Access(inst, shape[0], list(shape[1]), list(shape[2]), name, shape[3]))
    return out


#: the most shapes ``_SEEN`` holds before it starts again
SEEN_LIMIT = 1 << 14
#: the accesses made from one parsed ``Ops`` (``find_accesses``), by its ``id()``: the Ops
#: itself (kept alive, so the id is not reused while the entry stands), the opcode and
#: callee it was made for, and the access's kind, pointer operands (never changed once
#: made, so shared), opaque operands and why it is blocked; None where the call is no access
_SEEN: dict[int, tuple[object, str, str | None, tuple[str, tuple[PointerOperand, ...], tuple[Value, ...],
                                                       str | None] | None]] = {}


#: the opcodes whose one pointer operand is all the memory they touch
PLAIN_OPCODES = frozenset(("load", "store", "atomicrmw", "cmpxchg"))


def pointer_reaches_lds(mod: Module, inst: Instruction) -> bool:
    """Whether the pointer operand of a load, store or atomic (``PLAIN_OPCODES``) is in an
    address space that can reach LDS (a generic pointer: CUDA's kernel arguments), by its
    type; False for any other instruction or one not read."""
    if inst.opcode not in PLAIN_OPCODES:
        return False
    ops = opparse.parse(mod, inst)
    if ops.kind == "unparsed" or not ops.operands:
        return False
    ty = ops.operands[1][0] if ops.kind == "store" else ops.operands[0][0]
    space = ty.addrspace
    return space < 0 or reaches_lds(module_family(mod), space)


_ASM_CALL = lazy(r'(?m)^[ \t]*(?:%[-\w.$"]+[ \t]*=[ \t]*)?(?:(?:tail|musttail|notail)[ \t]+)?call\b[^\n"]*\basm\b'
                 r'[^"\n]*"((?:[^"\\\n]|\\.)*)"[ \t]*,[ \t]*"[^"\n]*"[ \t]*\(([^\n]*)\)')
_ASM_WORD = lazy(r"(?:\\[0-9A-Fa-f]{2}|\s|\{|@!?%?\$?\w+\s)*([A-Za-z_][\w.]*)")


def asm_memory(mod: Module) -> list[str]:
    """The first instruction word of each inline asm call that takes a pointer operand (the
    memory it reaches is no access llnoalias tags: Triton's NVIDIA modules), in the order of
    the text (read from the text: a deferred function's body is not parsed for it)."""
    text = mod.text
    if " asm " not in text:
        return []
    out: list[str] = []
    word_re = _ASM_WORD
    for m in _ASM_CALL.finditer(text):
        args = m.group(2)
        if "ptr" not in args and "*" not in args:
            continue
        w = word_re.match(m.group(1))
        out.append(w.group(1) if w is not None else "asm")
    return out


def _memory_access(mod: Module, inst: Instruction, ops: Ops | None = None) -> Access:
    """The access of a load, store or atomic; ``ops``: its parsed operands, when at hand."""
    if ops is None:
        ops = opparse.parse(mod, inst)
    kind = ops.kind
    if kind == "unparsed":
        acc = Access(inst, inst.opcode)
        acc.blocked = reasons.UNPARSED_INSTRUCTION.text
        return acc
    if kind == "load":
        ty, v = ops.operands[0]
        acc = Access(inst, inst.opcode, [PointerOperand(0, ty, v, "r")])
    elif kind == "store":
        ty, v = ops.operands[1]
        acc = Access(inst, inst.opcode, [PointerOperand(1, ty, v, "w")])
    else:  # atomicrmw, cmpxchg
        ty, v = ops.operands[0]
        acc = Access(inst, inst.opcode, [PointerOperand(0, ty, v, "rw")])
    if ops.volatile:
        acc.blocked = reasons.VOLATILE.text
    elif ops.ordering is not None and (ops.ordering in ORDERED or (ops.failure_ordering or "") in ORDERED):
        strongest = ops.ordering if ops.ordering in ORDERED else ops.failure_ordering
        acc.blocked = reasons.ATOMIC_ORDERING.format(ordering=strongest)
    return acc


def _intrinsic_access(mod: Module, inst: Instruction, entry: MemIntrinsic, name: str) -> Access | None:
    ops = opparse.parse(mod, inst)
    acc = Access(inst, "call", intrinsic=name)
    if ops.kind != "call" or not isinstance(ops.callee, GlobalRef):
        acc.blocked = reasons.UNPARSED_CALL.text
        return acc
    args = ops.operands
    for i, (ty, v) in enumerate(args):
        if ty.is_pointer:
            acc.pointers.append(PointerOperand(i, ty, v, entry.effect_of(i, ty.addrspace)))
        elif i in entry.opaque:
            acc.opaque.append(v)
    if entry.volatile == "memflag":
        if entry.volatile_index >= len(args) or _is_true(args[entry.volatile_index][1]) is not False:
            acc.blocked = reasons.VOLATILE_INTRINSIC.text
    elif entry.volatile == "aux" and args:
        if _aux_volatile(args[-1][1]):
            acc.blocked = reasons.VOLATILE_CACHE_POLICY.text
    if not acc.pointers and not acc.opaque:
        return None
    return acc
