"""What a load can read (SPEC section 2, the "loaded integer" row).

An integer loaded from memory is ``none`` unless the memory the load can read may hold an
address. Three refinements of "some store in the module writes an address, or some
global's initializer holds one" live here:

- **Initializers the program cannot read.** ``@llvm.used``, ``@llvm.compiler.used``,
  ``@llvm.global_ctors`` / ``@llvm.global_dtors`` and globals in section
  ``"llvm.metadata"`` are read by the compiler and the linker, not by the program: the code
  generator emits no data for them. That holds only while no instruction and no other
  global names them (a name is the only way the program can reach a global that is not
  emitted), so a global named anywhere else still counts (``referenced_elsewhere``).
- **Memory the runtime wrote.** A load whose address is ``llvm.amdgcn.dispatch.ptr``,
  ``implicitarg.ptr``, ``kernarg.segment.ptr`` or ``queue.ptr`` advanced by constant
  offsets (``getelementptr`` with constant indices, pointer casts) reads the dispatch
  packet, the kernel arguments, the implicit arguments or the queue: memory in the
  constant address space that the runtime filled before the kernel started and that the
  kernel cannot write. Its integers are ``none`` (``runtime_pointer``). A non-constant
  index could reach past that memory, so it does not count.
- **Private stack slots.** A store of an address into an ``alloca`` whose address never
  escapes (``private_slot``): see the argument there.
"""

from __future__ import annotations

import re

from ..ir import operands as opparse
from ..ir.model import (
    ConstExpr,
    Function,
    Global,
    GlobalRef,
    Instruction,
    LocalRef,
    Module,
    PlainConst,
    Value,
)

#: globals whose initializers the code generator reads and the program never does
UNREAD_GLOBALS = frozenset({"@llvm.used", "@llvm.compiler.used", "@llvm.global_ctors", "@llvm.global_dtors"})
_METADATA_SECTION_RE = re.compile(r'\bsection\s+"llvm\.metadata"')
RUNTIME_POINTER_RE = re.compile(r"llvm\.amdgcn\.(dispatch\.ptr|implicitarg\.ptr|kernarg\.segment\.ptr|queue\.ptr)")
_NAME_CHARS = r"[-a-zA-Z$._0-9]"
_LIFETIME_RE = re.compile(r"llvm\.lifetime\.(start|end)(\..*)?")


def _name_pattern(name: str) -> re.Pattern[str]:
    bare = name[1:]
    quoted = re.escape('"' + bare + '"')
    return re.compile(rf"@(?:{quoted}|{re.escape(bare)}(?!{_NAME_CHARS}))")


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


def slot_of(mod: Module, fn: Function, v: Value) -> str | None:
    """The ``alloca`` that ``v`` points into through ``getelementptr`` (any indices) and
    pointer casts, or None."""
    cur = v
    for _ in range(256):
        if not isinstance(cur, LocalRef):
            return None
        inst = fn.by_name.get(cur.name)
        if inst is None:
            return None
        ops = opparse.parse(mod, inst)
        if ops.kind == "alloca":
            return cur.name
        if ops.kind == "gep" and ops.operands:
            cur = ops.operands[0][1]
        elif ops.kind == "cast" and ops.flags and ops.flags[0] in ("bitcast", "addrspacecast") and ops.operands:
            cur = ops.operands[0][1]
        else:
            return None
    return None


def private_slot(mod: Module, fn: Function, slot: str) -> bool:
    """Does the address of the ``alloca`` named ``slot`` stay private: used only as the
    address of loads and stores (never stored itself), advanced by ``getelementptr`` and
    pointer casts, and passed to ``llvm.lifetime.*``?

    Why a store of an address into such a slot does not make every loaded integer unknown:
    an ``alloca`` is memory of one thread that only pointers based on it can reach, and
    every pointer based on this one is in the set followed here (no ``phi``, ``select``,
    ``ptrtoint``, call or store lets it out; anything else makes it escape). So only the
    loads followed here can read what was stored into it; they are the ones that get
    ``unknown`` (``ModuleAnalysis.slots_with_addresses``), and a value they read that is
    stored elsewhere is itself a store of an address (the scan runs again until nothing
    changes)."""
    derived = {slot}
    changed = True
    instrs = fn.instrs
    while changed:
        changed = False
        for inst in instrs:
            ops = opparse.parse(mod, inst)
            k = ops.kind
            if k == "unparsed" or k == "other":
                text = mod.text[inst.start:inst.end]
                if any(re.search(re.escape(n) + rf"(?!{_NAME_CHARS})", text) for n in derived):
                    return False
                continue
            names = [v.name for v in _values(ops) if isinstance(v, LocalRef)]
            if not any(n in derived for n in names):
                continue
            if k == "load":
                continue  # only the address can be one of ours
            if k == "store":
                val = ops.operands[0][1]
                if isinstance(val, LocalRef) and val.name in derived:
                    return False
                continue
            if k == "gep":
                if any(isinstance(x, LocalRef) and x.name in derived for _, x in ops.operands[1:]):
                    return False
                if inst.name is not None and inst.name not in derived:
                    derived.add(inst.name)
                    changed = True
                continue
            if k == "cast" and ops.flags and ops.flags[0] in ("bitcast", "addrspacecast"):
                if inst.name is not None and inst.name not in derived:
                    derived.add(inst.name)
                    changed = True
                continue
            if k == "call" and isinstance(ops.callee, GlobalRef) and _LIFETIME_RE.fullmatch(ops.callee.name[1:]):
                continue
            return False
    return True


def _values(ops: opparse.Ops) -> list[Value]:
    if ops.kind == "phi":
        return list(ops.incoming)
    out: list[Value] = [v for _, v in ops.operands]
    if ops.callee is not None:
        out.append(ops.callee)
    return out


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
