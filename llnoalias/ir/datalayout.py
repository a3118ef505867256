"""Type sizes and alignments from a module's data layout (for ``getelementptr`` scaling and
access widths).

Follows LLVM's ``DataLayout``: ``getTypeStoreSize`` (the bytes a load or store touches),
``getTypeAllocSize`` (the stride of an array element and of a ``getelementptr`` index),
struct field offsets with padding, packed structs. When the module has no data layout,
the code generator uses its target's, so the known AMDGPU and NVPTX layouts stand in;
anything else falls back to LLVM's defaults. A type whose layout is not known gives None,
which the callers read as "no range" (never a guess).
"""

from __future__ import annotations

from .types import Type

AMDGPU_LAYOUT = ("e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-"
                 "p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-"
                 "v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9")
NVPTX64_LAYOUT = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
NVPTX_LAYOUT = "e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"


_MAX_24 = (1 << 24) - 1
_MAX_32 = (1 << 32) - 1


def _bad_number(field: str, low: int, high: int) -> bool:
    """A decimal field outside ``low..high`` (by its digits first: a 5000-digit field is not
    converted); a field that is no decimal number is left to LLVM's own reading."""
    if not field.isascii() or not field.isdigit():
        return False
    digits = field.lstrip("0")
    if len(digits) > len(str(high)):
        return True
    return not low <= int(digits or "0") <= high


def _bad_align(field: str) -> bool:
    """An alignment in bits that LLVM refuses: zero, past 32 bits, or not a power of two
    times the byte width."""
    if _bad_number(field, 8, _MAX_32):
        return True
    if not field.isascii() or not field.isdigit():
        return False
    bits = int(field)
    return bits % 8 != 0 or bits // 8 & (bits // 8 - 1) != 0


def layout_error(text: str) -> tuple[int, str] | None:
    """The first number of a data layout string that every LLVM refuses and that the type
    sizes here would otherwise compute with (design section 6): its offset in ``text`` and the
    message, or None. Pointer specs ``p[N]:SIZE:ABI[:PREF[:IDX]]``: an address space past
    24 bits, a pointer or index size of 0 or past 32 bits (LLVM 19 reads up to 2**32 - 1,
    LLVM 22 up to 2**24 - 1), an ABI or preferred alignment of 0 or not a power of two bytes;
    ``i``/``f``/``v`` specs: a size of 0 or past 24 bits. Anything else is LLVM's to judge."""
    at = 0
    for spec in text.split("-"):
        shown = spec if len(spec) <= 40 else spec[:40] + "..."
        here = at
        at += len(spec) + 1
        if len(spec) < 2 or spec[0] not in "pifv":
            continue
        parts = spec[1:].split(":")
        starts = [here + 1]
        for part in parts[:-1]:
            starts.append(starts[-1] + len(part) + 1)
        if spec[0] == "p":
            if _bad_number(parts[0], 0, _MAX_24):
                return starts[0], f"address space must be a 24-bit integer: '{shown}'"
            if len(parts) > 1 and _bad_number(parts[1], 1, _MAX_32):
                return starts[1], f"pointer size must be a non-zero 32-bit integer: '{shown}'"
            for k in (2, 3):
                if len(parts) > k and _bad_align(parts[k]):
                    what = "ABI" if k == 2 else "preferred"
                    return starts[k], (f"{what} alignment must be a non-zero power of two times the byte width: "
                                       f"'{shown}'")
            if len(parts) > 4 and _bad_number(parts[4], 1, _MAX_32):
                return starts[4], f"index size must be a non-zero 32-bit integer: '{shown}'"
        elif parts[0].isascii() and parts[0].isdigit():
            if _bad_number(parts[0], 1, _MAX_24):
                return starts[0], f"size must be a non-zero 24-bit integer: '{shown}'"
            if len(parts) > 1 and _bad_align(parts[1]):
                return starts[1], f"ABI alignment must be a non-zero power of two times the byte width: '{shown}'"
    return None


