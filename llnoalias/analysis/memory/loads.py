"""What a load can read (design section 2, the "loaded integer" row).

An integer loaded from memory is ``none`` unless the memory the load can read may hold an
address. Three refinements of "some store in the module writes an address, or some
global's initializer holds one" live here:

- **Initializers the program cannot read.** ``@llvm.used``, ``@llvm.compiler.used``,
  ``@llvm.global_ctors`` / ``@llvm.global_dtors`` and globals in section
  ``"llvm.metadata"`` are read by the compiler, the linker and the loader, not by the
  module's code: ``llvm.used`` and ``llvm.metadata`` globals are not emitted at all, and
  the constructor lists become an init array that only the runtime's (or the backend's
  generated init kernel's) code walks, for function pointers, never an LDS or argument
  address of a kernel here. That holds only while no instruction and no other global
  names them (a name is the only way this module's code can reach them), so a global
  named anywhere else still counts (``referenced_elsewhere``).
- **Memory the runtime wrote.** A load whose address is ``llvm.amdgcn.dispatch.ptr``,
  ``implicitarg.ptr``, ``kernarg.segment.ptr`` or ``queue.ptr`` advanced by constant
  offsets (``getelementptr`` with constant indices, pointer casts) reads the dispatch
  packet, the kernel arguments, the implicit arguments or the queue: memory in the
  constant address space that the runtime filled before the kernel started and that the
  kernel cannot write. Its integers are ``none`` (``runtime_pointer``). A non-constant
  index could reach past that memory, so it does not count.
- **Private stack slots.** A store of an address into an ``alloca`` whose address never
  escapes (``Slots``): see the argument there.
"""

from __future__ import annotations

import re

from ...ir import operands as opparse
from ...ir.datalayout import layout_of
from ...ir.lazyre import lazy
from ...ir.lexer import BARE_NAME, NAME_END
from ...ir.model import (
    ConstExpr,
    Function,
    Global,
    GlobalRef,
    Instruction,
    LocalRef,
    Module,
    Ops,
    PlainConst,
    Value,
)
from ...ir.types import Type

#: globals whose initializers the code generator reads and the program never does
UNREAD_GLOBALS = frozenset({"@llvm.used", "@llvm.compiler.used", "@llvm.global_ctors", "@llvm.global_dtors"})
_METADATA_SECTION_RE = lazy(r'\bsection\s+"llvm\.metadata"')
RUNTIME_POINTER_RE = lazy(r"llvm\.amdgcn\.(dispatch\.ptr|implicitarg\.ptr|kernarg\.segment\.ptr|queue\.ptr)")
_LIFETIME_RE = lazy(r"llvm\.lifetime\.(start|end)(\..*)?")
_LOCAL_RE = lazy(r'%(?:' + BARE_NAME + r'|"[^"]*")')


def _name_pattern(name: str) -> re.Pattern[str]:
    bare = name[1:]
    quoted = re.escape('"' + bare + '"')
    return re.compile(rf"@(?:{quoted}|{re.escape(bare)}{NAME_END})")


def referenced_elsewhere(mod: Module, g: Global) -> bool:
    """Is ``g`` named anywhere but its own definition (an instruction, another global's
    initializer, metadata)? Metadata uses count too: they are rare and cost nothing."""
    hits = 0
    for _ in _name_pattern(g.name).finditer(mod.text):
        hits += 1
        if hits > 1:
            return True
    return False


def unread_initializer(mod: Module, g: Global) -> bool:
    """True when the program cannot read ``g``'s initializer (see the module's docstring)."""
    special = g.name in UNREAD_GLOBALS
    if not special:
        end = mod.text.find("\n", g.start)
        line = mod.text[g.start:end if end >= 0 else len(mod.text)]
        special = bool(_METADATA_SECTION_RE.search(line))
    return special and not referenced_elsewhere(mod, g)


