"""Count wait instructions, LDS-DMA instructions and PTX loads in generated GPU code.

This module is pure text processing: no click, no rich, no LLVM. It reads

* AMDGPU assembly as ``llc`` or llvmlite's ``emit_assembly`` print it,
* ``llvm-objdump -d`` listings of AMDGPU code objects, in either layout
  (``s_waitcnt vmcnt(0)  // 000000001234: BF8C0F70`` or
  ``0000000000001234: BF8C0F70  s_waitcnt vmcnt(0)``),
* NVPTX PTX,

splits it per function and counts, per function and in total (design section 7). An AMDGPU
line of code is read by the assembly reader ``check`` uses (``asm.reader``:
``split_instruction`` for its mnemonic and operands, ``named_counters`` and
``wait_counters`` for what a wait names); what is here is the listing formats and which
instructions count.

Counter keys (the names used in tables, in ``--json`` and in gate baselines)
-----------------------------------------------------------------------------
AMDGPU:

``waits``
    wait instructions, one per line, whatever they wait for.
``vmcnt`` ``lgkmcnt`` ``expcnt`` ``vscnt``
    ``s_waitcnt`` instructions naming that counter; ``s_waitcnt vmcnt(0) lgkmcnt(0)``
    counts once for ``vmcnt`` and once for ``lgkmcnt``. The gfx10+ SOPK forms
    ``s_waitcnt_vscnt`` / ``s_waitcnt_vmcnt`` / ``s_waitcnt_lgkmcnt`` /
    ``s_waitcnt_expcnt`` count for their counter; ``vs_cnt(N)`` is read as ``vscnt``.
``loadcnt`` ``storecnt`` ``dscnt`` ``kmcnt`` ``samplecnt`` ``bvhcnt`` ``expcnt`` ...
    gfx12's split waits ``s_wait_<counter>``; the combined ``s_wait_loadcnt_dscnt`` and
    ``s_wait_storecnt_dscnt`` count for both counters. Any other ``s_wait_*cnt`` (for
    example gfx1250's ``s_wait_asynccnt``) counts under its own name. ``s_wait_alu``,
    ``s_wait_idle``, ``s_wait_event`` and ``s_waitcnt_depctr`` are not memory-counter
    waits and are not counted.
``<counter>_zero``
    the same waits when they wait for the counter to reach 0 (``vmcnt(0)``,
    ``s_wait_loadcnt 0x0``, ``s_waitcnt_vscnt null, 0x0``). For the combined gfx12 forms
    the immediate is decoded as ``loadcnt/storecnt << 8 | dscnt``.
``waitcnt_encoded`` / ``waitcnt_encoded_zero``
    ``s_waitcnt`` with a bare immediate (``s_waitcnt 0``, ``s_waitcnt 0xc07f``): its
    meaning depends on the target generation, so it is not split into counters.
``lds_dma``
    instructions that copy between memory and LDS without going through VGPRs:
    ``buffer_load_* ... lds`` (the ``lds`` modifier), ``global_load_lds_*``,
    ``buffer_load_lds_*``, ``scratch_load_lds_*``, ``buffer_store_lds_*``,
    ``global_load_async_to_lds_*``, ``cluster_load_async_to_lds_*``,
    ``tensor_load_to_lds*``: a memory instruction (``buffer_``, ``global_``,
    ``scratch_``, ``flat_``, ``cluster_``, ``tensor_``) whose mnemonic has an ``lds``
    component or whose operands carry the bare ``lds`` modifier.

PTX:

``ld.global.nc``
    ``ld`` with both ``.global`` and ``.nc`` (any order, width, type or cache hint).
``ld.global``
    ``ld`` with ``.global`` but not ``.nc`` (``ldu`` is not counted).
``ld.shared``
    ``ld`` with ``.shared`` / ``.shared::cta`` / ``.shared::cluster``.
``cp.async``
    every ``cp.async.*`` instruction, including ``commit_group``, ``wait_group``,
    ``cp.async.bulk.*`` and ``cp.async.mbarrier.*``.
``st.global``
    ``st`` with ``.global`` (any width, vector, type, cache hint or memory-order
    qualifier: ``st.global.v4.f32``, ``st.global.wb.u32``, ``st.relaxed.gpu.global.u32``).
    A store that ``noalias`` lets the code generator keep in a register across a loop
    (``out[i] += ...``) disappears from here.
``st.shared``
    ``st`` with ``.shared`` / ``.shared::cta`` / ``.shared::cluster`` (``st.async`` too).
``ld.local`` ``st.local``
    ``ld`` / ``st`` with ``.local``: the thread's stack, mostly register spills.

Registers (design section 7), per function, from what LLVM (or ``ptxas -v``) states about it;
a key is absent when nothing states it:

``vgpr`` ``agpr`` ``sgpr``
    the metadata's ``.vgpr_count`` / ``.agpr_count`` / ``.sgpr_count`` (else ``.set NAME.num_vgpr``
    ..., llc's ``; NumVgprs:``); on gfx90a and later ``vgpr`` counts the AGPRs too, as stated.
``vgpr_spill`` ``sgpr_spill``
    ``.vgpr_spill_count`` / ``.sgpr_spill_count``: registers spilled to scratch.
``scratch``
    private segment bytes per lane (``.private_segment_fixed_size``, ``; ScratchSize:``).
``occupancy``
    waves per SIMD, where LLVM states it (llc's ``; Occupancy:`` comment); fewer is worse.
``reg`` ``local`` ``spill_stores`` ``spill_loads``
    PTX, from ``ptxas -v``: registers, stack frame bytes, spill store and load bytes.
Generic ``ld`` / ``st`` (no state space) and ``ld.param`` / ``st.param`` / ``ld.const``
are not counted.

Function boundaries: an AMDGPU label starts a function when its name is declared by
``.type NAME,@function``, ``.amdhsa_kernel NAME`` or ``.amdgpu_hsa_kernel NAME``; an
objdump ``ADDRESS <NAME>:`` header starts one unless it names a local label (``L0``,
``.L...``). Assembly that declares no function at all (a hand-written snippet) takes
every label not starting with ``.`` or ``$`` as a function. Instructions outside any
function are counted under ``<toplevel>``, which is listed only when it counted anything.
PTX functions are ``.entry NAME(`` and ``.func [(RET)] NAME(`` with a body.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..asm.reader import named_counters, split_instruction, wait_counters
from .registers import amdgpu_registers
from .registers import ptxas_registers as ptxas_registers

SCHEMA = "llnoalias.stats/1"

TOPLEVEL = "<toplevel>"

#: Keys every AMDGPU / PTX file reports, even when zero.
AMDGPU_BASE_KEYS: tuple[str, ...] = ("waits", "lds_dma")
PTX_BASE_KEYS: tuple[str, ...] = ("ld.global.nc", "ld.global", "ld.shared", "cp.async",
                                   "st.global", "st.shared", "ld.local", "st.local")

#: Counters added after ``llnoalias.stats/1`` was first written: a baseline entry of the
#: same kind that lacks one was written before it was counted (not: it counted 0), so the
#: gate does not compare it (see :mod:`.gate`).
#: Register keys (see the module docstring), AMDGPU then PTX.
REGISTER_KEYS: tuple[str, ...] = ("vgpr", "agpr", "sgpr", "vgpr_spill", "sgpr_spill", "scratch", "occupancy")
PTX_REGISTER_KEYS: tuple[str, ...] = ("reg", "local", "spill_stores", "spill_loads")
LATER_KEYS: frozenset[str] = frozenset({"st.global", "st.shared", "ld.local", "st.local",
                                        *REGISTER_KEYS, *PTX_REGISTER_KEYS})
#: Counters where fewer is worse (a gate named on them fails when they drop).
LOWER_IS_WORSE: frozenset[str] = frozenset({"occupancy"})
#: Register counts that ``gate`` checks only when ``--counter`` names them: more registers is
#: a cost only where it lowers occupancy or spills, which the spill and scratch counters gate.
GATED_WHEN_NAMED: frozenset[str] = frozenset({"vgpr", "agpr", "sgpr", "reg", "occupancy"})

#: Display order; keys not listed here come after, sorted.
_ORDER: tuple[str, ...] = (
    "waits",
    "vmcnt", "vmcnt_zero",
    "lgkmcnt", "lgkmcnt_zero",
    "expcnt", "expcnt_zero",
    "vscnt", "vscnt_zero",
    "loadcnt", "loadcnt_zero",
    "storecnt", "storecnt_zero",
    "dscnt", "dscnt_zero",
    "kmcnt", "kmcnt_zero",
    "samplecnt", "samplecnt_zero",
    "bvhcnt", "bvhcnt_zero",
    "waitcnt_encoded", "waitcnt_encoded_zero",
    "lds_dma",
    "ld.global.nc", "ld.global", "ld.shared", "cp.async",
    "st.global", "st.shared", "ld.local", "st.local",
    *REGISTER_KEYS, *PTX_REGISTER_KEYS,
)
_RANK = {key: i for i, key in enumerate(_ORDER)}

#: Every counter name llnoalias counts under a fixed name (an unusual gfx12+ ``s_wait_*cnt``
#: counts under its own name as well: the gate takes such a name when an input or the
#: baseline has it).
KNOWN_KEYS: tuple[str, ...] = _ORDER

#: Counters for which more is worse: what ``gate`` fails on by default (waits, plain
#: ``ld.global``, ``st.global``, and ``ld.local`` / ``st.local`` spills). The ``lds_dma``,
#: ``ld.global.nc``, ``ld.shared``, ``st.shared`` and ``cp.async`` counts describe the code
#: (how it stages data through LDS / shared memory) but do not get worse by growing.
_NOT_WORSE_WHEN_MORE = frozenset({"lds_dma", "ld.global.nc", "ld.shared", "st.shared", "cp.async"})


def order_keys(keys: Iterable[str]) -> list[str]:
    """Sort counter keys in display order (known keys first, the rest alphabetically)."""
    return sorted(set(keys), key=lambda k: (_RANK.get(k, len(_RANK)), k))


def is_regression_counter(key: str) -> bool:
    """True for the counters ``gate`` fails on by default: waits, plain ``ld.global``, spills and
    scratch (a larger count is a regression)."""
    return key not in _NOT_WORSE_WHEN_MORE and key not in GATED_WHEN_NAMED


def worse_direction(key: str) -> int:
    """+1 where more is worse (waits, spills, registers), -1 where fewer is (``occupancy``), 0 where
    a change is neither (``lds_dma``, ``ld.global.nc`` ...)."""
    if key in LOWER_IS_WORSE:
        return -1
    return 0 if key in _NOT_WORSE_WHEN_MORE else 1


# --------------------------------------------------------------------------- data


@dataclass
class FileStats:
    """The counts of one input: per function (in order of appearance) and in total.

    Every function of a file has the same keys (zero-filled), so tables line up.
    """

    path: str
    kind: str
    kernels: dict[str, Counter[str]] = field(default_factory=dict)
    total: Counter[str] = field(default_factory=Counter)
    #: Column label in tables and JSON (``input`` / ``llnoalias`` for compiled ``.ll``).
    label: str = ""

    def __post_init__(self) -> None:
        if not self.label:
            self.label = self.path

    @property
    def keys(self) -> list[str]:
        return order_keys(self.total)


@dataclass(frozen=True)
class DiffRow:
    """One counter of one function in two inputs; ``None`` where the function is absent."""

    kernel: str
    counter: str
    a: int | None
    b: int | None

    @property
    def delta(self) -> int:
        return (self.b or 0) - (self.a or 0)


@dataclass
class StatsDiff:
    a: FileStats
    b: FileStats
    #: Per function (union, ``a``'s order then ``b``'s new ones), then total rows
    #: under the kernel name ``TOTAL``.
    rows: list[DiffRow]

    def kernel_rows(self) -> list[DiffRow]:
        return [r for r in self.rows if r.kernel != TOTAL_ROW]

    def total_rows(self) -> list[DiffRow]:
        return [r for r in self.rows if r.kernel == TOTAL_ROW]


TOTAL_ROW = "TOTAL"


# --------------------------------------------------------------------------- detection

_PTX_MARKERS = re.compile(
    r"^\s*(?:\.version\s+\d+\.\d+|\.target\s+sm_\w+|(?:\.(?:visible|weak|extern)\s+)*\.entry\s)",
    re.MULTILINE,
)


def detect_kind(text: str) -> str:
    """``"ptx"`` when the text has a PTX ``.version`` / ``.target sm_*`` / ``.entry``,
    ``"amdgpu"`` otherwise (assembly or an objdump listing)."""
    return "ptx" if _PTX_MARKERS.search(text) else "amdgpu"


# --------------------------------------------------------------------------- AMDGPU

_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_IDENT = r'(?:"(?:[^"\\]|\\.)*"|[A-Za-z_.$][\w.$@]*)'
_TYPE_FUNC = re.compile(r"^\s*\.type\s+(" + _IDENT + r")\s*,\s*[@%]function\b")
_KERNEL_DIRECTIVE = re.compile(r"^\s*\.(?:amdhsa_kernel|amdgpu_hsa_kernel)\s+(" + _IDENT + r")")
_LABEL = re.compile(r"^\s*(" + _IDENT + r")\s*:(?!:)(.*)$")
_OBJDUMP_HEADER = re.compile(r"^\s*[0-9A-Fa-f]+\s+<(.+)>:\s*$")
_OBJDUMP_ADDR = re.compile(r"^\s*[0-9A-Fa-f]{4,}:\s+(?=\S)")
_ENCODING_WORD = re.compile(r"^[0-9A-Fa-f]{8}\s+(?=\S)")
_LOCAL_OBJDUMP_LABEL = re.compile(r"^(?:L\d+|\.L.*)$")
_OBJDUMP_BANNER = re.compile(r"^(?:\S.*:\s+file format \S+|Disassembly of section \S+:)\s*$")
_SKIP_BLOCKS = {
    ".amdgpu_metadata": ".end_amdgpu_metadata",
    ".amd_kernel_code_t": ".end_amd_kernel_code_t",
    ".amd_amdgpu_hsa_metadata": ".end_amd_amdgpu_hsa_metadata",
    ".amdgpu_pal_metadata": ".end_amdgpu_pal_metadata",
}

_MEMORY_PREFIXES = ("buffer_", "global_", "scratch_", "flat_", "cluster_", "tensor_")


def _unquote(name: str) -> str:
    if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
        return name[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return name


def _int(token: str) -> int | None:
    try:
        return int(token, 0)
    except ValueError:
        return None


def _strip_amdgpu_comment(line: str) -> str:
    cut = len(line)
    for marker in (";", "//", "#"):
        pos = line.find(marker)
        if pos != -1 and pos < cut:
            # '#' only starts a comment at the start of a line in GNU-style listings.
            if marker == "#" and line[:pos].strip():
                continue
            cut = pos
    return line[:cut]


def _count_amdgpu_instruction(code: str, counts: Counter[str]) -> None:
    """Count one line of code, read by the assembly reader (``asm.reader.split_instruction``:
    the mnemonic and the operands; ``named_counters`` and ``wait_counters``: what a wait
    names)."""
    mnem, operands, ops = split_instruction(code)
    mnemonic = mnem.lower()
    if mnemonic == "s_waitcnt":
        named = named_counters(operands)
        counts["waits"] += 1
        if named:
            for key, value in named:
                counts[key] += 1
                if _int(value) == 0:
                    counts[f"{key}_zero"] += 1
        else:
            counts["waitcnt_encoded"] += 1
            last = operands.strip().split(",")[-1].strip() if operands.strip() else ""
            if last and _int(last) == 0:
                counts["waitcnt_encoded_zero"] += 1
        return
    names = wait_counters(mnemonic)
    if names is not None and mnemonic.startswith("s_waitcnt_"):
        key = names[0]
        counts["waits"] += 1
        counts[key] += 1
        parts = [p.strip() for p in operands.split(",")]
        if len(parts) == 2 and parts[0] in ("null", "off", "sgpr_null") and _int(parts[1]) == 0:
            counts[f"{key}_zero"] += 1
        elif len(parts) == 1 and _int(parts[0]) == 0:
            counts[f"{key}_zero"] += 1
        return
    if names is not None:
        counts["waits"] += 1
        imm = _int(operands.strip().split(",")[-1].strip()) if operands.strip() else None
        for i, key in enumerate(names):
            counts[key] += 1
            if imm is None:
                continue
            if len(names) == 1:
                zero = imm == 0
            elif i == len(names) - 1:
                zero = imm & 0x3F == 0  # the DS counter: the low bits
            else:
                zero = (imm >> 8) & 0x3F == 0  # loadcnt/storecnt: bits 8 and up
            if zero:
                counts[f"{key}_zero"] += 1
        return
    if mnemonic.startswith(_MEMORY_PREFIXES):
        if "lds" in mnemonic.split("_") or (mnemonic.startswith(("buffer_load_", "buffer_store_")) and "lds" in ops):
            counts["lds_dma"] += 1


def _amdgpu_function_names(lines: Sequence[str]) -> set[str]:
    names: set[str] = set()
    for line in lines:
        m = _TYPE_FUNC.match(line) or _KERNEL_DIRECTIVE.match(line)
        if m:
            names.add(_unquote(m.group(1)))
    return names


def _collect_amdgpu(text: str) -> tuple[dict[str, Counter[str]], list[str]]:
    text = _BLOCK_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    lines = text.splitlines()
    functions = _amdgpu_function_names(lines)
    objdump = any(_OBJDUMP_HEADER.match(line) or _OBJDUMP_BANNER.match(line) for line in lines)
    kernels: dict[str, Counter[str]] = {}
    order: list[str] = []
    current = TOPLEVEL
    skip_until: str | None = None

    def enter(name: str) -> None:
        nonlocal current
        current = name
        if name not in kernels:
            kernels[name] = Counter()
            order.append(name)

    for raw in lines:
        stripped = raw.strip()
        if skip_until is not None:
            if stripped.split(None, 1)[:1] == [skip_until]:
                skip_until = None
            continue
        if objdump and _OBJDUMP_BANNER.match(raw):
            continue
        header = _OBJDUMP_HEADER.match(raw)
        if header:
            name = header.group(1)
            if not _LOCAL_OBJDUMP_LABEL.match(name):
                enter(name)
            continue
        line = _strip_amdgpu_comment(raw)
        line = _OBJDUMP_ADDR.sub("", line, count=1)
        while True:
            stripped_enc = _ENCODING_WORD.sub("", line.lstrip(), count=1)
            if stripped_enc == line.lstrip():
                break
            line = stripped_enc
        line = line.strip()
        if not line:
            continue
        first = line.split(None, 1)[0]
        if first in _SKIP_BLOCKS:
            skip_until = _SKIP_BLOCKS[first]
            continue
        label = _LABEL.match(line)
        if label:
            name = _unquote(label.group(1))
            if functions or objdump:
                is_function = name in functions
            else:
                is_function = not name.startswith((".", "$"))
            if is_function:
                enter(name)
            line = label.group(2).strip()
            if not line:
                continue
        if line.startswith("."):
            continue  # directive
        if current == TOPLEVEL and TOPLEVEL not in kernels:
            kernels[TOPLEVEL] = Counter()
        _count_amdgpu_instruction(line, kernels[current])

    names = list(order)
    if TOPLEVEL in kernels and +kernels[TOPLEVEL]:
        names.insert(0, TOPLEVEL)
    else:
        kernels.pop(TOPLEVEL, None)
    return kernels, names


# --------------------------------------------------------------------------- PTX

_PTX_FUNC_HEADER = re.compile(
    r"\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$%.]*)"
)
_PTX_PREDICATE = re.compile(r"^@!?%?[\w.]+\s+")
_PTX_LABEL = re.compile(r"^[\w$.%]+\s*:(?!:)\s*")


def _count_ptx_instruction(stmt: str, counts: Counter[str]) -> None:
    # What precedes the instruction in the same statement: the braces of a nested scope
    # and labels.
    while True:
        rest = _PTX_LABEL.sub("", stmt.strip().lstrip("{} \t\r\n"), count=1)
        if rest == stmt:
            break
        stmt = rest
    stmt = _PTX_PREDICATE.sub("", stmt)
    if not stmt or stmt.startswith("."):
        return
    mnemonic = stmt.split(None, 1)[0]
    if mnemonic.startswith("cp.async"):
        if mnemonic == "cp.async" or mnemonic.startswith("cp.async."):
            counts["cp.async"] += 1
        return
    parts = mnemonic.split(".")
    op = parts[0]
    if op not in ("ld", "st"):
        return
    spaces = {p.split("::", 1)[0] for p in parts[1:]}
    if "global" in spaces:
        if op == "ld":
            counts["ld.global.nc" if "nc" in spaces else "ld.global"] += 1
        else:
            counts["st.global"] += 1
    elif "shared" in spaces:
        counts[f"{op}.shared"] += 1
    elif "local" in spaces:
        counts[f"{op}.local"] += 1


def _collect_ptx(text: str) -> tuple[dict[str, Counter[str]], list[str]]:
    text = _BLOCK_COMMENT.sub(" ", text)
    text = re.sub(r"//[^\n]*", "", text)
    kernels: dict[str, Counter[str]] = {}
    order: list[str] = []
    depth = 0
    pending: str | None = None
    current: str | None = None
    stmt = ""
    for ch_stmt in re.split(r"([{};])", text):
        if ch_stmt == "{":
            if depth == 0:
                header = _PTX_FUNC_HEADER.findall(stmt)
                if header:
                    pending = header[-1]
                if pending is not None:
                    current = pending
                    if current not in kernels:
                        kernels[current] = Counter()
                        order.append(current)
                    pending = None
            elif current is not None:
                # A vector operand such as {%f1, %f2} or a nested scope: the text before it
                # may be the start of an instruction, so keep it.
                stmt += "{"
                depth += 1
                continue
            depth += 1
            stmt = ""
        elif ch_stmt == "}":
            depth = max(depth - 1, 0)
            if depth == 0:
                current = None
                stmt = ""
            else:
                stmt += "}"
        elif ch_stmt == ";":
            if depth == 0:
                stmt = ""
                pending = None  # a prototype or a module-level declaration
                continue
            if current is not None:
                _count_ptx_instruction(stmt, kernels[current])
            stmt = ""
        else:
            stmt += ch_stmt
    return kernels, order


# --------------------------------------------------------------------------- registers

def add_registers(stats: FileStats, registers: Mapping[str, Mapping[str, int]]) -> FileStats:
    """``stats`` with the register keys of ``registers`` (per function) added to its functions,
    zero-filled like every key, and to its total (``occupancy`` totals as the lowest)."""
    keys = {k for counts in registers.values() for k in counts}
    if not keys:
        return stats
    for name, counts in stats.kernels.items():
        for key in keys:
            counts[key] = int(registers.get(name, {}).get(key, 0))
    for key in keys:
        values = [c[key] for c in stats.kernels.values()]
        if key in LOWER_IS_WORSE:
            stated = [v for v in values if v]
            stats.total[key] = min(stated) if stated else 0
        else:
            stats.total[key] = sum(values)
    return stats


# --------------------------------------------------------------------------- API


def collect(text: str, name: str = "<stdin>", kind: str | None = None) -> FileStats:
    """Count one file. ``kind`` (``amdgpu``/``ptx``) overrides detection."""
    kind = kind or detect_kind(text)
    if kind == "ptx":
        kernels, order = _collect_ptx(text)
        base = PTX_BASE_KEYS
    elif kind == "amdgpu":
        kernels, order = _collect_amdgpu(text)
        base = AMDGPU_BASE_KEYS
    else:
        raise ValueError(f"unknown kind {kind!r}")
    keys = set(base)
    for counts in kernels.values():
        keys.update(k for k, v in counts.items() if v)
    total: Counter[str] = Counter({k: 0 for k in keys})
    ordered: dict[str, Counter[str]] = {}
    for kname in order:
        filled: Counter[str] = Counter({k: kernels[kname].get(k, 0) for k in keys})
        ordered[kname] = filled
        total.update(filled)
    stats = FileStats(path=name, kind=kind, kernels=ordered, total=total)
    if kind == "amdgpu" and any(m in text for m in (".end_amdgpu_metadata", "; NumVgprs", ".set ")):
        add_registers(stats, amdgpu_registers(text))
    return stats


def _row_keys(a: Mapping[str, int] | None, b: Mapping[str, int] | None) -> list[str]:
    keys: set[str] = set()
    for side in (a, b):
        if side:
            keys.update(side)
    return order_keys(keys)


def diff(a: FileStats, b: FileStats) -> StatsDiff:
    """Compare two inputs counter by counter, per function and in total."""
    rows: list[DiffRow] = []
    names = list(a.kernels) + [n for n in b.kernels if n not in a.kernels]
    keys_all = order_keys(set(a.total) | set(b.total))
    for kname in names:
        ka = a.kernels.get(kname)
        kb = b.kernels.get(kname)
        for key in keys_all:
            rows.append(DiffRow(
                kname,
                key,
                None if ka is None else ka.get(key, 0),
                None if kb is None else kb.get(key, 0),
            ))
    for key in keys_all:
        rows.append(DiffRow(TOTAL_ROW, key, a.total.get(key, 0), b.total.get(key, 0)))
    return StatsDiff(a=a, b=b, rows=rows)


def _counts_dict(counts: Mapping[str, int]) -> dict[str, int]:
    return {k: int(counts.get(k, 0)) for k in order_keys(counts)}


def file_to_dict(stats: FileStats) -> dict[str, Any]:
    return {
        "path": stats.path,
        "label": stats.label,
        "kind": stats.kind,
        "kernels": {k: _counts_dict(v) for k, v in stats.kernels.items()},
        "total": _counts_dict(stats.total),
    }


def diff_to_dict(d: StatsDiff) -> dict[str, Any]:
    kernels: dict[str, dict[str, dict[str, int | None]]] = {}
    for row in d.kernel_rows():
        kernels.setdefault(row.kernel, {})[row.counter] = {"a": row.a, "b": row.b, "delta": row.delta}
    total = {r.counter: {"a": r.a, "b": r.b, "delta": r.delta} for r in d.total_rows()}
    return {"a": d.a.label, "b": d.b.label, "kernels": kernels, "total": total}


def to_dict(files: Sequence[FileStats], diff_result: StatsDiff | None = None) -> dict[str, Any]:
    """The ``llnoalias.stats/1`` document for ``files`` (and a diff of two of them)."""
    doc: dict[str, Any] = {"schema": SCHEMA, "files": [file_to_dict(f) for f in files]}
    if diff_result is not None:
        doc["diff"] = diff_to_dict(diff_result)
    return doc


def to_json(files: Sequence[FileStats] | FileStats, diff_result: StatsDiff | None = None) -> str:
    """Serialise to ``llnoalias.stats/1`` JSON text (ends with a newline)."""
    seq = [files] if isinstance(files, FileStats) else list(files)
    return json.dumps(to_dict(seq, diff_result), indent=2) + "\n"


class SchemaError(ValueError):
    """A stats document that is not ``llnoalias.stats/1``."""


def _counter_from(obj: Any, where: str) -> Counter[str]:
    if not isinstance(obj, dict):
        raise SchemaError(f"{where}: expected an object of counts")
    out: Counter[str] = Counter()
    for key, value in obj.items():
        if not isinstance(key, str) or isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise SchemaError(f"{where}: '{key}' must be a non-negative integer")
        out[key] = value
    return out


def from_dict(doc: Any) -> list[FileStats]:
    """Read back a ``llnoalias.stats/1`` document (``diff`` is ignored)."""
    if not isinstance(doc, dict):
        raise SchemaError("expected a JSON object")
    schema = doc.get("schema")
    if schema != SCHEMA:
        raise SchemaError(f"schema is {schema!r}, expected '{SCHEMA}'")
    files = doc.get("files")
    if not isinstance(files, list):
        raise SchemaError("'files' must be a list")
    out: list[FileStats] = []
    for i, entry in enumerate(files):
        where = f"files[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            raise SchemaError(f"{where}: expected an object with a 'path'")
        kernels_obj = entry.get("kernels", {})
        if not isinstance(kernels_obj, dict):
            raise SchemaError(f"{where}.kernels: expected an object")
        kernels = {str(k): _counter_from(v, f"{where}.kernels.{k}") for k, v in kernels_obj.items()}
        if "total" in entry:
            total = _counter_from(entry["total"], f"{where}.total")
        else:
            total = Counter()
            for c in kernels.values():
                total.update(c)
        kind = entry.get("kind", "amdgpu")
        label = entry.get("label") or entry["path"]
        out.append(FileStats(path=entry["path"], kind=str(kind), kernels=kernels, total=total, label=str(label)))
    return out


def from_json(text: str) -> list[FileStats]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SchemaError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    return from_dict(doc)
