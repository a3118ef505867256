"""Counting waits, LDS DMA and PTX loads (llnoalias.stats.counters)."""

from __future__ import annotations

import json

import pytest

from llnoalias.stats import counters as asmstats
from llnoalias.stats.counters import SCHEMA, collect, detect_kind, diff, from_json, to_json
from tests.support.files import DATA

DATA = DATA / "asm"


def load(name: str) -> asmstats.FileStats:
    return collect((DATA / name).read_text(), name)


def nonzero(counts: dict[str, int]) -> dict[str, int]:
    """The non-zero wait and load counts (the register keys have tests of their own)."""
    registers = (*asmstats.REGISTER_KEYS, *asmstats.PTX_REGISTER_KEYS)
    return {k: v for k, v in counts.items() if v and k not in registers}


# ------------------------------------------------------------------ detection


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("gfx942_llc19.s", "amdgpu"),
        ("gfx950_llvmlite.s", "amdgpu"),
        ("gfx1200_llc19.s", "amdgpu"),
        ("gfx942_llc19.objdump", "amdgpu"),
        ("listing_addr_first.objdump", "amdgpu"),
        ("sm80_llc19.ptx", "ptx"),
    ],
)
def test_detect_kind(name: str, kind: str) -> None:
    assert detect_kind((DATA / name).read_text()) == kind


def test_detect_kind_minimal_ptx() -> None:
    assert detect_kind(".visible .entry k()\n{\n ret;\n}\n") == "ptx"
    assert detect_kind("\ts_waitcnt vmcnt(0)\n") == "amdgpu"


# ------------------------------------------------------------------ real llc / llvmlite output


def test_gfx942_llc_output() -> None:
    s = load("gfx942_llc19.s")
    assert s.kind == "amdgpu"
    assert list(s.kernels) == ["dma_loop", "global_lds"]
    assert nonzero(s.kernels["dma_loop"]) == {
        "waits": 3, "vmcnt": 1, "vmcnt_zero": 1, "lgkmcnt": 2, "lgkmcnt_zero": 2, "lds_dma": 1,
    }
    assert nonzero(s.kernels["global_lds"]) == {
        "waits": 4, "vmcnt": 2, "vmcnt_zero": 2, "lgkmcnt": 2, "lgkmcnt_zero": 2, "lds_dma": 1,
    }
    assert nonzero(s.total) == {
        "waits": 7, "vmcnt": 3, "vmcnt_zero": 3, "lgkmcnt": 4, "lgkmcnt_zero": 4, "lds_dma": 2,
    }


def test_objdump_of_the_same_object_counts_the_same() -> None:
    asm = load("gfx942_llc19.s")
    listing = load("gfx942_llc19.objdump")
    assert list(listing.kernels) == ["dma_loop", "global_lds"]
    # a listing has no metadata: the waits and loads are the same, the registers are the assembly's
    assert {k: nonzero(c) for k, c in listing.kernels.items()} == {k: nonzero(c) for k, c in asm.kernels.items()}
    assert nonzero(listing.total) == nonzero(asm.total)


def test_gfx950_dwordx4_lds_dma_from_llvmlite() -> None:
    s = load("gfx950_llvmlite.s")
    # buffer_load_dwordx4 ... lds and global_load_lds_dwordx4
    assert s.kernels["dma_loop"]["lds_dma"] == 1
    assert s.kernels["global_lds"]["lds_dma"] == 1
    assert s.total["vmcnt"] == 3
    # The .set directives llvmlite's LLVM emits (global_lds.num_vgpr ...) are no functions.
    assert list(s.kernels) == ["dma_loop", "global_lds"]


def test_gfx1200_split_counters() -> None:
    s = load("gfx1200_llc19.s")
    assert list(s.kernels) == ["copy_through_lds", "reduce"]
    assert nonzero(s.kernels["copy_through_lds"]) == {
        "waits": 4, "kmcnt": 1, "kmcnt_zero": 1, "loadcnt": 1, "loadcnt_zero": 1,
        "dscnt": 2, "dscnt_zero": 2,
    }
    # s_wait_loadcnt_dscnt 0x0 counts for both counters, but is one wait.
    assert nonzero(s.kernels["reduce"]) == {
        "waits": 2, "kmcnt": 1, "kmcnt_zero": 1, "loadcnt": 1, "loadcnt_zero": 1,
        "dscnt": 1, "dscnt_zero": 1,
    }
    assert "vmcnt" not in s.total  # no legacy counters invented for gfx12


