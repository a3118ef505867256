"""Memory accesses (SPEC section 3): which instructions can be tagged, their pointer
operands, and the address-space rules that say which memory a pointer can reach."""

from __future__ import annotations

import re

from ... import reasons
from ...ir import operands as opparse
from ...ir.lazyre import lazy
from ...ir.model import Function, GlobalRef, Instruction, Module, PlainConst, Value
from ...ir.types import Type
from ...plain import Record
from .intrinsics import MemIntrinsic, memory_intrinsic

ORDERED = {"acquire", "release", "acq_rel", "seq_cst", "unknown"}
_CALLEE_RE = lazy(r"@(llvm\.[-a-zA-Z$._0-9]+)\s*\(")


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


def target_family(triple: str) -> str:
    t = triple.lower()
    if t.startswith("amdgcn") or t.startswith("amdgpu") or t.startswith("r600"):
        return "amdgpu"
    if t.startswith("nvptx"):
        return "nvptx"
    return "other"


_AMDGPU_MARK_RE = lazy(r"\bamdgpu_(?:kernel|cs|ps|vs|gs|hs|ls|es|gfx)\b|@llvm\.amdgcn\.")
_NVPTX_MARK_RE = lazy(r"\bptx_(?:kernel|device)\b|@llvm\.nvvm\.|^!nvvm\.annotations\b", re.M)
#: why a module's code is for a family, most telling first: (pattern, the reason in words)
_WHY = {
    "nvptx": ((lazy(r"\bptx_kernel\b"), "its kernels use the ptx_kernel calling convention"),
              (lazy(r"^!nvvm\.annotations\b", re.M), "it has !nvvm.annotations"),
              (lazy(r"\bptx_device\b"), "its functions use the ptx_device calling convention"),
              (lazy(r"@llvm\.nvvm\."), "it calls llvm.nvvm.* intrinsics")),
    "amdgpu": ((lazy(r"\bamdgpu_kernel\b"), "its kernels use the amdgpu_kernel calling convention"),
               (lazy(r"\bamdgpu_(?:cs|ps|vs|gs|hs|ls|es|gfx)\b"), "its functions use an amdgpu_* calling convention"),
               (lazy(r"@llvm\.amdgcn\."), "it calls llvm.amdgcn.* intrinsics")),
}


def code_family(text: str) -> str:
    """The target family a module's code can only be compiled for, whatever its triple says:
    an ``amdgpu_*`` calling convention or an ``llvm.amdgcn.*`` intrinsic means AMDGPU (no
    other backend lowers them), ``ptx_kernel``/``ptx_device`` or ``llvm.nvvm.*`` (or
    ``!nvvm.annotations``) NVPTX; both or neither: ``other``. The one inference of a
    family from code: ``module_family`` and the code generator's triple
    (``backends.target.infer_triple``) both ask it."""
    amd = _AMDGPU_MARK_RE.search(text) is not None
    nv = _NVPTX_MARK_RE.search(text) is not None
    return "amdgpu" if amd and not nv else ("nvptx" if nv and not amd else "other")


def code_family_reason(text: str, family: str) -> str:
    """Why ``code_family`` says ``family`` for ``text`` (a phrase for a note), or ""."""
    for rx, why in _WHY.get(family, ()):
        if rx.search(text):
            return why
    return ""


def module_family(mod: Module) -> str:
    """The target family of ``mod``: its triple's, or, for a module without a triple
    llnoalias knows (FlyDSL writes none), the one its code can only be compiled for
    (``code_family``)."""
    cached = getattr(mod, "_llnoalias_family", None)
    if isinstance(cached, str):
        return cached
    fam = target_family(mod.triple)
    if fam == "other" and not mod.triple:
        fam = code_family(mod.text)
    try:
        mod._llnoalias_family = fam  # type: ignore[attr-defined]
    except AttributeError:
        pass
    return fam


def reaches_lds(family: str, addrspace: int) -> bool:
    """Can a pointer in ``addrspace`` reach LDS / shared memory?"""
    if family == "amdgpu":
        return addrspace in (0, 3)
    if family == "nvptx":
        return addrspace in (0, 3, 7)  # generic, shared, shared::cluster
    return True


def reaches_global(family: str, addrspace: int) -> bool:
    """Can a pointer in ``addrspace`` reach a kernel argument's buffer?"""
    if family in ("amdgpu", "nvptx"):
        return addrspace not in (3, 5) and not (family == "nvptx" and addrspace == 7)
    return True


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
    for inst in fn.instrs:
        op = inst.opcode
        if op == "load" or op == "store" or op == "atomicrmw" or op == "cmpxchg":
            out.append(_memory_access(mod, inst))
        elif op == "call":
            name = callee_name(mod, inst)
            if name is None:
                continue
            entry = memory_intrinsic(name)
            if entry is None:
                continue
            acc = _intrinsic_access(mod, inst, entry, name)
            if acc is not None:
                out.append(acc)
    return out


def _memory_access(mod: Module, inst: Instruction) -> Access:
    ops = opparse.parse(mod, inst)
    acc = Access(inst, inst.opcode)
    if ops.kind == "unparsed":
        acc.blocked = reasons.UNPARSED_INSTRUCTION.text
        return acc
    if ops.kind == "load":
        ty, v = ops.operands[0]
        acc.pointers.append(PointerOperand(0, ty, v, "r"))
    elif ops.kind == "store":
        ty, v = ops.operands[1]
        acc.pointers.append(PointerOperand(1, ty, v, "w"))
    else:  # atomicrmw, cmpxchg
        ty, v = ops.operands[0]
        acc.pointers.append(PointerOperand(0, ty, v, "rw"))
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