def _pow2_ceil(n: int) -> int:
    p = 1
    while p < n:
        p <<= 1
    return p


class DataLayout:
    """Sizes in bytes, alignments in bytes."""

    def __init__(self, text: str = "", triple: str = "") -> None:
        #: the layout is the target's, as llnoalias knows it; a newer LLVM may add to it
        self.target_default = False
        if not text:
            self.target_default = True
            t = triple.lower()
            if t.startswith("amdgcn"):
                text = AMDGPU_LAYOUT
            elif t.startswith("nvptx64"):
                text = NVPTX64_LAYOUT
            elif t.startswith("nvptx"):
                text = NVPTX_LAYOUT
        # LLVM's defaults (DataLayout.cpp).
        self.ints: dict[int, int] = {1: 1, 8: 1, 16: 2, 32: 4, 64: 4}
        self.floats: dict[int, int] = {16: 2, 32: 4, 64: 8, 128: 16}
        self.vectors: dict[int, int] = {64: 8, 128: 16}
        #: address space -> (size bits, abi align bytes, index width bits)
        self.pointers: dict[int, tuple[int, int, int]] = {0: (64, 8, 64)}
        self.aggregate_align = 1
        self.valid = True
        #: alloc_size of int, float and pointer types, by a key the compiled range queries
        #: make of the type (analysis/ranges/_solver.c): they ask ``alloc_size`` once per key
        self.scalar_sizes: dict[int, int | None] = {}
        for spec in text.split("-") if text else []:
            try:
                self._spec(spec)
            except (ValueError, IndexError):
                self.valid = False

    def _spec(self, spec: str) -> None:
        if not spec:
            return
        c = spec[0]
        parts = spec[1:].split(":")
        if c == "p":
            space = int(parts[0]) if parts[0] else 0
            size = int(parts[1])
            abi = int(parts[2]) // 8 if len(parts) > 2 else size // 8
            idx = int(parts[4]) if len(parts) > 4 else size
            self.pointers[space] = (size, max(abi, 1), idx)
        elif c in "ifv" and parts[0].isdigit():
            bits = int(parts[0])
            abi = int(parts[1]) // 8 if len(parts) > 1 else bits // 8
            table = {"i": self.ints, "f": self.floats, "v": self.vectors}[c]
            table[bits] = max(abi, 1)
        elif c == "a" and len(parts) > 1:
            self.aggregate_align = max(int(parts[1]) // 8, 1)

    # -------------------------------------------------------------- pointers
    def pointer_bits(self, addrspace: int) -> int:
        return self.pointers.get(addrspace, self.pointers.get(0, (64, 8, 64)))[0]

    def index_bits(self, addrspace: int) -> int:
        return self.pointers.get(addrspace, self.pointers.get(0, (64, 8, 64)))[2]

    # ------------------------------------------------------------------ types
    def _int_align(self, bits: int) -> int | None:
        if bits in self.ints:
            return self.ints[bits]
        if self.target_default and bits > max(self.ints):
            # e.g. i128: the layout a newer LLVM gives the target may list it (with
            # "i128:128") and align it other than the largest integer listed here
            return None
        larger = sorted(b for b in self.ints if b > bits)
        if larger:
            return self.ints[larger[0]]
        return self.ints[max(self.ints)]

    def _resolve(self, ty: Type, named: dict[str, Type] | None, depth: int) -> Type | None:
        if ty.kind != "named":
            return ty
        if named is None or depth > 32:
            return None
        got = named.get(ty.name)
        if got is None:
            return None
        return self._resolve(got, named, depth + 1)

    def _bits(self, ty: Type, named: dict[str, Type] | None, depth: int) -> int | None:
        """The size in bits of a scalar or vector (its primitive size)."""
        if ty.kind == "int":
            return ty.bits
        if ty.kind == "float":
            return ty.bits
        if ty.kind == "ptr":
            return self.pointer_bits(ty.addrspace)
        return None

    def abi_align(self, ty: Type, named: dict[str, Type] | None = None, depth: int = 0) -> int | None:
        if depth > 64:
            return None
        rty = self._resolve(ty, named, depth)
        if rty is None:
            return None
        ty = rty
        k = ty.kind
        if k == "int":
            return self._int_align(ty.bits)
        if k == "float":
            if ty.bits in self.floats:
                return self.floats[ty.bits]
            return None if ty.bits == 80 else _pow2_ceil(ty.bits // 8)
        if k == "ptr":
            return self.pointers.get(ty.addrspace, self.pointers.get(0, (64, 8, 64)))[1]
        if k == "vector":
            size = self.store_size(ty, named, depth + 1)
            if size is None:
                return None
            bits = size * 8
            if bits in self.vectors:
                return self.vectors[bits]
            return _pow2_ceil(max(size, 1))
        if k == "array":
            return None if ty.elem is None else self.abi_align(ty.elem, named, depth + 1)
        if k == "struct":
            if ty.packed:
                return 1
            best = self.aggregate_align
            for f in ty.fields:
                a = self.abi_align(f, named, depth + 1)
                if a is None:
                    return None
                best = max(best, a)
            return best
        return None

    def store_size(self, ty: Type, named: dict[str, Type] | None = None, depth: int = 0) -> int | None:
        """Bytes a load or store of ``ty`` touches (LLVM's getTypeStoreSize)."""
        if depth > 64:
            return None
        rty = self._resolve(ty, named, depth)
        if rty is None:
            return None
        ty = rty
        k = ty.kind
        if k in ("int", "float", "ptr"):
            bits = self._bits(ty, named, depth)
            return None if bits is None else (bits + 7) // 8
        if k == "vector":
            if ty.elem is None:
                return None
            eb = self._bits(self._resolve(ty.elem, named, depth) or ty.elem, named, depth)
            if eb is None:
                return None
            return (eb * ty.count + 7) // 8
        if k in ("array", "struct"):
            return self.alloc_size(ty, named, depth)
        return None

    def alloc_size(self, ty: Type, named: dict[str, Type] | None = None, depth: int = 0) -> int | None:
        """The stride of ``ty`` in an array (LLVM's getTypeAllocSize)."""
        if depth > 64:
            return None
        rty = self._resolve(ty, named, depth)
        if rty is None:
            return None
        ty = rty
        k = ty.kind
        if k == "array":
            if ty.elem is None:
                return None
            e = self.alloc_size(ty.elem, named, depth + 1)
            return None if e is None else e * ty.count
        if k == "struct":
            layout = self.struct_layout(ty, named, depth + 1)
            return None if layout is None else layout[1]
        size = self.store_size(ty, named, depth + 1)
        align = self.abi_align(ty, named, depth + 1)
        if size is None or align is None:
            return None
        return (size + align - 1) // align * align

    def struct_layout(self, ty: Type, named: dict[str, Type] | None = None,
                      depth: int = 0) -> tuple[list[int], int] | None:
        """(field offsets, total size) of a struct type."""
        rty = self._resolve(ty, named, depth)
        if rty is None or rty.kind != "struct":
            return None
        ty = rty
        offsets: list[int] = []
        off = 0
        struct_align = 1
        for f in ty.fields:
            size = self.alloc_size(f, named, depth + 1)
            align = 1 if ty.packed else self.abi_align(f, named, depth + 1)
            if size is None or align is None:
                return None
            off = (off + align - 1) // align * align
            offsets.append(off)
            off += size
            struct_align = max(struct_align, align)
        if not ty.packed:
            struct_align = max(struct_align, self.aggregate_align)
            off = (off + struct_align - 1) // struct_align * struct_align
        return offsets, off


def layout_of(mod: object) -> DataLayout:
    """The data layout of a module: its facts' (``Module.facts``, made once), or, for
    another object with ``datalayout`` and ``triple``, one made for it."""
    facts = getattr(mod, "facts", None)
    layout = getattr(facts, "layout", None)
    if isinstance(layout, DataLayout):
        return layout
    return DataLayout(getattr(mod, "datalayout", ""), getattr(mod, "triple", ""))