def test_gfx1250_async_to_lds() -> None:
    s = load("gfx1250_llvmlite.s")
    assert nonzero(s.kernels["async_copy"]) == {
        "waits": 3, "kmcnt": 1, "kmcnt_zero": 1, "asynccnt": 1, "asynccnt_zero": 1,
        "dscnt": 1, "dscnt_zero": 1, "lds_dma": 2,
    }


def test_ptx_from_llc() -> None:
    s = load("sm80_llc19.ptx")
    assert s.kind == "ptx"
    assert list(s.kernels) == ["axpy", "stage", "helper"]
    assert dict(s.kernels["axpy"]) == {"ld.global.nc": 1, "ld.global": 1, "ld.shared": 0, "cp.async": 0,
                                       "st.global": 1, "st.shared": 0, "ld.local": 0, "st.local": 0}
    # ld.global.nc.v4.f32 {...}; cp.async.ca / .cg / commit_group / wait_group
    assert dict(s.kernels["stage"]) == {"ld.global.nc": 1, "ld.global": 0, "ld.shared": 1, "cp.async": 4,
                                        "st.global": 1, "st.shared": 0, "ld.local": 0, "st.local": 0}
    # st.param (the return value) is not a memory store
    assert dict(s.kernels["helper"]) == {"ld.global.nc": 0, "ld.global": 1, "ld.shared": 0, "cp.async": 0,
                                         "st.global": 0, "st.shared": 0, "ld.local": 0, "st.local": 0}
    assert dict(s.total) == {"ld.global.nc": 2, "ld.global": 2, "ld.shared": 1, "cp.async": 4,
                             "st.global": 2, "st.shared": 0, "ld.local": 0, "st.local": 0}


# ------------------------------------------------------------------ hand-written edge cases


def test_edge_cases_legacy_waits() -> None:
    s = load("edge_cases.s")
    assert list(s.kernels) == ["edge_gfx10", "edge.quoted", "edge_gfx12"]
    assert nonzero(s.kernels["edge_gfx10"]) == {
        "waits": 11,  # s_waitcnt_depctr is not counted; comments and metadata are skipped
        "vmcnt": 4, "vmcnt_zero": 2,
        "lgkmcnt": 3, "lgkmcnt_zero": 2,  # includes s_waitcnt_lgkmcnt null, 0x0
        "expcnt": 1, "expcnt_zero": 1,
        "vscnt": 3, "vscnt_zero": 2,  # s_waitcnt_vscnt null, 0x0 / 0x1 and vs_cnt(0)
        "waitcnt_encoded": 2, "waitcnt_encoded_zero": 1,  # s_waitcnt 0 and 0xc07f
        "lds_dma": 1,  # only the load with the bare 'lds' modifier
    }
    assert nonzero(s.kernels["edge.quoted"]) == {"waits": 1, "vmcnt": 1, "vmcnt_zero": 1, "lds_dma": 2}


def test_edge_cases_gfx12_waits() -> None:
    s = load("edge_cases.s")
    assert nonzero(s.kernels["edge_gfx12"]) == {
        "waits": 11,  # s_wait_alu and s_wait_idle are not counted
        "kmcnt": 1, "kmcnt_zero": 1,
        "loadcnt": 3, "loadcnt_zero": 1,  # 0x1, 0x0, and loadcnt_dscnt 0x100 (loadcnt 1)
        "storecnt": 2, "storecnt_zero": 2,
        "samplecnt": 1,
        "bvhcnt": 1, "bvhcnt_zero": 1,
        "expcnt": 1, "expcnt_zero": 1,
        "dscnt": 3, "dscnt_zero": 2,
        "asynccnt": 1, "asynccnt_zero": 1,
        "lds_dma": 2,
    }


