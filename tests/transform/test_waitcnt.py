"""The waits bar, as a test: on seed-001-style kernels (2 to 6 named dynamic LDS buffers,
LDS-DMA writes and LDS reads in a loop, addresses as getelementptr, integer round trips
and loop-carried pointers) `llnoalias compile` reaches the vmcnt count of perfectly
annotated IR and never exceeds the static-LDS baseline (gfx942, llvmlite's LLVM)."""

from __future__ import annotations

import re

import pytest

from llnoalias import reasons
from llnoalias.options import AnnotateOptions
from tests.support.run import load_script, run_cli

pytestmark = pytest.mark.slow

bench = load_script("bench_waitcnt")

CASES = [(n, shape) for shape in bench.SHAPES for n in (2, 4, 6)]


def _vmcnt(text: str) -> int:
    from llnoalias.backends.codegen import generate

    return bench.count_vmcnt(generate(text, emit="asm", mcpu="gfx942").decode())


@pytest.mark.parametrize("n,shape", CASES, ids=[f"lds{n}_{s}" for n, s in CASES])
def test_compile_reaches_ideal_and_beats_static(tmp_path, n: int, shape: str) -> None:
    k = bench.Kernel(n, shape)
    src = tmp_path / "k.ll"
    src.write_text(bench.kernel_text(k))
    out = tmp_path / "k.s"
    res = run_cli(["compile", str(src), "-o", str(out), "--mcpu", "gfx942"])
    assert res.exit_code == 0, res.stderr
    ours = bench.count_vmcnt(out.read_text())
    ideal = _vmcnt(bench.kernel_text(k, meta=True))
    static = _vmcnt(bench.kernel_text(k, static=True))
    plain = _vmcnt(bench.kernel_text(k))
    assert ours <= plain
    if shape == "phi":
        # loop-carried pointers have no byte range, and every dynamic LDS variable starts at
        # the same address: a read of one may touch what a DMA into another writes, so the
        # reads keep the input's waits. The variables are one root (design section 1), whose
        # accesses without byte ranges share its one scope: no LDS claim at all (before, two
        # roots, the shared-bytes rule of design 4b withdrew them)
        from llnoalias.transform.pipeline import annotate_text
        from llnoalias.transform.roots import DYNAMIC_LDS_ROOT

        report = annotate_text(bench.kernel_text(k), "k.ll").report
        lds = [a for a in report.accesses if a.domain == "llnoalias.lds"]
        assert lds and not any(a.tagged for a in lds)
        one = reasons.SINGLE_SCOPE.format(root=DYNAMIC_LDS_ROOT)
        assert any(a.rule == one for a in lds), [a.rule for a in lds]
        return
    assert ours == ideal, (ours, ideal, plain, static)
    assert ours <= static


def _single_buffer(text: str) -> str:
    """The same kernel with one dynamic LDS buffer carved by a constant offset: @lds_0 at
    @smem + 0, @lds_1 at @smem + 32768."""
    text = text.replace("@lds_0 = external", "@smem = external").replace("@lds_0", "@smem")
    text = re.sub(r"@lds_1 = external[^\n]*\n", "", text)
    return text.replace("@lds_1", "getelementptr (i8, ptr addrspace(3) @smem, i32 32768)")


@pytest.mark.parametrize("shape", ["gep", "int"])
def test_regions_reach_the_waits_of_named_buffers(shape: str) -> None:
    """The regions bar: LDS-DMA into one region of a single buffer while another region is
    read gets the vmcnt waits that separately named buffers get."""
    from llnoalias.transform.pipeline import annotate_text

    named = bench.kernel_text(bench.Kernel(2, shape))
    single = _single_buffer(named)
    assert "@lds_1" not in single
    ours = _vmcnt(annotate_text(single, "single.ll").text)
    assert ours == _vmcnt(annotate_text(named, "named.ll").text)
    assert ours < _vmcnt(single)
    without_regions = _vmcnt(annotate_text(single, "single.ll", AnnotateOptions(regions=False)).text)
    assert ours < without_regions
