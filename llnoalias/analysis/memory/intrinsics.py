"""The intrinsic tables, as data.

``MEMORY_INTRINSICS``: calls that llnoalias tags like loads and stores. Each entry names
what every pointer operand does (read, write) and where the volatile flag lives. Every
pointer-typed argument of such a call counts as a memory operand when deciding whether
the call can be tagged, whatever the table says, so a mistake here costs tags, never
soundness. ``opaque`` lists non-pointer operands that still address memory (the
``<4 x i32>`` resource of the old buffer intrinsics): they reach kernel-argument buffers
with unknown provenance.

``LDS_DMA``: the LDS-DMA intrinsics (loads from global or buffer memory that write LDS),
one row each: which operand is the LDS pointer, which the global/buffer source, the size
and immediate offset operands, whether the LDS address is per lane, which counter the code
generator waits on. ``MEMORY_INTRINSICS`` takes its LDS-DMA rows from it, and the regions,
the DMA address summaries and the code-generator safety rules (design section 4b) read it.

``PASS_THROUGH``: calls whose result carries one operand's provenance (design section 2).
"""

from __future__ import annotations

import functools

from ...ir.facts import LDS_ADDRSPACE
from ...ir.lazyre import lazy

#: how a pointer operand is used: r (read), w (write), rw; "lds_w" = the addrspace(3)
#: operand is written, every other pointer operand is read (the LDS-DMA family).
Effect = str


class MemIntrinsic:
    """One row of ``MEMORY_INTRINSICS`` (not changed once made; a plain class: a dataclass
    costs about 1 ms at every start)."""

    __slots__ = ("pattern", "effects", "volatile", "volatile_index", "opaque", "default_effect", "data",
                 "footprint")

    def __init__(self, pattern: str, effects: dict[int, Effect], volatile: str | None = None,
                 volatile_index: int = -1, opaque: tuple[int, ...] = (), default_effect: Effect = "rw",
                 data: tuple[int, ...] = (), footprint: str = "") -> None:
        self.pattern = pattern
        self.effects = effects
        #: which argument says "volatile": "memflag" (an i1 flag at that index) or
        #: "aux" (the last argument, an immediate whose bit 31 means volatile), or None.
        self.volatile = volatile
        self.volatile_index = volatile_index
        self.opaque = opaque
        self.default_effect = default_effect
        #: operands whose value is written to memory (the data of a buffer store, which may
        #: itself be a pointer; memset's byte; stmatrix's registers): they escape, whatever
        #: their type, and are the only values the call may store (a copy stores none of its
        #: operands: it moves what memory held)
        self.data = data
        #: how ``analysis.ranges.footprints.extent`` finds the bytes at the pointer: ``length@I``
        #: (operand I is the length: memcpy, memset), ``dma`` (the row of ``LDS_DMA``: the wave's
        #: lanes at the immediate offset), ``name`` (the name's last number is the bytes: cp.async
        #: ``.16``), ``result`` (the result type's size: the transposing LDS reads), ``matrix``
        #: (ldmatrix/stmatrix: a 16-byte row per lane address for m8n8, else 64), "" (not known)
        self.footprint = footprint

    def __repr__(self) -> str:
        return f"MemIntrinsic({self.pattern!r})"

    def effect_of(self, index: int, addrspace: int) -> Effect:
        if self.default_effect == "lds_w":
            return "w" if addrspace == LDS_ADDRSPACE else "r"
        return self.effects.get(index, self.default_effect)


def _mem(pattern: str, effects: dict[int, Effect], volatile: str | None = None, volatile_index: int = -1,
         opaque: tuple[int, ...] = (), default_effect: Effect = "rw", data: tuple[int, ...] = (),
         footprint: str = "") -> MemIntrinsic:
    return MemIntrinsic(pattern, effects, volatile, volatile_index, opaque, default_effect, data, footprint)


