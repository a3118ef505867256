"""DMAs scoped by their LDS operand (design section 3): the provenance rules that kept
FlyDSL's LDS-DMAs untagged, each with the twin where the answer must stay "no claim".

- ``make.buffer.rsrc`` has its base pointer's provenance; stride, num_records and flags
  are not addresses;
- a kernel argument of aggregate type is plain field by field (FlyDSL's size arguments
  ``<{ <{ i32 }> }>``); a pointer field is not a root;
- a memory intrinsic's result is a value read from memory (the loaded-integer rule), and
  the only values a table intrinsic stores are its data operands;
- a module without a triple (FlyDSL writes none) is AMDGPU when its code can only be
  compiled for AMDGPU, so a buffer resource never blocks a DMA in the LDS domain.
"""

from __future__ import annotations

import llnoalias
from llnoalias.analysis.memory.accesses import module_family
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile

HEAD = """@A = external addrspace(3) global [0 x i8], align 1024
@B = external addrspace(3) global [0 x i8], align 1024
"""
# @A and @B are dynamic LDS: one buffer from one start (design section 1), told apart only
# where their byte ranges are proved apart. A test of a claim between an access through an
# offset nothing bounds (an argument's) and another buffer uses this head instead, with @B
# a static (sized) variable: a buffer of its own whatever the offsets. (Not for an LDS-DMA:
# one into a static variable is no claim at all, ``dma_safety.lowered``.)
HEAD_STATIC_B = """@A = external addrspace(3) global [0 x i8], align 1024
@B = addrspace(3) global [1024 x i8] undef, align 1024
"""
DECLS = """declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)
declare i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32, ptr addrspace(8), i32, i32, i32)
declare <4 x float> @llvm.amdgcn.mfma.f32.4x4x1f32(float, float, <4 x float>, i32, i32, i32)
declare void @ext(i64)
"""


def _records(body: str, args: str, triple: str | None = 'target triple = "amdgcn-amd-amdhsa"\n',
             **kw: str) -> dict[tuple[str, str], tuple[bool, str]]:
    """(first word of the access's code, domain kind) -> (tagged, reason), for the accesses
    whose code starts with ``; name`` markers: each line of ``body`` that ends in
    ``; name`` is looked up by that name."""
    text = (triple or "") + kw.get("head", HEAD) + f"define amdgpu_kernel void @k({args}) {{\n{body}  ret void\n}}\n" + DECLS
    res = llnoalias.annotate(text, lds=kw.get("lds", "all"), args=kw.get("args", "noalias"))
    lines = text.splitlines()
    out: dict[tuple[str, str], tuple[bool, str]] = {}
    for a in res.report.accesses:
        line = lines[a.line - 1]
        if ";" not in line:
            continue
        name = line.rsplit(";", 1)[1].strip()
        dom = "lds" if a.domain == "llnoalias.lds" else "args"
        out[(name, dom)] = (a.tagged, a.reason)
    return out


# (@B's bytes 4096 on, apart from @A's first ones: the two DMAs are two regions of dynamic LDS)
DMA_TWO = """  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) @A, i32 4, i32 %v, i32 0, i32 0, i32 0) ; dmaA
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @B, i32 4096), i32 4, i32 %v, i32 0, i32 0, i32 0) ; dmaB
  %x = load i32, ptr addrspace(3) @A, align 4 ; readA
  %y = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @B, i32 4096), align 4 ; readB
  %s = add i32 %x, %y
  store i32 %s, ptr addrspace(1) %o, align 4 ; out
"""


# ------------------------------------------------------------------ make.buffer.rsrc


def test_rsrc_num_records_from_an_aggregate_argument_does_not_block() -> None:
    """FlyDSL's shape: num_records computed from a size argument ``<{ <{ i32 }> }>``."""
    body = ("  %n0 = extractvalue <{ <{ i32 }> }> %n, 0, 0\n  %n1 = sext i32 %n0 to i64\n"
            "  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %g, i16 0, i64 %n1, i32 159744)\n"
            + DMA_TWO)
    got = _records(body, "ptr addrspace(1) %g, <{ <{ i32 }> }> %n, ptr addrspace(1) %o, i32 %v")
    for dma in ("dmaA", "dmaB"):
        assert got[(dma, "lds")][0], got[(dma, "lds")]
        assert got[(dma, "args")][0], got[(dma, "args")]


def test_rsrc_num_records_with_an_address_still_has_the_base_provenance() -> None:
    """num_records is a size, not an address: even one computed from a pointer (ptrtoint)
    does not change which buffer the resource addresses."""
    body = ("  %n1 = ptrtoint ptr addrspace(1) %o to i64\n"
            "  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %g, i16 0, i64 %n1, i32 159744)\n"
            + DMA_TWO)
    got = _records(body, "ptr addrspace(1) %g, ptr addrspace(1) %o, i32 %v")
    assert got[("dmaA", "args")][0]