def runtime_pointer(mod: Module, fn: Function, v: Value) -> Instruction | None:
    """The call of ``llvm.amdgcn.dispatch.ptr`` (or ``implicitarg.ptr``,
    ``kernarg.segment.ptr``, ``queue.ptr``) that ``v`` is, advanced by constant offsets
    only; None when ``v`` is anything else."""
    cur = v
    for _ in range(64):
        if isinstance(cur, ConstExpr):
            if cur.opcode == "getelementptr" and cur.operands and all(
                    isinstance(x, PlainConst) for _, x in cur.operands[1:]):
                cur = cur.operands[0][1]
                continue
            if cur.opcode in ("bitcast", "addrspacecast") and cur.operands:
                cur = cur.operands[0][1]
                continue
            return None
        if not isinstance(cur, LocalRef):
            return None
        inst = fn.by_name.get(cur.name)
        if inst is None:
            return None
        ops = opparse.parse(mod, inst)
        if ops.kind == "gep" and ops.operands and all(isinstance(x, PlainConst) for _, x in ops.operands[1:]):
            cur = ops.operands[0][1]
        elif ops.kind == "cast" and ops.flags and ops.flags[0] in ("bitcast", "addrspacecast") and ops.operands:
            cur = ops.operands[0][1]
        elif ops.kind == "call" and isinstance(ops.callee, GlobalRef) and not ops.operands \
                and RUNTIME_POINTER_RE.fullmatch(ops.callee.name[1:]):
            return inst
        else:
            return None
    return None