class LdsDma:
    """One row of ``LDS_DMA``: an intrinsic that loads from global or buffer memory and
    writes LDS (not changed once made).

    ``pattern``: the name (a regex, matched whole); ``names``: every spelling the row is
    for, with the operand types (``signature``) a declaration takes, for the table's test;
    ``lds``: the index of the LDS pointer operand; ``source``: the index of the global
    pointer or buffer resource; ``size``: the index of the size operand (bytes per lane),
    or None when the name says the size (``.bN``: N bits); ``offset``: the index of the
    immediate offset; ``opaque``: non-pointer operands that address memory (the old
    ``<4 x i32>`` resource); ``per_lane``: False when the LDS address is the wave's (the
    pointer is read into M0: lane i writes at M0 + offset + i * size), True when each lane
    gives its own; ``counter``: what the code generator waits on before a later LDS access
    (``vmcnt``: ``SIInsertWaitcnts`` decides it from the alias metadata, design section 4b;
    ``asynccnt``: nothing, measured with LLVM 22.1: the program waits itself with
    ``llvm.amdgcn.s.wait.asynccnt``); ``llvm22``: LLVM 22 (llvmlite's) has the intrinsic,
    else it is newer LLVM's (LLVM 24) and the bridge (``amdgcn-async-lds-load``) hands the
    code generator its LLVM 22 twin, ``older``: that twin's name (None: no twin, the bridge
    stops with an error); ``wide``: the GPUs LLVM 22 selects its 12- and 16-byte sizes for
    (``backends/gpu_needs`` infers the GPU of a module that calls it with one; empty: no
    inference); ``mnemonics``: how the assembly spells the instruction (the prefix of its
    mnemonic: ``asm/reader`` counts these as LDS-DMAs; a buffer load with the ``lds``
    operand counts too).

    Adding an LDS-DMA is adding a row: the tagging, the regions, the DMA summaries and
    rules, the GPU inference, the bridge and ``docs/intrinsics.md`` read it."""

    __slots__ = ("pattern", "names", "signature", "lds", "source", "size", "offset", "opaque", "per_lane",
                 "counter", "llvm22", "older", "wide", "mnemonics")

    def __init__(self, pattern: str, names: tuple[str, ...], signature: str, offset: int, *,
                 size: int | None = 2, opaque: tuple[int, ...] = (), per_lane: bool = False,
                 counter: str = "vmcnt", older: str | None = None, llvm22: bool = True,
                 wide: tuple[str, ...] = (), mnemonics: tuple[str, ...] = ()) -> None:
        self.pattern = pattern
        self.names = names
        self.signature = signature
        self.lds = 1
        self.source = 0
        self.size = size
        self.offset = offset
        self.opaque = opaque
        self.per_lane = per_lane
        self.counter = counter
        self.llvm22 = llvm22
        self.older = older
        self.wide = wide
        self.mnemonics = mnemonics

    def __repr__(self) -> str:
        return f"LdsDma({self.pattern!r})"

    def lane_bytes(self, name: str, size: int | None) -> int | None:
        """The bytes one lane writes: the size operand's value ``size`` (None when it is
        not a constant), or what the name says (``.b32``: 4)."""
        if self.size is not None:
            return size
        bits = name.rpartition(".b")[2]
        return int(bits) // 8 if bits.isdigit() else None


_RSRC8 = "ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32"
_V4RSRC = "<4 x i32>, ptr addrspace(3), i32, i32, i32, i32, i32"
_GLOBAL = "ptr addrspace(1), ptr addrspace(3), i32, i32, i32"

