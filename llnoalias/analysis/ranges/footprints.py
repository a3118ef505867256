"""What an access touches at its address (its footprint): ``extent`` gives the bytes
``[ptr + a, ptr + b)`` an access may touch for every value of its pointer (a load's or
store's type, a memcpy's length from the range solver, an LDS-DMA's 64 lanes from its row of
``LDS_DMA``, ...). The regions (``transform/regions``) and the check
(``check/footprints``) widen the offsets the range solver gives by it.
"""

from __future__ import annotations

from ... import reasons
from ...ir import operands as opparse
from ...ir.facts import LDS_ADDRSPACE
from ..memory.intrinsics import lds_dma, memory_intrinsic
from .solver import FunctionRanges, Range, int_const, urange

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ...ir.datalayout import DataLayout
    from ...ir.model import Module
    from ...ir.types import Type
    from ..memory.accesses import Access, PointerOperand

#: The largest wave: an LDS-DMA instruction writes one element per lane.
WAVE_LANES = 64
ADDRESS_LIMIT = 1 << 32


def _pow2_ceil(n: int) -> int:
    p = 1
    while p < n:
        p <<= 1
    return p


def extent(mod: Module, fr: FunctionRanges | None, dl: DataLayout, acc: Access,
           p: PointerOperand) -> tuple[int, int] | str:
    """``(a, b)``: the access touches ``[ptr + a, ptr + b)`` for every value of ``ptr``;
    or why that is not known (``fr``: the function's ranges, for a length that is not a
    constant; None: such a length is not known)."""
    ops = opparse.parse(mod, acc.inst)
    named = mod.named_types
    k = acc.kind
    if k in ("load", "store", "atomicrmw", "cmpxchg"):
        ty: Type | None
        if k == "load":
            ty = ops.result_type
        elif k == "store":
            ty = ops.operands[0][0]
        else:
            ty = ops.operands[1][0]
        size = None if ty is None else dl.store_size(ty, named)
        if size is None:
            return reasons.SIZE_UNKNOWN.format(type=repr(ty))
        return 0, max(size, 1)
    name = acc.intrinsic or ""
    args = ops.operands
    row = memory_intrinsic(name) if name else None
    how = row.footprint if row is not None else ""  # the catalogue's footprint column
    if how.startswith("length@"):
        at = int(how[len("length@"):])
        if len(args) <= at:
            return reasons.INTRINSIC_NO_LENGTH.text
        lty, lv = args[at]
        if fr is None:
            c = int_const(lv)
            return (0, max(c, 1)) if c is not None and c >= 0 else reasons.LENGTH_NO_RANGE.format(why="non-constant")
        r = fr.int_range(lty, lv)
        if not isinstance(r, Range):
            return reasons.LENGTH_NO_RANGE.format(why=r)
        hi = urange(r, lty.bits).hi
        return 0, max(hi, 1)
    dma = lds_dma(name) if how == "dma" else None
    if dma is not None and not dma.per_lane and dma.size is not None:
        # (a per-lane DMA, gfx1250's, has no range: where its offset lands was not checked)
        size_i, off_i = dma.size, dma.offset
        if p.type.addrspace != LDS_ADDRSPACE:
            return reasons.DMA_GLOBAL_SIDE.text
        if len(args) <= max(size_i, off_i):
            return reasons.DMA_NOT_UNDERSTOOD.text
        size = int_const(args[size_i][1])
        imm = int_const(args[off_i][1])
        if size is None or imm is None or size <= 0:
            return reasons.DMA_NON_CONSTANT.text
        # each lane of the wave writes its element at M0 + offset + lane * stride
        stride = _pow2_ceil(max(size, 4))
        return min(0, imm), max(0, imm) + WAVE_LANES * stride
    if how == "name":
        # cp.async.ca.shared.global.16 (.s): the bytes are the number after ``global.``
        bits = name.partition(".shared.global.")[2].split(".")[0]
        if bits.isdigit():
            return 0, int(bits)
    if how == "result":
        size = None if ops.result_type is None else dl.store_size(ops.result_type, named)
        if size is None:
            return reasons.TRANSPOSED_READ.text
        return 0, size
    if how == "matrix":
        # one row of 16 bytes per lane address for m8n8; larger shapes: stay generous
        return 0, 16 if "m8n8" in name.partition("matrix.")[2] else 64
    return reasons.BYTES_UNKNOWN.format(what=name or acc.kind)


__all__ = ["ADDRESS_LIMIT", "WAVE_LANES", "extent"]
