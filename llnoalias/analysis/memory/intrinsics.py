"""The intrinsic tables, as data.

``MEMORY_INTRINSICS``: calls that llnoalias tags like loads and stores. Each entry names
what every pointer operand does (read, write) and where the volatile flag lives. Every
pointer-typed argument of such a call counts as a memory operand when deciding whether
the call can be tagged, whatever the table says, so a mistake here costs tags, never
soundness. ``opaque`` lists non-pointer operands that still address memory (the
``<4 x i32>`` resource of the old buffer intrinsics): they reach kernel-argument buffers
with unknown provenance.

``PASS_THROUGH``: calls whose result carries one operand's provenance (SPEC section 2).
"""

from __future__ import annotations

import functools

from ...ir.lazyre import lazy

#: how a pointer operand is used: r (read), w (write), rw; "lds_w" = the addrspace(3)
#: operand is written, every other pointer operand is read (the LDS-DMA family).
Effect = str


class MemIntrinsic:
    """One row of ``MEMORY_INTRINSICS`` (not changed once made; a plain class: a dataclass
    costs about 1 ms at every start)."""

    __slots__ = ("pattern", "effects", "volatile", "volatile_index", "opaque", "default_effect", "data")

    def __init__(self, pattern: str, effects: dict[int, Effect], volatile: str | None = None,
                 volatile_index: int = -1, opaque: tuple[int, ...] = (), default_effect: Effect = "rw",
                 data: tuple[int, ...] = ()) -> None:
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

    def __repr__(self) -> str:
        return f"MemIntrinsic({self.pattern!r})"

    def effect_of(self, index: int, addrspace: int) -> Effect:
        if self.default_effect == "lds_w":
            return "w" if addrspace == 3 else "r"
        return self.effects.get(index, self.default_effect)


def _mem(pattern: str, effects: dict[int, Effect], volatile: str | None = None, volatile_index: int = -1,
         opaque: tuple[int, ...] = (), default_effect: Effect = "rw", data: tuple[int, ...] = ()) -> MemIntrinsic:
    return MemIntrinsic(pattern, effects, volatile, volatile_index, opaque, default_effect, data)


MEMORY_INTRINSICS: tuple[MemIntrinsic, ...] = (
    # generic memory intrinsics: (dst, src, len, isvolatile)
    _mem(r"llvm\.memcpy(\.inline)?\..*", {0: "w", 1: "r"}, "memflag", 3),
    _mem(r"llvm\.memmove\..*", {0: "w", 1: "r"}, "memflag", 3),
    _mem(r"llvm\.memset(\.inline)?\..*", {0: "w"}, "memflag", 3, data=(1,)),
    # AMDGPU LDS DMA: global/buffer side read, LDS side written
    _mem(r"llvm\.amdgcn\.raw\.ptr\.buffer\.load\.(async\.)?lds", {}, "aux", default_effect="lds_w"),
    _mem(r"llvm\.amdgcn\.struct\.ptr\.buffer\.load\.(async\.)?lds", {}, "aux", default_effect="lds_w"),
    _mem(r"llvm\.amdgcn\.raw\.buffer\.load\.lds", {}, "aux", opaque=(0,), default_effect="lds_w"),
    _mem(r"llvm\.amdgcn\.struct\.buffer\.load\.lds", {}, "aux", opaque=(0,), default_effect="lds_w"),
    _mem(r"llvm\.amdgcn\.global\.load\.(async\.)?lds(\..*)?", {}, "aux", default_effect="lds_w"),
    _mem(r"llvm\.amdgcn\.global\.load\.async\.to\.lds\..*", {}, "aux", default_effect="lds_w"),
    _mem(r"llvm\.amdgcn\.load\.to\.lds(\..*)?", {}, "aux", default_effect="lds_w"),
    # AMDGPU buffer loads and stores through a buffer resource (ptr addrspace(8))
    _mem(r"llvm\.amdgcn\.(raw|struct)\.ptr\.t?buffer\.load(\.format)?(\..*)?", {}, "aux", default_effect="r"),
    _mem(r"llvm\.amdgcn\.(raw|struct)\.ptr\.t?buffer\.store(\.format)?(\..*)?", {}, "aux", default_effect="w",
         data=(0,)),
    # AMDGPU transposing LDS reads
    _mem(r"llvm\.amdgcn\.ds\.(read|load)\.tr[0-9a-z_]*(\..*)?", {}, default_effect="r"),
    # NVPTX async copies global -> shared, and matrix loads/stores from shared memory
    _mem(r"llvm\.nvvm\.cp\.async\.(ca|cg)\.shared\.global\..*", {0: "w", 1: "r"}),
    _mem(r"llvm\.nvvm\.ldmatrix\..*", {}, default_effect="r"),
    _mem(r"llvm\.nvvm\.stmatrix\..*", {}, default_effect="w", data=tuple(range(1, 9))),
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
    """A lane intrinsic (SPEC section 2): each lane gets another lane's copy of the data
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