#: The LDS-DMA intrinsics (IntrinsicsAMDGPU.td; the ``async`` forms are LLVM 24's). The
#: buffer forms: (rsrc, lds, size, [vindex,] voffset, soffset, imm offset, aux); the global
#: ones and ``load.to.lds``: (src, lds, size, imm offset, aux); gfx1250's per-lane
#: ``global.load.async.to.lds.bN``: (src, lds, imm offset, aux). Not here (no row of
#: ``MEMORY_INTRINSICS`` either, so llnoalias never tags them): gfx1250's
#: ``cluster.load.async.to.lds.bN``, whose operands were not checked.
_BUF = ("buffer_load_lds",)
_GLB = ("global_load_lds",)
_GFX950 = ("gfx950",)
LDS_DMA: tuple[LdsDma, ...] = (
    LdsDma(r"llvm\.amdgcn\.raw\.ptr\.buffer\.load\.lds", ("llvm.amdgcn.raw.ptr.buffer.load.lds",), _RSRC8, 5,
           wide=_GFX950, mnemonics=_BUF),
    LdsDma(r"llvm\.amdgcn\.raw\.ptr\.buffer\.load\.async\.lds", ("llvm.amdgcn.raw.ptr.buffer.load.async.lds",),
           _RSRC8, 5, llvm22=False, older="llvm.amdgcn.raw.ptr.buffer.load.lds", mnemonics=_BUF),
    LdsDma(r"llvm\.amdgcn\.struct\.ptr\.buffer\.load\.lds", ("llvm.amdgcn.struct.ptr.buffer.load.lds",),
           _RSRC8 + ", i32", 6, wide=_GFX950, mnemonics=_BUF),
    LdsDma(r"llvm\.amdgcn\.struct\.ptr\.buffer\.load\.async\.lds", ("llvm.amdgcn.struct.ptr.buffer.load.async.lds",),
           _RSRC8 + ", i32", 6, llvm22=False, older="llvm.amdgcn.struct.ptr.buffer.load.lds", mnemonics=_BUF),
    LdsDma(r"llvm\.amdgcn\.raw\.buffer\.load\.lds", ("llvm.amdgcn.raw.buffer.load.lds",), _V4RSRC, 5, opaque=(0,),
           wide=_GFX950, mnemonics=_BUF),
    LdsDma(r"llvm\.amdgcn\.raw\.buffer\.load\.async\.lds", ("llvm.amdgcn.raw.buffer.load.async.lds",), _V4RSRC, 5,
           opaque=(0,), llvm22=False, older="llvm.amdgcn.raw.buffer.load.lds", mnemonics=_BUF),
    LdsDma(r"llvm\.amdgcn\.struct\.buffer\.load\.lds", ("llvm.amdgcn.struct.buffer.load.lds",), _V4RSRC + ", i32", 6,
           opaque=(0,), wide=_GFX950, mnemonics=_BUF),
    LdsDma(r"llvm\.amdgcn\.struct\.buffer\.load\.async\.lds", ("llvm.amdgcn.struct.buffer.load.async.lds",),
           _V4RSRC + ", i32", 6, opaque=(0,), llvm22=False, older="llvm.amdgcn.struct.buffer.load.lds",
           mnemonics=_BUF),
    LdsDma(r"llvm\.amdgcn\.global\.load\.lds(\..*)?", ("llvm.amdgcn.global.load.lds",), _GLOBAL, 3,
           wide=_GFX950, mnemonics=_GLB),
    LdsDma(r"llvm\.amdgcn\.global\.load\.async\.lds(\..*)?", ("llvm.amdgcn.global.load.async.lds",), _GLOBAL, 3,
           llvm22=False, older="llvm.amdgcn.global.load.lds", mnemonics=_GLB),
    LdsDma(r"llvm\.amdgcn\.load\.to\.lds(\..*)?", ("llvm.amdgcn.load.to.lds.p1", "llvm.amdgcn.load.to.lds.p7"),
           _GLOBAL, 3, mnemonics=_GLB + _BUF),
    LdsDma(r"llvm\.amdgcn\.load\.async\.to\.lds(\..*)?", ("llvm.amdgcn.load.async.to.lds.p1",), _GLOBAL, 3,
           llvm22=False, mnemonics=_GLB),
    LdsDma(r"llvm\.amdgcn\.global\.load\.async\.to\.lds\..*",
           tuple(f"llvm.amdgcn.global.load.async.to.lds.b{n}" for n in (8, 32, 64, 128)),
           "ptr addrspace(1), ptr addrspace(3), i32, i32", 2, size=None, per_lane=True, counter="asynccnt",
           mnemonics=("global_load_async_to_lds",)),
)
_DMA_COMPILED = tuple((lazy(d.pattern), d) for d in LDS_DMA)


@functools.lru_cache(maxsize=256)
def lds_dma(name: str | None) -> LdsDma | None:
    """The ``LDS_DMA`` row for callee ``name`` (without the ``@``), or None."""
    if not name or not name.startswith("llvm.amdgcn."):
        return None
    for rx, entry in _DMA_COMPILED:
        if rx.fullmatch(name):
            return entry
    return None


#: Finds a call of (or a declaration naming) an LDS-DMA in module text.
LDS_DMA_TEXT = lazy("@(?:" + "|".join(d.pattern for d in LDS_DMA) + ")")