def test_rsrc_with_an_unknown_base_blocks_the_argument_domain_only() -> None:
    """The no-claim twin: a base pointer loaded from memory is unknown, so the DMA's global
    side has no argument root (untagged there); its LDS side still decides the LDS domain."""
    body = ("  %b = load ptr addrspace(1), ptr addrspace(1) %t, align 8\n"
            "  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %b, i16 0, i64 64, i32 159744)\n"
            + DMA_TWO)
    got = _records(body, "ptr addrspace(1) %t, ptr addrspace(1) %o, i32 %v")
    for dma in ("dmaA", "dmaB"):
        assert not got[(dma, "args")][0]
        assert "pointer loaded from memory" in got[(dma, "args")][1]
        assert got[(dma, "lds")][0], got[(dma, "lds")]


def test_dma_with_an_untraced_lds_destination_stays_untagged() -> None:
    """The other twin: the LDS operand itself unknown (loaded from memory) leaves the DMA
    untagged in the LDS domain, whatever the resource."""
    body = ("  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %g, i16 0, i64 64, i32 159744)\n"
            "  %d = load ptr addrspace(3), ptr addrspace(1) %t, align 8\n"
            "  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) %d, i32 4, i32 0, i32 0, i32 0, i32 0) ; dma\n"
            "  store i32 0, ptr addrspace(3) @A, align 4 ; wA\n  store i32 0, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @B, i32 65536), align 4 ; wB\n")
    got = _records(body, "ptr addrspace(1) %g, ptr addrspace(1) %t")
    assert not got[("dma", "lds")][0]
    assert "pointer loaded from memory" in got[("dma", "lds")][1]


# ------------------------------------------------------------------ aggregate arguments


def test_aggregate_argument_without_a_pointer_is_plain() -> None:
    """An offset from ``<{ <{ i32, i32 }>, <{ i64 }> }>`` keeps @A's root (like an i32)."""
    body = ("  %f = extractvalue <{ <{ i32, i32 }>, <{ i64 }> }> %n, 0, 1\n"
            "  %p = getelementptr i8, ptr addrspace(3) @A, i32 %f\n"
            "  store i32 1, ptr addrspace(3) %p, align 4 ; wA\n  store i32 2, ptr addrspace(3) @B, align 4 ; wB\n")
    got = _records(body, "<{ <{ i32, i32 }>, <{ i64 }> }> %n, [4 x float] %m", head=HEAD_STATIC_B)
    assert got[("wA", "lds")] == (True, "")
    assert got[("wB", "lds")] == (True, "")


def test_aggregate_argument_with_a_pointer_keeps_per_field_tracking() -> None:
    """Twin: the pointer field is not a root (unknown: no claim through it), while the
    integer field of the same argument is still a plain offset."""
    body = ("  %q = extractvalue { ptr addrspace(3), i32 } %s, 0\n"
            "  store i32 1, ptr addrspace(3) %q, align 4 ; wq\n"
            "  %f = extractvalue { ptr addrspace(3), i32 } %s, 1\n"
            "  %p = getelementptr i8, ptr addrspace(3) @A, i32 %f\n"
            "  store i32 1, ptr addrspace(3) %p, align 4 ; wA\n  store i32 2, ptr addrspace(3) @B, align 4 ; wB\n")
    got = _records(body, "{ ptr addrspace(3), i32 } %s", head=HEAD_STATIC_B)
    assert got[("wq", "lds")][0] is False
    assert "pointer field of the aggregate kernel argument %s" in got[("wq", "lds")][1]
    assert got[("wA", "lds")][0] is True


def test_aggregate_argument_of_a_device_function_stays_unknown() -> None:
    text = ('target triple = "amdgcn-amd-amdhsa"\n' + HEAD
            + "define void @f(<{ i32 }> %n) {\n  %f = extractvalue <{ i32 }> %n, 0\n"
            "  %p = getelementptr i8, ptr addrspace(3) @A, i32 %f\n  store i32 1, ptr addrspace(3) %p, align 4\n"
            "  store i32 2, ptr addrspace(3) @B, align 4\n  ret void\n}\n")
    recs = {a.line: a for a in llnoalias.annotate(text, lds="all").report.accesses}
    assert not recs[7].tagged and "aggregate type" in recs[7].reason


# ------------------------------------------------------------------ what memory holds

LOADED_OFFSET = """  %x = load i32, ptr addrspace(3) @B, align 4
  %p = getelementptr i8, ptr addrspace(3) @A, i32 %x
  store i32 1, ptr addrspace(3) %p, align 4 ; wA
  store i32 2, ptr addrspace(3) @B, align 4 ; wB
"""


