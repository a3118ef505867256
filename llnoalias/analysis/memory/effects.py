"""Argument effects (design section 1): what a kernel does through each pointer argument.
The attributes and ``!invariant.load`` that follow are written by
:mod:`llnoalias.transform.attributes`.

Effects are found by a forward taint analysis over the kernel: every value computed from
an argument (through any instruction, so a ``select`` of two arguments taints both) is
followed to the accesses and calls that use it.

* readonly: nothing stores through it, updates it atomically, or hands it to a call that
  may write;
* writeonly: nothing loads through it;
* escaped (stored to memory, passed to an unknown call, returned, used by an instruction
  llnoalias cannot read): nothing is decided.

With ``--args noalias`` every pointer argument outside a ``--may-alias`` group gets
``noalias``; proved ``readonly``/``writeonly`` is added where missing. A load traced to an
argument that is both noalias and readonly gets ``!invariant.load !{}``: nothing writes
that buffer while the kernel runs, which is what lets NVPTX emit ``ld.global.nc``.
"""

from __future__ import annotations

from bisect import bisect_right

from ... import reasons
from ...ir import operands as opparse
from ...ir.lazyre import lazy
from ...ir.lexer import BARE_NAME
from ...ir.model import Function, GlobalRef, Instruction, LocalRef, Module, Value
from ...plain import Record
from .intrinsics import is_intrinsic, memory_intrinsic, pass_through

#: intrinsics that neither read nor write memory through their pointer operands
_NO_MEMORY_RE = lazy(
    r"llvm\.(amdgcn\.(workitem|workgroup)\.id\..*|amdgcn\.readfirstlane.*|amdgcn\.readlane.*|ptrmask\..*"
    r"|amdgcn\.make\.buffer\.rsrc.*|nvvm\.read\.ptx\.sreg\..*|[us](min|max)\..*|abs\..*|expect\..*|assume"
    r"|dbg\..*|nvvm\.ptr\..*|launder\.invariant\.group.*|strip\.invariant\.group.*"
    r"|ssa\.copy.*|objectsize\..*|amdgcn\.s\.barrier.*|nvvm\.barrier.*|amdgcn\.wave\.barrier)"
)
_LOCAL_RE = lazy(r'%(?:"[^"]*"|' + BARE_NAME + r')')


class Effects(Record):
    """What a kernel does through one pointer argument (a plain class: a dataclass costs
    about 1 ms at every start)."""

    __slots__ = ("read", "write", "escape", "escape_how")
    _FIELDS = __slots__

    def __init__(self, read: int = 0, write: int = 0, escape: int = 0, escape_how: str = "") -> None:
        self.read = read  # line of the first read through it, 0 if none
        self.write = write
        self.escape = escape
        self.escape_how = escape_how



def _values(ops: opparse.Ops) -> list[Value]:
    if ops.kind == "phi":
        return list(ops.incoming)
    return [v for _, v in ops.operands]