class AsyncLds:
    """One row of ``ASYNC_LDS``: an instruction that writes or reads LDS after it issues, until a
    wait on its counter retires it (not changed once made).

    ``pattern``: the name (a regex, matched whole); ``names``: the spellings, with the operand
    types of a declaration (``signature``); ``counter``: the wait field that retires it
    (``vmcnt``: ``loadcnt`` from gfx12 on; ``asynccnt``; ``tensorcnt``); ``lds``: ``w`` (it
    writes LDS) or ``r`` (it reads LDS, e.g. a store from LDS); ``locate``: how its LDS bytes
    are found: ``wave`` (an LDS pointer operand, the wave's, read into M0: lane i at
    M0 + offset + i * size), ``lane`` (each lane's own LDS pointer operand) or ``descriptor``
    (group 0's word 1 the LDS byte address, group 1 the element size, tile dimensions and
    padding: ``check.tiles``); ``gpus``: the generations that have it; ``mnemonic``: how the
    assembly spells it (its prefix; ``asm.reader.ASYNC_MNEMONICS`` holds the same);
    ``llvm22``: LLVM 22 (llvmlite's) takes it as written; ``dma``: its row of ``LDS_DMA``
    (the vmcnt DMAs the annotate rules of design section 4b speak of), or None."""

    __slots__ = ("pattern", "names", "signature", "counter", "lds", "locate", "gpus", "mnemonic", "llvm22", "dma")

    def __init__(self, pattern: str, names: tuple[str, ...], signature: str, counter: str, lds: str, locate: str,
                 gpus: str, mnemonic: str, *, llvm22: bool = True, dma: LdsDma | None = None) -> None:
        self.pattern = pattern
        self.names = names
        self.signature = signature
        self.counter = counter
        self.lds = lds
        self.locate = locate
        self.gpus = gpus
        self.mnemonic = mnemonic
        self.llvm22 = llvm22
        self.dma = dma

    def __repr__(self) -> str:
        return f"AsyncLds({self.pattern!r})"


def _from_dma(d: LdsDma) -> AsyncLds:
    gpus = "gfx1250" if d.counter == "asynccnt" else ("gfx950" if d.wide else "gfx9-gfx12")
    return AsyncLds(d.pattern, d.names, d.signature, d.counter, "w", "lane" if d.per_lane else "wave", gpus,
                    d.mnemonics[0] if d.mnemonics else "", llvm22=d.llvm22, dma=d)


_TDM5 = "<4 x i32>, <8 x i32>, <4 x i32>, <4 x i32>, <8 x i32>, i32"
_TDM2 = "<4 x i32>, <8 x i32>, i32"
_LANE_ASYNC = "ptr addrspace(1), ptr addrspace(3), i32, i32"
#: Every asynchronous LDS writer and reader (IntrinsicsAMDGPU.td; SIInsertWaitcnts counts the
#: ``global``/``cluster`` async ones with ASYNC_CNT and the tensor data mover with TENSOR_CNT;
#: LLVM puts no wait for either: the program waits with ``s.wait.asynccnt`` / ``s.wait.tensorcnt``).
#: The tensor ops take descriptor groups (LLVM 24: D0 ``<4 x i32>``, D1 ``<8 x i32>``, D2, D3
#: ``<4 x i32>``, D4 ``<8 x i32>``, cache policy; ``.d2``: D0, D1, cache policy).
ASYNC_LDS: tuple[AsyncLds, ...] = (
    *(_from_dma(d) for d in LDS_DMA),
    AsyncLds(r"llvm\.amdgcn\.cluster\.load\.async\.to\.lds\.b\d+",
             tuple(f"llvm.amdgcn.cluster.load.async.to.lds.b{n}" for n in (8, 32, 64, 128)),
             _LANE_ASYNC + ", i32", "asynccnt", "w", "lane", "gfx1250", "cluster_load_async_to_lds"),
    AsyncLds(r"llvm\.amdgcn\.global\.store\.async\.from\.lds\.b\d+",
             tuple(f"llvm.amdgcn.global.store.async.from.lds.b{n}" for n in (8, 32, 64, 128)),
             _LANE_ASYNC, "asynccnt", "r", "lane", "gfx1250", "global_store_async_from_lds"),
    AsyncLds(r"llvm\.amdgcn\.tensor\.load\.to\.lds", ("llvm.amdgcn.tensor.load.to.lds",), _TDM5, "tensorcnt", "w",
             "descriptor", "gfx1250", "tensor_load_to_lds", llvm22=False),
    AsyncLds(r"llvm\.amdgcn\.tensor\.load\.to\.lds\.d2", ("llvm.amdgcn.tensor.load.to.lds.d2",), _TDM2,
             "tensorcnt", "w", "descriptor", "gfx1250", "tensor_load_to_lds"),
    AsyncLds(r"llvm\.amdgcn\.tensor\.store\.from\.lds", ("llvm.amdgcn.tensor.store.from.lds",), _TDM5,
             "tensorcnt", "r", "descriptor", "gfx1250", "tensor_store_from_lds", llvm22=False),
    AsyncLds(r"llvm\.amdgcn\.tensor\.store\.from\.lds\.d2", ("llvm.amdgcn.tensor.store.from.lds.d2",), _TDM2,
             "tensorcnt", "r", "descriptor", "gfx1250", "tensor_store_from_lds"),
)
_ASYNC_COMPILED = tuple((lazy(a.pattern), a) for a in ASYNC_LDS)


