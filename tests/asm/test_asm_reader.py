"""llnoalias.asm.reader: AMDGPU assembly as functions of classified instructions and blocks,
first on hand-written snippets (every kind, every spelling of a wait), then on what
llvmlite's LLVM 22 and llc-19 write for the DMA fixtures and the clang corpus."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from llnoalias.asm.reader import (
    AsmFunction,
    AsmInst,
    decode_waitcnt,
    expand,
    generation_of,
    parse_instruction,
    read_amdgpu,
    target_generation,
)
from tests.support.asm import asm_of, llvmlite_asm, one
from tests.support.files import ROOT

FIXTURES = ROOT / "fixtures"






def inst(code: str, generation: int = 9) -> AsmInst:
    return parse_instruction(code, 0, 1, generation)


# -- kinds --------------------------------------------------------------------------------

KINDS = [
    ("buffer_load_dword v0, s[0:3], 0 offen lds", "dma"),
    ("buffer_load_dwordx4 v0, s[0:3], 0 offen offset:16 lds", "dma"),
    ("global_load_lds_dword v[8:9], off", "dma"),
    ("global_load_lds_dwordx4 v1, s[4:5] offset:64", "dma"),
    ("buffer_load_lds_b32 v1, s[0:3], null offen", "dma"),
    ("buffer_load_dword v6, v1, s[0:3], 0 offen", "vmem_load"),
    ("global_load_dwordx4 v[0:3], v4, s[0:1]", "vmem_load"),
    ("scratch_load_dword v1, off, s0", "vmem_load"),
    ("global_atomic_add v0, v1, v2, s[0:1] sc0", "vmem_load"),
    ("global_atomic_add v1, v2, s[0:1] glc", "vmem_load"),
    ("global_atomic_add v1, v2, s[0:1]", "vmem_store"),
    ("global_store_dword v1, v2, s[8:9]", "vmem_store"),
    ("buffer_store_dwordx2 v[0:1], v2, s[0:3], 0 offen", "vmem_store"),
    ("buffer_wbl2 sc1", "other"),
    ("buffer_inv sc1", "other"),
    ("ds_read_b32 v2, v1 offset:64", "lds"),
    ("ds_write_b32 v1, v2", "lds"),
    ("ds_load_b128 v[0:3], v4", "lds"),
    ("ds_store_b64 v4, v[0:1]", "lds"),
    ("ds_add_u32 v1, v2", "lds"),
    ("ds_add_rtn_u32 v0, v1, v2", "lds"),
    ("ds_bpermute_b32 v0, v1, v2", "other"),
    ("ds_permute_b32 v0, v1, v2", "other"),
    ("ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,16)", "other"),
    ("ds_nop", "other"),
    ("ds_gws_barrier v0 gds", "other"),
    ("ds_append v0", "other"),
    ("ds_consume v0", "other"),
    ("s_waitcnt vmcnt(0)", "wait"),
    ("s_waitcnt lgkmcnt(0)", "wait"),
    ("s_barrier", "barrier"),
    ("s_barrier_wait -1", "barrier"),
    ("s_branch .LBB0_2", "branch"),
    ("s_cbranch_scc1 .LBB0_3", "branch"),
    ("s_cbranch_execz .LBB0_4", "branch"),
    ("s_swappc_b64 s[30:31], s[16:17]", "call"),
    ("s_call_b64 s[30:31], f", "call"),
    ("s_setpc_b64 s[30:31]", "return"),
    ("s_endpgm", "return"),
    ("v_add_u32_e32 v0, v1, v2", "other"),
    ("s_load_dwordx2 s[0:1], s[4:5], 0x0", "other"),
]


@pytest.mark.parametrize(("code", "kind"), KINDS)
def test_kinds(code: str, kind: str) -> None:
    assert inst(code).kind == kind


def test_flat_is_vector_memory_that_may_touch_lds() -> None:
    ld, st, at = inst("flat_load_dword v0, v[2:3]"), inst("flat_store_dword v[2:3], v0"), \
        inst("flat_atomic_add v0, v[2:3], v1 glc")
    assert (ld.kind, ld.may_lds, ld.lds_write) == ("vmem_load", True, False)
    assert (st.kind, st.may_lds, st.lds_write) == ("vmem_store", True, True)
    assert (at.kind, at.may_lds, at.lds_write) == ("vmem_load", True, None)
    assert not inst("global_load_dword v0, v1, s[0:1]").may_lds


def test_lds_direction() -> None:
    assert inst("ds_read_b32 v2, v1").lds_write is False
    assert inst("ds_write_b32 v1, v2").lds_write is True
    assert inst("ds_add_u32 v1, v2").lds_write is None
    assert inst("buffer_load_dword v0, s[0:3], 0 offen lds").lds_write is True
    assert inst("global_load_dword v0, v1, s[0:1]").lds_write is None


# -- operands, registers, widths ------------------------------------------------------------


def test_operands_dests_uses() -> None:
    i = inst("global_load_dwordx4 v[4:7], v1, s[2:3] offset:16")
    assert i.mnemonic == "global_load_dwordx4"
    assert i.operands == ("v[4:7]", "v1", "s[2:3]", "offset:16")
    assert i.dests == ("v4", "v5", "v6", "v7")
    assert i.uses == ("v1", "s2", "s3")
    st = inst("global_store_dwordx2 v1, v[2:3], s[8:9]")
    assert st.dests == () and st.uses == ("v1", "v2", "v3", "s8", "s9")
    dma = inst("buffer_load_dword v3, s[0:3], 0 offen lds")
    assert dma.dests == () and "v3" in dma.uses
    assert expand("v[4:7]") == ["v4", "v5", "v6", "v7"] and expand("s5") == ["s5"] and expand("off") == []
    assert inst("ds_read_b32 v2, v1").dests == ("v2",)
    assert inst("ds_write_b32 v1, v2").dests == ()


@pytest.mark.parametrize(("code", "width"), [
    ("ds_read_b32 v0, v1", 4), ("ds_read_b64 v[0:1], v2", 8), ("ds_read_b96 v[0:2], v3", 12),
    ("ds_read_b128 v[0:3], v4", 16), ("ds_read_u8 v0, v1", 1), ("ds_read_i16 v0, v1", 2),
    ("ds_read_u16_d16_hi v0, v1", 2), ("ds_write_b8 v0, v1", 1),
    ("ds_read2_b32 v[0:1], v2 offset1:1", 8), ("ds_write2_b64 v0, v[2:3], v[4:5] offset1:1", 16),
    ("ds_read2st64_b32 v[0:1], v2 offset1:1", 8),
    ("buffer_load_dword v0, s[0:3], 0 offen lds", 4), ("buffer_load_dwordx4 v0, s[0:3], 0 offen lds", 16),
    ("global_load_lds_dwordx3 v1, s[4:5]", 12), ("buffer_load_ubyte v0, s[0:3], 0 offen lds", 1),
    ("buffer_load_ushort v0, s[0:3], 0 offen lds", 2), ("global_load_dwordx2 v[0:1], v2, s[0:1]", 8),
    ("global_load_short_d16 v0, v1, s[0:1]", 2), ("ds_load_b32 v0, v1", 4),
    ("ds_load_2addr_b32 v[0:1], v2 offset1:1", 8), ("ds_store_2addr_stride64_b64 v0, v[2:3], v[4:5]", 16),
    ("global_load_lds_b32 v1, s[4:5]", 4), ("ds_add_u32 v1, v2", 4),
])
def test_widths(code: str, width: int) -> None:
    assert inst(code).width == width


def test_ds_offsets() -> None:
    assert inst("ds_read_b32 v9, v2 offset:1020").offsets == (1020,)
    assert inst("ds_read2_b32 v[2:3], v1 offset0:2 offset1:5").offsets == (2, 5)
    assert inst("ds_read2_b32 v[2:3], v1 offset1:1").offsets == (1,)
    assert inst("ds_read_b32 v2, v1").offsets == ()
    assert inst("buffer_load_dword v0, s[0:3], 0 offen offset:64 lds").offsets == (64,)


# -- waits ------------------------------------------------------------------------------------

WAITS = [
    ("s_waitcnt vmcnt(0)", 9, {"vmcnt": 0}),
    ("s_waitcnt vmcnt(3) lgkmcnt(0)", 9, {"vmcnt": 3, "lgkmcnt": 0}),
    ("s_waitcnt vmcnt(1) & lgkmcnt(2)", 9, {"vmcnt": 1, "lgkmcnt": 2}),
    ("s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)", 9, {"vmcnt": 0, "expcnt": 0, "lgkmcnt": 0}),
    ("s_waitcnt lgkmcnt(0)", 9, {"lgkmcnt": 0}),
    ("s_waitcnt 0", 9, {"vmcnt": 0, "expcnt": 0, "lgkmcnt": 0}),
    ("s_waitcnt 0", 11, {"vmcnt": 0, "expcnt": 0, "lgkmcnt": 0}),
    # gfx9: vmcnt bits 3:0 and 15:14, expcnt 6:4, lgkmcnt 11:8
    ("s_waitcnt 0xc07f", 9, {"lgkmcnt": 0}),       # lgkmcnt(0) written as LLVM's intrinsic immediate
    ("s_waitcnt 49279", 9, {"lgkmcnt": 0}),
    ("s_waitcnt 0x3f71", 9, {"vmcnt": 1}),
    ("s_waitcnt 0x4f70", 9, {"vmcnt": 16}),
    # gfx10: lgkmcnt 13:8
    ("s_waitcnt 0xc07f", 10, {"lgkmcnt": 0}),
    ("s_waitcnt 0x3f70", 10, {"vmcnt": 0, "lgkmcnt": 63 & 0x3f}),
    # gfx11: vmcnt 15:10, lgkmcnt 9:4, expcnt 2:0
    ("s_waitcnt 0x3f7", 11, {"vmcnt": 0}),
    ("s_waitcnt 0xfc07", 11, {"lgkmcnt": 0}),
    ("s_waitcnt_vmcnt null, 0x0", 10, {"vmcnt": 0}),
    ("s_waitcnt_vscnt null, 0x1", 10, {"vscnt": 1}),
    ("s_waitcnt_lgkmcnt null, 0x0", 10, {"lgkmcnt": 0}),
    ("s_wait_loadcnt 0x0", 12, {"loadcnt": 0}),
    ("s_wait_loadcnt 2", 12, {"loadcnt": 2}),
    ("s_wait_storecnt 0x0", 12, {"storecnt": 0}),
    ("s_wait_dscnt 0x0", 12, {"dscnt": 0}),
    ("s_wait_loadcnt_dscnt 0x102", 12, {"loadcnt": 1, "dscnt": 2}),
    ("s_wait_loadcnt_dscnt 0x0", 12, {"loadcnt": 0, "dscnt": 0}),
]


@pytest.mark.parametrize(("code", "generation", "fields"), WAITS)
def test_wait_spellings(code: str, generation: int, fields: dict[str, int]) -> None:
    i = inst(code, generation)
    assert i.kind == "wait"
    if code == "s_waitcnt 0x3f70" and generation == 10:
        fields = {"vmcnt": 0}  # lgkmcnt 13:8 all ones: no wait on it
    assert i.wait == fields


def test_decode_waitcnt_matches_the_simulators_gfx9_decoder() -> None:
    from tests.support.vmcnt_sim import decode_gfx9_waitcnt

    for imm in (0, 0x3F71, 0xC07F, 0x4F70, 0x0F70, 0xFFFF, 0x8001):
        got = decode_waitcnt(imm, 9).get("vmcnt", 63)
        assert got == decode_gfx9_waitcnt(imm), hex(imm)


def test_a_comment_is_not_a_wait_and_producer_asm_is() -> None:
    fn = one("buffer_load_dword v0, s[0:3], 0 offen lds",
             ";;#ASMSTART", "; s_waitcnt vmcnt(0)", ";;#ASMEND",
             "// s_waitcnt vmcnt(0)",
             ";;#ASMSTART", "s_waitcnt vmcnt(0)", ";;#ASMEND",
             "ds_read_b32 v2, v1 ; s_waitcnt vmcnt(0)")
    assert [i.kind for i in fn.insts] == ["dma", "wait", "lds"]
    w = fn.insts[1]
    assert w.producer_asm and w.wait == {"vmcnt": 0}
    assert not fn.insts[0].producer_asm and not fn.insts[2].producer_asm
    assert fn.insts[2].text == "ds_read_b32 v2, v1"
    assert fn.insts[2].line == 14  # 1-based line in the .s (5 lines of header)


def test_loc_gives_the_ir_position() -> None:
    fn = one("s_mov_b32 m0, 0", ".loc 1 7 3 prologue_end ; x.ll:7:3",
             "buffer_load_dword v0, s[0:3], 0 offen lds", ".loc 1 0 3 is_stmt 0",
             "ds_read_b32 v2, v1", ".loc 1 9 12", "s_endpgm")
    assert [(i.ir_line, i.ir_col) for i in fn.insts] == [(0, 0), (7, 3), (0, 0), (9, 12)]


def test_loc_names_the_directory_of_its_file() -> None:
    """``.file N "dir" "name"`` (anywhere, also mid-function, as LLVM writes them when first
    used): each instruction knows the directory of the file its ``.loc`` names; a ``.file`` with
    one string (no directory) names none."""
    fn = one('.file 2 "blk-3" "x.ll"', ".loc 2 7 3", "ds_read_b32 v2, v1", '.file 3 "x.ll"', ".loc 3 8 1",
             "ds_read_b32 v3, v1", ".loc 2 0 0 is_stmt 0", "ds_read2_b32 v[4:5], v1 offset1:1", ".loc 1 9 1",
             "s_endpgm")
    assert [(i.ir_line, i.loc_dir) for i in fn.insts] == [(7, "blk-3"), (8, ""), (0, "blk-3"), (9, "")]


# -- functions and blocks ---------------------------------------------------------------------


def test_functions_end_at_lfunc_end_not_at_the_first_endpgm() -> None:
    fn = one("s_cbranch_scc1 .LBB0_2", "global_store_dword v1, v2, s[8:9]", "s_endpgm",
             ".LBB0_2:", "v_mov_b32_e32 v2, 0", "s_endpgm", ".section .rodata,\"a\",@progbits",
             ".amdhsa_kernel k", ".amdhsa_next_free_vgpr 3", ".end_amdhsa_kernel", ".text")
    assert [i.mnemonic for i in fn.insts] == ["s_cbranch_scc1", "global_store_dword", "s_endpgm",
                                              "v_mov_b32_e32", "s_endpgm"]
    assert [(b.label, b.first, b.last, b.succs) for b in fn.blocks] == [
        ("k", 0, 0, (2, 1)), ("k@1", 1, 2, ()), (".LBB0_2", 3, 4, ())]
    assert fn.resources[".amdhsa_next_free_vgpr"] == 3


def test_several_functions_and_objects() -> None:
    text = asm_of("s_setpc_b64 s[30:31]", name="f") + asm_of("s_endpgm", name="g").replace(
        ".Lfunc_end0", ".Lfunc_end1") + "\t.type\tobj,@object\n\t.globl\tobj\nobj:\n\t.byte\t0\n"
    fns = read_amdgpu(text)
    assert [f.name for f in fns] == ["f", "g"]
    assert [i.kind for i in fns[0].insts] == ["return"] and fns[0].blocks[0].succs == ()


def test_loop_branch_and_join_blocks() -> None:
    fn = one("s_cbranch_scc1 .LBB0_2",                    # 0: to the else arm
             "buffer_load_dword v0, s[0:3], 0 offen lds",  # 1
             "s_branch .LBB0_3",                           # 2
             ".LBB0_2:", "v_mov_b32_e32 v0, 0",            # 3
             ".LBB0_3:", "ds_read_b32 v2, v1",             # 4
             "s_cmp_eq_u32 s3, 0",                         # 5
             "s_cbranch_scc0 .LBB0_3",                     # 6: back edge
             "s_endpgm")                                   # 7
    assert [(b.label, b.first, b.last, b.succs) for b in fn.blocks] == [
        ("k", 0, 0, (2, 1)), ("k@1", 1, 2, (3,)), (".LBB0_2", 3, 3, (3,)), (".LBB0_3", 4, 6, (3, 4)),
        ("k@7", 7, 7, ())]
    assert fn.insts[6].target == ".LBB0_3"
    assert fn.block_of(5) == 3 and fn.block_of(0) == 0 and fn.block_of(7) == 4


def test_the_kernel_argument_preload_prologue() -> None:
    """LLVM jumps over the padding of the preloaded-argument prologue to the next label."""
    fn = one("s_load_dwordx4 s[8:11], s[4:5], 0x0", "s_waitcnt lgkmcnt(0)", "s_branch .LBB0_0",
             ".p2align 8", "; %bb.2:", ".LBB0_0:", "buffer_load_dword v0, s[0:3], 0 offen lds",
             "ds_read_b32 v2, v1", "s_endpgm")
    assert [(b.label, b.succs) for b in fn.blocks] == [("k", (1,)), (".LBB0_0", ())]
    assert fn.blocks[1].first == 3 and fn.insts[3].kind == "dma"


def test_a_long_branch_is_a_branch() -> None:
    fn = one("s_cbranch_scc0 .LBB0_1", "s_getpc_b64 s[4:5]", ".Lpost_getpc0:",
             "s_add_u32 s4, s4, (.LBB0_2-.Lpost_getpc0)&4294967295",
             "s_addc_u32 s5, s5, (.LBB0_2-.Lpost_getpc0)>>32", "s_setpc_b64 s[4:5]",
             ".LBB0_1:", "v_mov_b32_e32 v0, 0", ".LBB0_2:", "s_endpgm")
    labels = [b.label for b in fn.blocks]
    assert labels == ["k", "k@1", ".LBB0_1", ".LBB0_2"]
    assert fn.blocks[1].succs == (3,)


@pytest.mark.parametrize(("cpu", "gen"), [("gfx942", 9), ("gfx950", 9), ("gfx90a", 9), ("gfx908", 9),
                                          ("gfx1030", 10), ("gfx1100", 11), ("gfx1201", 12)])
def test_target_generation(cpu: str, gen: int) -> None:
    assert generation_of(cpu) == gen
    assert target_generation(asm_of("s_endpgm", target=cpu)) == gen
    assert target_generation(f"; llc -mcpu={cpu}\n") == gen
    assert target_generation(f"amdhsa.target:   amdgcn-amd-amdhsa--{cpu}\n") == gen
    assert target_generation("nothing\n") == 9


# -- real assembly ------------------------------------------------------------------------------




REAL = sorted((FIXTURES / "dma").glob("*.ll")) + [FIXTURES / "corpus" / "clang19" / "hip_lds_dma_O3.ll"]


def check_cfg(fn: AsmFunction) -> None:
    n = len(fn.insts)
    assert fn.blocks and fn.blocks[0].first == 0 and fn.blocks[-1].last == n - 1
    for b, blk in enumerate(fn.blocks):
        assert blk.first <= blk.last
        if b + 1 < len(fn.blocks):
            assert fn.blocks[b + 1].first == blk.last + 1
        assert all(0 <= s < len(fn.blocks) for s in blk.succs)
        end = fn.insts[blk.last]
        if end.target is not None:
            assert end.target in fn.labels
            assert fn.blocks[blk.succs[0]].first == fn.labels[end.target]
        for i in range(blk.first, blk.last):
            assert fn.insts[i].kind not in ("branch", "return"), fn.insts[i].text


@pytest.mark.parametrize("path", REAL, ids=[p.stem for p in REAL])
def test_real_assembly(path: Path) -> None:
    text = llvmlite_asm(path)
    fns = read_amdgpu(text)
    assert fns
    ir = path.read_text()
    dmas_in_ir = ir.count("call void @llvm.amdgcn.raw.ptr.buffer.load.lds(") + \
        ir.count("call void @llvm.amdgcn.global.load.lds(") + ir.count("call void @llvm.amdgcn.raw.buffer.load.lds(")
    dmas = [i for f in fns for i in f.insts if i.kind == "dma"]
    assert len(dmas) >= min(dmas_in_ir, 1) and dmas
    assert all(i.width in (1, 2, 4, 12, 16) for i in dmas)
    assert [i for f in fns for i in f.insts if i.kind == "lds"]
    vm_waits = [i for f in fns for i in f.insts if i.kind == "wait" and "vmcnt" in i.wait]
    # LLVM 22 drops that fixture's only wait (the lost wait it is about)
    assert bool(vm_waits) == (path.stem != "input_unsafe_rescued")
    for f in fns:
        check_cfg(f)
        assert f.resources.get(".vgpr_count") == f.resources.get("num_vgpr")
        assert ".sgpr_spill_count" in f.resources and ".private_segment_fixed_size" in f.resources


def test_corpus_kernels_in_detail() -> None:
    fns = read_amdgpu(llvmlite_asm(FIXTURES / "corpus" / "clang19" / "hip_lds_dma_O3.ll"))
    assert [f.name for f in fns] == ["_Z19dma_global_load_ldsPfPKfS1_i", "_Z10dma_bufferPfS_S_ii"]
    for f in fns:
        loop = [b for b in f.blocks if b.label.startswith(".LBB") and fn_index(f, b.label) in b.succs]
        assert loop, "the K loop has a back edge"
        body = loop[0]
        kinds = [f.insts[i].kind for i in range(body.first, body.last + 1)]
        assert kinds.count("dma") == 2 and kinds.count("lds") == 2


def fn_index(fn: AsmFunction, label: str) -> int:
    return [b.label for b in fn.blocks].index(label)


def test_llc19_resources_and_debug_locations(tmp_path: Path) -> None:
    llc = shutil.which("llc-19")
    if llc is None:
        pytest.skip("llc-19 not installed (apt-get install llvm-19); llvmlite rejects this clang -g module")
    out = tmp_path / "g.s"
    subprocess.run([llc, "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-O3", "-o", str(out),
                    str(FIXTURES / "corpus" / "clang19" / "hip_lds_dma_O3_g.ll")], check=True, timeout=120)
    fns = read_amdgpu(out.read_text(errors="replace"))
    assert len(fns) == 2
    for f in fns:
        check_cfg(f)
        dmas = [i for i in f.insts if i.kind == "dma"]
        assert len(dmas) == 2 and all(i.ir_line > 0 and i.ir_col > 0 for i in dmas)
        assert sum(1 for i in f.insts if i.ir_line) > len(f.insts) // 2
        # llc's "; Kernel info:" comments, besides the metadata
        assert isinstance(f.resources["NumVgprs"], int) and f.resources["NumVgprs"] == f.resources[".vgpr_count"]
        assert "ScratchSize" in f.resources and "Occupancy" in f.resources
        # debug labels (.Ltmp) do not split blocks
        assert not [b for b in f.blocks if b.label.startswith(".Ltmp")]


def test_a_function_without_lfunc_end_ends_at_the_next() -> None:
    text = "\t.globl\tf\n\t.type\tf,@function\nf:\n\ts_setpc_b64 s[30:31]\n" \
           "\t.type\tg,@function\ng:\n\tbuffer_atomic_add v0, v1, s[0:3], 0 offen glc\n\ts_endpgm\n"
    f, g = read_amdgpu(text)
    assert (f.name, len(f.insts), len(f.blocks)) == ("f", 1, 1)
    assert (g.name, [i.kind for i in g.insts]) == ("g", ["vmem_load", "return"])
    assert g.insts[0].dests == ("v0",) and "v0" in g.insts[0].uses


SPELLINGS = """target triple = "amdgcn-amd-amdhsa"
@A = addrspace(3) global [256 x i32] undef, align 4
define amdgpu_kernel void @k(ptr addrspace(1) %p, ptr addrspace(1) %q, i32 %n) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%i1, %loop]
  %g = getelementptr i32, ptr addrspace(1) %p, i32 %i
  %x = load i32, ptr addrspace(1) %g
  %a = getelementptr [256 x i32], ptr addrspace(3) @A, i32 0, i32 %t
  store i32 %x, ptr addrspace(3) %a
  call void @llvm.amdgcn.s.barrier()
  %y = load i32, ptr addrspace(3) @A
  %h = getelementptr i32, ptr addrspace(1) %q, i32 %i
  store i32 %y, ptr addrspace(1) %h
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
"""


@pytest.mark.parametrize(("cpu", "load_wait", "other_waits"), [
    ("gfx1030", {"vmcnt": 0}, {"lgkmcnt"}),
    ("gfx1100", {"vmcnt": 0}, {"lgkmcnt", "vscnt"}),
    ("gfx1200", {"loadcnt": 0}, {"kmcnt", "storecnt", "dscnt"}),
])
def test_llc19_wait_spellings_of_later_generations(tmp_path: Path, cpu: str, load_wait: dict[str, int],
                                                     other_waits: set[str]) -> None:
    """gfx10 and gfx11 write ``s_waitcnt_vscnt null, 0x0``; gfx12 ``s_wait_loadcnt``,
    ``s_wait_storecnt_dscnt`` and ``s_barrier_signal`` / ``s_barrier_wait``."""
    llc = shutil.which("llc-19")
    if llc is None:
        pytest.skip("llc-19 not installed (apt-get install llvm-19)")
    src = tmp_path / "k.ll"
    src.write_text(SPELLINGS)
    out = subprocess.run([llc, "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={cpu}", "-O3", "-o", "-", str(src)],
                         check=True, capture_output=True, text=True, timeout=120).stdout
    assert target_generation(out) == generation_of(cpu)
    (fn,) = read_amdgpu(out)
    check_cfg(fn)
    waits = [i.wait for i in fn.insts if i.kind == "wait"]
    assert load_wait in waits
    assert other_waits <= {k for w in waits for k in w}
    assert [i.kind for i in fn.insts if i.mnemonic.startswith(("global_", "ds_"))] == [
        "vmem_load", "lds", "lds", "vmem_store"]
    assert any(i.kind == "barrier" for i in fn.insts)