def test_every_function_has_the_same_keys() -> None:
    s = load("edge_cases.s")
    keys = [set(c) for c in s.kernels.values()]
    assert all(k == set(s.total) for k in keys)
    assert s.total["waits"] == 23


def test_objdump_address_first_layout() -> None:
    s = load("listing_addr_first.objdump")
    # <L0> (from --symbolize-operands) is a label inside pingpong, not a function.
    assert list(s.kernels) == ["pingpong", "store_only"]
    assert nonzero(s.kernels["pingpong"]) == {
        "waits": 4, "vmcnt": 2, "vmcnt_zero": 1, "lgkmcnt": 2, "lgkmcnt_zero": 2, "lds_dma": 2,
    }
    assert nonzero(s.kernels["store_only"]) == {
        "waits": 2, "vmcnt": 1, "vmcnt_zero": 1, "lgkmcnt": 1, "lgkmcnt_zero": 1,
        "waitcnt_encoded": 1, "waitcnt_encoded_zero": 1, "lds_dma": 1,
    }


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("buffer_load_dword v1, s[4:7], 0 offen lds", 1),
        ("buffer_load_dwordx4 v1, s[4:7], 0 offen offset:16 lds", 1),
        ("buffer_load_ubyte v1, off, s[4:7], 0 lds", 1),
        ("buffer_load_lds_b32 off, s[4:7], 0", 1),
        ("buffer_store_lds_dword s[4:7], 0", 1),
        ("global_load_lds_dword v0, s[0:1]", 1),
        ("global_load_lds_dwordx4 v0, s[0:1] offset:16", 1),
        ("global_load_async_to_lds_b64 v0, v4, s[0:1]", 1),
        ("tensor_load_to_lds s[0:3], s[4:11]", 1),
        ("buffer_load_dword v1, s[4:7], 0 offen", 0),
        ("global_load_dword v1, v0, s[0:1]", 0),
        ("ds_read_b32 v1, v0", 0),
        ("ds_load_b128 v[0:3], v4", 0),
        ("s_mov_b32 m0, lds", 0),
        ("buffer_load_dword v1, s[4:7], 0 offset:lds_base", 0),
    ],
)
def test_lds_dma_is_precise(line: str, expected: int) -> None:
    s = collect(f"k:\n\t{line}\n", "x.s")
    assert s.total["lds_dma"] == expected


def test_ptx_forms() -> None:
    text = """
.version 8.0
.target sm_90
.address_size 64
.extern .func ext(.param .b64 p);
.global .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
.visible .func  (.param .b32 r) dev(
\t.param .b64 dev_param_0
)
{
\t.reg .b32 %r<4>;
\tld.global.nc.L1::no_allocate.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];
\tld.global.L1::evict_last.nc.u32 %r1, [%rd1]; ld.global.v2.u32 {%r2, %r3}, [%rd2];
\t@%p1 ld.global.nc.f32 %f5, [%rd3];
\t@!%p1 ld.relaxed.gpu.global.u32 %r1, [%rd4];
\tldu.global.u32 %r1, [%rd4];
\tld.param.u64 %rd1, [dev_param_0];
\tld.shared::cta.u32 %r1, [%r2];
\tld.volatile.shared.u32 %r1, [%r2];
\tst.global.u32 [%rd1], %r1;
\t{
\t.reg .pred %q;
\tld.global.u32 %r1, [%rd1];
\t}
$L__BB0_1:
\tcp.async.cg.shared.global.L2::128B [%r1], [%rd1], 16;
\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 64, [%r2];
\tcp.async.bulk.commit_group;
\tcp.async.mbarrier.arrive.b64 [%rd1];
\tcp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r1], 64;
\t// ld.global.nc.f32 %f1, [%rd1]; in a comment
\t/* cp.async.commit_group; in a block comment */
\tret;
}
.visible .entry k2()
{
\tret;
}
"""
    s = collect(text, "x.ptx")
    assert s.kind == "ptx"
    assert list(s.kernels) == ["dev", "k2"]
    assert dict(s.kernels["dev"]) == {"ld.global.nc": 3, "ld.global": 3, "ld.shared": 2, "cp.async": 4,
                                      "st.global": 1, "st.shared": 0, "ld.local": 0, "st.local": 0}
    assert dict(s.kernels["k2"]) == {"ld.global.nc": 0, "ld.global": 0, "ld.shared": 0, "cp.async": 0,
                                     "st.global": 0, "st.shared": 0, "ld.local": 0, "st.local": 0}


