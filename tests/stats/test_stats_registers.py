"""Registers, spills, scratch and occupancy in ``stats`` and the gate (design section 7), checked
against the assembly's own metadata: the ``.vgpr_count`` ... lines LLVM writes for each kernel."""

from __future__ import annotations

import gzip
import re
import shutil
from collections import Counter

import pytest

from llnoalias.stats import counters as asmstats
from llnoalias.stats.gate import Tolerance, compare
from tests.support.files import DATA, ROOT

DATA = DATA / "asm"
FLYDSL = ROOT / "fixtures" / "corpus" / "flydsl"

#: stats key -> the metadata's key
METADATA = {"vgpr": ".vgpr_count", "agpr": ".agpr_count", "sgpr": ".sgpr_count",
            "vgpr_spill": ".vgpr_spill_count", "sgpr_spill": ".sgpr_spill_count",
            "scratch": ".private_segment_fixed_size"}


def metadata(asm: str) -> dict[str, dict[str, int]]:
    """Per kernel, the metadata's keys, read here with a regex of their own (not the reader)."""
    block = asm.split(".amdgpu_metadata", 1)[1]
    out: dict[str, dict[str, int]] = {}
    for entry in re.split(r"\n  - \.", block)[1:]:
        fields = dict(re.findall(r"(\.?\w+):\s+(\S+)", "." + entry))
        name = fields.get(".name")
        if name:
            out[name] = {k: int(v) for k, v in fields.items() if v.isdigit()}
    return out


def test_llc_output_states_registers_and_occupancy() -> None:
    text = (DATA / "gfx942_llc19.s").read_text()
    s = asmstats.collect(text, "gfx942_llc19.s")
    meta = metadata(text)
    for name, counts in s.kernels.items():
        for key, mkey in METADATA.items():
            assert counts[key] == meta[name][mkey], (name, key)
        # llc states the occupancy in its comments
        assert counts["occupancy"] > 0
    assert s.total["vgpr"] == sum(c["vgpr"] for c in s.kernels.values())
    assert s.total["occupancy"] == min(c["occupancy"] for c in s.kernels.values())


@pytest.fixture(scope="module")
def spilling_gemm() -> str:
    """The 8-wave fp8 FlyDSL GEMM with named bases, compiled as given by llvmlite's LLVM: it spills."""
    pytest.importorskip("llvmlite")
    from llnoalias.backends import codegen

    path = FLYDSL / "fp8_gemm_8wave_namedbases_gfx950_k1024.DERIVED.ll.gz"
    text = gzip.decompress(path.read_bytes()).decode()
    return codegen.generate(text, emit="asm").decode()


@pytest.mark.slow
def test_real_gemm_registers_are_the_metadata(spilling_gemm: str) -> None:
    s = asmstats.collect(spilling_gemm, "gemm.s")
    meta = metadata(spilling_gemm)
    assert list(s.kernels) == list(meta)
    for name, counts in s.kernels.items():
        for key, mkey in METADATA.items():
            assert counts[key] == meta[name][mkey], (name, key)
    assert s.total["vgpr_spill"] > 0 and s.total["scratch"] > 0
    # llvmlite prints no comments: no occupancy is stated, none is made up
    assert "occupancy" not in s.total


def test_spills_fail_the_gate_by_default_registers_when_named() -> None:
    def file(**counts: int) -> asmstats.FileStats:
        c: Counter[str] = Counter({"waits": 1, "vgpr": 10, "vgpr_spill": 0, "occupancy": 8, **counts})
        return asmstats.FileStats("k.s", "amdgpu", {"k": c}, Counter(c))

    base = [file()]
    assert not compare(base, [file(vgpr_spill=2)]).passed
    assert compare(base, [file(vgpr_spill=2)], Tolerance(2)).passed
    more_registers = [file(vgpr=40)]
    assert compare(base, more_registers).passed
    assert not compare(base, more_registers, counters=["vgpr"]).passed
    # occupancy: fewer is worse, and only when named
    assert compare(base, [file(occupancy=4)]).passed
    assert not compare(base, [file(occupancy=4)], counters=["occupancy"]).passed
    assert compare(base, [file(occupancy=8)], counters=["occupancy"]).passed
    assert compare(base, [file(occupancy=10)], counters=["occupancy"]).passed


def test_a_baseline_without_registers_does_not_fail() -> None:
    text = (DATA / "gfx942_llc19.s").read_text()
    now = asmstats.collect(text, "k.s")
    doc = asmstats.to_dict([now])
    for entry in doc["files"]:
        for counts in [*entry["kernels"].values(), entry["total"]]:
            for key in asmstats.REGISTER_KEYS:
                counts.pop(key, None)
    result = compare(asmstats.from_dict(doc), [now])
    assert result.passed
    assert {r.verdict for r in result.rows if r.counter in asmstats.REGISTER_KEYS} == {"new"}


PTXAS_V = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'stage' for 'sm_80'
ptxas info    : Function properties for stage
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, 380 bytes cmem[0]
ptxas info    : Compiling entry function 'other' for 'sm_80'
ptxas info    : Function properties for other
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, 360 bytes cmem[0]
"""


def test_ptxas_verbose_is_read() -> None:
    regs = asmstats.ptxas_registers(PTXAS_V)
    assert regs == {"stage": {"reg": 40, "local": 16, "spill_stores": 8, "spill_loads": 4},
                    "other": {"reg": 8, "local": 0, "spill_stores": 0, "spill_loads": 0}}


def test_ptx_registers_from_ptxas() -> None:
    if shutil.which("ptxas") is None:
        pytest.skip("ptxas is not on PATH: PTX registers come from ptxas -v")
    from llnoalias.backends import ptxas

    text = (DATA / "sm80_llc19.ptx").read_text()
    s = asmstats.collect(text, "k.ptx")
    regs = asmstats.ptxas_registers(ptxas.registers(text))
    assert set(regs) == {"stage", "axpy"}  # the entries; a device function inlined away has none
    asmstats.add_registers(s, regs)
    assert s.kernels["stage"]["reg"] == regs["stage"]["reg"] > 0
    assert s.total["reg"] == sum(c["reg"] for c in s.kernels.values())
