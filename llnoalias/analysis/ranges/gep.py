"""One index of a ``getelementptr``, as the data layout reads it: the step that the range
solver (``solver.FunctionRanges._gep_from``) and the address decomposition
(``addresses.Walker``) both take over the source element type.
"""

from __future__ import annotations

from ... import reasons
from .interval import int_const

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ...ir.datalayout import DataLayout
    from ...ir.model import Value
    from ...ir.types import Type


def gep_step(dl: DataLayout, named: dict[str, Type], cur: Type | None, n: int,
             iv: Value) -> tuple[int, Type | None, int | None] | str:
    """Index ``n`` (0: the one over the pointer itself) of a ``getelementptr``, whose
    indexed type so far is ``cur``, with value ``iv``: ``(offset, next, None)`` for a
    struct field (a constant ``offset`` in bytes), ``(0, next, scale)`` for an index that
    moves by ``scale`` bytes, or why the step is not known (a reason's text)."""
    if cur is None:
        return reasons.GEP_NO_LAYOUT.text
    nxt: Type | None
    if n == 0:
        scale = dl.alloc_size(cur, named)
        nxt = cur
    else:
        rcur: Type | None = cur
        while rcur is not None and rcur.kind == "named":
            rcur = named.get(rcur.name)
        if rcur is None:
            return reasons.GEP_UNKNOWN_NAMED_TYPE.text
        if rcur.kind == "struct":
            c = int_const(iv)
            layout = dl.struct_layout(rcur, named)
            if c is None or layout is None or not (0 <= c < len(rcur.fields)):
                return reasons.GEP_STRUCT_NOT_LAID_OUT.text
            return layout[0][c], rcur.fields[c], None
        if rcur.kind in ("array", "vector") and rcur.elem is not None:
            nxt = rcur.elem
            scale = dl.alloc_size(rcur.elem, named)
        else:
            return reasons.GEP_NON_AGGREGATE.text
    if scale is None:
        return reasons.GEP_UNSIZED.text
    return 0, nxt, scale


__all__ = ["gep_step"]
