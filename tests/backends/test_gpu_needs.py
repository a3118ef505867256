"""The GPU a module needs, from its intrinsics, when it names none."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from llnoalias.backends import codegen, gpu_needs
from llnoalias.backends.target import detect
from llnoalias.cli.main import cli
from llnoalias.diagnostics import LLNoaliasError
from tests.support.files import ROOT

TRITON = ROOT / "fixtures" / "corpus" / "triton39"


def _nv(body: str, decls: str = "", attrs: str = "nounwind") -> str:
    return (f"define ptx_kernel void @k(ptr addrspace(1) %p) #0 {{\n{body}  ret void\n}}\n{decls}"
            f"attributes #0 = {{ {attrs} }}\n")


WGMMA = _nv("  call void @llvm.nvvm.wgmma.fence.sync.aligned()\n",
            "declare void @llvm.nvvm.wgmma.fence.sync.aligned()\n")
TCGEN05 = _nv("  call void @llvm.nvvm.tcgen05.wait.ld()\n", "declare void @llvm.nvvm.tcgen05.wait.ld()\n")
ELECT = _nv("  %e = call { i32, i1 } @llvm.nvvm.elect.sync(i32 -1)\n",
            "declare { i32, i1 } @llvm.nvvm.elect.sync(i32)\n")


def _amd(body: str, decls: str) -> str:
    # FlyDSL's shape: no triple is needed here (amdgpu_kernel says it), no "target-cpu".
    return (f"define amdgpu_kernel void @k(ptr addrspace(1) %p, ptr addrspace(3) %l, <8 x half> %h, <4 x float> %c) {{\n"
            f"{body}  ret void\n}}\n{decls}")


MFMA_950 = _amd(
    "  %r = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.f16(<8 x half> %h, <8 x half> %h, <4 x float> %c, i32 0, i32 0, i32 0)\n"
    "  store <4 x float> %r, ptr addrspace(1) %p, align 16\n",
    "declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.f16(<8 x half>, <8 x half>, <4 x float>, i32 immarg, i32 immarg, i32 immarg)\n")
MFMA_CDNA = _amd(
    "  %r = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half> zeroinitializer, <4 x half> zeroinitializer, <4 x float> %c, i32 0, i32 0, i32 0)\n"
    "  store <4 x float> %r, ptr addrspace(1) %p, align 16\n",
    "declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half>, <4 x half>, <4 x float>, i32 immarg, i32 immarg, i32 immarg)\n")


def _lds_dma(size: int) -> str:
    return _amd(f"  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %p, ptr addrspace(3) %l, i32 {size}, i32 0, i32 0)\n",
                "declare void @llvm.amdgcn.global.load.lds(ptr addrspace(1), ptr addrspace(3), i32 immarg, i32 immarg, i32 immarg)\n")


# --- inference, module by module -------------------------------------------------------


@pytest.mark.parametrize("rel,cpu,evidence", [
    ("matmul_128x128x64_w8s2_sm90.ll", "sm_90a", "@llvm.nvvm.wgmma.fence.sync.aligned"),
    ("matmul_128x128x64_w8s3_sm90.ll", "sm_90a", "@llvm.nvvm.wgmma.fence.sync.aligned"),
    ("attn_fwd_m64_sm90.ll", "sm_90a", "@llvm.nvvm.wgmma.fence.sync.aligned"),
    ("matmul_128x128x64_w4s3_sm100.ll", "sm_100a", "@llvm.nvvm.tcgen05.wait."),
])
def test_real_triton_hopper_and_blackwell_modules(rel: str, cpu: str, evidence: str) -> None:
    t = detect((TRITON / rel).read_text())
    assert t.cpu == cpu
    assert evidence in t.cpu_note and "--mcpu chooses another" in t.cpu_note


@pytest.mark.parametrize("rel", ["softmax_sm90.ll", "softmax_sm80.ll", "matmul_128x128x64_w8s2_sm80.ll"])
def test_modules_whose_intrinsics_say_nothing_infer_nothing(rel: str) -> None:
    # No claim: the GPU stays unnamed (codegen then takes its sm_80 default and says so).
    t = detect((TRITON / rel).read_text())
    assert (t.cpu, t.cpu_note) == ("", "")


def test_mcpu_and_target_cpu_win() -> None:
    t = detect(WGMMA, mcpu="sm_90")
    assert (t.cpu, t.cpu_note) == ("sm_90", "")
    t = detect(WGMMA.replace("nounwind", '"target-cpu"="sm_100a"'))
    assert (t.cpu, t.cpu_note) == ("sm_100a", "")


def test_families_combine_to_the_first_gpu_that_has_them_all() -> None:
    assert detect(ELECT).cpu == "sm_90a"
    assert detect(TCGEN05).cpu == "sm_100a"
    both = _nv("  %e = call { i32, i1 } @llvm.nvvm.elect.sync(i32 -1)\n  call void @llvm.nvvm.tcgen05.wait.ld()\n",
               "declare { i32, i1 } @llvm.nvvm.elect.sync(i32)\ndeclare void @llvm.nvvm.tcgen05.wait.ld()\n")
    assert detect(both).cpu == "sm_100a"
    clc = _nv("  call void @llvm.nvvm.clusterlaunchcontrol.try_cancel.async.shared(ptr addrspace(3) null, ptr addrspace(3) null)\n",
              "declare void @llvm.nvvm.clusterlaunchcontrol.try_cancel.async.shared(ptr addrspace(3), ptr addrspace(3))\n")
    assert detect(clc).cpu == "sm_100"


def test_wgmma_and_tcgen05_need_two_gpus() -> None:
    both = _nv("  call void @llvm.nvvm.wgmma.fence.sync.aligned()\n  call void @llvm.nvvm.tcgen05.wait.ld()\n",
               "declare void @llvm.nvvm.wgmma.fence.sync.aligned()\ndeclare void @llvm.nvvm.tcgen05.wait.ld()\n")
    with pytest.raises(LLNoaliasError, match=r"two at once.*wgmma.*tcgen05.*--mcpu"):
        detect(both)
    assert detect(both, mcpu="sm_90a").cpu == "sm_90a"


def test_inline_asm_counts_names_do_not() -> None:
    asm = _nv('  call void asm sideeffect "\\09wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {$0}, $1;", "r,l"(i32 0, i64 0)\n')
    t = detect(asm)
    assert t.cpu == "sm_90a" and "'wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16' in inline asm" in t.cpu_note
    # a function, a value or a comment that merely mentions it says nothing
    named = ("; wgmma.fence in a comment\ndefine void @wgmma.helper() { ret void }\n"
             + _nv("  call void @wgmma.helper()\n  %wgmma.x = add i32 0, 1\n"))
    assert detect(named).cpu == ""
    # an asm string with something else in it says nothing either
    assert detect(_nv('  call void asm sideeffect "mov.u32 %r0, %tid.x; // not a wgmma", ""()\n')).cpu == ""


def test_amdgpu_gfx950_only_intrinsics_infer_gfx950() -> None:
    t = detect(MFMA_950)
    assert t.cpu == "gfx950" and "@llvm.amdgcn.mfma.f32.16x16x32.f16" in t.cpu_note
    for size in (12, 16):
        assert detect(_lds_dma(size)).cpu == "gfx950"
    # FlyDSL's layer norm: its row reductions swap 32-lane halves
    swap = _amd("  %s = call { i32, i32 } @llvm.amdgcn.permlane32.swap(i32 0, i32 1, i1 false, i1 false)\n",
                "declare { i32, i32 } @llvm.amdgcn.permlane32.swap(i32, i32, i1 immarg, i1 immarg)\n")
    assert detect(swap).cpu == "gfx950"
    # ... permlane16.swap gfx1250 has too: nothing inferred
    with pytest.raises(LLNoaliasError, match="names no CPU"):
        detect(swap.replace("permlane32", "permlane16"))
    assert detect(MFMA_950, mcpu="gfx942").cpu == "gfx942"


def test_amdgpu_intrinsics_of_several_gpus_only_hint() -> None:
    with pytest.raises(LLNoaliasError, match=r"names no CPU.*mfma\.f32\.16x16x16f16 \(an MFMA: a CDNA GPU.*--mcpu"):
        detect(MFMA_CDNA)
    # a 4-byte LDS-DMA load exists on gfx90a, gfx942 and gfx950: no inference, no hint
    with pytest.raises(LLNoaliasError, match=r"names no CPU: no \"target-cpu\" attribute; pass --mcpu"):
        detect(_lds_dma(4))


def test_infer_reports_each_family() -> None:
    assert gpu_needs.infer(WGMMA, "nvptx") == ("sm_90a", "it uses @llvm.nvvm.wgmma.fence.sync.aligned "
                                                          "(Hopper's warpgroup MMA, sm_90a only)")
    assert gpu_needs.infer("define void @f() { ret void }\n", "nvptx") is None
    assert gpu_needs.infer(MFMA_CDNA, "amdgpu") is None


# --- through the code generator and the CLI --------------------------------------------


@pytest.mark.slow
def test_codegen_uses_the_inferred_gpu_and_says_why() -> None:
    notes: list[str] = []
    ptx = codegen.generate(WGMMA, notes=notes, fallback=False).decode()
    assert ".target sm_90a" in ptx and "wgmma.fence.sync.aligned" in ptx
    assert any("generating code for sm_90a because it uses @llvm.nvvm.wgmma.fence.sync.aligned" in n for n in notes)
    assert not any("sm_80" in n for n in notes)
    # the cubin of a module whose GPU was inferred needs no --mcpu either: ptxas gets sm_90a
    notes = []
    ptx = codegen.generate(MFMA_950, notes=notes, fallback=False).decode()
    assert "v_mfma_f32_16x16x32_f16" in ptx and any("gfx950" in n for n in notes)


@pytest.mark.slow
def test_cli_stats_on_a_real_hopper_module(tmp_path: Path) -> None:
    src = TRITON / "matmul_128x128x64_w8s2_sm90.ll"
    res = CliRunner().invoke(cli, ["stats", "--json", str(src)], catch_exceptions=False)
    assert res.exit_code == 0, res.stderr
    assert "generating code for sm_90a because it uses @llvm.nvvm.wgmma" in res.stderr
    # --mcpu wins: no note, and the GPU asked for is the one code is generated for
    res = CliRunner().invoke(cli, ["compile", str(src), "-o", str(tmp_path / "k.ptx"), "--mcpu", "sm_100a"],
                            catch_exceptions=False)
    assert "because it uses" not in res.stderr
    # sm_100a has no wgmma: LLVM refuses, which shows the flag was taken over the inference
    assert res.exit_code != 0 and "wgmma" in res.stderr
    res = CliRunner().invoke(cli, ["compile", str(src), "-o", str(tmp_path / "k.ptx"), "--mcpu", "sm_90a"],
                            catch_exceptions=False)
    assert res.exit_code == 0, res.stderr
    assert ".target sm_90a" in (tmp_path / "k.ptx").read_text() and "because it uses" not in res.stderr