def test_buffer_load_result_and_float_store_store_no_address() -> None:
    """FlyDSL's MoE GEMMs: a buffer-loaded i32 stored to LDS, and an mfma of buffer-loaded
    floats stored as ``float``: neither writes an address, so an integer loaded from LDS
    is a plain offset."""
    body = ("  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %g, i16 0, i64 64, i32 159744)\n"
            "  %i = call i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8) %r, i32 %v, i32 0, i32 0)\n"
            "  %c = getelementptr i8, ptr addrspace(3) @B, i32 64\n  store i32 %i, ptr addrspace(3) %c, align 4\n"
            "  %fi = bitcast i32 %i to float\n"
            "  %m = call <4 x float> @llvm.amdgcn.mfma.f32.4x4x1f32(float %fi, float %fi, <4 x float> zeroinitializer, i32 0, i32 0, i32 0)\n"
            "  %e = extractelement <4 x float> %m, i32 0\n  %d = getelementptr i8, ptr addrspace(3) @B, i32 128\n"
            "  store float %e, ptr addrspace(3) %d, align 4\n" + LOADED_OFFSET)
    got = _records(body, "ptr addrspace(1) %g, i32 %v")
    assert got[("wA", "lds")] == (True, ""), got[("wA", "lds")]


def test_store_of_a_pointer_derived_integer_still_makes_loaded_integers_unknown() -> None:
    """Twin: ``ptrtoint @A`` stored to memory: a loaded integer may be that address."""
    body = ("  %a = ptrtoint ptr addrspace(3) @A to i32\n  store i32 %a, ptr addrspace(1) %g, align 4\n"
            + LOADED_OFFSET)
    got = _records(body, "ptr addrspace(1) %g")
    assert got[("wA", "lds")][0] is False
    assert "writes an address to memory" in got[("wA", "lds")][1]


def test_buffer_store_of_an_address_still_counts() -> None:
    body = ("  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %g, i16 0, i64 64, i32 159744)\n"
            "  %a = ptrtoint ptr addrspace(3) @A to i32\n"
            "  call void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32 %a, ptr addrspace(8) %r, i32 0, i32 0, i32 0)\n"
            + LOADED_OFFSET)
    got = _records(body, "ptr addrspace(1) %g")
    assert got[("wA", "lds")][0] is False


def test_unknown_call_with_an_address_still_counts() -> None:
    body = "  %a = ptrtoint ptr addrspace(3) @A to i64\n  call void @ext(i64 %a)\n" + LOADED_OFFSET
    got = _records(body, "ptr addrspace(1) %g")
    assert got[("wA", "lds")][0] is False


def test_buffer_load_reads_what_memory_holds() -> None:
    """Twin of the first: once memory may hold an address, a buffer load's result is
    unknown too (before, an all-plain operand list made it plain)."""
    body = ("  %a = ptrtoint ptr addrspace(3) @A to i32\n  store i32 %a, ptr addrspace(1) %g, align 4\n"
            "  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) null, i16 0, i64 64, i32 0)\n"
            "  %i = call i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8) %r, i32 0, i32 0, i32 0)\n"
            "  %p = getelementptr i8, ptr addrspace(3) @A, i32 %i\n"
            "  store i32 1, ptr addrspace(3) %p, align 4 ; wA\n  store i32 2, ptr addrspace(3) @B, align 4 ; wB\n")
    got = _records(body, "ptr addrspace(1) %g")
    assert got[("wA", "lds")][0] is False
    assert "read from memory by llvm.amdgcn.raw.ptr.buffer.load.i32" in got[("wA", "lds")][1]


# ------------------------------------------------------------------ modules without a triple


def test_module_without_a_triple_is_amdgpu_by_its_code() -> None:
    """FlyDSL writes no triple: the buffer resource (addrspace 8) then counted as reaching
    LDS and blocked the DMA in the LDS domain. ``amdgpu_kernel`` and ``llvm.amdgcn.*`` can
    only be compiled for AMDGPU."""
    body = ("  %b = load ptr addrspace(1), ptr addrspace(1) %t, align 8\n"
            "  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %b, i16 0, i64 64, i32 159744)\n"
            + DMA_TWO)
    got = _records(body, "ptr addrspace(1) %t, ptr addrspace(1) %o, i32 %v", triple=None)
    assert got[("dmaA", "lds")][0] and got[("dmaB", "lds")][0]
    assert not got[("dmaA", "args")][0]


def _family(text: str) -> str:
    return module_family(parse_module(SourceFile("t.ll", text)))


def test_module_family_from_code_only_when_the_triple_says_nothing() -> None:
    k = "define amdgpu_kernel void @k() {\n  ret void\n}\n"
    nv = "define ptx_kernel void @k() {\n  ret void\n}\n"
    assert _family(k) == "amdgpu"
    assert _family(nv) == "nvptx"
    assert _family("define void @f() {\n  call void @llvm.nvvm.barrier0()\n  ret void\n}\n"
                   "declare void @llvm.nvvm.barrier0()\n") == "nvptx"
    assert _family(k + nv.replace("@k", "@j")) == "other"  # both: no guess
    assert _family("define void @f() {\n  ret void\n}\n") == "other"
    assert _family('target triple = "x86_64-unknown-linux-gnu"\n' + k) == "other"  # a triple is believed
    assert _family('target triple = "nvptx64-nvidia-cuda"\n' + k) == "nvptx"