@functools.lru_cache(maxsize=256)
def async_lds(name: str | None) -> AsyncLds | None:
    """The ``ASYNC_LDS`` row for callee ``name`` (without the ``@``), or None."""
    if not name or not name.startswith("llvm.amdgcn."):
        return None
    for rx, entry in _ASYNC_COMPILED:
        if rx.fullmatch(name):
            return entry
    return None


#: Finds a call of (or a declaration naming) any asynchronous LDS writer or reader in module text.
ASYNC_LDS_TEXT = lazy("@(?:" + "|".join(a.pattern for a in ASYNC_LDS) + r")\b")


def newer_than_llvm22(text: str, tensor_only: bool = False) -> tuple[str, int, int] | None:
    """The first call of an asynchronous LDS operation LLVM 22 does not have and the bridge does
    not rewrite (gfx1250's five-group tensor operations, which LLVM 22 rejects as a broken
    module): its name, line and column; None when there is none. ``tensor_only``: only those
    outside the LDS-DMA catalogue (for a text the bridge has not looked at, whose LDS-DMA
    ``async`` forms it may still respell)."""
    if "@llvm.amdgcn." not in text or ("tensor" not in text and "async" not in text):
        return None
    for m in ASYNC_LDS_TEXT.finditer(text):
        row = async_lds(m.group(0)[1:])
        if row is not None and not row.llvm22 and not (tensor_only and row.dma is not None):
            start = text.rfind("\n", 0, m.start()) + 1
            return m.group(0)[1:], text.count("\n", 0, m.start()) + 1, m.start() - start + 1
    return None


#: Names that look like an asynchronous LDS operation (an LDS side and a copy, or the tensor
#: data mover): one that is no row of ``ASYNC_LDS`` is an operation ``check`` does not model.
ASYNC_LIKE = lazy(r"@(llvm\.amdgcn\.(?!lds\.(?:param|direct)\.)[\w.]*?(?:(?:to|from)\.lds|\.lds\b|tensor\.(?:load|store))"
                  r"[\w.]*)\(")


class CounterWait:
    """One row of ``COUNTER_WAITS``: an intrinsic that waits on (or orders by) a counter of
    ``ASYNC_LDS``: ``llvm22`` whether LLVM 22 has it."""

    __slots__ = ("pattern", "counter", "llvm22")

    def __init__(self, pattern: str, counter: str, llvm22: bool = True) -> None:
        self.pattern = pattern
        self.counter = counter
        self.llvm22 = llvm22


COUNTER_WAITS: tuple[CounterWait, ...] = (
    CounterWait(r"llvm\.amdgcn\.s\.wait\.asynccnt", "asynccnt"),
    CounterWait(r"llvm\.amdgcn\.s\.wait\.tensorcnt", "tensorcnt"),
    # the LDS barrier arrive that completes in order with the asynchronous loads
    CounterWait(r"llvm\.amdgcn\.ds\.atomic\.async\.barrier\.arrive\.b64", "asynccnt"),
    CounterWait(r"llvm\.amdgcn\.(?:wait\.)?asyncmark", "vmcnt", llvm22=False),
)