class Slots:
    """The stack slots of one function: every ``alloca``, the pointers based on each
    (``getelementptr`` with any indices, pointer casts), and which stay private.

    A slot is private when its address is used only as the address of loads and stores
    (never stored itself), advanced by ``getelementptr`` and pointer casts, and passed to
    ``llvm.lifetime.*``. Why a store of an address into a private slot does not make every
    loaded integer unknown: an ``alloca`` is memory of one thread that only pointers based
    on it can reach, and every pointer based on a private slot is in ``based`` (no ``phi``,
    ``select``, ``ptrtoint``, call or store lets it out; anything else makes the slot escape).
    So only loads through those pointers can read what was stored into it; they are the ones
    that get ``unknown`` (``ModuleAnalysis.slots_with_addresses``), and a value they read that
    is stored elsewhere is itself a store of an address (the scan runs again until nothing
    changes).

    Going one step further, a private slot is *forwarded* (``stored``) when every load and
    store of it goes through the slot's own address (or a cast of it: no offset, so no
    access covers part of another) with one integer or pointer type (``_key``): then each load reads
    the value of one of those stores (or, before any, nothing defined: ``undef``, ignored
    as in a phi), so its provenance is the join of theirs. This is what clang -O0 does
    with every local variable."""

    def __init__(self, mod: Module, fn: Function) -> None:
        #: pointer name -> the slot it is based on
        self.based: dict[str, str] = {}
        self.escaped: set[str] = set()
        #: pointers that are a slot's own address (the slot, or casts of it) -> the slot
        self.whole: dict[str, str] = {}
        #: slot -> the values its stores write, when it is forwarded (see above)
        self.stored: dict[str, list[tuple[Instruction, Value]]] = {}
        self.layout = layout_of(mod)
        if not any(inst.opcode == "alloca" for inst in fn.instrs):
            return
        parsed = [(inst, opparse.parse(mod, inst)) for inst in fn.instrs]
        for inst, ops in parsed:
            if ops.kind == "alloca" and inst.name is not None:
                self.based[inst.name] = inst.name
                self.whole[inst.name] = inst.name
        changed = True
        while changed:  # a use may come before its definition in the text: go again
            changed = False
            for inst, ops in parsed:
                changed |= self._use(mod, inst, ops)
        self._forward(parsed)

    def _forward(self, parsed: list[tuple[Instruction, Ops]]) -> None:
        """Find the forwarded slots (see the class's docstring)."""
        types: dict[str, set[str]] = {}
        partial: set[str] = set()
        stored: dict[str, list[tuple[Instruction, Value]]] = {}
        for inst, ops in parsed:
            if ops.kind == "load" and ops.operands:
                addr, ty = ops.operands[0][1], ops.result_type
            elif ops.kind == "store" and len(ops.operands) == 2:
                addr, ty = ops.operands[1][1], ops.operands[0][0]
            else:
                continue
            if not isinstance(addr, LocalRef) or addr.name not in self.based:
                continue
            slot = self.based[addr.name]
            if addr.name not in self.whole or ty is None or ty.kind not in ("int", "ptr"):
                partial.add(slot)
                continue
            types.setdefault(slot, set()).add(self._key(ty))
            if ops.kind == "store":
                stored.setdefault(slot, []).append((inst, ops.operands[0][1]))
        for slot in self.based.values():
            if slot in self.escaped or slot in partial or len(types.get(slot, ())) > 1:
                continue
            self.stored[slot] = stored.get(slot, [])

    def _key(self, ty: Type) -> str:
        """Types whose values a slot holds bit for bit alike: equal types, and the generic,
        global and constant pointers of one size (clang -O0 stores a kernel's
        ``ptr addrspace(1)`` argument and loads it back as ``ptr``: the same address of the
        same buffer)."""
        if ty.kind == "ptr" and ty.addrspace in (0, 1, 4) and self.layout.valid \
                and self.layout.pointer_bits(ty.addrspace) == self.layout.pointer_bits(0):
            return "ptr:flat"
        return repr(ty)

    def forwarded(self, v: Value) -> tuple[str, list[tuple[Instruction, Value]]] | None:
        """The forwarded slot a load from ``v`` reads and the stores that write it, or None."""
        if not isinstance(v, LocalRef):
            return None
        slot = self.whole.get(v.name)
        if slot is None:
            return None
        got = self.stored.get(slot)
        return (slot, got) if got is not None else None

    def _use(self, mod: Module, inst: Instruction, ops: Ops) -> bool:
        """Look at one instruction's uses of slot pointers; True when ``based`` grew."""
        based = self.based
        k = ops.kind
        if k == "unparsed" or k == "other":
            text = mod.text[inst.start:inst.end]
            for name in _LOCAL_RE.findall(text):
                slot = based.get(name)
                if slot is not None:
                    self.escaped.add(slot)
            return False
        if k == "load":
            return False  # only the address can be one of ours
        if k == "store":
            val = ops.operands[0][1]
            if isinstance(val, LocalRef) and val.name in based:
                self.escaped.add(based[val.name])
            return False
        slots = [based[v.name] for v in _values(ops) if isinstance(v, LocalRef) and v.name in based]
        if not slots:
            return False
        if k == "gep" or (k == "cast" and ops.flags and ops.flags[0] in ("bitcast", "addrspacecast")):
            base = ops.operands[0][1] if ops.operands else None
            for _, x in ops.operands[1:]:
                if isinstance(x, LocalRef) and x.name in based:
                    self.escaped.add(based[x.name])
            if isinstance(base, LocalRef) and base.name in based and inst.name is not None \
                    and inst.name not in based:
                based[inst.name] = based[base.name]
                if k == "cast" and base.name in self.whole:
                    self.whole[inst.name] = self.whole[base.name]
                return True
            return False
        if k == "call" and isinstance(ops.callee, GlobalRef) and _LIFETIME_RE.fullmatch(ops.callee.name[1:]):
            return False
        self.escaped.update(slots)
        return False

    def slot_of(self, v: Value) -> str | None:
        """The slot ``v`` points into, or None."""
        return self.based.get(v.name) if isinstance(v, LocalRef) else None

    def private(self, slot: str) -> bool:
        return slot in self.based and slot not in self.escaped


def _values(ops: Ops) -> list[Value]:
    if ops.kind == "phi":
        return list(ops.incoming)
    out: list[Value] = [v for _, v in ops.operands]
    if ops.callee is not None:
        out.append(ops.callee)
    return out


def plain_load_address(mod: Module, inst: Instruction) -> Value | None:
    """The address a ``load`` instruction reads, when it is neither volatile nor atomic;
    else None (also for any other instruction)."""
    if inst.opcode != "load":
        return None
    ops = opparse.parse(mod, inst)
    if ops.kind != "load" or ops.volatile or ops.ordering is not None:
        return None
    return ops.operands[0][1]


def inst_text(mod: Module, inst: Instruction, limit: int = 90) -> str:
    """The instruction's code (without its metadata attachments), quoted and shortened,
    for a reason a person reads: ```%x = load i32, ptr %p```."""
    code = mod.text[inst.start:inst.end].strip()
    cut = code.find(", !")
    if cut > 0:
        code = code[:cut]
    code = " ".join(code.split())
    if len(code) > limit:
        code = code[:limit - 3] + "..."
    return f"`{code}`"
