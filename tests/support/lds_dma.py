"""A call of an LDS-DMA intrinsic from its row of ``analysis.memory.intrinsics.LDS_DMA``."""

from __future__ import annotations

from llnoalias.analysis.memory.intrinsics import LdsDma


def call_args(row: LdsDma, name: str, lds: str, size: int = 4, offset: int = 8) -> str:
    """Operands for a call of ``name``: every integer is 0 except the size and the immediate offset."""
    out = []
    for i, ty in enumerate(t.strip() for t in row.signature.split(", ")):
        if i == row.lds:
            out.append(f"{ty} {lds}")
        elif i == row.source:
            out.append(f"{ty} %src")
        elif i == row.size:
            out.append(f"{ty} {size}")
        elif i == row.offset:
            out.append(f"{ty} {offset}")
        else:
            out.append(f"{ty} 0")
    return ", ".join(out)