def test_ptx_stores_and_local_memory() -> None:
    """Every spelling of a global, shared and local store, and local loads (spills); stores
    without a state space, to .param, and other instructions that begin with 'st' are not
    counted."""
    text = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
	.local .align 4 .b8 __local_depot0[16];
	st.global.f32 [%rd1], %f1;
	st.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};
	st.global.wb.u32 [%rd1], %r1; @%p1 st.global.cs.v2.u64 [%rd2], {%rd3, %rd4};
	@!%p2 st.relaxed.gpu.global.u32 [%rd1], %r1;
	st.volatile.global.u8 [%rd1], %rs1;
	st.global.L1::no_allocate.b32 [%rd1], %r1;
	st.shared.u32 [%r1], %r2;
	st.shared::cta.v2.f32 [%r1], {%f1, %f2};
	st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];
	st.local.u32 [%rd5], %r1;
	st.local.v2.u32 [%rd5+8], {%r1, %r2};
	ld.local.u32 %r3, [%rd5];
	ld.local.v2.u32 {%r1, %r2}, [%rd5+8];
	ld.local.u32 %r4, [%SP+4];
	st.u32 [%rd6], %r1;
	st.param.b32 [param0], %r1;
	stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r1], {%r2, %r3, %r4, %r5};
	red.global.add.f32 [%rd1], %f1;
	atom.global.add.u32 %r1, [%rd1], 1;
	// st.global.f32 [%rd1], %f1; in a comment
	ret;
}
"""
    s = collect(text, "x.ptx")
    assert nonzero(s.kernels["k"]) == {"st.global": 7, "st.shared": 3, "st.local": 2, "ld.local": 3}
    assert asmstats.is_regression_counter("st.global") and asmstats.is_regression_counter("ld.local")
    assert asmstats.is_regression_counter("st.local") and not asmstats.is_regression_counter("st.shared")


def test_no_type_directives_takes_global_labels() -> None:
    s = collect("k1:\n\ts_waitcnt vmcnt(0)\n.LBB0_1:\n\ts_waitcnt vmcnt(1)\nk2:\n\ts_nop 0\n", "x.s")
    assert list(s.kernels) == ["k1", "k2"]
    assert s.kernels["k1"]["vmcnt"] == 2
    assert s.kernels["k2"]["vmcnt"] == 0


def test_instructions_outside_functions_go_to_toplevel() -> None:
    s = collect("\t.type k,@function\n\ts_waitcnt vmcnt(0)\nk:\n\ts_waitcnt lgkmcnt(0)\n", "x.s")
    assert list(s.kernels) == [asmstats.TOPLEVEL, "k"]
    assert s.kernels[asmstats.TOPLEVEL]["vmcnt"] == 1
    assert s.kernels["k"]["lgkmcnt"] == 1
    quiet = collect("\t.type k,@function\n\ts_nop 0\nk:\n\ts_waitcnt lgkmcnt(0)\n", "x.s")
    assert list(quiet.kernels) == ["k"]


def test_empty_input() -> None:
    s = collect("", "empty.s")
    assert s.kind == "amdgpu"
    assert s.kernels == {}
    assert dict(s.total) == {"waits": 0, "lds_dma": 0}


# ------------------------------------------------------------------ diff and JSON


def test_diff_rows() -> None:
    a = load("gate_annotated.s")
    b = load("gate_plain.s")
    d = diff(a, b)
    by = {(r.kernel, r.counter): r for r in d.rows}
    assert (by[("lds_pipeline", "vmcnt")].a, by[("lds_pipeline", "vmcnt")].b) == (1, 4)
    assert by[("lds_pipeline", "vmcnt")].delta == 3
    assert by[("copy", "vmcnt")].delta == 0
    assert by[(asmstats.TOTAL_ROW, "waits")].a == 5
    assert by[(asmstats.TOTAL_ROW, "waits")].b == 8


def test_diff_with_missing_kernel() -> None:
    a = collect("k1:\n\ts_waitcnt vmcnt(0)\n", "a.s")
    b = collect("k2:\n\ts_waitcnt vmcnt(0)\n", "b.s")
    d = diff(a, b)
    row = next(r for r in d.rows if r.kernel == "k1" and r.counter == "vmcnt")
    assert (row.a, row.b, row.delta) == (1, None, -1)
    row = next(r for r in d.rows if r.kernel == "k2" and r.counter == "vmcnt")
    assert (row.a, row.b, row.delta) == (None, 1, 1)


def test_json_round_trip() -> None:
    s = load("edge_cases.s")
    text = to_json([s])
    doc = json.loads(text)
    assert doc["schema"] == SCHEMA == "llnoalias.stats/1"
    assert doc["files"][0]["path"] == "edge_cases.s"
    assert doc["files"][0]["kind"] == "amdgpu"
    assert doc["files"][0]["kernels"]["edge_gfx10"]["vmcnt"] == 4
    assert doc["files"][0]["total"]["lds_dma"] == 5
    assert list(doc["files"][0]["total"])[:3] == ["waits", "vmcnt", "vmcnt_zero"]
    back = from_json(text)
    assert back[0].kernels == s.kernels
    assert back[0].total == s.total


def test_json_diff_section() -> None:
    a = load("gate_annotated.s")
    b = load("gate_plain.s")
    doc = json.loads(to_json([a, b], diff(a, b)))
    assert doc["diff"]["kernels"]["lds_pipeline"]["vmcnt"] == {"a": 1, "b": 4, "delta": 3}
    assert doc["diff"]["total"]["vmcnt_zero"] == {"a": 2, "b": 5, "delta": 3}


@pytest.mark.parametrize(
    "doc",
    [
        "[]",
        '{"schema": "llnoalias.stats/2", "files": []}',
        '{"schema": "llnoalias.stats/1", "files": {}}',
        '{"schema": "llnoalias.stats/1", "files": [{"path": "a", "kernels": {"k": {"vmcnt": -1}}}]}',
        '{"schema": "llnoalias.stats/1", "files": [{"path": "a", "kernels": {"k": {"vmcnt": "3"}}}]}',
        "not json",
    ],
)
def test_from_json_rejects(doc: str) -> None:
    with pytest.raises(asmstats.SchemaError):
        from_json(doc)


def test_one_assembly_reader() -> None:
    """``stats`` counts the instructions the assembly reader reads (``asm.reader``: the
    mnemonic and operands of a line, the counters a wait names); it has no instruction
    patterns of its own, and a wait it counts is the wait the reader (and so ``check``) sees."""
    from llnoalias.asm import reader
    from llnoalias.stats import counters as c

    assert c.split_instruction is reader.split_instruction
    assert c.named_counters is reader.named_counters and c.wait_counters is reader.wait_counters
    assert not [n for n in ("_LEGACY_COUNTER", "_SOPK_WAIT", "_SPLIT_WAIT") if hasattr(c, n)]
    for line, want in (("s_waitcnt vmcnt(0) lgkmcnt(1)", {"vmcnt": 0, "lgkmcnt": 1}),
                       ("s_waitcnt_vscnt null, 0x0", {"vscnt": 0}),
                       ("s_wait_loadcnt_dscnt 0x100", {"loadcnt": 1, "dscnt": 0}),
                       ("s_wait_asynccnt 0x0", {"asynccnt": 0})):
        inst = reader.parse_instruction(line, 0, 1, 12)
        assert inst.kind == reader.WAIT and inst.wait == want, line
        counts = c.collect(f"k:\n  {line}\n", "x.s").kernels["k"]
        assert counts["waits"] == 1 and {k for k in want} == {k for k in counts if k.endswith("cnt")}, line
        assert {k for k, v in want.items() if v == 0} == {k[:-5] for k in counts if k.endswith("_zero")}, line
