"""Registers, spills, scratch and occupancy per function (design section 7): what LLVM states in
the assembly's metadata (read by :mod:`llnoalias.asm.reader`, the one reader of those lines), and
what ``ptxas -v`` says about PTX. The keys are described in :mod:`.counters`."""

from __future__ import annotations

import re
from collections import Counter

__all__ = ["amdgpu_registers", "ptxas_registers"]

#: register key -> the names LLVM writes it under, first found wins: the metadata's entry, the
#: ``.set NAME.key`` symbols, llc's ``; Key: value`` comments, the ``.amdhsa_*`` directives.
_AMDGPU_RESOURCE_NAMES: dict[str, tuple[str, ...]] = {
    "vgpr": (".vgpr_count", "TotalNumVgprs", "NumVgprs", "num_vgpr"),
    "agpr": (".agpr_count", "NumAgprs", "num_agpr"),
    "sgpr": (".sgpr_count", "NumSgprs", "numbered_sgpr"),
    "vgpr_spill": (".vgpr_spill_count",),
    "sgpr_spill": (".sgpr_spill_count",),
    "scratch": (".private_segment_fixed_size", ".amdhsa_private_segment_fixed_size", "ScratchSize",
                "private_seg_size"),
    "occupancy": ("Occupancy",),
}


def amdgpu_registers(text: str) -> dict[str, Counter[str]]:
    """Per function, the register keys LLVM states for it in the assembly (read by
    :func:`llnoalias.asm.reader.read_amdgpu`); functions that state none are left out."""
    from ..asm.reader import read_amdgpu

    out: dict[str, Counter[str]] = {}
    for fn in read_amdgpu(text):
        counts: Counter[str] = Counter()
        for key, names in _AMDGPU_RESOURCE_NAMES.items():
            for name in names:
                value = fn.resources.get(name)
                if isinstance(value, int):
                    counts[key] = value
                    break
        if counts or any(k in fn.resources for names in _AMDGPU_RESOURCE_NAMES.values() for k in names):
            out[fn.name] = counts
    return out


_PTXAS_FUNCTION = re.compile(r"(?:Compiling entry function|Function properties for)\s+'?([^'\s]+)'?")
_PTXAS_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_PTXAS_USED = re.compile(r"Used (\d+) registers")


def ptxas_registers(verbose: str) -> dict[str, Counter[str]]:
    """Per function, ``reg``, ``local`` (stack frame bytes), ``spill_stores`` and ``spill_loads``
    from the text ``ptxas -v`` writes on stderr."""
    out: dict[str, Counter[str]] = {}
    current: str | None = None
    for line in verbose.splitlines():
        m = _PTXAS_FUNCTION.search(line)
        if m:
            current = m.group(1)
            out.setdefault(current, Counter())
            continue
        if current is None:
            continue
        m = _PTXAS_FRAME.search(line)
        if m:
            out[current]["local"] = int(m.group(1))
            out[current]["spill_stores"] = int(m.group(2))
            out[current]["spill_loads"] = int(m.group(3))
        m = _PTXAS_USED.search(line)
        if m:
            out[current]["reg"] = int(m.group(1))
    return out
