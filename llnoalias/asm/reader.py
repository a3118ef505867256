"""Read the ``.s`` text LLVM's AMDGPU back end writes (llvmlite's LLVM 22, llc-19) into
functions of classified instructions and basic blocks.

Only what the text says is read: ``;`` and ``//`` start comments (so ``; s_waitcnt vmcnt(0)``
is no wait), the lines between ``;;#ASMSTART`` and ``;;#ASMEND`` are the producer's inline
assembly (its waits are waits, marked ``producer_asm``), ``.loc FILE LINE COL`` gives the
source position of the instructions after it.

The reading of one line (``split_instruction``) and of what a wait names (``named_counters``,
``wait_counters``) is the one ``stats.counters`` counts with too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

#: instruction kinds
DMA, VMEM_LOAD, VMEM_STORE, LDS, WAIT, BARRIER, BRANCH, CALL, RETURN, OTHER = (
    "dma", "vmem_load", "vmem_store", "lds", "wait", "barrier", "branch", "call", "return", "other")

_VMEM_PREFIX = ("buffer_", "global_", "flat_", "scratch_", "tbuffer_", "image_")
#: cache control, not entries of the queue (``buffer_wbl2`` may take a ``vmcnt`` slot on gfx90a and
#: gfx940; leaving it out makes a DMA look younger than it is: a race is over-reported, never missed)
_NOT_VMEM = ("buffer_wbl2", "buffer_inv", "buffer_wbinvl1", "buffer_gl0_inv", "buffer_gl1_inv",
             "global_wb", "global_inv")
#: the mnemonics of the LDS-DMAs the code generator waits for with ``vmcnt`` (a buffer load
#: with the ``lds`` operand is one too): the ``mnemonics`` of those rows of
#: ``analysis.memory.intrinsics.LDS_DMA``, which this layer cannot import
#: (``tests/analysis/memory/test_lds_dma_table.py`` holds the two equal)
DMA_MNEMONICS = ("global_load_lds", "buffer_load_lds")
#: the asynchronous LDS operations with a counter of their own (gfx1250): mnemonic prefix ->
#: (the wait field that retires it, whether it writes LDS: False for a read of LDS, a store from
#: it). The ``mnemonic``, ``counter`` and ``lds`` of the rows of
#: ``analysis.memory.intrinsics.ASYNC_LDS`` whose counter is not ``vmcnt`` (the table's test holds
#: the two equal)
ASYNC_MNEMONICS: dict[str, tuple[str, bool]] = {
    "global_load_async_to_lds": ("asynccnt", True),
    "cluster_load_async_to_lds": ("asynccnt", True),
    "global_store_async_from_lds": ("asynccnt", False),
    "tensor_load_to_lds": ("tensorcnt", True),
    "tensor_store_from_lds": ("tensorcnt", False),
}
#: the counters of ``ASYNC_MNEMONICS``
ASYNC_COUNTERS = ("asynccnt", "tensorcnt")
_NOT_LDS = ("ds_bpermute", "ds_permute", "ds_swizzle", "ds_nop", "ds_gws", "ds_append", "ds_consume")
#: modifiers that make an atomic return the old value (gfx9/10/11 ``glc``, gfx940 ``sc0``, gfx12 ``th:``)
_RETURNS = ("glc", "sc0", "th:TH_ATOMIC_RETURN")
_LABEL = re.compile(r"^([A-Za-z_.$][\w.$@]*):")
_REG = re.compile(r"\b([vsa])(?:\[(\d+):(\d+)\]|(\d+)\b)")
#: a counter an ``s_waitcnt`` names: ``vmcnt(0)``, ``vmcnt_sat(3)`` (the assembler's
#: saturating spelling), ``vs_cnt(0)`` (``vscnt``), with spaces or not
_NAMED_COUNTER = re.compile(r"\b(vmcnt|lgkmcnt|expcnt|vscnt|vs_cnt)(?:_sat)?\s*\(\s*([^()\s]+)\s*\)")
#: ``s_waitcnt_vmcnt`` ... (gfx10's SOPK forms): the counter
_SOPK_WAIT = re.compile(r"^s_waitcnt_(vmcnt|lgkmcnt|expcnt|vscnt)$")
#: gfx12's ``s_wait_<counter>`` and ``s_wait_<counter>_<counter>`` (the high field first)
_SPLIT_WAIT = re.compile(r"^s_wait_((?:[a-z0-9]+cnt)(?:_[a-z0-9]+cnt)*)$")
_LOC = re.compile(r"^\.loc\s+(\d+)\s+(\d+)(?:\s+(\d+))?")
_FILE = re.compile(r'^\.file\s+(\d+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"((?:[^"\\]|\\.)*)")?')
_OFFSET = re.compile(r"^(offset[01]?):(-?(?:0x[0-9a-fA-F]+|\d+))$")
_GFX = re.compile(r"gfx(\d+)[a-z]?")
#: ``; NumVgprs: 12``, ``; codeLenInByte = 268``, ``; COMPUTE_PGM_RSRC2:USER_SGPR: 2``
_INFO = re.compile(r"^;\s*([A-Za-z_][\w:]*(?: [A-Za-z_]\w*)*)\s*[:=]\s+(\S.*)$")
_LONG_BRANCH = re.compile(r"\((\.L\w+)-")

#: bytes one lane touches, by a token of the mnemonic
_WIDTH = {
    "b8": 1, "u8": 1, "i8": 1, "ubyte": 1, "sbyte": 1, "byte": 1,
    "b16": 2, "u16": 2, "i16": 2, "short": 2, "ushort": 2, "sshort": 2, "d16": 2, "f16": 2,
    "b32": 4, "u32": 4, "i32": 4, "f32": 4, "dword": 4,
    "b64": 8, "u64": 8, "i64": 8, "f64": 8, "dwordx2": 8,
    "b96": 12, "dwordx3": 12,
    "b128": 16, "dwordx4": 16,
}

#: raw ``s_waitcnt`` immediate fields per generation: counter -> ((shift, width), ...) low part first
_RAW_FIELDS: dict[int, dict[str, tuple[tuple[int, int], ...]]] = {
    9: {"vmcnt": ((0, 4), (14, 2)), "expcnt": ((4, 3),), "lgkmcnt": ((8, 4),)},
    10: {"vmcnt": ((0, 4), (14, 2)), "expcnt": ((4, 3),), "lgkmcnt": ((8, 6),)},
    11: {"vmcnt": ((10, 6),), "expcnt": ((0, 3),), "lgkmcnt": ((4, 6),)},
}


@dataclass(frozen=True, slots=True)
class AsmInst:
    """One instruction of a function (``index`` in the function, ``line`` 1-based in the .s)."""

    index: int
    line: int
    text: str
    mnemonic: str
    operands: tuple[str, ...]
    kind: str
    ir_line: int = 0
    ir_col: int = 0
    producer_asm: bool = False
    #: True for a write of LDS (``ds_write*``, an LDS-DMA, a flat store), False for a read,
    #: None for a read-modify-write (and for instructions that do not touch LDS)
    lds_write: bool | None = None
    #: counter -> value, for waits (a raw immediate's fields at their maximum are left out)
    wait: dict[str, int] = field(default_factory=dict, hash=False, compare=False)
    dests: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    offsets: tuple[int, ...] = ()
    width: int = 0
    #: the label a branch goes to
    target: str | None = None
    #: a flat instruction: vector memory that may also touch LDS
    may_lds: bool = False
    #: an asynchronous LDS operation with a counter of its own: that counter (``ASYNC_MNEMONICS``)
    queue: str = ""
    #: the directory of the file its ``.loc`` names (the located copy names an IR block there)
    loc_dir: str = ""


@dataclass(frozen=True, slots=True)
class AsmBlock:
    """Instructions ``first..last`` (inclusive); ``succs`` are indices of blocks."""

    label: str
    first: int
    last: int
    succs: tuple[int, ...]


@dataclass(slots=True)
class AsmFunction:
    name: str
    line: int
    #: the line of its ``.Lfunc_end`` label (0: none)
    end: int = 0
    insts: list[AsmInst] = field(default_factory=list)
    blocks: list[AsmBlock] = field(default_factory=list)
    #: label -> index of the first instruction after it
    labels: dict[str, int] = field(default_factory=dict)
    resources: dict[str, int | str] = field(default_factory=dict)

    def block_of(self, index: int) -> int:
        """The block holding instruction ``index``."""
        lo, hi = 0, len(self.blocks) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.blocks[mid].first <= index:
                lo = mid
            else:
                hi = mid - 1
        return lo


def target_generation(text: str) -> int:
    """9, 10, 11 or 12 from the target the assembly names (``.amdgcn_target``, the metadata's
    ``amdhsa.target``, an ``-mcpu=`` comment); 9 when it names none."""
    for pat in (r'\.amdgcn_target\s+"[^"]*?(gfx\w+)', r"amdhsa\.target:\s*\S*?(gfx\w+)",
                r"-mcpu[= ](gfx\w+)", r"\b(gfx\d+[a-z]?)\b"):
        m = re.search(pat, text)
        if m:
            g = _GFX.match(m.group(1))
            if g:
                return generation_of(g.group(0))
    return 9


def generation_of(cpu: str) -> int:
    """``gfx942`` -> 9, ``gfx90a`` -> 9, ``gfx1030`` -> 10, ``gfx1201`` -> 12."""
    m = _GFX.match(cpu)
    if not m:
        return 9
    digits = m.group(1)
    return int(digits[:2]) if len(digits) >= 4 else int(digits[0])


def expand(reg: str) -> list[str]:
    """``v[4:7]`` -> v4..v7; every register named in ``reg`` (an operand)."""
    return list(_expanded(reg))


@lru_cache(maxsize=8192)
def _expanded(reg: str) -> tuple[str, ...]:
    """``expand``, once per operand spelling (a kernel names the same few hundred)."""
    out: list[str] = []
    for m in _REG.finditer(reg):
        if m.group(4) is not None:
            out.append(m.group(1) + m.group(4))
        else:
            out.extend(f"{m.group(1)}{i}" for i in range(int(m.group(2)), int(m.group(3)) + 1))
    return tuple(out)


def decode_waitcnt(imm: int, generation: int) -> dict[str, int]:
    """The fields of a raw ``s_waitcnt`` immediate (LLVM's AMDGPUBaseInfo encoding); a field at
    its maximum (no wait on that counter) is left out."""
    out: dict[str, int] = {}
    for name, parts in _RAW_FIELDS[min(max(generation, 9), 11)].items():
        value, at, full = 0, 0, 0
        for shift, width in parts:
            value |= ((imm >> shift) & ((1 << width) - 1)) << at
            full |= ((1 << width) - 1) << at
            at += width
        if value != full:
            out[name] = value
    return out


def _int(s: str) -> int | None:
    try:
        return int(s, 0)
    except ValueError:
        return None


def named_counters(rest: str) -> list[tuple[str, str]]:
    """The counters an ``s_waitcnt``'s operands ``rest`` name, each once, in order, with the
    value as written: ``vmcnt(0) lgkmcnt(1)`` -> ``[("vmcnt", "0"), ("lgkmcnt", "1")]``
    (``vs_cnt`` is read as ``vscnt``). Empty for a bare immediate (``s_waitcnt 0xc07f``)."""
    out: list[tuple[str, str]] = []
    for counter, value in _NAMED_COUNTER.findall(rest):
        key = "vscnt" if counter == "vs_cnt" else counter
        if all(k != key for k, _ in out):
            out.append((key, value))
    return out


def wait_counters(mnem: str) -> tuple[str, ...] | None:
    """The counters a wait other than ``s_waitcnt`` waits on by its mnemonic: gfx10's
    ``s_waitcnt_vmcnt`` ... (one), gfx12's ``s_wait_loadcnt``, ``s_wait_loadcnt_dscnt`` (the
    field in the immediate's high bits first); None for any other instruction
    (``s_wait_alu``, ``s_wait_idle`` and ``s_waitcnt_depctr`` wait on no memory counter)."""
    m = _SOPK_WAIT.match(mnem) or _SPLIT_WAIT.match(mnem)
    return tuple(m.group(1).split("_")) if m else None


def _wait_fields(mnem: str, operands: tuple[str, ...], rest: str, generation: int) -> dict[str, int] | None:
    if mnem == "s_waitcnt":
        named = {k: int(v) for k, v in named_counters(rest) if v.isdigit()}
        if named:
            return named
        imm = _int(operands[0]) if operands else None
        return decode_waitcnt(imm, generation) if imm is not None else None
    names = wait_counters(mnem)
    imm = _int(operands[-1]) if names and operands else None
    if names is None or imm is None:
        return None
    if len(names) == 1:
        return {names[0]: imm}
    return {names[0]: (imm >> 8) & 0x3F, names[1]: imm & 0x3F}


def _width(mnem: str) -> int:
    tokens = mnem.split("_")
    w = 0
    for t in tokens[1:]:
        if t in _WIDTH:
            w = _WIDTH[t]
            if t != "d16":
                break
    if mnem.startswith(("ds_read2", "ds_write2", "ds_load_2", "ds_store_2")):
        w *= 2
    return w


def _split_operands(rest: str) -> tuple[str, ...]:
    parts = [p.strip() for p in rest.split(",")] if rest.strip() else []
    if not parts:
        return ()
    tail = parts.pop().split()
    return tuple(p for p in parts if p) + tuple(tail)


def async_queue(mnem: str) -> tuple[str, bool] | None:
    """The counter of an asynchronous LDS operation and whether it writes LDS, or None."""
    if "lds" not in mnem:
        return None
    for prefix, got in ASYNC_MNEMONICS.items():
        if mnem.startswith(prefix):
            return got
    return None


def _classify(mnem: str, ops: tuple[str, ...]) -> tuple[str, bool | None, bool]:
    """(kind, lds_write, may_lds)."""
    got = async_queue(mnem)
    if got is not None:
        return DMA, got[1], False
    if mnem.startswith(_VMEM_PREFIX) and not mnem.startswith(_NOT_VMEM):
        flat = mnem.startswith("flat_")
        if "lds" in ops or mnem.startswith(DMA_MNEMONICS):
            return DMA, True, False
        if "_atomic" in mnem:
            ret = any(o in _RETURNS for o in ops)
            return (VMEM_LOAD if ret else VMEM_STORE), None, flat
        if "_store" in mnem:
            return VMEM_STORE, (True if flat else None), flat or "lds" in mnem
        return VMEM_LOAD, (False if flat else None), flat
    if mnem.startswith("ds_") and not mnem.startswith(_NOT_LDS):
        if mnem.startswith(("ds_read", "ds_load")):
            return LDS, False, False
        if mnem.startswith(("ds_write", "ds_store")):
            return LDS, True, False
        return LDS, None, False
    if mnem in ("s_barrier", "s_barrier_wait"):
        return BARRIER, None, False
    if mnem == "s_branch" or mnem.startswith("s_cbranch_"):
        return BRANCH, None, False
    if mnem in ("s_swappc_b64", "s_call_b64"):
        return CALL, None, False
    if mnem in ("s_endpgm", "s_setpc_b64"):
        return RETURN, None, False
    return OTHER, None, False


def _no_dest(mnem: str, kind: str, lds_write: bool | None) -> bool:
    """The first operand is read, not written."""
    if kind in (DMA, VMEM_STORE, BARRIER, BRANCH, CALL, RETURN, WAIT):
        return True
    if kind == LDS:
        return lds_write is True or (lds_write is None and "_rtn" not in mnem)
    return mnem.startswith(("s_cmp", "s_bitcmp", "s_nop", "s_sleep", "s_set", "s_sendmsg", "s_trap",
                            "s_dcache", "s_icache"))


def split_instruction(code: str) -> tuple[str, str, tuple[str, ...]]:
    """One line of code (comment already stripped) as ``(mnemonic, the operand text, the
    operands)``; the operands split at commas, the last one at spaces too (its modifiers:
    ``offset:16``, ``lds``, ``glc``). What every reader of assembly here starts from
    (:func:`parse_instruction`, ``stats.counters``)."""
    mnem, _, rest = code.partition(" ")
    mnem = mnem.strip()
    if "\t" in mnem:
        mnem, _, more = mnem.partition("\t")
        rest = more + " " + rest
    return mnem, rest, _split_operands(rest)


def parse_instruction(code: str, index: int, line: int, generation: int, *, loc: tuple[int, int] = (0, 0),
                      producer: bool = False, loc_dir: str = "") -> AsmInst:
    """One line of code (comment already stripped) as an instruction."""
    mnem, rest, ops = split_instruction(code)
    kind, lds_write, may_lds = _classify(mnem, ops)
    wait = _wait_fields(mnem, ops, rest, generation) if mnem.startswith(("s_waitcnt", "s_wait_")) else None
    if wait is not None:
        kind = WAIT
    regs_first = list(_expanded(ops[0])) if ops else []
    regs_rest = [r for o in ops[1:] for r in _expanded(o)]
    if _no_dest(mnem, kind, lds_write) or not ops:
        dests: list[str] = []
        uses = regs_first + regs_rest
    else:
        dests, uses = regs_first, regs_rest
        if kind == VMEM_LOAD and "_atomic" in mnem and mnem.startswith(("buffer_", "image_")):
            uses = regs_first + regs_rest  # the returned value replaces the data it sends
    offsets: list[int] = []
    width = 0
    if kind in (LDS, DMA, VMEM_LOAD, VMEM_STORE):
        width = _width(mnem)
        for o in ops:
            m = _OFFSET.match(o)
            if m:
                offsets.append(int(m.group(2), 0))
    target = None
    if kind == BRANCH and ops:
        target = ops[0]
    aq = async_queue(mnem) if kind == DMA else None
    return AsmInst(index, line, code, mnem, ops, kind, loc[0], loc[1] if loc[0] else 0, producer,
                   lds_write if kind in (LDS, DMA) or may_lds else None, wait or {}, tuple(dests),
                   tuple(uses), tuple(offsets), width, target, may_lds, aq[0] if aq else "", loc_dir)


def _strip(raw: str) -> str:
    code = raw.split(";", 1)[0]
    if "//" in code:
        code = code.split("//", 1)[0]
    return code.strip()


def read_amdgpu(text: str) -> list[AsmFunction]:
    """Every function (kernel or device function) of the assembly, in order."""
    generation = target_generation(text)
    starts = set(re.findall(r"^\s*\.globl\s+(\S+)", text, re.MULTILINE))
    starts -= set(re.findall(r"^\s*\.type\s+([^,\s]+)\s*,\s*@object", text, re.MULTILINE))
    starts |= set(re.findall(r"^\s*\.type\s+([^,\s]+)\s*,\s*@function", text, re.MULTILINE))
    lines = text.splitlines()
    funcs: list[AsmFunction] = []
    cur: AsmFunction | None = None
    in_text = True
    producer = False
    loc = (0, 0)
    loc_dir = ""
    #: ``.file`` number -> its directory
    dirs: dict[int, str] = {}
    for no, raw in enumerate(lines, 1):
        s = raw.strip()
        if s.startswith(";;#ASMSTART"):
            producer = True
            continue
        if s.startswith(";;#ASMEND"):
            producer = False
            continue
        code = _strip(raw)
        if not code:
            continue
        m = _LABEL.match(code)
        if m:
            name = m.group(1)
            if name in starts:
                if cur is not None:
                    _finish(cur)
                cur = AsmFunction(name, no)
                funcs.append(cur)
                loc, loc_dir, producer, in_text = (0, 0), "", False, True
                continue
            if cur is not None and name.startswith(".Lfunc_end"):
                cur.end = no
                _finish(cur)
                cur = None
                continue
            if cur is not None and in_text:
                cur.labels[name] = len(cur.insts)
            code = code[m.end():].strip()
            if not code:
                continue
        if code.startswith("."):
            if code.startswith(".section"):
                in_text = bool(re.match(r"\.section\s+\.?text\b", code))
            elif code.split()[0] == ".text":
                in_text = True
            elif code.startswith(".loc"):
                lm = _LOC.match(code)
                if lm:
                    loc = (int(lm.group(2)), int(lm.group(3) or 0))
                    loc_dir = dirs.get(int(lm.group(1)), "")
            elif code.startswith(".file"):
                fm = _FILE.match(code)
                if fm and fm.group(3) is not None:
                    dirs[int(fm.group(1))] = fm.group(2)
            continue
        if cur is None or not in_text:
            continue
        cur.insts.append(parse_instruction(code, len(cur.insts), no, generation, loc=loc, producer=producer,
                                           loc_dir=loc_dir))
    if cur is not None:
        _finish(cur)
    _resources(lines, funcs)
    return funcs


def _ends_block(inst: AsmInst) -> bool:
    return inst.kind in (BRANCH, RETURN)


def _long_branch_target(fn: AsmFunction, i: int) -> str | None:
    """``s_setpc_b64`` of LLVM's long-branch expansion (``s_getpc_b64``; ``s_add_u32 s, s,
    (.LBB0_3-.Lpost_getpc0)...``) jumps to that label."""
    for j in range(i - 1, max(i - 6, -1), -1):
        m = _LONG_BRANCH.search(fn.insts[j].text)
        if m:
            return m.group(1)
        if fn.insts[j].mnemonic == "s_getpc_b64":
            break
    return None


def _finish(fn: AsmFunction) -> None:
    """Split ``fn`` into blocks: at labels and after branches and returns."""
    n = len(fn.insts)
    leaders = {0} if n else set()
    targets: dict[int, str] = {}
    for inst in fn.insts:
        if inst.kind == RETURN and inst.mnemonic == "s_setpc_b64":
            t = _long_branch_target(fn, inst.index)
            if t is not None:
                targets[inst.index] = t
        if _ends_block(inst) and inst.index + 1 < n:
            leaders.add(inst.index + 1)
    # debug (``.Ltmp3``) and other labels nothing branches to do not start a block
    wanted = {i.target for i in fn.insts if i.target} | set(targets.values())
    names: dict[int, str] = {}
    for label, i in fn.labels.items():
        if i < n and (label.startswith(".LBB") or label in wanted):
            names.setdefault(i, label)
            leaders.add(i)
    order = sorted(leaders)
    block_at = {first: b for b, first in enumerate(order)}
    blocks: list[AsmBlock] = []
    for b, first in enumerate(order):
        last = (order[b + 1] - 1) if b + 1 < len(order) else n - 1
        end = fn.insts[last]
        succs: list[int] = []
        target = end.target if end.kind == BRANCH else targets.get(last)
        if target is not None and fn.labels.get(target, n) in block_at:
            succs.append(block_at[fn.labels[target]])
        falls = not ((end.kind == BRANCH and end.mnemonic == "s_branch") or
                     (end.kind == RETURN and last not in targets))
        if last in targets:
            falls = False
        if falls and b + 1 < len(order):
            succs.append(b + 1)
        blocks.append(AsmBlock(names.get(first, f"{fn.name}@{first}" if first else fn.name), first, last,
                               tuple(dict.fromkeys(succs))))
    fn.blocks = blocks


def _value(v: str) -> int | str:
    v = v.strip()
    n = _int(v)
    return n if n is not None else v


def _resources(lines: list[str], funcs: list[AsmFunction]) -> None:
    """The register and resource lines LLVM writes for each function: the ``; Key: value``
    comments after it (llc's ``; Kernel info:`` / ``; Function info:``), ``.set NAME.key``,
    ``.amdhsa_*`` of its ``.amdhsa_kernel`` block and its entry of the metadata (``.vgpr_count``,
    ``.sgpr_spill_count``, ``.private_segment_fixed_size`` ...), under the names written there."""
    by_name = {f.name: f for f in funcs}
    ends = {f.end: f for f in funcs if f.end}
    starts = {f.line for f in funcs}
    after: AsmFunction | None = None
    kernel: AsmFunction | None = None
    meta: dict[str, int | str] = {}
    meta_indent = -1
    in_meta = False
    for no, raw in enumerate(lines, 1):
        if no in ends:
            after = ends[no]
            continue
        if no in starts:
            after = None
            continue
        s = raw.strip()
        if s.startswith(".amdgpu_metadata"):
            in_meta, after = True, None
            continue
        if s.startswith(".end_amdgpu_metadata"):
            _meta_done(meta, by_name)
            in_meta = False
            continue
        if in_meta:
            meta_indent = _meta_line(raw, meta, meta_indent, by_name)
            continue
        if s.startswith(".amdhsa_kernel"):
            kernel = by_name.get(s.split()[-1])
            continue
        if s.startswith(".end_amdhsa_kernel"):
            kernel = None
            continue
        if kernel is not None and s.startswith(".amdhsa_"):
            key, _, v = s.partition(" ")
            kernel.resources[key] = _value(v)
            continue
        m = re.match(r"\.set\s+(\S+)\.(\w+)\s*,\s*(.+)$", s) if s.startswith(".set") else None
        if m and m.group(1) in by_name:
            by_name[m.group(1)].resources[m.group(2)] = _value(m.group(3))
            continue
        if s.startswith(".globl") or s.startswith(".amdgpu_metadata"):
            after = None
        m = _INFO.match(s) if after is not None and s.startswith(";") else None
        if m and after is not None:
            after.resources.setdefault(m.group(1), _value(m.group(2)))


def _meta_line(raw: str, meta: dict[str, int | str], indent: int, by_name: dict[str, AsmFunction]) -> int:
    """One line of the YAML metadata: a kernel entry is ``  - .key: value`` then ``    .key: value``."""
    m = re.match(r"^(\s*)(- )?(\.[\w]+):\s*(.*)$", raw)
    if not m:
        return indent
    lead = len(m.group(1))
    if m.group(2) and (indent < 0 or lead == indent):
        _meta_done(meta, by_name)
        indent = lead
    if indent >= 0 and lead + (2 if m.group(2) else 0) == indent + 2 and m.group(4):
        meta[m.group(3)] = _value(m.group(4))
    return indent


def _meta_done(meta: dict[str, int | str], by_name: dict[str, AsmFunction]) -> None:
    name = meta.get(".name")
    if isinstance(name, str) and name in by_name:
        for k, v in meta.items():
            by_name[name].resources.setdefault(k, v)
    meta.clear()