MEMORY_INTRINSICS: tuple[MemIntrinsic, ...] = (
    # generic memory intrinsics: (dst, src, len, isvolatile)
    _mem(r"llvm\.memcpy(\.inline)?\..*", {0: "w", 1: "r"}, "memflag", 3, footprint="length@2"),
    _mem(r"llvm\.memmove\..*", {0: "w", 1: "r"}, "memflag", 3, footprint="length@2"),
    _mem(r"llvm\.memset(\.inline)?\..*", {0: "w"}, "memflag", 3, data=(1,), footprint="length@2"),
    # AMDGPU LDS DMA (``LDS_DMA``): global/buffer side read, LDS side written
    *(_mem(d.pattern, {}, "aux", opaque=d.opaque, default_effect="lds_w", footprint="dma")
      for d in LDS_DMA),
    # AMDGPU buffer loads and stores through a buffer resource (ptr addrspace(8))
    _mem(r"llvm\.amdgcn\.(raw|struct)\.ptr\.t?buffer\.load(\.format)?(\..*)?", {}, "aux", default_effect="r"),
    _mem(r"llvm\.amdgcn\.(raw|struct)\.ptr\.t?buffer\.store(\.format)?(\..*)?", {}, "aux", default_effect="w",
         data=(0,)),
    # AMDGPU transposing LDS reads
    _mem(r"llvm\.amdgcn\.ds\.(read|load)\.tr[0-9a-z_]*(\..*)?", {}, default_effect="r", footprint="result"),
    # NVPTX async copies global -> shared, and matrix loads/stores from shared memory
    _mem(r"llvm\.nvvm\.cp\.async\.(ca|cg)\.shared\.global\..*", {0: "w", 1: "r"}, footprint="name"),
    _mem(r"llvm\.nvvm\.ldmatrix\..*", {}, default_effect="r", footprint="matrix"),
    _mem(r"llvm\.nvvm\.stmatrix\..*", {}, default_effect="w", data=tuple(range(1, 9)), footprint="matrix"),
)

_COMPILED = tuple((lazy(e.pattern), e) for e in MEMORY_INTRINSICS)


@functools.lru_cache(maxsize=4096)
def memory_intrinsic(name: str) -> MemIntrinsic | None:
    """The table entry for callee ``name`` (without the ``@``), or None."""
    if not name.startswith("llvm."):
        return None
    for rx, entry in _COMPILED:
        if rx.fullmatch(name):
            return entry
    return None


#: Calls whose result has the provenance of argument 0 (all other arguments must be none).
_PASS_THROUGH_RE = lazy(
    r"llvm\.(ptrmask|amdgcn\.make\.buffer\.rsrc"
    r"|launder\.invariant\.group|strip\.invariant\.group|ssa\.copy|expect"
    r"|nvvm\.ptr\.(gen\.to\.[a-z]+|[a-z]+\.to\.gen))(\..*)?"
)


#: Intrinsics outside the table that may write their non-address operands to memory.
_MAY_STORE_RE = lazy(r"atomic|store|\.st\.|scatter|swap|bvh|\.ds\.(append|consume|ordered|gws)|cp\.|bulk|stmatrix")


def may_store_operands(name: str) -> bool:
    """Can the intrinsic ``name`` write some of its operands' values to memory?"""
    return memory_intrinsic(name) is not None or bool(_MAY_STORE_RE.search(name))


class LaneIntrinsic:
    """A lane intrinsic (design section 2): each lane gets another lane's copy of the data
    operands. ``data``: the operands whose copies the result is, when ``safe`` holds
    (when it does not, every operand counts, as for any other intrinsic). ``safe``: when the intrinsic cannot
    hand back a value that no lane held, as a condition on constant operands: ``always``,
    ``never``, ``false@I`` (operand I is the constant false: DPP/permlane ``bound_ctrl``,
    ``fi``), ``allmask@I`` (operand I is the all-lanes mask ``-1``)."""

    __slots__ = ("pattern", "data", "safe")

    def __init__(self, pattern: str, data: tuple[int, ...], safe: tuple[str, ...]) -> None:
        self.pattern = pattern
        self.data = data
        self.safe = safe

    def __repr__(self) -> str:
        return f"LaneIntrinsic({self.pattern!r})"