def analyse_effects(mod: Module, fn: Function) -> dict[int, Effects]:
    """Per pointer argument index, what the kernel does through it."""
    index: dict[str, int] = {}
    effects: dict[int, Effects] = {}
    taint: dict[str, int] = {}
    for a in fn.args:
        if a.type.is_pointer:
            index[a.name] = i = a.index
            effects[i] = Effects()
            taint[a.name] = 1 << i
    if not index:
        return effects
    # an instruction's line (``Instruction.line``) without its three calls
    starts = fn.source.line_starts if fn.source is not None else None

    def line_of(inst: Instruction) -> int:
        return bisect_right(starts, inst.start) if starts is not None else 0

    # Names read in a round before their definition was visited (phis on back edges,
    # blocks out of order), with the taint they had then: only such a read can be stale,
    # so a round in which none was is the last.
    visited: set[str] = set(index)
    early: dict[str, int] = {}

    def t(v: Value) -> int:
        if not isinstance(v, LocalRef):
            return 0
        name = v.name
        bits = taint.get(name, 0)
        if name not in visited:
            early[name] = bits
        return bits

    def mark(bits: int, kind: str, inst: Instruction, how: str = "") -> None:
        # (every bit of a taint is a pointer argument's index: only they seed it)
        line = -1
        while bits:
            low = bits & -bits
            bits ^= low
            e = effects[low.bit_length() - 1]
            if kind == "read":
                if e.read:
                    continue
                if line < 0:
                    line = line_of(inst)
                e.read = line
            elif kind == "write":
                if e.write:
                    continue
                if line < 0:
                    line = line_of(inst)
                e.write = line
            elif kind == "escape" and not e.escape:
                if line < 0:
                    line = line_of(inst)
                e.escape = line
                e.escape_how = how

    parse = opparse.parse
    stored = reasons.ESCAPE_STORED.text
    changed = True
    rounds = 0
    while changed and rounds < 64:
        rounds += 1
        visited.intersection_update(index)
        early.clear()
        for inst in fn.instrs:
            ops = inst.ops
            if ops is None:
                ops = parse(mod, inst)
            kind = ops.kind
            if kind == "unparsed":
                bits = 0
                for ref in _LOCAL_RE.findall(mod.text, inst.start, inst.end):
                    bits |= taint.get(ref, 0)
                if bits:
                    mark(bits, "escape", inst, reasons.ESCAPE_UNREADABLE.text)
                continue
            result = 0
            if kind == "load":
                # (t() inlined for the two commonest kinds)
                v = ops.operands[0][1]
                if isinstance(v, LocalRef):
                    name = v.name
                    bits = taint.get(name, 0)
                    if name not in visited:
                        early[name] = bits
                    if bits:
                        mark(bits, "read", inst)
            elif kind == "store":
                operands = ops.operands
                for v, how in ((operands[1][1], ""), (operands[0][1], stored)):
                    if isinstance(v, LocalRef):
                        name = v.name
                        bits = taint.get(name, 0)
                        if name not in visited:
                            early[name] = bits
                        if bits:
                            mark(bits, "escape" if how else "write", inst, how)
            elif kind in ("atomicrmw", "cmpxchg"):
                bits = t(ops.operands[0][1])
                mark(bits, "read", inst)
                mark(bits, "write", inst)
                for _, v in ops.operands[1:]:
                    mark(t(v), "escape", inst, reasons.ESCAPE_STORED_ATOMIC.text)
            elif kind == "call":
                result = _call_effects(ops, inst, t, mark)
            elif inst.opcode == "ret":
                bits = 0
                for v in _values(ops):
                    bits |= t(v)
                mark(bits, "escape", inst, "returned")
            elif kind == "alloca":
                pass
            else:
                # t() inlined: this is the branch most instructions take
                for v in (ops.incoming if kind == "phi" else [tv[1] for tv in ops.operands]):
                    if isinstance(v, LocalRef):
                        name = v.name
                        bits = taint.get(name, 0)
                        if name not in visited:
                            early[name] = bits
                        result |= bits
                if result and inst.opcode in ("resume", "invoke", "callbr", "indirectbr", "va_arg"):
                    mark(result, "escape", inst, reasons.ESCAPE_USED.format(op=inst.opcode))
            if inst.name is not None:
                if result and taint.get(inst.name, 0) | result != taint.get(inst.name, 0):
                    taint[inst.name] = taint.get(inst.name, 0) | result
                visited.add(inst.name)
        changed = bool(early) and any(taint.get(name, 0) != bits for name, bits in early.items())
    if changed:  # did not settle: decide nothing
        for e in effects.values():
            e.escape = e.escape or fn.line
            e.escape_how = e.escape_how or reasons.ESCAPE_NOT_CONVERGED.text
    return effects


def _call_effects(ops: opparse.Ops, inst: Instruction, t, mark) -> int:  # type: ignore[no-untyped-def]
    callee = ops.callee
    name = callee.name[1:] if isinstance(callee, GlobalRef) else ""
    entry = memory_intrinsic(name) if name else None
    result = 0
    if entry is not None:
        writes = False
        for i, (ty, v) in enumerate(ops.operands):
            bits = t(v)
            if i in entry.data:
                mark(bits, "escape", inst, reasons.ESCAPE_WRITTEN_BY.format(name=name))
            if ty.is_pointer:
                eff = entry.effect_of(i, ty.addrspace)
                if "r" in eff:
                    mark(bits, "read", inst)
                if "w" in eff:
                    mark(bits, "write", inst)
                    writes = True
        for ty, v in ops.operands:
            if not ty.is_pointer and t(v) and writes:
                mark(t(v), "escape", inst, reasons.ESCAPE_WRITTEN_BY.format(name=name))
        return 0
    if name and is_intrinsic(name) and (_NO_MEMORY_RE.fullmatch(name) or pass_through(name)):
        for _, v in ops.operands:
            result |= t(v)
        return result
    bits = 0
    for _, v in ops.operands:
        bits |= t(v)
    if isinstance(callee, LocalRef):
        bits |= t(callee)
    if bits:
        what = f"@{name}" if name else reasons.INDIRECT_OR_ASM_CALLEE
        mark(bits, "escape", inst, reasons.ESCAPE_PASSED.format(callee=what))
    return bits