#: The lane intrinsics and when their result is the join of their data operands. The
#: argument for each row is in docs/soundness.md ("Lane intrinsics"); in short:
#: - readfirstlane reads the first active lane (one always is): a copy some lane held;
#: - writelane gives each lane its own ``old`` or the written value; set.inactive gives
#:   active lanes ``active`` and inactive ones ``inactive``: copies some lane held;
#: - update.dpp and permlane16/x16 keep ``old`` where the source lane is out of range or
#:   disabled, but only with ``bound_ctrl`` (and ``fi``, fetch-inactive) false; with
#:   bound_ctrl they write 0, with fi they read an inactive lane's stale register;
#: - ds.bpermute / ds.permute / ds.swizzle give 0 for a disabled source lane, mov.dpp has
#:   no ``old`` (undefined or 0), readlane of a disabled lane is undefined, permlane64 and
#:   the newer permlanes read lanes whatever EXEC says: never safe;
#: - shfl.sync is undefined when the source lane is not in the mask or has not executed
#:   it; with the constant all-lanes mask every lane of the warp must execute it (else the
#:   program is undefined), so the result is a copy some lane held.
#: An unsafe intrinsic's result is ``none`` when its data operands are (0, or a copy of a
#: plain value, is a plain value), else ``unknown``: 0 is not inside any root.
LANE_INTRINSICS: tuple[LaneIntrinsic, ...] = (
    LaneIntrinsic(r"llvm\.amdgcn\.readfirstlane(\..*)?", (0,), ("always",)),
    LaneIntrinsic(r"llvm\.amdgcn\.readlane(\..*)?", (0,), ("never",)),
    LaneIntrinsic(r"llvm\.amdgcn\.writelane(\..*)?", (0, 2), ("always",)),
    LaneIntrinsic(r"llvm\.amdgcn\.set\.inactive(\.chain\.arg)?(\..*)?", (0, 1), ("always",)),
    LaneIntrinsic(r"llvm\.amdgcn\.update\.dpp(\..*)?", (0, 1), ("false@5",)),
    LaneIntrinsic(r"llvm\.amdgcn\.permlane(16|32)\.swap(\..*)?", (), ("never",)),
    LaneIntrinsic(r"llvm\.amdgcn\.permlanex?16\.var(\..*)?", (0, 1), ("false@3", "false@4")),
    LaneIntrinsic(r"llvm\.amdgcn\.permlanex?16(?!\.var|\.swap)(\..*)?", (0, 1), ("false@4", "false@5")),
    LaneIntrinsic(r"llvm\.amdgcn\.(ds\.bpermute|ds\.permute|ds\.swizzle|mov\.dpp8?|permlane[0-9a-z_.]*)"
                  r"(\..*)?", (), ("never",)),
    LaneIntrinsic(r"llvm\.nvvm\.shfl\.sync\.(idx|up|down|bfly)\.(i32|f32)", (1,), ("allmask@0",)),
    LaneIntrinsic(r"llvm\.nvvm\.shfl\.[a-z0-9_.]*", (), ("never",)),
)
_LANE_COMPILED = tuple((lazy(e.pattern), e) for e in LANE_INTRINSICS)


@functools.lru_cache(maxsize=1024)
def lane_intrinsic(name: str) -> LaneIntrinsic | None:
    """The lane-intrinsic row for callee ``name`` (without the ``@``), or None."""
    if not name.startswith("llvm."):
        return None
    for rx, entry in _LANE_COMPILED:
        if rx.fullmatch(name):
            return entry
    return None


def lane_safe(entry: LaneIntrinsic, consts: list[str | None]) -> bool:
    """Does ``entry``'s condition hold for a call whose operands are ``consts`` (the
    constant's text, or None for a value that is not a plain constant)?"""
    for cond in entry.safe:
        if cond == "always":
            continue
        if cond == "never":
            return False
        what, _, at = cond.partition("@")
        i = int(at)
        text = consts[i] if i < len(consts) else None
        if text is None:
            return False
        if what == "false" and text not in ("false", "0"):
            return False
        if what == "allmask":
            try:
                if int(text, 0) & 0xFFFFFFFF != 0xFFFFFFFF:
                    return False
            except ValueError:
                return False
    return True


def pass_through(name: str) -> bool:
    return bool(_PASS_THROUGH_RE.fullmatch(name))


def is_intrinsic(name: str) -> bool:
    return name.startswith("llvm.")
